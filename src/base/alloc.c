/* alloc.c - the one place where running out of memory is handled (by aborting). */
#define _GNU_SOURCE /* (MADV_POPULATE_WRITE) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "base/alloc.h"

static void oom(size_t n)
{
	fprintf(stderr, "servesim: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom(xmul(count, size));
	return p;
}

void *xcalloc_aligned(size_t count, size_t size, size_t align)
{
	size_t n = xmul(count ? count : 1, size ? size : 1);
	void *p;

#if defined(__linux__)
	if (n >= XALLOC_MAPPED) { /* (page-aligned, zeroed) */
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			oom(n);
		return p;
	}
#endif
	/* (C11's aligned_alloc wants a size that is a multiple of align) */
	n = xadd(n, align - 1) & ~(align - 1);
	p = aligned_alloc(align, n);
	if (!p)
		oom(n);
	return memset(p, 0, n);
}

void xfree_aligned(void *p, size_t count, size_t size)
{
	if (!p)
		return;
#if defined(__linux__)
	{
		size_t n = xmul(count ? count : 1, size ? size : 1);
		if (n >= XALLOC_MAPPED) {
			munmap(p, n);
			return;
		}
	}
#endif
	free(p);
}

/* a transparent huge page (x86-64, and arm64 with 4 KiB pages) */
#define XHUGE ((size_t)2 << 20)

void xheap_huge(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(__GLIBC__)
	enum { XHEAP_CHUNK = 16 << 20, XHEAP_CHUNKS = 64 };
	void *chunk[XHEAP_CHUNKS];
	uintptr_t lo, hi;
	size_t i, n = bytes / XHEAP_CHUNK;

	if (n > XHEAP_CHUNKS)
		n = XHEAP_CHUNKS;
	/* (the largest threshold glibc takes: 32 MiB on 64-bit hosts) */
	if (n == 0 || !mallopt(M_MMAP_THRESHOLD, 32 << 20) ||
	    !mallopt(M_TRIM_THRESHOLD, (int)(n * XHEAP_CHUNK + XHUGE)))
		return;
	lo = (uintptr_t)sbrk(0);
	for (i = 0; i < n; i++)
		chunk[i] = malloc(XHEAP_CHUNK);
	hi = (uintptr_t)sbrk(0);
	if (hi > lo)
		xadvise_huge((void *)lo, hi - lo);
	/* back to the heap's free top, which the trim threshold keeps */
	for (i = 0; i < n; i++)
		free(chunk[i]);
#else
	(void)bytes;
#endif
}

void xadvise_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	uintptr_t a = (uintptr_t)p, lo = (a + XHUGE - 1) & ~(uintptr_t)(XHUGE - 1), hi = (a + n) & ~(uintptr_t)(XHUGE - 1);

	if (p && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *xreallocarray(void *p, size_t count, size_t size)
{
	return xrealloc(p, xmul(count, size));
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = xmalloc(n);
	memcpy(d, s, n);
	return d;
}

size_t xmul(size_t a, size_t b)
{
	if (b && a > SIZE_MAX / b) {
		fprintf(stderr, "servesim: size overflow (%zu * %zu)\n", a, b);
		abort();
	}
	return a * b;
}

size_t xadd(size_t a, size_t b)
{
	if (a > SIZE_MAX - b) {
		fprintf(stderr, "servesim: size overflow (%zu + %zu)\n", a, b);
		abort();
	}
	return a + b;
}

void xgrow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t n;

	if (need <= *cap)
		return;
	n = *cap ? *cap : 8;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			oom(SIZE_MAX);
		n *= 2;
	}
	*arr = xreallocarray(*arr, n, size);
	*cap = n;
}

void xprefault(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p, lo, hi;

	if (pg <= 0 || n == 0)
		return;
	lo = (a + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	hi = (a + n) & ~((uintptr_t)pg - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}
