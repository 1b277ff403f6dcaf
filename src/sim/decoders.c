/* decoders.c - decoders, the requests in steady decode that the step loop
 * does not walk (see step.c): their completions in a ring of step buckets
 * and a heap, their joining and leaving, and the pooled token gaps delivered
 * per step. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/heap.h"
#include "core.h"
#include "sim/decoders.h"

/* steps ahead that a decoder's completion is kept in the replica's ring of
 * buckets (a power of two: 1024 steps covers the chat workloads' outputs)
 * rather than its heap: O(1) each instead of log(decoders) comparisons */
#define SCHED_FIN_RING 1024

/* the ring's first size: it doubles to cover the farthest completion
 * queued, up to SCHED_FIN_RING, so that a rank that sees a few short
 * requests (DP ranks of a large GPU budget) holds a few buckets only */
#define SCHED_FIN_RING_START 16

/* entries of a bucket's first array (one 64-byte line of 32-byte
 * entries: at the chat load a step completes under one decoder, and a
 * bucket that takes more grows from there), and the most first arrays a
 * chunk holds (the first chunks hold 4, 8, ...: a rank that sees a few
 * requests, as thousands of DP ranks do, takes a few lines) */
#define FIN_FIRST 2
#define FIN_CHUNK 64

static bool fin_before(const struct fin_entry *a, const struct fin_entry *b)
{
	return a->fin_G < b->fin_G || (a->fin_G == b->fin_G && a->rseq < b->rseq);
}

HEAP_SIFT_DEFINE(fin, struct fin_entry, fin_before)

static void heap_push(struct replica *rp, struct fin_entry e)
{
	XGROW(rp->heap, rp->heap_cap, rp->nheap + 1);
	fin_sift_up(rp->heap, rp->nheap++, e);
}

void dec_heap_pop(struct replica *rp)
{
	rp->nheap--;
	fin_sift_down(rp->heap, rp->nheap);
}

/* A bucket's first array: a spare one, or the next of the last chunk
 * (chunks aligned to a line, so that an array is one line). */
static struct fin_entry *first_get(struct fin_pool *p)
{
	char *c;

	if (p->nspare > 0)
		return p->spare[--p->nspare];
	if (p->left == 0) {
		size_t n = p->nchunks < 4 ? (size_t)4 << p->nchunks : FIN_CHUNK;
		c = xmalloc(n * FIN_FIRST * sizeof(struct fin_entry) + 64);
		XGROW(p->chunks, p->chunks_cap, p->nchunks + 1);
		p->chunks[p->nchunks++] = c;
		p->next = (struct fin_entry *)(void *)(c + (64 - (uintptr_t)c % 64) % 64);
		p->left = n;
	}
	p->left--;
	p->next += FIN_FIRST;
	return p->next - FIN_FIRST;
}

/* Room for one more entry at the end of bucket b of rp's ring: the slot,
 * counted in b->n, for its caller to fill.  A bucket's array is the
 * pool's while its cap is FIN_FIRST, its own (malloc'd) once it is
 * larger. */
static struct fin_entry *bucket_slot(struct replica *rp, struct fin_bucket *b)
{
	struct fin_pool *p = &rp->fin_pool;
	struct fin_entry *a;

	if (b->n == b->cap) {
		if (b->cap == 0) {
			b->e = first_get(p);
			b->cap = FIN_FIRST;
		} else if (b->cap == FIN_FIRST) {
			a = xmalloc(2 * FIN_FIRST * sizeof(*a));
			memcpy(a, b->e, FIN_FIRST * sizeof(*a));
			XGROW(p->spare, p->spare_cap, p->nspare + 1);
			p->spare[p->nspare++] = b->e;
			b->e = a;
			b->cap = 2 * FIN_FIRST;
		} else { /* (doubled, as XGROW would) */
			b->e = xreallocarray(b->e, 2 * (size_t)b->cap, sizeof(*b->e));
			b->cap *= 2;
		}
	}
	return &b->e[b->n++];
}

void dec_ring_release(struct replica *rp)
{
	struct fin_pool *p = &rp->fin_pool;
	size_t i;

	if (rp->ring)
		for (i = 0; i <= rp->ring_mask; i++)
			if (rp->ring[i].cap > FIN_FIRST)
				free(rp->ring[i].e);
	free(rp->ring);
	for (i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->spare);
	rp->ring = NULL;
	memset(p, 0, sizeof(*p));
}

/* Queue decoder completion e (fin_G > G): in the ring when it is due
 * within SCHED_FIN_RING steps, else in the heap.  The order in which one
 * step's completions are found does not matter: finish_rank sorts them
 * by running order, and their gaps are the same value. */
/* Double rp's ring until it covers completions d steps ahead (d <
 * SCHED_FIN_RING).  Every queued entry is due within the old size n of
 * G, so bucket j's entries go to j or j + n of the new ring, still one
 * due step per bucket. */
static void ring_grow(struct replica *rp, int64_t d)
{
	size_t n = rp->ring ? (size_t)rp->ring_mask + 1 : 0, j, k, m;

	if (!rp->ring) {
		for (m = SCHED_FIN_RING_START; (int64_t)m <= d; m *= 2)
			;
		rp->ring = xcalloc(m, sizeof(*rp->ring));
		rp->ring_mask = (uint32_t)(m - 1);
		return;
	}
	while ((int64_t)n <= d) {
		struct fin_bucket *r = xcalloc(2 * n, sizeof(*r));
		for (j = 0; j < n; j++) {
			struct fin_bucket *b = &rp->ring[j], *hi = &r[j + n];
			for (k = m = 0; k < b->n; k++) {
				if (b->e[k].fin_G & (int64_t)n) {
					*bucket_slot(rp, hi) = b->e[k];
				} else {
					b->e[m++] = b->e[k];
				}
			}
			b->n = (uint32_t)m;
			r[j] = *b;
		}
		free(rp->ring);
		rp->ring = r;
		n *= 2;
		rp->ring_mask = (uint32_t)(n - 1);
	}
}

void dec_fin_queue(struct replica *rp, struct req *r, int64_t fin)
{
	struct fin_bucket *b;
	struct fin_entry *slot;
	int64_t d = fin - rp->G;

	r->epoch++;
	r->heaped = true;
	r->heap_fin = fin;
	if (d >= SCHED_FIN_RING) {
		struct fin_entry e = {fin, r->rseq, r->epoch, r};
		heap_push(rp, e);
		return;
	}
	if (!rp->ring || d > rp->ring_mask)
		ring_grow(rp, d);
	b = &rp->ring[fin & rp->ring_mask];
	slot = bucket_slot(rp, b);
	slot->fin_G = fin;
	slot->rseq = r->rseq;
	slot->epoch = r->epoch;
	slot->r = r;
}

/* Turn a decoder back into an explicit request at the current step count
 * (between steps: a lean one holds exactly the blocks of its context). */
void sched_dec_leave(const struct sim *s, struct replica *rp, struct req *r)
{
	int64_t steps = rp->G - r->dG0;

	r->computed = r->dc0 + steps;
	r->generated = r->dg0 + steps;
	if (r->lean) {
		r->nblocks = blocks_for(s, r->computed);
		r->nhashed = (int32_t)full_blocks(s, r->computed);
		rp->cls_lean[r->cls]--;
		r->lean = false;
	} else {
		if (r->cprev)
			r->cprev->cnext = r->cnext;
		else
			rp->cls_head[r->cls] = r->cnext;
		if (r->cnext)
			r->cnext->cprev = r->cprev;
		r->cprev = r->cnext = NULL;
	}
	rp->cls_count[r->cls]--;
	rp->ndec--;
	rp->dstage[dec_stage_ix(r)].dec--;
	/* its last chunk was counted with the decoders; its delivery time
	 * is its next gap's start: the pending step's (always with vLLM),
	 * else (SGLang, a prefill batch since) delivered already, at tok_t */
	if (r->generated < r->output) {
		if (rp->pend_dec)
			dec_gap_push(rp, r, GAP_NONE, 0);
		else
			r->tok_ns = rp->tok_t;
	}
	rp->dec_base_sum -= r->dc0 - r->dG0;
	r->dec = false; /* its heap entry is skipped while it is explicit */
	if (s->cfg.policy->decoder_keys) { /* its dk slot takes the last one */
		rp->dk_sum -= rp->dk[r->dk_ix].k;
		rp->dk[r->dk_ix] = rp->dk[--rp->ndk];
		rp->dk[r->dk_ix].r->dk_ix = r->dk_ix;
	}
}
