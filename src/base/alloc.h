/* alloc.h - allocation that never returns NULL: out of memory aborts here,
 * in one place, and size arithmetic is overflow-checked. */
#ifndef SERVESIM_ALLOC_H
#define SERVESIM_ALLOC_H
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
/* xcalloc at an address that is a multiple of align (a power of two, at
 * least sizeof(void *), at most 4096): for arrays of records laid out by
 * cache line.  Released with xfree_aligned and the same count and size.
 * From XALLOC_MAPPED bytes up the pages are mapped apart from the heap and
 * unmapped when released: glibc keeps a large block in its heap once one
 * of that size has been freed (its mmap threshold rises to it), and an
 * array made and released again and again (one a capacity probe) then
 * leaves the heap in pieces that later ones do not fit (capacity --dp 4096
 * reached 163 MB at one size of struct sim, 54 MB at another; 39 MB with
 * its replica array mapped apart). */
void *xcalloc_aligned(size_t count, size_t size, size_t align);
void xfree_aligned(void *p, size_t count, size_t size);
#define XALLOC_MAPPED ((size_t)1 << 20)
/* The process's heap made ready for one long simulation (sim.h
 * sim_cfg.arrival_thread with many requests): grown by `bytes` at once (in
 * 16 MiB steps, at most 1 GiB) and kept (not trimmed back), blocks up to
 * 32 MiB taken from it rather than mapped apart, and its pages transparent
 * huge pages where the kernel gives them on request (Linux's MADV_HUGEPAGE;
 * a kernel in THP mode "madvise" waits for it).  A simulation's records,
 * replicas and request slabs are read all over tens of MB: with 4 KiB
 * pages nearly every access was a TLB miss and every 4 KiB a page fault.  Only the glibc heap of the calling
 * thread's arena (the first thread's); elsewhere nothing.  Touched memory
 * is resident in 2 MiB units.  Changes malloc's thresholds for the rest of
 * the process: for a command that runs one simulation. */
void xheap_huge(size_t bytes);
/* The same advice for the 2 MiB units that lie wholly inside [p, p + n)
 * (a large array another thread allocates, from its own arena).  Best
 * effort, no status. */
void xadvise_huge(void *p, size_t n);
void *xrealloc(void *p, size_t n);
/* xrealloc for an array of count elements of size bytes, overflow-checked. */
void *xreallocarray(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
/* a * b, aborting on overflow. */
size_t xmul(size_t a, size_t b);
/* a + b, aborting on overflow. */
size_t xadd(size_t a, size_t b);

/* Maps the pages of [p, p + n) that lie wholly inside it, as a write to
 * each would, without writing (Linux's MADV_POPULATE_WRITE; elsewhere, or
 * on a kernel without it, nothing): a thread with time to spare takes the
 * page faults of memory another is about to write.  The contents stay as
 * they are, so the other may write meanwhile.  Best effort, no status. */
void xprefault(void *p, size_t n);

/* Grow (*arr) so that it can hold at least `need` elements of `size` bytes;
 * capacity doubles.  XGROW checks the capacity inline (hot loops call it
 * at every push) and evaluates `need` and `cap` twice. */
void xgrow(void **arr, size_t *cap, size_t need, size_t size);
#define XGROW(arr, cap, need) \
	((need) <= (cap) ? (void)0 : xgrow((void **)&(arr), &(cap), (need), sizeof(*(arr))))

#endif
