/* specpath.h - lazy verifiers (specpath.c): speculative decoders whose whole
 * path is drawn as they join, so that no step walks them; private to
 * src/sim/.
 *
 * A steady decoder verifying K drafts a step accepts a prefix of them,
 * each step's count drawn afresh from the acceptance rates (spec.h), so its
 * tokens per step are independent of everything the engine does while it
 * runs.  When one joins (finish_rank's verifying walk, spec_walk), its path
 * to completion is drawn at once and kept as per-step sums in rings indexed
 * by the replica's step count G: per coming step the drafts it accepts
 * (sp_acc) and the blocks it grows (sp_need: blocks_for(computed + q) less
 * the blocks held, vLLM's allocation at schedule time); its completion step
 * is queued as a lazy decoder's (dec_fin_queue).  The rest of a step's
 * description follows from two running sums, the verifiers' count n and
 * their summed context C (each advances by 1 + accepted a step): with
 * q = K + 1 query tokens (chunk_of, at most long_prefill_token_threshold)
 * a step holds n q tokens, decode_ctx_sum = q (C + n) + n q (q - 1) / 2 and
 * spec_ctx = C + n q, corrected for the steps of fewer drafts near a
 * request's end (sp_rare).  So a verifying request-step costs one draw and
 * one add at its join (a block crossing one more; a quarter of a draw in
 * runs, an eighth with one draft, below), and each step the
 * policy and plan_step read one slot instead of walking the requests;
 * finish_rank adds the slot's acceptance totals.  Where a request must be
 * seen one by one (vLLM's literal walk: a block or the budget short, a
 * preemption), spath_leave regenerates its path from the stream state kept
 * at its join, takes its future terms out and sets its fields as the
 * explicit walk would have them at that step.
 *
 * The draws: one 32-bit output of the spec stream (stream 11) per verifying
 * step, against the accepted count's distribution, P(a >= j) = rate_1 x ...
 * x rate_j (spec_accepted's: position j accepted with rate_j once 1..j-1
 * were), as integer thresholds on 2^32 (a granularity of 2.3e-10 in each
 * probability); with q - 1 < K drafts the count is min(a, q - 1), which is
 * spec_accepted's on the first q - 1 positions.  Where K <= 3, four steps
 * of K + 1 tokens (eight where K = 1) whose first slot is a multiple of
 * four (eight) in the ring (a run) take one output, their joint outcome (at
 * most 4^4 = 2^8) through an alias table: the same distribution to 2^-32
 * per outcome, a quarter (an eighth) of the draws, the counts added to the
 * ring as words of four slots and the block crossing (at most one a run
 * with blocks of at least a run's steps x (K + 1) tokens) looked up
 * (struct spath_draws).  The draws come in join order, not the walk's, so
 * a run's outputs move as with another seed.
 *
 * Only where nothing else reads a running request per step: the vLLM v1
 * walk's policies (vLLM, TensorRT-LLM) and SGLang's split batches without
 * --enable-mixed-chunk (its decode batch is every running request, G counts
 * decode batches; its admission reservation bounds their tokens left from
 * sp_K - sp_C, and where the bound cannot decide, or a decode batch must
 * retract, every verifier leaves and the replica walks them from then on,
 * sp_hold: a rejoin redraws the whole path, dearer than the walk), no PP, no P/D
 * prefill worker, pooled gaps not collected (eval, capacity probes), no
 * step log, not live, sim_cfg.no_lazy_decoders off; a request joins when
 * its blocks fill and grow anonymously (nothing to register or name). */
#ifndef SERVESIM_SIM_SPECPATH_H
#define SERVESIM_SIM_SPECPATH_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim/core.h"

/* May replica rp's verifying decoders join as lazy verifiers (set once,
 * sched_replica_init)? */
bool spath_applies(const struct sim *s, const struct replica *rp);

/* The thresholds of the accepted count for sp's rates, and the runs'
 * tables for verifying steps of kq drafts and KV blocks of bs tokens
 * (engine start-up: kq = spath_cap - 1). */
void spath_draws_init(const struct spec_cfg *sp, int64_t kq, int64_t bs, struct spath_draws *d);

/* r, a verifying decoder after its step (count rp->G), not done, joins:
 * its path drawn from s->spec_rng and added to the ring, its completion
 * queued. */
void spath_join(struct sim *s, struct replica *rp, struct req *r);
/* r, a lazy verifier, explicit again at step count rp->G (between steps):
 * its fields as the explicit walk leaves them, its future terms out of the
 * ring, its queued completion stale. */
void spath_leave(const struct sim *s, struct replica *rp, struct req *r);
/* Every lazy verifier of rp explicit again (a policy's literal walk). */
void spath_leave_all(const struct sim *s, struct replica *rp);
/* r, a lazy verifier, completes at this step (its queued completion came
 * due): its final fields. */
void spath_done(const struct sim *s, struct replica *rp, struct req *r);
/* The ring freed (sched_replica_release). */
void spath_release(struct replica *rp);

/* One verifying step's draw: the drafts accepted out of kq offered (kq <=
 * d->k), from the stream state *state of increment inc (stepped once). */
static inline int64_t spath_draw(const struct spath_draws *d, uint64_t *state, uint64_t inc, int64_t kq)
{
	uint32_t u = pcg32_output(*state);
	int64_t a = 0;
	int j;

	*state = *state * PCG32_MULT + inc;
	for (j = 0; j < d->k; j++) /* (ge falls with j: a branch-free count) */
		a += u < d->ge[j];
	return a < kq ? a : kq;
}

/* One run's draw (d->rk > 0): the outcome (d->tup's index) of d->rl
 * verifying steps of d->rk drafts each, from the stream state *state
 * (stepped once). */
static inline uint32_t spath_run_draw(const struct spath_draws *d, uint64_t *state, uint64_t inc)
{
	uint32_t u = pcg32_output(*state), i = u >> 24, keep;

	*state = *state * PCG32_MULT + inc;
	/* (a mask, not a branch: the cell's own outcome or its alias is a
	 * coin toss a mispredicted branch would pay for at every draw) */
	keep = (uint32_t)0 - (uint32_t)(u < d->cell[i].thr);
	return (i & keep) | (d->cell[i].alias & ~keep);
}

/* The accepted count of step j (0..d->rl - 1) of run outcome o. */
static inline int32_t spath_run_count(const struct spath_tuple *o, int j)
{
	uint16_t a[SPATH_RUN_MAX];

	memcpy(a, o->acc, sizeof(a));
	return a[j];
}

/* r, a verifying decoder just stepped, may join: its full blocks need no
 * registration (anonymous tail) and it will take no named block. */
static inline bool spath_may_join(const struct sim *s, const struct req *r)
{
	return r->nnamed <= r->nhashed && named_take(s, r, 1) == 0 && !r->aborting;
}

/* What the lazy verifiers add to the step that will end at count
 * rp->G + 1 (rp->nspath > 0). */
struct spath_next {
	int64_t n, tokens, need, ctx, spec_ctx;
};

static inline void spath_next_step(const struct replica *rp, int64_t cap, struct spath_next *x)
{
	uint64_t t = (uint64_t)(rp->G + 1) & rp->sp_mask;
	const struct spath_rare *ra = &rp->sp_rare[t];
	int64_t n = rp->sp_n, C = rp->sp_C;

	x->n = n;
	x->tokens = cap * n + ra->ctok;
	x->need = rp->sp_need[t];
	x->ctx = cap * (C + n) + n * (cap * (cap - 1) / 2) + ra->cctx;
	x->spec_ctx = C + x->tokens;
}

/* Step count rp->G has ended (rp->nspath > 0): its acceptance totals added
 * to s's, the running sums moved to the next step (every verifier's
 * context by 1 + accepted, then the joins and completions as it starts),
 * the slots read cleared for reuse. */
static inline void spath_step_ended(struct sim *s, struct replica *rp, int64_t cap)
{
	uint64_t t = (uint64_t)rp->G & rp->sp_mask, t1 = (uint64_t)(rp->G + 1) & rp->sp_mask;
	struct spath_rare *ra = &rp->sp_rare[t], *r1 = &rp->sp_rare[t1];
	int64_t n = rp->sp_n, acc = rp->sp_acc[t];

	s->tot.spec_verify += (uint64_t)(n - ra->nq1);
	s->tot.spec_drafted += (uint64_t)((cap - 1) * n + ra->ctok);
	s->tot.spec_accepted += (uint64_t)acc;
	rp->sp_C += n + acc + r1->dC;
	rp->sp_n += r1->dn;
	r1->dC = 0;
	r1->dn = 0;
	rp->sp_acc[t] = 0;
	rp->sp_need[t] = 0;
	*ra = (struct spath_rare){0, 0, 0, 0, 0, 0};
}

/* A verifying step's query tokens, K + 1 (chunk_of of a decoder with K or
 * more tokens left), at most long_prefill_token_threshold. */
static inline int64_t spath_cap(const struct sim *s)
{
	int64_t K = s->cfg.spec.k, lpt = s->cfg.long_prefill_token_threshold;

	return lpt > 0 && lpt < K + 1 ? lpt : K + 1;
}

#endif
