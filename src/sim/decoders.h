/* decoders.h - decoders (decoders.c): the pooled token gaps pushed and
 * delivered inline (every step); private to src/sim/. */
#ifndef SERVESIM_SIM_DECODERS_H
#define SERVESIM_SIM_DECODERS_H
#include <stdbool.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/wdist.h"
#include "sim/core.h"
#include "sim/winblocks.h"

/* The earliest completion popped. */
void dec_heap_pop(struct replica *rp);
/* Decoder r's completion at step count fin (> G) queued as its live
 * entry (a new epoch: older entries of r are stale): in the ring of step
 * buckets when it is due within SCHED_FIN_RING steps, else in the heap.
 * (Given r and fin, not a struct fin_entry by value: the entry built on
 * the caller's stack and copied out by 16-byte loads across its
 * narrower stores was a store-to-load forwarding stall, a quarter of
 * sched_finish_step's samples in the 1 M chat run.) */
void dec_fin_queue(struct replica *rp, struct req *r, int64_t fin);
/* The ring, its buckets and their pool freed (sched_replica_release). */
void dec_ring_release(struct replica *rp);

/* The completions of replica rp's coming steps, fetched into the cache
 * while other replicas' events run (called as its next step's end is
 * queued): the request records of the bucket finish_rank reads next (G +
 * 1), the entries of the one after (G + 2), the bucket header of the
 * third (G + 3) -- each step's call finds the level it reads fetched by
 * the call before.  With many replicas (DP 64) their rings and records do
 * not stay in the cache from one of their steps to the next, and these
 * loads were a third of the step loop's samples.  Only hints: nothing
 * read or written changes. */
static inline void dec_fin_prefetch(const struct replica *rp)
{
	const struct fin_bucket *b;
	uint32_t m = rp->ring_mask;
	size_t i;

	if (!rp->ring)
		return;
	__builtin_prefetch(&rp->ring[(uint64_t)(rp->G + 3) & m]);
	b = &rp->ring[(uint64_t)(rp->G + 2) & m];
	if (b->n > 0)
		__builtin_prefetch(b->e);
	b = &rp->ring[(uint64_t)(rp->G + 1) & m];
	for (i = 0; i < b->n; i++)
		req_prefetch(b->e[i].r, sizeof(struct req));
}

/* What a chunk's delivery does: only note its time (a first chunk, or a
 * decoder turned explicit whose gap its step counted), or also add the
 * gap since the request's previous chunk (the last one carrying the
 * client-side terms after the last token). */
enum gap_kind { GAP_NONE, GAP_MID, GAP_LAST };

static inline int dec_stage_ix(const struct req *r)
{
	return r->stage > 255 ? 255 : r->stage;
}

/* r joins the decoders (inline: once per request, in the step loop's
 * finish walk, as before the mechanics' split into files). */
static SCHED_STEP_INLINE void dec_join(struct sim *s, struct replica *rp, struct req *r)
{
	int64_t fin;

	/* its window blocks as vLLM's next allocate_slots leaves them: the
	 * ones that left the window back, its next token's taken where the
	 * pool has them (then frozen while it is a decoder: winblocks.h) */
	if (r->nwin > 0) {
		int32_t k;
		winblk_skip(s, rp, r);
		k = winblk_need(s, r, 1);
		winblk_take(s, rp, r, k < kvc_available(&rp->kv) ? k : kvc_available(&rp->kv));
	}
	r->dec = true;
	r->dG0 = rp->G;
	r->dc0 = r->computed;
	r->dg0 = r->generated;
	if (s->cfg.policy->decoder_keys) {
		XGROW(rp->dk, rp->dk_cap, rp->ndk + 1);
		r->dk_ix = (int32_t)rp->ndk;
		rp->dk[rp->ndk].k = r->output - r->dg0 + r->dG0;
		rp->dk_sum += rp->dk[rp->ndk].k;
		rp->dk[rp->ndk++].r = r;
	}
	r->cls = cls_of(s, r->dc0 - r->dG0);
	r->cprev = r->cnext = NULL;
	r->lean = (r->nnamed < r->nblocks || !s->cfg.prefix_caching || !gets_hash(s, r, r->nblocks)) &&
		  r->nnamed <= r->nhashed && r->nblocks == blocks_for(s, r->computed) &&
		  r->nhashed == full_blocks(s, r->computed);
	if (r->lean) {
		rp->cls_lean[r->cls]++;
	} else {
		r->cnext = rp->cls_head[r->cls];
		if (r->cnext)
			r->cnext->cprev = r;
		rp->cls_head[r->cls] = r;
	}
	rp->cls_count[r->cls]++;
	rp->ndec++;
	rp->dstage[dec_stage_ix(r)].dec++;
	if (dec_stage_ix(r) >= rp->dec_stage_hi)
		rp->dec_stage_hi = dec_stage_ix(r) + 1;
	rp->dec_base_sum += r->dc0 - r->dG0;
	if (r->rseq > rp->dec_max_rseq || rp->ndec == 1)
		rp->dec_max_rseq = r->rseq;
	fin = r->dG0 + (r->output - r->dg0);
	/* back from an explicit spell that scheduled it at every step: its
	 * entry still holds the right step, so keep it (an overloaded replica
	 * walks every step and would otherwise push one entry per decoder per
	 * step) */
	if (r->heaped && r->heap_fin == fin)
		return;
	dec_fin_queue(rp, r, fin);
}

static SCHED_STEP_INLINE void dec_gap_push(struct replica *rp, struct req *r, enum gap_kind kind, int64_t k)
{
	struct gap_ent *g;

	if (rp->no_gaps) { /* sim_cfg.no_pooled_gaps: only counted */
		r->ngaps += kind != GAP_NONE;
		return;
	}
	XGROW(rp->gapq, rp->gapq_cap, rp->ngapq + 1);
	g = &rp->gapq[rp->ngapq++];
	g->r = r;
	g->id = r->id;
	g->k = (int32_t)k;
	g->kind = (uint8_t)kind;
	if (kind != GAP_NONE)
		r->ngaps++;
}

/* A gap of x ms seen by n requests of stage st: into the pooled gaps, or
 * to their consumer thread (sinkq.h). */
static SCHED_STEP_INLINE void dec_gap_add(struct sim *s, int st, double x, uint64_t n)
{
	if (s->sinkq)
		sinkq_gap(&s->sinkw, st, x, n);
	else
		wdist_add(&s->gapd[st], x, n);
}

/* The last finished step's chunks reach the client at t: the gaps. */
static SCHED_STEP_INLINE void dec_gaps_deliver(struct sim *s, struct replica *rp, int64_t t, const bool sg)
{
	const struct overheads *ov = &s->cost->cfg.ov; /* as engine.c's record() */
	bool h2;
	double stream, tail, v, run_x = 0;
	uint64_t run_n = 0;
	size_t i;
	int st, run_st = 0;

	if (s->cfg.no_pooled_gaps) { /* nobody reads them (sim.h) */
		rp->ngapq = 0;
		if (!sg || rp->pend_dec)
			rp->tok_t = t;
		return;
	}
	h2 = !(s->cost->cfg.off & COST_H2);
	stream = h2 ? ov->stream_token_us * 1e-3 : 0;
	tail = h2 ? ov->api_e2e_ms + stream : 0;
	v = (double)(t - rp->tok_t) * 1e-6 + stream;
	/* the others (a record reused since, a rejected request's, is
	 * skipped); runs of one value in one stage are added at once (the
	 * explicit requests of an SGLang decode batch mostly share the step's
	 * gap: one add instead of one per request; an exact distribution
	 * comes out the same, a bucketed one's sum up to rounding, as the
	 * decoders' weighted adds) */
	for (i = 0; i < rp->ngapq; i++) {
		const struct gap_ent *g = &rp->gapq[i];
		struct req *r = g->r;
		double x;
		if (r->id != g->id)
			continue;
		if (s->cfg.on_chunk && g->k > 0) /* live use (sim.h) */
			s->cfg.on_chunk(s->cfg.on_chunk_ctx, r->id, t, g->k,
					g->kind == GAP_LAST || (g->kind == GAP_NONE && r->generated >= r->output));
		if (g->kind != GAP_NONE) {
			x = (double)(t - r->tok_ns) * 1e-6 + stream * (double)g->k +
			    (g->kind == GAP_LAST ? tail : 0);
			st = dec_stage_ix(r);
			if (x == v && st < rp->dec_stage_hi) { /* as the decoders' */
				rp->dstage[st].lazy++;
			} else if (run_n > 0 && x == run_x && st == run_st) {
				run_n++;
			} else {
				if (run_n > 0)
					dec_gap_add(s, run_st, run_x, run_n);
				run_x = x;
				run_st = st;
				run_n = 1;
			}
		}
		r->tok_ns = t;
	}
	if (run_n > 0)
		dec_gap_add(s, run_st, run_x, run_n);
	/* the decoders' one-token chunks */
	for (st = 0; st < rp->dec_stage_hi; st++)
		if (rp->dstage[st].lazy > 0) {
			dec_gap_add(s, st, v, (uint64_t)rp->dstage[st].lazy);
			rp->dstage[st].lazy = 0;
		}
	rp->ngapq = 0;
	if (!sg || rp->pend_dec)
		rp->tok_t = t;
}

#endif
