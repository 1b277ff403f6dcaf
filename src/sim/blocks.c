/* blocks.c - KV blocks of the running requests: taken (named while their
 * content can be looked up), registered in the prefix cache as they fill,
 * freed, published for a preempted request's return, and the decoders' blocks
 * at a block boundary. */
#include "base/alloc.h"
#include "core.h"
#include "sim/blocks.h"
#include "sim/prefix.h"
#include "sim/reqpool.h"
#include "sim/runlist.h"
#include "sim/waitq.h"
#include "sim/winblocks.h"

void sched_take_blocks(struct sim *s, struct replica *rp, struct req *r, int32_t n)
{
	int32_t k = named_take(s, r, n);

	if (k > 0) {
		kvc_alloc_named_n(&rp->kv, &r->blocks[r->nblocks], k);
		r->nblocks += k;
		r->nnamed += k;
		n -= k;
	}
	if (n > 0) {
		kvc_alloc_anon(&rp->kv, n);
		r->nblocks += n;
	}
}

void blocks_free(const struct sim *s, struct replica *rp, struct req *r)
{
	int32_t full = r->nhashed > r->nnamed ? r->nhashed - r->nnamed : 0;

	/* reverse order, as vLLM frees: a request's tail blocks are evicted
	 * first.  The anonymous blocks are the tail, so they go first, as one
	 * batch; those past the full ones were never cached and are free */
	kvc_put_anon(&rp->kv, full, r->nblocks - r->nnamed - full);
	kvc_put_rev(&rp->kv, r->blocks, r->nnamed);
	winblk_free(s, rp, r);
	r->nblocks = r->nhashed = r->nnamed = 0;
	r->last_hash = 0;
	if (r->blocks)
		reqpool_ids_put(s, rp, r, r->blocks);
	r->blocks = NULL;
}

/* A preempted request may look its own blocks up when it comes back: give
 * its private blocks their real hashes before they are freed. */
static void publish_private(struct sim *s, struct replica *rp, struct req *r)
{
	if (!s->cfg.prefix_caching)
		return;
	if (r->nnamed < r->nhashed) {
		/* the chain through the last one (the values chain_at gives
		 * block by block), then names and registrations in one call */
		(void)prefix_chain_at(s, r, r->nhashed - 1);
		kvc_publish_anon(&rp->kv, &r->blocks[r->nnamed], &r->chain[r->nnamed],
				 r->nhashed - r->nnamed);
		r->nnamed = r->nhashed;
	}
}

void sched_preempt(struct sim *s, struct replica *rp, struct req *r)
{
	if (s->cfg.step_log)
		fprintf(s->cfg.step_log, "preempt %lld at t=%.6f\n", (long long)r->id,
			(double)s->now * 1e-9);
	runlist_remove(rp, r);
	if (s->cfg.lora.max_loras > 0)
		lora_run_drop(s, rp, r->lora);
	publish_private(s, rp, r);
	blocks_free(s, rp, r);
	r->computed = 0;
	r->transferred = false; /* its KV is gone: recomputed here */
	r->mm_done = false;     /* its images' embeddings freed with it (vLLM) */
	r->preempts++;
	s->tot.preemptions++;
	waitq_push_front(rp, r);
}

bool sched_grow_blocks(struct sim *s, struct replica *rp, struct req *r, int32_t need)
{
	if (need <= 0)
		return true;
	if (need > kvc_available(&rp->kv))
		return false;
	sched_take_blocks(s, rp, r, need);
	return true;
}

/* The decoders of class cls cross a block boundary at this step: the
 * named blocks are taken one by one, the anonymous ones counted (the lean
 * decoders' only counted) for one kvc_alloc_anon by the caller: how many. */
static inline int32_t crossing_blocks(struct sim *s, struct replica *rp, int32_t cls)
{
	int32_t anon = (int32_t)rp->cls_lean[cls];
	struct req *r;

	for (r = rp->cls_head[cls]; r; r = r->cnext) {
		if (r->nnamed < r->nblocks || !s->cfg.prefix_caching || !gets_hash(s, r, r->nblocks)) {
			r->nblocks++;
			anon++;
		} else {
			sched_take_blocks(s, rp, r, 1);
		}
	}
	return anon;
}

/* crossing_blocks, the anonymous ones allocated in bulk (a policy's step,
 * decode_steps). */
void blocks_take_crossing(struct sim *s, struct replica *rp, int32_t cls)
{
	int32_t anon = crossing_blocks(s, rp, cls);

	if (anon)
		kvc_alloc_anon(&rp->kv, anon);
}

int32_t sched_crossing_blocks(struct sim *s, struct replica *rp, int32_t cls)
{
	return crossing_blocks(s, rp, cls);
}

void sched_take_crossing(struct sim *s, struct replica *rp, int32_t cls)
{
	blocks_take_crossing(s, rp, cls);
}

/* Running request r leaves rp's running list, its adapter slot and its KV
 * blocks (a completion's, a hand-off's or an abort's). */
void blocks_leave(struct sim *s, struct replica *rp, struct req *r)
{
	runlist_remove(rp, r);
	if (s->cfg.lora.max_loras > 0)
		lora_run_drop(s, rp, r->lora);
	blocks_free(s, rp, r);
}
