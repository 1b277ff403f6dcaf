/* step.c - the step loop: a step planned from the running requests and
 * the decoders, priced (the cost model, LoRA, images, offload, cold start),
 * its tokens delivered and its completions, aborts and speculative drafts
 * handled as it ends, PP stages and attention-DP groups stepped together.
 * The mechanics it works with are files of their own around core.h:
 * reqpool.c (request records), waitq.c (the waiting queue), runlist.c,
 * prefix.c (block hashes, prefix cache lookups), blocks.c (KV blocks),
 * decoders.c, admit.c (admission) and abort.c.  Which requests a step
 * runs is the policy's (sim_cfg.policy: vLLM v1's walk, SGLang's batches,
 * in src/engine/); this file names none.
 *
 * Speed without changing the policies' outcome: requests in steady decode
 * ("decoders") are not walked.  Their progress is a function of the
 * replica's step count G; they are grouped by the residue of their context
 * modulo block_size, so a step touches only the group that crosses a block
 * boundary (about 1/16 of them), and a min-heap holds the step at which each
 * completes.  A policy walks them only when its outcome could differ from
 * "everyone gets everything" (sched_dec_leave makes one explicit again);
 * with split batches (SGLang's) the prefill batches do not advance them: G
 * counts the decode batches.  The golden tests pin the outputs of every
 * path to the literal algorithm's, and test_sim runs each engine with and
 * without decoders (sim.h, no_lazy_decoders) and compares the bytes.
 * Speculative decoders verifying drafts are not walked either where
 * specpath.h says (vLLM's and TensorRT-LLM's schedulers, pooled gaps only
 * counted): their whole path is drawn as they join, so their draws come in
 * another order and test_sim compares the two ways in distribution. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/simtime.h"
#include "core.h"
#include "sim/abort.h"
#include "sim/blocks.h"
#include "sim/decoders.h"
#include "sim/prefix.h"
#include "sim/specpath.h"

static void step_log_line(struct sim *s, struct replica *rp, int ri, double t)
{
	const struct req *r;

	fprintf(s->cfg.step_log, "step %llu t=%.6f r%d:", (unsigned long long)s->tot.steps,
		(double)s->now * 1e-9, ri);
	for (r = rp->run_head; r; r = r->next) {
		if (r->dec && rp->dec_run)
			fprintf(s->cfg.step_log, " %lld+1", (long long)r->id);
		else if (r->scheduled && !r->inflight) /* PP: this batch's only */
			fprintf(s->cfg.step_log, " %lld+%lld", (long long)r->id, (long long)r->step_tokens);
	}
	fprintf(s->cfg.step_log, " | run %zu wait %zu kv %d/%d dur=%.6f\n", rp->nrun, rp->wlen,
		kvc_used(&rp->kv), rp->kv.total, t);
}

/* The decoders' part of a step's description: computed + 1 summed =
 * sum(dc0 - dG0) + ndec (G + 1). */
static SCHED_STEP_INLINE void describe_decoders(const struct replica *rp, struct step_desc *d)
{
	d->ndecode += rp->ndec;
	d->decode_ctx_sum += (double)(rp->dec_base_sum + rp->ndec * (rp->G + 1));
	d->nlogits += rp->ndec;
}

/* Every decoder made a one-token chunk, a step after its last one: their
 * gaps (one per decoder, by stage) and the step count. */
static SCHED_STEP_INLINE void decoders_stepped(struct replica *rp)
{
	if (!rp->no_gaps) { /* (usually one stage) */
		int st;
		if (rp->dec_stage_hi == 1)
			rp->dstage[0].lazy = rp->dstage[0].dec;
		else
			for (st = 0; st < rp->dec_stage_hi; st++)
				rp->dstage[st].lazy = rp->dstage[st].dec;
	}
	rp->G++;
}

/* The decoders of class cls whose newest block just filled: its content
 * registered (a lean one's is anonymous: only counted). */
static SCHED_STEP_INLINE void register_filled(struct sim *s, struct replica *rp, int32_t cls)
{
	struct req *r;

	for (r = rp->cls_head[cls]; r; r = r->cnext) {
		int64_t computed = r->dc0 + rp->G - r->dG0;
		if (r->nnamed <= r->nhashed) /* anonymous tail: nothing to register */
			r->nhashed = (int32_t)full_blocks(s, computed);
		else
			blocks_register_full(s, rp, r, computed);
	}
}

/* An empty description of replica rp's next step (no drafts after it yet). */
static SCHED_STEP_INLINE void desc_start(struct replica *rp, struct step_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->chunk_len = rp->chunk_len;
	d->chunk_prefix = rp->chunk_prefix;
	rp->spec_n = 0;
	rp->spec_ctx = 0;
}

/* Schedule replica ri's next step and describe it for the cost model;
 * false when it has nothing to run.  sp: speculative decoding may be on
 * (false: s->cfg.spec.k is 0, and the drafts' and plan_ahead's parts are
 * compiled out). */
static SCHED_STEP_INLINE bool plan_step(struct sim *s, int ri, struct step_desc *d, const bool sg,
					const bool sp)
{
	struct replica *rp = &s->reps[ri];
	size_t i;

	rp->nsched = 0;
	rp->ahead_used = rp->sched_others = false;
	s->cfg.policy->schedule(s, rp);
	rp->ahead_valid = false;
	if (rp->nsched == 0 && rp->ndec == 0 && rp->nspath == 0)
		return false;
	if (rp->nsched > rp->chunk_cap) { /* a chunk per scheduled request at most */
		rp->chunk_cap = rp->nsched > 2 * rp->chunk_cap ? rp->nsched : 2 * rp->chunk_cap;
		rp->chunk_len = xreallocarray(rp->chunk_len, rp->chunk_cap, sizeof(int64_t));
		rp->chunk_prefix = xreallocarray(rp->chunk_prefix, rp->chunk_cap, sizeof(int64_t));
	}
	desc_start(rp, d);
	i = 0;
	if (sp && rp->ahead_used) { /* the others, every one a decoder (plan_ahead) */
		rp->spec_n = rp->ahead.n;
		rp->spec_ctx = (double)rp->ahead.spec_ctx;
		d->decode_ctx_sum = (double)rp->ahead.ctx;
		d->ndecode = d->nlogits = rp->ahead.tokens;
		i = (size_t)rp->ahead.n;
	}
	for (; i < rp->nsched; i++) {
		const struct req *r = rp->sched[i];
		bool samples = r->computed + r->step_tokens == req_num_tokens(r), dec = decoding(r);
		if (sp && s->cfg.spec.k > 0 && dec) {
			/* drafts for the next step follow this one */
			rp->spec_n++;
			rp->spec_ctx += (double)(r->computed + r->step_tokens);
		}
		if (sp && r->step_tokens > 1 && dec) {
			/* verification: K+1 query tokens through the decode
			 * kernels (GEMM rows, decode attention over the context
			 * up to each position, the LM head on every position) */
			int64_t q = r->step_tokens;
			/* sum of computed + 1 + i, i < q, in one add: the
			 * same value as q adds, every partial sum an integer
			 * below 2^53 */
			d->decode_ctx_sum += (double)(q * (r->computed + 1) + q * (q - 1) / 2);
			d->ndecode += r->step_tokens;
			d->nlogits += r->step_tokens;
			continue;
		}
		if (r->step_tokens == 1 && samples && r->generated > 0) {
			d->ndecode++;
			d->decode_ctx_sum += (double)(r->computed + 1);
		} else {
			rp->chunk_len[d->nchunks] = r->step_tokens;
			rp->chunk_prefix[d->nchunks] = r->computed;
			d->nchunks++;
		}
		d->nlogits += samples;
	}
	if (rp->nspath > 0 && (!sg || rp->dec_run)) { /* the lazy verifiers' sums (specpath.h) */
		struct spath_next x;
		spath_next_step(rp, spath_cap(s), &x);
		rp->spec_n += x.n;
		rp->spec_ctx += (double)x.spec_ctx;
		d->decode_ctx_sum += (double)x.ctx;
		d->ndecode += x.tokens;
		d->nlogits += x.tokens;
	}
	if (!sg || rp->dec_run)
		describe_decoders(rp, d);
	return true;
}

/* KV offload: a step of t seconds of compute with the host tier's
 * transfers since the last step priced (the loads its admissions took,
 * the blocks the GPU's evictions wrote), met as sim_cfg.offload.overlap
 * says (sim.h); the transfers' totals. */
static double offload_step_s(struct sim *s, struct replica *rp, double t)
{
	const struct sim_offload *o = &s->cfg.offload;
	double load = (double)rp->host_loads * o->block_s, u;
	uint64_t stored = rp->host.stored - rp->host_stored_seen;

	rp->host_stored_seen = rp->host.stored;
	rp->host_loads = 0;
	s->tot.host_stored_blocks += stored;
	switch (o->overlap) {
	case OFFLOAD_ASYNC:
		u = t > load ? t : load;
		break;
	case OFFLOAD_LAYERWISE:
		u = (t > load ? t : load) + (t < load ? t : load) / (o->layers > 0 ? o->layers : 1);
		break;
	case OFFLOAD_SYNC:
	default:
		u = t + load + (double)stored * o->block_s;
		break;
	}
	s->tot.offload_exposed_s += u - t;
	return u;
}

/* sim_cfg.cold_start_s: the one-time stall of a cold server's first
 * prefill step right after another prefill step, else 0. */
static double cold_start_stall_s(struct sim *s, struct replica *rp, const struct step_desc *d)
{
	bool pre = d->nchunks > 0, stall = pre && rp->cold_last_prefill;

	rp->cold_last_prefill = pre;
	if (!stall)
		return 0;
	rp->cold_paid = true;
	return s->cfg.cold_start_s;
}

static int64_t step_tokens(const struct step_desc *d);

static bool jit_mark(struct replica *rp, int64_t key)
{
	bool had;

	if (key < 0)
		return true;
	if (key >= rp->jit_nkeys)
		key = rp->jit_nkeys - 1;
	had = rp->jit_seen[key / 8] & (1u << (key % 8));
	rp->jit_seen[key / 8] |= (uint8_t)(1u << (key % 8));
	return had;
}

/* The stall of a prefill step whose size aiter's Triton GEMM has not met
 * (cost_tbs_jit_key, cost/tritonbs.c): its kernels compile before the
 * step runs, once per key.  The first prefill step first marks the sizes
 * the client's warm-up met (sim_cfg.jit_warm_clients: C copies of the first
 * request's prompt at once, in batches of the step budget), as
 * benchmark_serving's warm-up runs them before the measured phase. */
static double jit_stall_s(struct sim *s, struct replica *rp, const struct step_desc *d)
{
	const struct cost_model *c = rp->cost;

	if (d->nchunks == 0)
		return 0;
	if (!rp->jit_warmed) {
		int64_t c0 = s->cfg.jit_warm_clients, budget = rp->mbt, w;
		rp->jit_warmed = true;
		if (s->cfg.max_prefill_tokens > 0 && s->cfg.max_prefill_tokens < budget)
			budget = s->cfg.max_prefill_tokens;
		if (c0 > 0 && rp->nsched > 0 && budget > 0) {
			w = c0 * rp->sched[0]->prompt;
			if (w >= budget)
				jit_mark(rp, cost_tbs_jit_key(c, budget));
			if (w % budget)
				jit_mark(rp, cost_tbs_jit_key(c, w % budget));
		}
	}
	if (jit_mark(rp, cost_tbs_jit_key(c, step_tokens(d))))
		return 0;
	return c->tbs_jit_kernels * c->tbs_jit_s;
}

/* An attention-DP group step's shared MoE layers, priced for the first of
 * its ranks whose step splits (cost_step_splits) and kept for the others:
 * every rank's step has the group's MoE tokens (c: the cost model it was
 * priced by, NULL before); and whether a decode-only step of the group
 * splits (cost_splits_decode of cost model sc, NULL before: tested once
 * per group step and model, not at each rank). */
struct group_moe {
	const struct cost_model *c;
	double s;
	const struct cost_model *sc;
	bool split;
};

/* cost_step_splits of a decode-only step of a group step (gm; its MoE
 * tokens, one at least a rank, are > 0). */
static SCHED_STEP_INLINE bool group_splits(struct group_moe *gm, const struct cost_model *c)
{
	if (gm->sc != c) {
		gm->sc = c;
		gm->split = cost_splits_decode(c);
	}
	return gm->split;
}

/* A decode-only step of ndec requests (d->ndecode), memo key k0: the
 * decode-price memo's price, else cost_step_s's, kept. */
static SCHED_STEP_INLINE double decode_price(struct replica *rp, uint64_t k0, int64_t ndec,
					     const struct step_desc *d)
{
	struct dmemo_ent *slot;
	double t;

	if (!stepmemo_get(rp->prices, rp->lane_price, k0, ndec, d->decode_ctx_sum, &t, &slot)) {
		t = cost_step_s(rp->cost, d);
		stepmemo_put(slot, k0, d->decode_ctx_sum, t);
	}
	return t;
}

/* Price replica ri's planned step: the forward pass plus the drafting that
 * follows it with speculative decoding, and the host tier's transfers
 * with KV offload.  gm: its group step's MoE part (NULL: a step alone).
 * grp: an attention-DP group's rank, its memo lookups' keys and slots
 * located ahead (group_memo_ahead: every lookup it makes). */
static SCHED_STEP_INLINE double rank_cost_sp(struct sim *s, struct replica *rp, const struct step_desc *d,
					     struct group_moe *gm, const bool sp, const bool grp)
{
	double t;

	if (d->nchunks == 0 && d->moe_tokens == 0) { /* decode only: it may repeat one priced before */
		t = decode_price(rp, stepmemo_key(d->ndecode, d->nlogits), d->ndecode, d);
	} else if (gm ? d->nchunks == 0 && group_splits(gm, rp->cost) : cost_step_splits(rp->cost, d)) {
		/* an attention-DP rank's decode step: its own part may repeat
		 * one priced before (whatever the group's MoE tokens: the
		 * part kept does not depend on them), the MoE layers are a
		 * table lookup */
		struct dmemo_ent *slot;
		uint64_t k0 = grp ? rp->at_moe.k0 : stepmemo_key(d->ndecode, d->nlogits);
		double l;
		if (!(grp ? stepmemo_get_at(rp->moe_memo, rp->lane_moe, &rp->at_moe, k0, d->ndecode, d->decode_ctx_sum,
					    &l, &slot)
			  : stepmemo_get(rp->moe_memo, rp->lane_moe, k0, d->ndecode, d->decode_ctx_sum, &l, &slot))) {
			l = cost_step_local_s(rp->cost, d);
			stepmemo_put(slot, k0, d->decode_ctx_sum, l);
		}
		if (!gm) {
			t = cost_step_join_s(rp->cost, d, l);
		} else {
			if (gm->c != rp->cost) {
				gm->c = rp->cost;
				gm->s = cost_step_moe_s(rp->cost, d->moe_tokens, d->moe_extend);
			}
			t = cost_step_join_moe_s(rp->cost, d, l, gm->s);
		}
	} else {
		t = cost_step_s(rp->cost, d);
	}

	if (sp && rp->spec_n > 0) {
		/* the drafting: a pure function of its requests and their
		 * summed contexts, kept as a decode step's price is */
		struct dmemo_ent *slot;
		uint64_t k0 = grp ? rp->at_draft.k0 : stepmemo_key(rp->spec_n, 0);
		double dr;
		if (!(grp ? stepmemo_get_at(rp->drafts, NULL, &rp->at_draft, k0, rp->spec_n, rp->spec_ctx, &dr, &slot)
			  : stepmemo_get(rp->drafts, NULL, k0, rp->spec_n, rp->spec_ctx, &dr, &slot))) {
			dr = spec_draft_s(&s->cfg.spec, rp->cost, rp->spec_n, rp->spec_ctx);
			stepmemo_put(slot, k0, rp->spec_ctx, dr);
		}
		t += dr;
	}
	if (s->cfg.cold_start_s > 0 && !rp->cold_paid)
		t += cold_start_stall_s(s, rp, d);
	if (rp->jit_seen)
		t += jit_stall_s(s, rp, d);
	if (rp->kv.lower) /* (a host tier: core.h) */
		t = offload_step_s(s, rp, t);
	if (s->cfg.lora.max_loras > 0)
		t = lora_step_s(s, rp, d, t);
	if (rp->mm.pending > 0)
		t = mm_step_s(s, rp, t);
	return t;
}

static SCHED_STEP_INLINE double rank_cost(struct sim *s, struct replica *rp, const struct step_desc *d,
					  struct group_moe *gm)
{
	return rank_cost_sp(s, rp, d, gm, true, false);
}

/* rank_cost of an attention-DP group's rank (group_start, group_decode_steps). */
static SCHED_STEP_INLINE double rank_cost_group(struct sim *s, struct replica *rp, const struct step_desc *d,
						struct group_moe *gm)
{
	return rank_cost_sp(s, rp, d, gm, true, true);
}

/* The energy of step d of t seconds on replica ri (account_step's). */
static SCHED_STEP_INLINE void meter_step(struct sim *s, int ri, struct replica *rp, double t,
					 const struct step_desc *d)
{
	if (rp->metered && !(s->sinkq && sinkq_step(&s->sinkw, ri, rp->cost, t, d))) {
		double f, b, j;
		if (d->nchunks == 0 && d->ndecode > 0) /* (its parts kept from step to step) */
			cost_work_of(&rp->meter_w, &s->meter_moe, rp->cost, d, &f, &b);
		else
			cost_step_work(rp->cost, d, &f, &b);
		j = rp->gpus * power_step_j(&rp->power, t, f, rp->cost->peak, b, rp->cost->g->hbm_bw);
		if (s->sinkq) /* (a step whose chunks a record cannot hold) */
			sinkq_joules(&s->sinkw, j);
		else
			s->tot.energy_dyn_j += j;
	}
}

/* A step's KV use and count (account_step's, after the step log). */
static SCHED_STEP_INLINE void count_step(struct sim *s, const struct replica *rp)
{
	double used = (double)kvc_used(&rp->kv) / (double)rp->kv.total;

	s->tot.kv_util_sum_steps += used;
	if (used > s->tot.kv_util_max)
		s->tot.kv_util_max = used;
	s->tot.steps++;
}

/* Statistics, energy and step log of step d of t seconds on replica ri. */
static SCHED_STEP_INLINE void account_step(struct sim *s, int ri, double t, const struct step_desc *d)
{
	struct replica *rp = &s->reps[ri];

	meter_step(s, ri, rp, t, d);
	if (s->cfg.step_log)
		step_log_line(s, rp, ri, t);
	count_step(s, rp);
}

static int64_t step_tokens(const struct step_desc *d)
{
	int64_t n = d->ndecode, i;

	for (i = 0; i < d->nchunks; i++)
		n += d->chunk_len[i];
	return n;
}

/* The attention-DP ranks that step together with rank ri, [*lo, *hi):
 * every rank of its replica (sim_cfg.replicas) when aggregated; with P/D,
 * the ranks of ri's worker (pd.prefill_group ranks per prefill worker,
 * pd.decode_group per decode worker).  A group of one steps alone. */
static SCHED_STEP_INLINE void lock_group(const struct sim *s, int ri, int *lo, int *hi)
{
	int g, base, j;

	if (!s->cfg.lockstep) { /* (the usual case: no division) */
		*lo = ri;
		*hi = ri + 1;
		return;
	}
	base = ri - ri % s->per;
	j = ri - base;
	if (s->cfg.pd.prefill <= 0) {
		*lo = base;
		*hi = base + s->per;
		return;
	}
	if (j < s->cfg.pd.prefill) {
		g = s->cfg.pd.prefill_group > 1 ? s->cfg.pd.prefill_group : 1;
		*lo = base + j - j % g;
	} else {
		g = s->cfg.pd.decode_group > 1 ? s->cfg.pd.decode_group : 1;
		*lo = base + s->cfg.pd.prefill + (j - s->cfg.pd.prefill) / g * g;
	}
	*hi = *lo + g;
}

/* The price of rank rp's dummy step (group_start: rp->desc, whose only
 * variable is the group's MoE tokens): kept by them, since an idle rank's
 * step repeats within a group step and across steps (cost_step_s is a pure
 * function of the cost model and the step). */
static double idle_cost(struct sim *s, const struct replica *rp)
{
	struct dmemo *m = &s->memo->idle[rp->prefill_only];
	/* keyed by the group's MoE tokens and whether a rank prefills */
	uint64_t k0 = (uint64_t)rp->desc.moe_tokens * 2 + (rp->desc.moe_extend ? 1 : 0);
	struct dmemo_ent *x;
	double t;

	if (s->cfg.no_step_memo || k0 == 0)
		return cost_step_s(rp->cost, &rp->desc);
	if (!m->e)
		dmemo_init(m, 10);
	x = dmemo_slot(m, k0, 0);
	if (dmemo_holds(x, k0, 0))
		return x->v;
	t = cost_step_s(rp->cost, &rp->desc);
	dmemo_keep(x, k0, 0, t);
	return t;
}

/* Whether replica rp's policy takes a steady decode step as
 * decode_segments' (the crossing class's blocks, each decoder's token),
 * with its steady_step's bookkeeping where it has one (core.h; sg: a
 * split-batch policy, SGLang's, the only one with them: the other
 * engines' step loop tests decode_segments alone). */
static SCHED_STEP_INLINE bool policy_steady(const struct sim *s, const struct replica *rp, const bool sg)
{
	const struct sched_policy *p = s->cfg.policy;

	return sg ? p->steady_ok && p->steady_ok(s, rp) : p->decode_segments;
}

/* The policy's part of such a step, after the crossing class's blocks. */
static SCHED_STEP_INLINE void policy_steady_step(struct sim *s, struct replica *rp, const bool sg)
{
	if (sg && s->cfg.policy->steady_step)
		s->cfg.policy->steady_step(s, rp);
}

/* Whether the policy's step for quick-finished rank rp (other ranks of its
 * group have finished since) is still every decoder's token and nothing
 * else: no explicit request, nobody it could admit (nobody waiting, or its
 * max_num_seqs reached: sched_admit's loop does not start), the decoders
 * within the token budget and the crossing class's blocks free -- the
 * policy's decode_segments step, which quick_plan takes. */
static SCHED_STEP_INLINE bool quick_plan_applies(const struct sim *s, const struct replica *rp)
{
	return rp->nsched == 0 && rp->nothers == 0 && (rp->wlen == 0 || (int64_t)rp->nrun >= rp->mns) &&
	       !rp->fallback && rp->ndec > 0 && rp->ndec <= rp->mbt &&
	       rp->cls_count[cls_of(s, -rp->G)] <= kvc_available(&rp->kv);
}

/* The plan of such a rank: the crossing class takes its blocks (the
 * policy's, decode_segments), the decoders described. */
static SCHED_STEP_INLINE void quick_plan(struct sim *s, struct replica *rp, const bool sg)
{
	blocks_take_crossing(s, rp, cls_of(s, -rp->G));
	policy_steady_step(s, rp, sg);
	desc_start(rp, &rp->desc);
	describe_decoders(rp, &rp->desc);
	rp->active = true;
}

/* Attention-DP rank rp has planned step d (group_start, group_decode_steps),
 * priced after every rank of its group has planned (rank_cost_group): the
 * memo slots its price will look up (its own part, the drafting after it)
 * located and fetched now, so that the group's lookups miss the caches
 * together rather than one after the other. */
static SCHED_STEP_INLINE void group_memo_ahead(struct replica *rp, const struct step_desc *d)
{
	if (d->nchunks == 0) /* (cost_step_splits: the group's MoE tokens are > 0) */
		stepmemo_ahead(rp->moe_memo, rp->lane_moe, stepmemo_key(d->ndecode, d->nlogits), d->ndecode,
			       d->decode_ctx_sum, &rp->at_moe);
	if (rp->spec_n > 0)
		stepmemo_ahead(rp->drafts, NULL, stepmemo_key(rp->spec_n, 0), rp->spec_n, rp->spec_ctx, &rp->at_draft);
}

/* Attention-DP rank rp's step is queued: the ring slots its end reads
 * first (decode_step_clear's and finish_rank's completion bucket at the
 * next count; spath_step_ended's slots) fetched, one rank after the
 * other, where its end would wait on each (a rank's rings do not stay in
 * the cache between its steps with 32-48 ranks a group; `perf` of the
 * P/D eval: a third of sched_finish_step's samples on those loads). */
static SCHED_STEP_INLINE void group_end_prefetch(const struct replica *rp)
{
	uint64_t g1 = (uint64_t)rp->G + 1;

	if (rp->ring)
		__builtin_prefetch(&rp->ring[g1 & rp->ring_mask]);
	if (rp->nspath > 0) {
		__builtin_prefetch(&rp->sp_rare[(g1 + 1) & rp->sp_mask]);
		__builtin_prefetch(&rp->sp_acc[g1 & rp->sp_mask]);
	}
}

/* What a segment's steps leave alone, so decode_steps tests it once, not
 * at every step: the step log, and every addition rank_cost makes to a
 * decode-only step of a replica stepping alone (drafts: none, spec.k is
 * 0 in a segment; a cold start's stall, the host tier's transfers, LoRA
 * loads, image encoders: their own paths).  With these off, a step's
 * price is the decode-price memo's or cost_step_s's, as rank_cost's
 * (group_top_applies asks the same of an attention-DP rank). */
static SCHED_STEP_INLINE bool segment_plain(const struct sim *s, const struct replica *rp)
{
	return !s->cfg.step_log && !(s->cfg.cold_start_s > 0 && !rp->cold_paid) && !rp->kv.lower &&
	       s->cfg.lora.max_loras == 0 && rp->mm.pending == 0;
}

/* The slowest of an attention-DP group step's decode-only ranks by kind
 * (cost model, decoders, sampled sequences, drafting sequences): where
 * nothing reads a rank's price but the group's maximum, the ranks whose
 * price rises with their summed contexts (cost_local_rise_range; with MTP, the
 * draft layer's too, with the drafting sequences' summed contexts:
 * cost_draft_rise_range) are priced only where those sums are the largest
 * of their kind -- the others' prices are no larger, so the maximum is
 * the same value.  A kind whose largest sums are not one rank's (MTP:
 * the largest summed contexts and the largest drafting contexts on two
 * ranks) is priced rank by rank, as are kinds past GROUP_TOP_KINDS.  In
 * the P/D eval's slow rows (16-32 decode ranks of 64-512 decoders each,
 * the 8,192-token outputs) nearly every rank-step is such a rank's and
 * one kind holds them all: one price a group step instead of one a rank. */
#define GROUP_TOP_KINDS 4

struct group_top {
	int n;
	struct group_top_kind {
		const struct cost_model *c;
		int64_t ndecode, nlogits, spec_n;
		double ctx_sum, spec_ctx; /* the largest of each */
		struct replica *rp;       /* the rank with the largest ctx_sum (then spec_ctx) */
	} k[GROUP_TOP_KINDS];
};

/* r: cost_local_rise_range (draft: cost_draft_rise_range) of c and n,
 * kept by them; whether x is in it. */
static SCHED_STEP_INLINE bool rise_in(struct sched_rise *r, const struct cost_model *c, int64_t n, double x,
				      const bool draft)
{
	if (r->c != c || r->n != n) {
		r->c = c;
		r->n = n;
		if (draft)
			cost_draft_rise_range(c, n, &r->lo, &r->hi);
		else
			cost_local_rise_range(c, n, &r->lo, &r->hi);
	}
	return x >= r->lo && x < r->hi;
}

/* Whether rank rp's planned step may be priced only as its kind's slowest:
 * decode-only, its price read for the group's maximum alone (no step log,
 * no energy meter) with nothing added to it but the drafting (segment_plain,
 * no JIT stall: rank_cost_sp's additions), the group's MoE part apart
 * (group_splits: rank_cost_sp's split branch), and its price and its
 * drafting's (MTP, EAGLE) rising with their summed contexts.  Off with
 * no_step_memo (sim.h: every step priced). */
static SCHED_STEP_INLINE bool group_top_applies(const struct sim *s, struct group_moe *gm, struct replica *rp)
{
	const struct step_desc *d = &rp->desc;

	return d->nchunks == 0 && !rp->metered && !rp->jit_seen && !s->cfg.no_step_memo && segment_plain(s, rp) &&
	       group_splits(gm, rp->cost) && rise_in(&rp->rise, rp->cost, d->ndecode, d->decode_ctx_sum, false) &&
	       (rp->spec_n == 0 || ((s->cfg.spec.method == SPEC_MTP || s->cfg.spec.method == SPEC_EAGLE) &&
				    rise_in(&rp->drise, rp->cost, rp->spec_n, rp->spec_ctx, true)));
}

/* Rank rp (group_top_applies) taken into its kind in g: true, or false
 * when its kind is new and g has no room (it is priced itself). */
static SCHED_STEP_INLINE bool group_top_take(struct group_top *g, struct replica *rp)
{
	const struct step_desc *d = &rp->desc;
	struct group_top_kind *k;
	int j;

	for (j = 0; j < g->n; j++) {
		k = &g->k[j];
		if (k->c == rp->cost && k->ndecode == d->ndecode && k->nlogits == d->nlogits && k->spec_n == rp->spec_n) {
			if (d->decode_ctx_sum > k->ctx_sum ||
			    (d->decode_ctx_sum == k->ctx_sum && rp->spec_ctx > k->rp->spec_ctx)) {
				k->ctx_sum = d->decode_ctx_sum;
				k->rp = rp;
			}
			if (rp->spec_ctx > k->spec_ctx)
				k->spec_ctx = rp->spec_ctx;
			rp->top_kind = (int8_t)j;
			return true;
		}
	}
	if (g->n == GROUP_TOP_KINDS)
		return false;
	rp->top_kind = (int8_t)g->n;
	g->k[g->n++] = (struct group_top_kind){rp->cost, d->ndecode, d->nlogits, rp->spec_n, d->decode_ctx_sum,
					       rp->spec_ctx, rp};
	return true;
}

/* Whether kind k's rank with the largest summed contexts has the largest
 * drafting contexts too: it alone is priced (group_top_price). */
static SCHED_STEP_INLINE bool group_top_one(const struct group_top_kind *k)
{
	return k->rp->spec_ctx >= k->spec_ctx;
}

/* The memo lookups of the ranks group_top_price prices alone located and
 * fetched as soon as the group's plans are made (group_memo_ahead), so
 * that they miss the caches together, while the group's other ranks are
 * counted and priced, rather than one after the other in the price (`perf`
 * of the P/D eval: a quarter of group_start's samples on those two slot
 * loads, the own part's and the drafting's). */
static SCHED_STEP_INLINE void group_top_ahead(const struct group_top *g)
{
	int j;

	for (j = 0; j < g->n; j++)
		if (group_top_one(&g->k[j]))
			group_memo_ahead(g->k[j].rp, &g->k[j].rp->desc);
}

/* The group step's slowest of the ranks [lo, hi) that g took, or 0: each
 * kind's rank with the largest sums (its lookups located ahead:
 * group_top_ahead), or each of its ranks where no one rank has both
 * (their memo lookups not located ahead). */
static SCHED_STEP_INLINE double group_top_price(struct sim *s, const struct group_top *g, struct group_moe *gm,
						 int lo, int hi)
{
	double tmax = 0, t;
	bool split = false;
	int i, j;

	for (j = 0; j < g->n; j++) {
		struct replica *rp = g->k[j].rp;
		if (!group_top_one(&g->k[j])) {
			split = true;
			continue;
		}
		t = rank_cost_group(s, rp, &rp->desc, gm);
		if (t > tmax)
			tmax = t;
	}
	for (i = lo; split && i < hi; i++) {
		struct replica *rp = &s->reps[i];
		if (rp->top && !group_top_one(&g->k[rp->top_kind])) {
			t = rank_cost_sp(s, rp, &rp->desc, gm, true, false);
			if (t > tmax)
				tmax = t;
		}
	}
	return tmax;
}

/* The group step [lo, hi) set going: its length the slowest of tmax (the
 * ranks priced one by one) and the ranks top took (group_top_price),
 * every rank busy for it (group_start, group_decode_steps). */
static SCHED_STEP_INLINE void group_step_set(struct sim *s, const struct group_top *top, struct group_moe *gm,
					     int lo, int hi, double tmax)
{
	int i;

	if (top->n > 0) {
		double t = group_top_price(s, top, gm, lo, hi);
		if (t > tmax)
			tmax = t;
	}
	for (i = lo; i < hi; i++) {
		s->reps[i].busy = true;
		s->reps[i].step_dur_ns = simtime_round(tmax * 1e9);
		if (s->step_prefetch)
			group_end_prefetch(&s->reps[i]);
	}
}

/* Attention-DP: every rank of the group [lo, hi) plans its step; the MoE
 * layers see the tokens of all its ranks, a rank with nothing to run runs
 * a one-token dummy step (vLLM's DP engines execute dummy batches so the
 * collectives line up), and all end together when the slowest rank does.
 * One event, named by rank lo, ends the step (the caller's: false when no
 * rank has anything to run). */
static bool group_start(struct sim *s, int lo, int hi)
{
	struct group_moe gm = {NULL, 0, NULL, false};
	struct group_top top;
	int64_t moe = 0;
	double tmax = 0;
	bool any = false, ext = false;
	int i;

	top.n = 0;
	if (s->cfg.policy->group_gate)
		s->cfg.policy->group_gate(s, lo, hi);
	for (i = lo; i < hi; i++) {
		struct replica *rp = &s->reps[i];
		if (rp->quick && s->cfg.policy->decode_segments && quick_plan_applies(s, rp))
			quick_plan(s, rp, false);
		else if (rp->quick && policy_steady(s, rp, true) && quick_plan_applies(s, rp))
			quick_plan(s, rp, true);
		else
			rp->active = plan_step(s, i, &rp->desc, s->cfg.policy->split_batches, true);
		rp->quick = false;
		rp->top = rp->active && group_top_applies(s, &gm, rp) && group_top_take(&top, rp);
		if (rp->active && !rp->top)
			group_memo_ahead(rp, &rp->desc);
		any |= rp->active;
		ext |= rp->active && rp->desc.nchunks > 0;
		moe += rp->active ? step_tokens(&rp->desc) : 1;
	}
	if (!any) {
		for (i = lo; i < hi; i++)
			s->reps[i].busy = false;
		return false;
	}
	group_top_ahead(&top);
	for (i = lo; i < hi; i++) {
		struct replica *rp = &s->reps[i];
		double t;
		if (!rp->active) { /* dummy step: one token, no KV, no sampling */
			memset(&rp->desc, 0, sizeof(rp->desc));
			rp->chunk_len[0] = 1;
			rp->chunk_prefix[0] = 0;
			rp->desc.chunk_len = rp->chunk_len;
			rp->desc.chunk_prefix = rp->chunk_prefix;
			rp->desc.nchunks = 1;
			if (rp->cost->eager_s > 0) {
				/* TensorRT-LLM pads an idle attention-DP rank with
				 * a dummy generation request unless some rank holds a
				 * context (PyExecutor._pad_attention_dp_dummy_request,
				 * is_gen = not has_context_request): a CUDA-graph
				 * decode step, not an eager one (a rank with a
				 * context makes the group's step eager anyway) */
				rp->desc.nchunks = 0;
				rp->desc.ndecode = 1;
				rp->desc.decode_ctx_sum = 1;
			}
		}
		rp->desc.moe_tokens = moe;
		rp->desc.moe_extend = ext;
		rp->step_host_s = rp->active && rp->desc.nchunks > 0 ? rp->cost->eager_s : 0;
		if (rp->top) { /* (account_step: no meter, no log) */
			count_step(s, rp);
			continue;
		}
		t = rp->active ? rank_cost_group(s, rp, &rp->desc, &gm) : idle_cost(s, rp);
		if (rp->active)
			account_step(s, i, t, &rp->desc);
		else /* its GPUs run the dummy step and their experts' share
		      * of the group's tokens: metered, not counted as a step */
			meter_step(s, i, rp, t, &rp->desc);
		if (t > tmax)
			tmax = t;
	}
	group_step_set(s, &top, &gm, lo, hi, tmax);
	return true;
}

/* PP: launch the planned batch into the pipeline when a slot and the
 * first stage are free.  The batch takes the whole step time t (every
 * stage in turn, the sends between them); the first stage takes the next
 * batch after t / pp (stages priced as equal shares). */
static void pp_start(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];
	struct pp_batch *b = NULL;
	struct step_desc d;
	double t;
	int k;
	size_t i;

	if (rp->npipe >= rp->pp) {
		rp->busy = false; /* a batch end restarts it */
		return;
	}
	if (!plan_step(s, ri, &d, s->cfg.policy->split_batches, true)) {
		rp->busy = false;
		return;
	}
	for (k = 0; k < rp->pp; k++)
		if (!rp->pipe[k].used) {
			b = &rp->pipe[k];
			break;
		}
	t = rank_cost(s, rp, &d, NULL);
	account_step(s, ri, t, &d);
	b->used = true;
	XGROW(b->reqs, b->cap, rp->nsched);
	for (i = 0; i < rp->nsched; i++) {
		b->reqs[i] = rp->sched[i];
		rp->sched[i]->inflight = true;
	}
	b->n = rp->nsched;
	rp->nsched = 0;
	rp->npipe++;
	rp->busy = true;
	rp->step_dur_ns = simtime_round(t * 1e9);
	rp->step_host_s = d.nchunks > 0 ? rp->cost->eager_s : 0;
	/* the event names the batch: (k + 1) x nrep + ri */
	evq_push(&s->q, s->now + rp->step_dur_ns, EV_STEP_END, (k + 1) * s->nrep + ri);
	evq_push(&s->q, s->now + simtime_round(t / rp->pp * 1e9), EV_STAGE_FREE, ri);
}

void sched_stage_free(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];

	rp->busy = false;
	sched_start_step(s, ri);
}

/* Replica ri runs a step of t seconds, host_s of them launching it
 * (start_single, decode_steps): accounted, its duration set. */
static SCHED_STEP_INLINE void step_started(struct sim *s, int ri, double t, double host_s,
					    const struct step_desc *d)
{
	struct replica *rp = &s->reps[ri];

	account_step(s, ri, t, d);
	rp->busy = true;
	rp->step_dur_ns = simtime_round(t * 1e9);
	rp->step_host_s = host_s;
}

/* Plan, price and account replica ri's next step (no PP, no lockstep);
 * false when it has nothing to run.  Its end is the caller's.  sp as
 * plan_step's. */
static SCHED_STEP_INLINE bool start_single(struct sim *s, int ri, const bool sg, const bool sp)
{
	struct replica *rp = &s->reps[ri];
	struct step_desc d;
	double t;

	if (!plan_step(s, ri, &d, sg, sp)) {
		rp->busy = false;
		return false;
	}
	t = rank_cost_sp(s, rp, &d, NULL, sp, false);
	step_started(s, ri, t, d.nchunks > 0 ? rp->cost->eager_s : 0, &d);
	return true;
}

void sched_start_step(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];

	if (s->cfg.lockstep) {
		int lo, hi;
		lock_group(s, ri, &lo, &hi);
		if (hi - lo > 1) {
			if (group_start(s, lo, hi))
				evq_push(&s->q, s->now + s->reps[lo].step_dur_ns, EV_STEP_END, lo);
			return;
		}
	}
	if (rp->pp > 1) {
		pp_start(s, ri);
		return;
	}
	if (start_single(s, ri, s->cfg.policy->split_batches, true))
		evq_push(&s->q, s->now + rp->step_dur_ns, EV_STEP_END, ri);
}

/* Step segments (sim.h, no_segments): may the step ending at t_end end
 * here and now, without its event?  Only when it would be the next event
 * popped: every queued event, and the next arrival, is later (one at the
 * same time was queued first, so it would go first).  The clock and the event count then move
 * as the queue would have moved them.  Not with the per-event invariant
 * checker, which runs between events. */
static bool segment_goes_on(struct sim *s, int64_t t_end)
{
	if (s->cfg.no_segments || s->cfg.check_invariants ||
	    (evq_size(&s->q) > 0 && evq_top_ns(&s->q) <= t_end) ||
	    (s->has_next && s->next.arrival_ns <= t_end)) /* (engine.c's arrival) */
		return false;
	s->now = t_end;
	s->tot.events++;
	s->tot.duration_ns = t_end;
	return true;
}

static void pend_push(struct replica *rp, struct req *r)
{
	XGROW(rp->pend, rp->pend_cap, rp->npend + 1);
	rp->pend[rp->npend++] = r;
}

/* When the last finished step's tokens reach the clients (now, at the end
 * of the step that followed it): at the step's end plus `delivery_steps`
 * (0..1) of the following step (H2; vLLM's output processing overlaps the
 * next step). */
static SCHED_STEP_INLINE int64_t delivery_time(const struct sim *s, const struct replica *rp)
{
	double f = (rp->cost->cfg.off & COST_H2) ? 0 : rp->cost->cfg.ov.delivery_steps;
	int64_t t;

	if (f > 1)
		f = 1;
	t = rp->pend_t0 + simtime_round(f * (double)(s->now - rp->pend_t0));
	if (rp->cost->eager_s > 0) {
		/* TensorRT-LLM's overlap scheduler hands a step's tokens out
		 * once the host has launched the next step and the step's GPU
		 * work is done: the host starts launching step N+1 when it has
		 * launched step N, so N's tokens leave at N's end plus what of
		 * N+1's launch time N's GPU time past its own launch did not
		 * hide (tensorrt_llm PyExecutor._executor_loop_overlap:
		 * _forward_step of the new batch, then _update_requests and
		 * _handle_responses of the previous one).  A CUDA-graph step
		 * launches at once; an eager one takes eager_s. */
		double slack = (double)rp->pend_dur_ns * 1e-9 - rp->pend_host_s, x;
		int64_t tx;
		x = rp->step_host_s - (slack > 0 ? slack : 0);
		tx = rp->pend_t0 + simtime_round(x > 0 ? x * 1e9 : 0);
		if (tx < t)
			t = tx;
	}
	return t;
}

/* Hand the last finished step's tokens to the clients at delivery_time.
 * Completed requests are recorded then, and a closed-loop client sends its
 * next request. */
static SCHED_STEP_INLINE int deliver(struct sim *s, struct replica *rp, struct err *e, const bool sg)
{
	int64_t t;
	size_t i;
	int rc = 0;

	if (!rp->tok_open)
		return 0; /* (nothing pending either) */
	rp->tok_open = false;
	if (rp->no_gaps && rp->npend == 0) {
		/* no record waits for the time, and without pooled gaps the
		 * decoders' delivery time (tok_t) is never read */
		rp->ngapq = 0;
		return 0;
	}
	t = delivery_time(s, rp);
	dec_gaps_deliver(s, rp, t, sg);
	for (i = 0; i < rp->npend; i++) {
		struct req *r = rp->pend[i];
		if (r->first_pending) {
			r->first_ns = t;
			r->first_pending = false;
		}
		if (r->done_pending) {
			int rc1;
			r->last_ns = t;
			rc1 = s->env->complete(s, r, t, rc == 0, e);
			if (rc == 0)
				rc = rc1;
		}
	}
	rp->npend = 0;
	return rc;
}

/* The step that just ended (now) is the one whose tokens are pending; its
 * decoders made a token in it (stepped: every vLLM step, SGLang's decode
 * batches). */
static SCHED_STEP_INLINE void step_pending(const struct sim *s, struct replica *rp, bool stepped)
{
	rp->pend_t0 = s->now;
	rp->pend_host_s = rp->step_host_s;
	rp->pend_dur_ns = rp->step_dur_ns;
	rp->tok_open = true;
	rp->pend_dec = stepped;
}

/* Completion entry fe came due: its decoder, unless the entry is stale or
 * the request explicit, is done (added to rp->done at ndone; the new
 * count is returned). */
static SCHED_STEP_INLINE size_t fin_due(struct sim *s, struct replica *rp, const struct fin_entry *fe, size_t ndone)
{
	struct req *r = fe->r;

	if (r->epoch != fe->epoch)
		return ndone; /* stale */
	r->heaped = false;
	if (r->spath) { /* a lazy verifier's last step (specpath.h) */
		spath_done(s, rp, r);
		r->done = true;
		XGROW(rp->done, rp->done_cap, ndone + 1);
		rp->done[ndone++] = r;
		return ndone;
	}
	if (!r->dec)
		return ndone; /* explicit: it completes (or not) on its own */
	sched_dec_leave(s, rp, r);
	/* its last chunk: a gap of its own (the terms after the last token) */
	rp->dstage[dec_stage_ix(r)].lazy--;
	r->tok_ns = rp->tok_t;
	dec_gap_push(rp, r, GAP_LAST, 1);
	r->last_ns = s->now;
	r->done = true;
	XGROW(rp->done, rp->done_cap, ndone + 1);
	rp->done[ndone++] = r;
	return ndone;
}

static int cmp_rseq(const void *a, const void *b)
{
	const struct req *x = *(struct req *const *)a, *y = *(struct req *const *)b;
	return x->rseq < y->rseq ? -1 : x->rseq > y->rseq;
}

/* --- the next step's plan, summed as a step ends (speculative decoding) ---
 *
 * With speculative decoding every running request stays explicit, and a
 * step of decoders alone walks them four times: finish_rank, the policy's
 * schedule (schedule_fast: the tokens and blocks the others ask for, then
 * each one's blocks and place in the step) and plan_step's description.
 * When every request of the step that ended is still a decoder, in
 * running order, finish_rank sums what the next plan reads of each one
 * (chunk_of's tokens, blocks_for's growth, its terms of decode_ctx_sum and
 * spec_ctx) as it walks them; schedule_fast then takes its sums for its
 * first walk and, when it schedules all of them, plan_step for their part
 * of the description.  The sums are integers, exact in int64_t; the
 * description's doubles are added integers below 2^53 in any order, so
 * they come out bit for bit the same (test_sim's segment comparisons run
 * it against no_segments, which keeps every walk). */
static SCHED_STEP_INLINE bool plan_ahead_applies(const struct sim *s, const struct replica *rp)
{
	return s->cfg.spec.k > 0 && s->cfg.policy->decode_segments && !s->cfg.no_segments && rp->sched_others &&
	       rp->nsched == rp->nothers && rp->ndec == 0 && !rp->lazy && !rp->fallback && rp->pp == 1 &&
	       !rp->prefill_only && rp->naborting == 0;
}

/* SGLang's plan_ahead (split batches, without lazy decoders: MTP): the
 * step that ends is a decode batch of every running request (then every
 * one of them is in sched, in running order), so the next decode batch,
 * if nothing joins or leaves the running list before it, schedules the
 * same requests less the completed ones with their chunk_of
 * (sglang.c sg_decode_ahead); plan_step then describes them from the sums
 * as for vLLM.  Only where finish_rank's verifying walk (spec_walk) sums
 * them, pooled gaps only counted (capacity probes, eval): summed by the
 * general body (plan_ahead_add) they cost more than the walk they save
 * (callgrind, an SGLang MTP `run` of 1,500 requests: +3.6 %).  Not while
 * lazy verifiers may join (specpath.h; sglang.c sg_decode_spath). */
static SCHED_STEP_INLINE bool sg_ahead_applies(const struct sim *s, const struct replica *rp)
{
	return s->cfg.spec.k > 0 && rp->no_gaps && s->bs_log2p1 > 0 && !s->cfg.no_segments && rp->dec_run &&
	       rp->nsched == rp->nrun && rp->ndec == 0 && !rp->lazy && !(rp->spath_on && !rp->sp_hold) &&
	       rp->pp == 1 && !rp->prefill_only && rp->naborting == 0;
}

static SCHED_STEP_INLINE void grower_push(struct replica *rp, struct req *r)
{
	XGROW(rp->growers, rp->growers_cap, rp->ngrowers + 1);
	rp->growers[rp->ngrowers++] = r;
}

/* Request r, a decoder staying running, takes n tokens at the next step
 * and needs `need` more blocks for them: its part of the next plan, its
 * chunk_of kept in step_tokens for the policy (plan_ahead_add and
 * spec_walk's copy of it). */
static SCHED_STEP_INLINE void plan_ahead_sum(struct replica *rp, struct req *r, int64_t n, int64_t need,
					    struct plan_ahead *pa)
{
	r->step_tokens = n;
	pa->tokens += n;
	pa->need += need;
	if (need > 0)
		grower_push(rp, r);
	/* plan_step's terms: q (computed + 1) + q (q - 1) / 2 and computed +
	 * q (q (q - 1) >= 0 for any integer q: the shift is the division) */
	pa->ctx += n * (r->computed + 1) + (n * (n - 1) >> 1);
	pa->spec_ctx += r->computed + n;
	pa->n++;
}

/* Request r stays running after the step: add its part of the next plan,
 * its chunk_of kept in step_tokens for the policy (false when it is not a
 * decoder).  (step_tokens is read only while a request is scheduled, and
 * sched_push sets it.) */
static SCHED_STEP_INLINE bool plan_ahead_add(const struct sim *s, struct replica *rp, struct req *r,
					    struct plan_ahead *pa)
{
	int64_t n, need;

	if (!decoding(r))
		return false;
	n = chunk_of(s, r, INT64_MAX);
	need = blocks_for(s, r->computed + n) - r->nblocks;
	plan_ahead_sum(rp, r, n, need, pa);
	return true;
}

/* finish_rank's walk over the requests of the step from sched[i0] that
 * are decoders verifying drafts, where pooled gaps are only counted and
 * blocks hold a power of two tokens (finish_rank's `walk`): its body for them
 * alone (a draw, the accepted tokens, the blocks that filled, a counted
 * gap, then done or, with `plan` (plan_ahead holds), its part of the next
 * plan as plan_ahead_add), the acceptance totals added once.  Returns
 * where it stopped: the first other request (finish_rank's walk takes it,
 * then this one goes on); ndone as there.  Without `plan` it is the walk of
 * SGLang's verifying batches (split batches: plan_ahead is vLLM's and
 * TensorRT-LLM's), which took finish_rank's general body before (~130
 * instructions a verifying request-step against ~65 here, callgrind). */
static SCHED_STEP_INLINE size_t spec_walk(struct sim *s, struct replica *rp, size_t i0, size_t *ndone,
					  struct plan_ahead *pa, bool *joined, const bool plan)
{
	const int64_t now = s->now, K = s->cfg.spec.k, lpt = s->cfg.long_prefill_token_threshold;
	/* chunk_of of a decoder: 1 + min(left, K), at most lpt (when set) */
	const int64_t cap = lpt > 0 && lpt < K + 1 ? lpt : K + 1;
	const int sh = s->bs_log2p1 - 1;
	const int64_t bm = ((int64_t)1 << sh) - 1;
	uint64_t drafted = 0, accepted = 0;
	/* the stream and the plan's sums in registers: in memory, each store
	 * to a request's int64_t fields could alias them */
	struct pcg32 rng = s->spec_rng;
	struct plan_ahead acc = {0, 0, 0, 0, 0};
	size_t i;
	const bool lz = rp->spath_on && !rp->sp_hold;

	if (plan)
		acc = *pa;

	for (i = i0; i < rp->nsched; i++) {
		struct req *r = rp->sched[i];
		int64_t q, c, g, n;
		int32_t full;
		int a;
		if (i + REQ_PREFETCH_AHEAD < rp->nsched)
			req_prefetch(rp->sched[i + REQ_PREFETCH_AHEAD], REQ_HOT_BYTES);
		q = r->step_tokens;
		if (q < 2 || r->pd_first || !decoding(r))
			break;
		a = spec_accepted(&s->spec_draws, (int)q - 1, &rng);
		drafted += (uint64_t)(q - 1);
		accepted += (uint64_t)a;
		r->scheduled = false;
		r->dsteps++;
		r->computed = c = r->computed + 1 + a;
		r->generated = g = r->generated + 1 + a;
		/* register_full: anonymous blocks are only counted */
		if (r->nnamed <= r->nhashed) {
			full = (int32_t)(c >> sh);
			if (full > r->nblocks)
				full = r->nblocks;
			if (r->nhashed < full)
				r->nhashed = full;
		} else {
			blocks_register_full(s, rp, r, c);
		}
		r->ngaps++; /* gap_push: a middle or last gap, counted */
		r->last_ns = now;
		if (g >= r->output) {
			r->done = true;
			XGROW(rp->done, rp->done_cap, *ndone + 1);
			rp->done[(*ndone)++] = r;
			continue;
		}
		if (lz && spath_may_join(s, r)) { /* its path drawn now (specpath.h) */
			s->spec_rng = rng;
			spath_join(s, rp, r);
			rng = s->spec_rng;
			*joined = true;
			continue;
		}
		if (!plan)
			continue;
		/* plan_ahead_add: chunk_of and blocks_for of a decoder, then
		 * plan_ahead_sum's terms */
		n = r->output - g;
		if (n > cap)
			n = cap;
		full = (int32_t)((c + n + bm) >> sh) - r->nblocks;
		r->step_tokens = n;
		acc.tokens += n;
		acc.need += full;
		if (full > 0)
			grower_push(rp, r);
		acc.ctx += n * (c + 1) + (n * (n - 1) >> 1);
		acc.spec_ctx += c + n;
		acc.n++;
	}
	if (plan)
		*pa = acc;
	s->spec_rng = rng;
	s->tot.spec_verify += i - i0;
	s->tot.spec_drafted += drafted;
	s->tot.spec_accepted += accepted;
	return i;
}

/* End replica ri's step: tokens, completions, block bookkeeping.  sp as
 * plan_step's (false: no verification, no plan_ahead). */
static SCHED_STEP_INLINE int finish_rank(struct sim *s, int ri, struct err *e, const bool sg, const bool sp)
{
	struct replica *rp = &s->reps[ri];
	struct req *r;
	size_t i, j, ndone = 0;
	int32_t cls;
	int rc;
	bool joined = false; /* a request of rp->others became a decoder */
	/* its decoders made a token (SGLang: unless it was a prefill batch) */
	const bool stepped = !sg || rp->dec_run;
	/* the next step's plan of the others, summed as they are walked
	 * (plan_ahead: every one an explicit decoder, in running order) */
	struct plan_ahead pa = {0, 0, 0, 0, 0};
	bool ahead = sp && (sg ? sg_ahead_applies(s, rp) : plan_ahead_applies(s, rp)), walk;
	/* the verifications' totals, added once after the walk (as spec_walk
	 * adds its own): not three stores to s->tot per verifying request */
	uint64_t nverify = 0, drafted = 0, accepted = 0;

	/* the previous step's tokens reach the client now */
	if ((rc = deliver(s, rp, e, sg)) < 0)
		return rc;
	step_pending(s, rp, stepped);
	if (stepped)
		decoders_stepped(rp);
	if (rp->nspath > 0 && stepped) /* (SGLang: its decode batches) */
		spath_step_ended(s, rp, spath_cap(s));
	rp->ngrowers = 0;
	/* (the general body below does for a verifying decoder what
	 * spec_walk does, P/D prefill workers aside: their requests leave
	 * after the prefill) */
	walk = sp && s->cfg.spec.k > 0 && rp->no_gaps && s->bs_log2p1 > 0 && !rp->prefill_only;
	for (i = 0; i < rp->nsched; i++) {
		int64_t gen0;
		bool dec;
		/* the draft verifiers up to the next other request (summing
		 * the next plan while plan_ahead holds), then that one below */
		if (walk && (i = ahead ? spec_walk(s, rp, i, &ndone, &pa, &joined, true)
				       : spec_walk(s, rp, i, &ndone, NULL, &joined, false)) >= rp->nsched)
			break;
		if (i + REQ_PREFETCH_AHEAD < rp->nsched)
			req_prefetch(rp->sched[i + REQ_PREFETCH_AHEAD], REQ_HOT_BYTES);
		r = rp->sched[i];
		gen0 = r->generated;
		r->scheduled = false;
		if (decoding(r)) {
			r->dsteps++;
			dec = true;
		} else {
			dec = false;
		}
		if (sp && r->step_tokens > 1 && dec) {
			/* verification: the drafts' accepted prefix and a bonus token */
			int k = (int)r->step_tokens - 1, a = spec_accepted(&s->spec_draws, k, &s->spec_rng);
			nverify++;
			drafted += (uint64_t)k;
			accepted += (uint64_t)a;
			r->computed += 1 + a;
			r->generated += a;
		} else {
			r->computed += r->step_tokens;
		}
		blocks_register_full(s, rp, r, r->computed);
		if (r->computed < req_num_tokens(r)) {
			ahead = false;
			continue; /* a prefill chunk: no token yet */
		}
		r->generated++;
		if (rp->prefill_only && r->generated < r->output) {
			/* P/D: the prefill worker is done with it; the KV
			 * travels to the decode pool */
			r->done = true; /* out of this worker's lists */
			XGROW(rp->done, rp->done_cap, ndone + 1);
			rp->done[ndone++] = r;
			continue;
		}
		if (r->pd_first && s->cfg.pd.first == SIM_PD_FIRST_DECODE_LAUNCH) {
			/* P/D: the prefill's token left as this step was
			 * launched; this step's token follows it */
			r->pd_first = false;
			r->first_ns = s->now - rp->step_dur_ns;
		}
		dec_gap_push(rp, r, gen0 == 0 || r->pd_first ? GAP_NONE : r->generated >= r->output ? GAP_LAST : GAP_MID,
			 r->generated - gen0);
		if (r->generated == 1 || r->pd_first) {
			/* (P/D: the prefill's token comes with this one) */
			r->pd_merged = r->pd_first;
			r->pd_first = false;
			r->first_ns = s->now;
			r->first_pending = true;
			pend_push(rp, r);
		}
		r->last_ns = s->now;
		if (r->generated >= r->output) {
			r->done = true;
			XGROW(rp->done, rp->done_cap, ndone + 1);
			rp->done[ndone++] = r;
		} else if (rp->lazy && (!sg || stepped)) {
			/* speculative and pipelined requests stay explicit; with
			 * split batches a request joins after a decode batch, so
			 * that its last token is the decoders' */
			dec_join(s, rp, r);
			joined = true;
		}
		if (ahead && !r->done)
			ahead = plan_ahead_add(s, rp, r, &pa);
	}
	if (sp) {
		s->tot.spec_verify += nverify;
		s->tot.spec_drafted += drafted;
		s->tot.spec_accepted += accepted;
	}
	/* (with ndone: the others below lose the done ones, in order) */
	ahead = ahead && !joined;
	cls = cls_of(s, -rp->G);
	if (stepped)
		register_filled(s, rp, cls);
	/* decoders that produced their last token: this step's ring bucket
	 * (every entry there is due now: it was queued less than a ring's
	 * length of steps ago), then the heap's */
	if (rp->ring && stepped) {
		struct fin_bucket *b = &rp->ring[rp->G & rp->ring_mask];
		for (i = 0; i < b->n; i++)
			ndone = fin_due(s, rp, &b->e[i], ndone);
		b->n = 0;
	}
	while (stepped && rp->nheap > 0 && rp->heap[0].fin_G <= rp->G) {
		struct fin_entry fe = rp->heap[0];
		dec_heap_pop(rp);
		ndone = fin_due(s, rp, &fe, ndone);
	}
	if (rp->ndec == 0)
		rp->dec_max_rseq = 0;
	if (rp->naborting > 0)
		ndone = abort_due(rp, ndone);
	/* the others: explicit running requests, in running order (a
	 * split-batch scheduler reads them only with lazy decoders) */
	if (rp->fallback) {
		rp->nothers = 0;
		if (!sg || rp->lazy || rp->spath_on)
			for (r = rp->run_head; r; r = r->next)
				if (!r->dec && !r->done && !r->spath)
					sched_others_push(rp, r);
	} else if (ndone > 0 || joined) {
		/* (a request leaves the list only as a decoder or done, and
		 * only here: dec_join and the completions above) */
		for (i = j = 0; i < rp->nothers; i++)
			if (!rp->others[i]->dec && !rp->others[i]->done && !rp->others[i]->spath)
				rp->others[j++] = rp->others[i];
		rp->nothers = j;
	}
	rp->nsched = 0;
	if (sp) /* (read only while ahead_valid) */
		rp->ahead = pa;
	rp->ahead_valid = ahead;
	/* completions in running order (record order, closed-loop order) */
	if (ndone > 16) {
		qsort(rp->done, ndone, sizeof(*rp->done), cmp_rseq);
	} else { /* usually 2 or 3: an insertion sort, without qsort's calls (rseq values are distinct) */
		for (i = 1; i < ndone; i++) {
			struct req *x = rp->done[i];
			j = i;
			for (; j > 0 && rp->done[j - 1]->rseq > x->rseq; j--)
				rp->done[j] = rp->done[j - 1];
			rp->done[j] = x;
		}
	}
	for (i = 0; i < ndone; i++) {
		r = rp->done[i];
		blocks_leave(s, rp, r); /* the engine is done with it; the client not yet */
		if (r->aborting) {
			abort_release(s, rp, r);
			continue;
		}
		if (rp->prefill_only && r->generated < r->output) {
			s->env->handoff(s, r);
			continue;
		}
		prefix_chain_drop(s, rp, r);
		s->tot.completed++;
		if (!r->first_pending)
			pend_push(rp, r);
		r->done_pending = true;
	}
	rp->ahead_ver = rp->run_ver; /* (the completed ones gone) */
	return 0;
}

/* Step segments of steady decode.  Replica ri's step has just ended
 * (now) inside a segment (segment_goes_on).  While it and the step after
 * it hold decoders alone (nothing explicit scheduled or running, nobody
 * waiting, no tokens of a first or last chunk or explicit gaps pending), no
 * decoder completes at the next step count and the crossing class finds its
 * blocks, finish_rank's and start_single's work reduces to what is done
 * here, in their order: deliver the previous step's tokens (the decoders'
 * gaps), count the step, register the blocks that filled, take the crossing
 * decoders' new blocks (the policy's step: decode_segments), describe, price and account the next
 * step; then the segment goes on or that step's end is queued.  The general
 * path runs from the first step where a condition fails.  Returns 1 when the
 * last step's end was queued (nothing left to do), 0 when a step has ended
 * now and the general path takes it (whether or not steps were run here).
 * Called where decode_steps_apply holds (the conditions that stay true from
 * step to step here). */
static SCHED_STEP_INLINE bool steady_decode(const struct replica *rp)
{
	/* the conditions that fail most often first (a prefill chunk or an
	 * arrival in most steps of a busy replica): one or two tests then.
	 * Someone may wait where max_num_seqs is reached: sched_admit's loop
	 * does not start, the policy's step is its decoders' all the same;
	 * seg_ok, false at every step of a simulation with drafts, first */
	return rp->seg_ok && rp->nsched == 0 && (rp->wlen == 0 || (int64_t)rp->nrun >= rp->mns) &&
	       rp->npend == 0 && rp->nothers == 0 && rp->ndec > 0 && !rp->fallback && rp->ngapq == 0 &&
	       rp->tok_open && rp->ndec <= rp->mbt && rp->dec_run;
}

static SCHED_STEP_INLINE bool decode_steps_apply(const struct sim *s, const struct replica *rp, const bool sg)
{
	return steady_decode(rp) && policy_steady(s, rp, sg);
}

/* Whether replica rp's next step (count g1) may be one of decode_steps':
 * no decoder completes at it and the class crossing a block boundary finds
 * its blocks. */
static SCHED_STEP_INLINE bool decode_step_clear(const struct sim *s, const struct replica *rp, int64_t g1)
{
	int32_t cls = cls_of(s, -g1);
	const struct fin_bucket *b = rp->ring ? &rp->ring[g1 & rp->ring_mask] : NULL;

	return !((b && b->n > 0) || (rp->nheap > 0 && rp->heap[0].fin_G <= g1) ||
		 rp->cls_count[cls] > kvc_available(&rp->kv));
}

#define STEP_END_PREFETCH_REQS 64

/* Replica ri's step end is the next event (sched_step_end_next): what
 * finish_rank reads first then -- the records of the requests scheduled in
 * the step and of its coming completions (dec_fin_prefetch) -- fetched
 * into the cache while the event before it runs.  With many replicas (DP
 * 64) the running requests' records do not stay in the cache from one of
 * a replica's steps to the next (8,400 of 376 bytes at DP 64 of the chat
 * load), and their loads were the step loop's largest cost.  Not also as
 * the step's end is queued: the scheduled records were in the cache then
 * (just planned), the ring's lines were fetched again here, one event
 * ahead, and the first fetch cost ~60 instructions a DP 64 step
 * (docs/performance.md, eleventh pass). */
static SCHED_STEP_INLINE void step_end_prefetch(const struct replica *rp)
{
	/* the first STEP_END_PREFETCH_REQS of a big batch: finish_rank's walk
	 * asks for the rest itself, REQ_PREFETCH_AHEAD ahead, and thousands
	 * of whole records (a P/D decode rank of the silicon eval at 16,384
	 * clients) evict each other before the walk reaches them */
	size_t i, n = rp->nsched < STEP_END_PREFETCH_REQS ? rp->nsched : STEP_END_PREFETCH_REQS;

	for (i = 0; i < n; i++)
		req_prefetch(rp->sched[i], sizeof(struct req));
	dec_fin_prefetch(rp);
}

/* Replica rp's step is being queued: the completion steps of the
 * requests that will join the decoders as it ends (a token sampled, not
 * their last: dec_join's fin_G, G then one more), whose ring buckets its
 * end pushes to -- at DP 64 of the chat load the loads of those bucket
 * headers were 8 % of the run's samples (`perf`: bucket_push, now bucket_slot), each a cache
 * miss, since a rank's ring (1,024 buckets) does not stay in the cache
 * between its steps.  The records are in the cache now (just scheduled):
 * their steps are noted here, and when the step's end is the next event
 * the buckets are fetched (join_prefetch).  A hint: nothing read changes. */
static SCHED_STEP_INLINE void join_note(struct replica *rp)
{
	size_t i, n = rp->nsched < STEP_END_PREFETCH_REQS ? rp->nsched : STEP_END_PREFETCH_REQS;

	rp->njoin_fin = 0;
	if (!rp->lazy)
		return;
	for (i = 0; i < n && rp->njoin_fin < SCHED_JOIN_NOTES; i++) {
		const struct req *r = rp->sched[i];
		if (r->computed + r->step_tokens == r->prompt + r->generated && r->generated + 1 < r->output)
			rp->join_fin[rp->njoin_fin++] = rp->G + r->output - r->generated;
	}
}

static SCHED_STEP_INLINE void join_prefetch(const struct replica *rp)
{
	int k;

	if (rp->ring)
		for (k = 0; k < rp->njoin_fin; k++)
			__builtin_prefetch(&rp->ring[(uint64_t)rp->join_fin[k] & rp->ring_mask]);
}

/* The steps of a segment (see above).  Within it nothing but replica ri
 * moves: the event queue and the next arrival stay as they are (nothing
 * here queues an event or takes an arrival), so segment_goes_on's bound
 * is read once (lim: the first time another event is due; a step ending
 * at it or later ends through the queue); the decoders neither join nor
 * leave (a completion at the next step ends the segment: decode_step_clear),
 * so the step's counts, its memo key and the heap's next completion stay,
 * and only the summed contexts move (describe_decoders: the same value,
 * added to the zero desc_start leaves). */
static SCHED_STEP_INLINE int decode_steps_body(struct sim *s, int ri, const bool sg)
{
	struct replica *rp = &s->reps[ri];
	const bool plain = segment_plain(s, rp);
	const int64_t ndec = rp->ndec, fin_next = rp->nheap > 0 ? rp->heap[0].fin_G : INT64_MAX;
	const uint64_t k0 = stepmemo_key(ndec, ndec);
	int64_t lim = INT64_MAX;
	struct step_desc d;

	if (evq_size(&s->q) > 0)
		lim = evq_top_ns(&s->q);
	if (s->has_next && s->next.arrival_ns < lim) /* (engine.c's arrival) */
		lim = s->next.arrival_ns;
	desc_start(rp, &d);
	describe_decoders(rp, &d);
	for (;;) {
		int64_t g1 = rp->G + 1, t_end;
		int32_t cls = cls_of(s, -g1);
		double t;
		/* decode_step_clear, the heap's top read once */
		if ((rp->ring && rp->ring[g1 & rp->ring_mask].n > 0) || fin_next <= g1 ||
		    rp->cls_count[cls] > kvc_available(&rp->kv))
			return 0;
		/* finish_rank: the previous step's tokens (as deliver: their
		 * time only for the pooled gaps), then this one's */
		if (!rp->no_gaps)
			dec_gaps_deliver(s, rp, delivery_time(s, rp), sg);
		step_pending(s, rp, true);
		decoders_stepped(rp);
		if (rp->cls_count[cls] > 0) { /* (a class nobody is in: nothing to register or take) */
			register_filled(s, rp, cls);
			blocks_take_crossing(s, rp, cls); /* the policy's (decode_segments) */
		}
		policy_steady_step(s, rp, sg);
		/* plan_step's description, rank_cost, account_step, start_single */
		d.decode_ctx_sum = (double)(rp->dec_base_sum + ndec * (rp->G + 1));
		if (plain) {
			t = decode_price(rp, k0, ndec, &d); /* rank_cost's */
			meter_step(s, ri, rp, t, &d); /* account_step without the log */
			count_step(s, rp);
			rp->busy = true;
			rp->step_dur_ns = simtime_round(t * 1e9);
			rp->step_host_s = 0;
		} else {
			step_started(s, ri, rank_cost(s, rp, &d, NULL), 0, &d);
		}
		t_end = s->now + rp->step_dur_ns;
		if (t_end >= lim) { /* segment_goes_on: the queue's next, or the arrival, comes first */
			if (s->step_prefetch)
				join_note(rp); /* (none: decoders alone) */
			evq_push(&s->q, t_end, EV_STEP_END, ri);
			return 1;
		}
		s->now = t_end;
		s->tot.events++;
		s->tot.duration_ns = t_end;
	}
}

/* A rank whose step ended with decoders alone, none completing and the
 * crossing class's blocks free (decode_steps_apply, decode_step_clear: the
 * rank's part of a decode_steps step), finished as decode_steps finishes
 * it: what finish_rank's general body does for such a rank, in its order
 * (the previous step's tokens delivered, the step counted, the blocks that
 * filled registered). */
static SCHED_STEP_INLINE void quick_finish(struct sim *s, struct replica *rp, const bool sg)
{
	if (!rp->no_gaps)
		dec_gaps_deliver(s, rp, delivery_time(s, rp), sg);
	step_pending(s, rp, true);
	decoders_stepped(rp);
	register_filled(s, rp, cls_of(s, -rp->G));
}

/* decode_steps for an attention-DP group [lo, hi) stepping together
 * (lock_group): while every rank holds decoders alone (decode_steps_apply
 * for each) and none of them completes or misses a block at the next step,
 * finish_rank's work for each rank in turn, then group_start's (each rank's
 * plan, the MoE tokens of all, each rank priced and accounted in rank
 * order, the slowest rank's time for all), as decode_steps reduces them
 * for one rank.  Returns 1 when the last step's end was queued, 0 when a
 * step has ended now and the general path takes it. */
static SCHED_STEP_INLINE int group_decode_steps_body(struct sim *s, int lo, int hi, const bool sg)
{
	int i;

	for (i = lo; i < hi; i++)
		if (!decode_steps_apply(s, &s->reps[i], sg))
			return 0;
	for (;;) {
		struct group_moe gm = {NULL, 0, NULL, false};
		struct group_top top;
		int64_t moe = 0, t_end;
		double tmax = 0;
		for (i = lo; i < hi; i++)
			if (!decode_step_clear(s, &s->reps[i], s->reps[i].G + 1))
				return 0;
		for (i = lo; i < hi; i++) /* finish_rank */
			quick_finish(s, &s->reps[i], sg);
		if (s->cfg.policy->group_gate) /* (nobody admitted: its counters) */
			s->cfg.policy->group_gate(s, lo, hi);
		top.n = 0;
		for (i = lo; i < hi; i++) { /* group_start: the plans */
			struct replica *rp = &s->reps[i];
			quick_plan(s, rp, sg);
			rp->top = group_top_applies(s, &gm, rp) && group_top_take(&top, rp);
			if (!rp->top)
				group_memo_ahead(rp, &rp->desc);
			moe += rp->desc.ndecode;
		}
		group_top_ahead(&top);
		for (i = lo; i < hi; i++) { /* their prices */
			struct replica *rp = &s->reps[i];
			double t;
			rp->desc.moe_tokens = moe;
			rp->step_host_s = 0;
			if (rp->top) {
				count_step(s, rp);
				continue;
			}
			t = rank_cost_group(s, rp, &rp->desc, &gm);
			account_step(s, i, t, &rp->desc);
			if (t > tmax)
				tmax = t;
		}
		group_step_set(s, &top, &gm, lo, hi, tmax);
		t_end = s->now + s->reps[lo].step_dur_ns;
		if (!segment_goes_on(s, t_end)) {
			evq_push(&s->q, t_end, EV_STEP_END, lo);
			return 1;
		}
	}
}

/* decode_steps and group_decode_steps for each kind of scheduler (sg:
 * SGLang's, with its steady_step), apart so that neither tests it */
static int decode_steps(struct sim *s, int ri)
{
	return decode_steps_body(s, ri, false);
}

static int sg_decode_steps(struct sim *s, int ri)
{
	return decode_steps_body(s, ri, true);
}

static int group_decode_steps(struct sim *s, int lo, int hi)
{
	return group_decode_steps_body(s, lo, hi, false);
}

static int sg_group_decode_steps(struct sim *s, int lo, int hi)
{
	return group_decode_steps_body(s, lo, hi, true);
}

/* sched_finish_step's body for one engine's scheduler (sg: SGLang's), so
 * that vLLM's step loop does not test for SGLang's batches; sp false:
 * without speculative decoding (a replica stepping alone takes plan_step's
 * and finish_rank's copies without the drafts' and plan_ahead's parts). */
static SCHED_STEP_INLINE int finish_step(struct sim *s, int ri, struct err *e, const bool sg, const bool sp)
{
	int i, rc, lo, hi;

	if (ri >= s->nrep) { /* PP: batch k of replica ri % nrep left the pipeline */
		struct replica *rp = &s->reps[ri % s->nrep];
		struct pp_batch *b = &rp->pipe[ri / s->nrep - 1];
		bool was_busy = rp->busy;
		size_t j;
		ri %= s->nrep;
		for (j = 0; j < b->n; j++) {
			rp->sched[j] = b->reqs[j];
			b->reqs[j]->inflight = false;
		}
		rp->nsched = b->n;
		b->used = false;
		b->n = 0;
		rp->npipe--;
		if ((rc = finish_rank(s, ri, e, sg, true)) < 0)
			return rc;
		if (!was_busy)
			sched_start_step(s, ri);
		return rp->busy || rp->npipe > 0 ? 0 : deliver(s, rp, e, sg);
	}
	lock_group(s, ri, &lo, &hi);
	if (hi - lo == 1) {
		for (;;) {
			struct replica *rp = &s->reps[ri];
			int64_t t_end;
			if (decode_steps_apply(s, rp, sg) && (sg ? sg_decode_steps(s, ri) : decode_steps(s, ri)))
				return 0;
			if ((rc = finish_rank(s, ri, e, sg, sp)) < 0)
				return rc;
			/* an engine with nothing to do hands its outputs over at once */
			if (!start_single(s, ri, sg, sp))
				return deliver(s, rp, e, sg);
			t_end = s->now + rp->step_dur_ns;
			if (!segment_goes_on(s, t_end)) {
				if (s->step_prefetch)
					join_note(rp);
				evq_push(&s->q, t_end, EV_STEP_END, ri);
				return 0;
			}
		}
	}
	for (;;) {
		int64_t t_end;
		if (sg ? sg_group_decode_steps(s, lo, hi) : group_decode_steps(s, lo, hi))
			return 0;
		/* some rank of the group is not in steady decode: the others
		 * are finished (and, in group_start, planned) as there, each
		 * in its turn */
		for (i = lo; i < hi; i++) {
			struct replica *rp = &s->reps[i];
			if (steady_decode(rp) && rp->naborting == 0 && decode_step_clear(s, rp, rp->G + 1)) {
				quick_finish(s, rp, sg);
				rp->quick = true;
			} else if ((rc = finish_rank(s, i, e, sg, true)) < 0) {
				return rc;
			}
		}
		if (!group_start(s, lo, hi)) {
			for (i = lo; i < hi; i++)
				if ((rc = deliver(s, &s->reps[i], e, sg)) < 0)
					return rc;
			return 0;
		}
		t_end = s->now + s->reps[lo].step_dur_ns;
		if (!segment_goes_on(s, t_end)) {
			evq_push(&s->q, t_end, EV_STEP_END, lo);
			return 0;
		}
	}
}

void sched_step_end_next(const struct sim *s, int ri)
{
	if (ri < s->nrep) {
		step_end_prefetch(&s->reps[ri]);
		join_prefetch(&s->reps[ri]);
	}
}

int sched_finish_step(struct sim *s, int ri, struct err *e)
{
	if (s->cfg.policy->split_batches)
		return finish_step(s, ri, e, true, true);
	return s->cfg.spec.k > 0 ? finish_step(s, ri, e, false, true) : finish_step(s, ri, e, false, false);
}

bool sched_check(const struct sim *s, int ri, char *why, size_t n)
{
	const struct replica *rp = &s->reps[ri];
	const struct req *r;
	size_t i = 0;
	int64_t ndec = 0, nspath = 0;

	for (r = rp->run_head; r; r = r->next) {
		if (r->spath) {
			nspath++;
		} else if (r->dec) {
			ndec++;
			if (s->cfg.policy->decoder_keys && ((size_t)r->dk_ix >= rp->ndk || rp->dk[r->dk_ix].r != r ||
					      rp->dk[r->dk_ix].k != r->output - r->dg0 + r->dG0)) {
				snprintf(why, n, "decoder %lld: dk slot %d does not hold it", (long long)r->id,
					 r->dk_ix);
				return false;
			}
		} else if (!rp->fallback && (i >= rp->nothers || rp->others[i++] != r)) {
			snprintf(why, n, "explicit request %lld: not others[%zu] (%zu others)", (long long)r->id,
				 i > 0 ? i - 1 : 0, rp->nothers);
			return false;
		}
	}
	if (nspath != rp->nspath || rp->sp_n != rp->nspath) {
		snprintf(why, n, "%lld lazy verifiers running, nspath %lld, next step's count %lld", (long long)nspath,
			 (long long)rp->nspath, (long long)rp->sp_n);
		return false;
	}
	if (ndec != rp->ndec || (s->cfg.policy->decoder_keys && (size_t)ndec != rp->ndk) ||
	    (!rp->fallback && i != rp->nothers)) {
		snprintf(why, n, "%lld decoders running, ndec %lld, %zu dk entries; %zu of %zu others matched",
			 (long long)ndec, (long long)rp->ndec, rp->ndk, i, rp->nothers);
		return false;
	}
	return !s->cfg.policy->check || s->cfg.policy->check(s, rp, why, n);
}

void sched_replica_init(struct sim *s, struct replica *rp)
{
	if (s->cfg.block_size > 0 && (s->cfg.block_size & (s->cfg.block_size - 1)) == 0) {
		int k = 0;
		while ((1LL << k) < s->cfg.block_size)
			k++;
		s->bs_log2p1 = k + 1;
	}
	rp->recv_gate = s->cfg.recv_interval > 1;
	rp->rise.c = rp->drise.c = NULL;
	rp->cls_head = xcalloc((size_t)s->cfg.block_size, sizeof(*rp->cls_head));
	rp->cls_count = xcalloc((size_t)s->cfg.block_size, sizeof(*rp->cls_count));
	rp->cls_lean = xcalloc((size_t)s->cfg.block_size, sizeof(*rp->cls_lean));
	rp->no_gaps = s->cfg.no_pooled_gaps;
	rp->dec_run = rp->pend_dec = true; /* a split-batch policy sets dec_run each step */
	rp->lazy = s->cfg.spec.k == 0 && rp->pp == 1 && !s->cfg.no_lazy_decoders &&
		   (!s->cfg.policy->lazy || s->cfg.policy->lazy(&s->cfg));
	rp->seg_ok = s->cfg.spec.k == 0 && rp->pp == 1 && !s->cfg.no_segments && !s->cfg.check_invariants;
	rp->spath_on = spath_applies(s, rp);
	rp->sp_hold = false;
	rp->prices = &s->memo->step[rp->prefill_only][0];
	rp->moe_memo = &s->memo->step[rp->prefill_only][1];
	rp->drafts = &s->memo->draft[rp->prefill_only];
	rp->lane_price = s->cfg.spec.k > 0 ? NULL : &rp->lanes[0];
	rp->lane_moe = s->cfg.spec.k > 0 ? NULL : &rp->lanes[1];
	power_model_of(rp->cost->g, &rp->power);
	rp->gpus = (double)rp->cost->p.tp * (double)rp->cost->p.pp;
	rp->metered = rp->power.board_w > 0 && !s->cfg.no_energy;
	rp->meter_w.c = NULL;
	if (!rp->metered)
		s->tot.energy_dyn_j = NAN;
	if (s->cfg.lora.max_loras > 0)
		lora_replica_init(s, rp);
	if (s->cfg.mm.image_tokens > 0 && s->cfg.epd.encoders == 0)
		mm_replica_init(s, rp);
	if (s->cfg.policy->replica_init)
		s->cfg.policy->replica_init(s, rp);
}

void sched_replica_release(const struct sim *s, struct replica *rp)
{
	struct req *r;
	size_t i;
	int c;

	for (r = rp->run_head; r; r = r->next) {
		free(r->blocks);
		free(r->chain);
	}
	for (i = 0; i < rp->wlen; i++) {
		struct req *w = rp->wq[(rp->whead + i) & (rp->wcap - 1)].r;
		if (w) {
			free(w->blocks);
			free(w->chain);
		}
	}
	lora_replica_release(rp);
	mm_replica_release(rp);
	free(rp->memo_blk);
	free(rp->memo_e0);
	if (rp->cmemo)
		for (i = 0; i <= rp->cmemo_mask; i++)
		{
			free(rp->cmemo[i].chain);
			free(rp->cmemo[i].hint);
		}
	free(rp->cmemo);
	free(rp->wq);
	free(rp->inbox);
	for (c = 0; c < SCHED_ARRAY_CLASSES; c++) {
		for (i = 0; i < rp->narrays[c]; i++)
			free(rp->arrays[c][i]);
		free(rp->arrays[c]);
	}
	for (i = 0; i < rp->nchains; i++)
		free(rp->chains[i]);
	free(rp->chains);
	free(rp->cls_head);
	free(rp->cls_count);
	free(rp->cls_lean);
	free(rp->heap);
	dec_ring_release(rp);
	spath_release(rp);
	free(rp->others);
	free(rp->growers);
	free(rp->dk);
	free(rp->sched);
	free(rp->done);
	free(rp->pend);
	free(rp->gapq);
	if (s->cfg.policy->replica_release)
		s->cfg.policy->replica_release(rp);
}
