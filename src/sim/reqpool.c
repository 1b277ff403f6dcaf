/* reqpool.c - request records and block-id arrays: records from slabs on a
 * free list (a malloc per request cost more than the work of a short one),
 * block-id arrays from per-replica pools by size class. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core.h"
#include "sim/reqpool.h"

/* The size class of r's block-id array: the blocks its prompt, output and
 * a step's speculative lookahead can fill (two spare), at most
 * max_blocks_per_req.  Sized for the request, not for max_model_len: a
 * chat request's array was 32 KiB for Llama-3.1's 131,072-token context,
 * mapped on its own in a search (src/cmd/search.c mallopt) and returned at
 * every probe's end, about 60,000 mmap/munmap pairs in the README's
 * Llama-3.1-70B search. */
static int ceil_log2(uint64_t v) /* v >= 2 */
{
	return 64 - __builtin_clzll(v - 1);
}

static int array_class(const struct sim *s, const struct req *r, int32_t *n)
{
	int64_t need = blocks_for(s, r->prompt + r->output + s->cfg.spec.k + 1) + 2;
	int64_t top = s->max_blocks_per_req > 16 ? s->max_blocks_per_req : 16;
	int c = need > 16 ? ceil_log2((uint64_t)need) - 4 : 0, ctop = ceil_log2((uint64_t)top) - 4;

	if (ctop > SCHED_ARRAY_CLASSES - 1)
		ctop = SCHED_ARRAY_CLASSES - 1;
	if (c >= ctop) { /* the largest class: the most a request may hold */
		*n = (int32_t)s->max_blocks_per_req;
		return ctop;
	}
	*n = 16 << c;
	return c;
}

int32_t *reqpool_ids_get(struct sim *s, struct replica *rp, struct req *r)
{
	int32_t n;
	int c;

	if (r->aclass > 0 && rp->narrays[r->aclass - 1] > 0) /* (a retry at the head of the queue) */
		return rp->arrays[r->aclass - 1][--rp->narrays[r->aclass - 1]];
	c = array_class(s, r, &n);
	r->aclass = (uint8_t)(c + 1);
	if (rp->narrays[c] > 0)
		return rp->arrays[c][--rp->narrays[c]];
	return xmalloc(xmul((size_t)n, sizeof(int32_t)));
}

void reqpool_ids_put(const struct sim *s, struct replica *rp, struct req *r, int32_t *a)
{
	int32_t n;
	int c = r->aclass > 0 ? r->aclass - 1 : array_class(s, r, &n);

	r->aclass = (uint8_t)(c + 1);
	XGROW(rp->arrays[c], rp->arrays_cap[c], rp->narrays[c] + 1);
	rp->arrays[c][rp->narrays[c]++] = a;
}

/* A record zeroed by 16-byte stores, unrolled: GCC makes memset of its
 * 400 bytes (and a loop of smaller stores) one `rep stosq`, whose start-up
 * costs more than the stores: 27 ns against 9.5 ns a record on this VM's
 * AMD EPYC (a loop over 1,024 records, L2-resident; callgrind counts the
 * `rep stosq` as ~50 instructions a request). */
static inline void req_zero(struct req *r)
{
	typedef uint64_t v2 __attribute__((vector_size(16), aligned(8)));
	const v2 z = {0, 0};
	char *p = (char *)r;
	size_t i;

	_Static_assert(sizeof(struct req) >= 16, "a record holds a vector");
#if defined(__clang__)
#pragma clang loop unroll(full)
#elif defined(__GNUC__)
#pragma GCC unroll 32
#endif
	for (i = 0; i + 16 <= sizeof(*r); i += 16)
		memcpy(p + i, &z, 16);
	if (sizeof(*r) % 16)
		memcpy(p + sizeof(*r) - 16, &z, 16);
}

struct req *reqpool_req_get(struct sim *s)
{
	struct req *r;

	if (!s->free_reqs) {
		/* slabs of 32, 64, ... 1024 records: linking a slab touches all
		 * of it, and a short run should not fault in 1024 records
		 * (320 KiB) it never uses (start-up, issue 13) */
		size_t i, n = s->nslabs < 5 ? (size_t)32 << s->nslabs : 1024;
		struct req *slab = xcalloc(n, sizeof(*slab));
		XGROW(s->slabs, s->slabs_cap, s->nslabs + 1);
		s->slabs[s->nslabs++] = slab;
		for (i = 0; i < n; i++) {
			slab[i].next_free = s->free_reqs;
			s->free_reqs = &slab[i];
		}
	}
	r = s->free_reqs;
	s->free_reqs = r->next_free;
	{
		/* a heap entry of the record's last holder (rejected after a
		 * preemption) may still be queued: its epoch goes on counting */
		uint32_t epoch = r->epoch;
		req_zero(r);
		r->epoch = epoch;
	}
	return r;
}

void sched_req_put(struct sim *s, struct req *r)
{
	r->next_free = s->free_reqs;
	s->free_reqs = r;
}

/* A bare record of arrival w, request id (what its arrival says). */
void reqpool_of_arrival(struct req *r, const struct wl_req *w, int64_t id)
{
	memset(r, 0, sizeof(*r));
	reqpool_set_arrival(r, w, id);
}
