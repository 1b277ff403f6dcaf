/* engine.c - the engine loop: simulation lifecycle, events, arrivals
 * (routed by router.c), hand-offs and completions (kept by records.c), the
 * invariants of test builds and live use.  The step loop lives in step.c,
 * the mechanics it works with in their own files, the summaries in
 * summary.c (core.h).
 *
 * Hot-loop discipline: requests come from a slab free list, block-id arrays
 * from a per-replica pool, per-step arrays grow to the run's high-water mark
 * and are reused; nothing is allocated per step after that. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/loghist.h"
#include "core.h"
#include "sim/arrq.h"
#include "sim/records.h"
#include "sim/reqpool.h"
#include "sim/router.h"
#include "sim/specpath.h"

/* --- arrivals and completions --- */

static void reject_req(struct sim *s, struct req *r, enum reject_reason why)
{
	s->tot.rejected[why]++;
	records_csv_row(s, r, why == REJ_TOO_LONG ? "rejected:too_long" : "rejected:kv_capacity", 0, 0, 0,
		0, 0);
	sched_req_put(s, r);
}

/* Live use: r's client went away (sim_abort); reported with the tokens
 * it generated as its output. */
static void abort_req(struct sim *s, struct req *r)
{
	s->tot.aborted++;
	r->output = r->generated;
	records_csv_row(s, r, "aborted", 0, 0, 0, 0, 0);
	sched_req_put(s, r);
}

/* An arrival that can never run, rejected before it has a record. */
static void reject_arrival(struct sim *s, const struct wl_req *w, int64_t id, enum reject_reason why)
{
	struct req r;

	reqpool_of_arrival(&r, w, id);
	s->tot.rejected[why]++;
	records_csv_row(s, &r, why == REJ_TOO_LONG ? "rejected:too_long" : "rejected:kv_capacity", 0, 0, 0,
		0, 0);
}

/* Arrival w (request id) queued on replica ri. */
static void queue_on(struct sim *s, int ri, const struct wl_req *w, int64_t id)
{
	struct replica *rp = &s->reps[ri];

	sched_arrive(rp, w, id);
	/* an idle engine starts its next step after every event of this
	 * instant, so requests arriving together are scheduled together */
	if (!rp->busy && !rp->kick_pending) {
		rp->kick_pending = true;
		evq_push(&s->q, s->now, EV_KICK, ri);
	}
}

static void sim_enter(struct sim *s, const struct wl_req *w, int64_t id);

/* The arrival w: queued on a replica (-1), or rejected at once (the
 * reason). */
static int admit(struct sim *s, const struct wl_req *w)
{
	int64_t id = (int64_t)s->tot.arrived++;
	struct wl_req wi;

	if (w->images > 0 && s->cfg.mm.image_tokens > 0) {
		/* its images' tokens join its prompt after the shared prefix (a
		 * session's first turn: inside the context later turns carry) */
		int64_t add = (int64_t)w->images * s->cfg.mm.image_tokens;
		wi = *w;
		wi.prompt_tokens += add;
		if (wi.turn > 0)
			wi.prefix_tokens += add;
		w = &wi;
	}

	records_arrive(s, w);
	if (w->stage + 1 > s->nstages)
		s->nstages = w->stage + 1;
	/* vLLM answers 400 when prompt + max_tokens exceeds max_model_len */
	if (w->prompt_tokens + w->output_tokens > s->cfg.max_model_len) {
		reject_arrival(s, w, id, REJ_TOO_LONG);
		return REJ_TOO_LONG;
	}
	if (blocks_for(s, w->prompt_tokens + w->output_tokens) > s->cfg.total_kv_blocks ||
	    (s->cfg.pd.prefill > 0 && blocks_for(s, w->prompt_tokens + 1) > s->cfg.pd.prefill_kv_blocks)) {
		reject_arrival(s, w, id, REJ_KV_CAPACITY);
		return REJ_KV_CAPACITY;
	}
	if (!apiq_arrive(s, w, id))
		sim_enter(s, w, id);
	return -1;
}

/* Arrival w (request id, admitted) routed and queued on its replica, or
 * its encoder pool first. */
static void sim_enter(struct sim *s, const struct wl_req *w, int64_t id)
{
	/* P/D: prompts go to a prefill worker */
	int ri = router_arrival(s, w, id);

	if (s->epd && w->images > 0) { /* E/P/D: its images go to an encoder first */
		epd_arrive(s, w, id, ri);
		return;
	}
	queue_on(s, ri, w, id);
}

/* E/P/D: the embeddings of the request in slot landed: it is queued. */
static void emb_arrive(struct sim *s, int32_t slot)
{
	struct wl_req w;
	int64_t id;
	int ri;

	epd_landed(s, slot, &w, &id, &ri);
	queue_on(s, ri, &w, id);
}

/* An event slot: a freed one, else the next of the n in use (the caller
 * grows its array to n). */
static int32_t slot_take(const int32_t *free_slots, size_t *nfree, size_t *n)
{
	return *nfree > 0 ? free_slots[--*nfree] : (int32_t)(*n)++;
}

static void handoff_req(struct sim *s, struct req *r)
{
	int32_t slot;

	r->xfer_ns = (int64_t)llround((s->cfg.pd.alpha_s + (double)r->prompt *
				       s->cfg.pd.kv_bytes_per_token / s->cfg.pd.link_bw) * 1e9);
	slot = slot_take(s->xfer_free, &s->nxfer_free, &s->nxfer);
	XGROW(s->xfer, s->xfer_cap, s->nxfer);
	s->xfer[slot] = r;
	s->tot.pd_transfers++;
	s->tot.pd_transfer_ns += r->xfer_ns;
	evq_push(&s->q, s->now + r->xfer_ns, EV_KV_ARRIVE, slot);
}

/* The KV of the request in slot landed: a decode worker takes it. */
static void kv_arrive(struct sim *s, int32_t slot)
{
	struct req *r = s->xfer[slot];
	struct replica *rp;
	int ri;

	s->xfer[slot] = NULL;
	XGROW(s->xfer_free, s->xfer_free_cap, s->nxfer_free + 1);
	s->xfer_free[s->nxfer_free++] = slot;
	if (r->aborting) { /* its client went away during the transfer */
		free(r->chain);
		r->chain = NULL;
		r->nchain = r->chain_cap = 0;
		abort_req(s, r);
		return;
	}
	r->transferred = true;
	r->gen_init = false;
	r->done = false;
	r->pd_first = s->cfg.pd.first != SIM_PD_FIRST_HANDOFF;
	r->first_ns = s->now;
	r->tok_ns = s->now; /* the first token's client time: its next gap's start */
	if (s->cfg.on_chunk) /* live use: the first token reaches the client now */
		s->cfg.on_chunk(s->cfg.on_chunk_ctx, r->id, s->now, 1, false);
	ri = router_decode_rank(s, r->replica / s->per); /* a decode worker of the request's replica */
	r->replica = ri;
	rp = &s->reps[ri];
	sched_enqueue(rp, r);
	if (!rp->busy && !rp->kick_pending) {
		rp->kick_pending = true;
		evq_push(&s->q, s->now, EV_KICK, ri);
	}
}

static int next_closed(struct sim *s, int64_t t_ns, struct err *e)
{
	struct wl_req w;
	int rc = wl_gen_next(s->gen, t_ns, &w, e);

	if (rc > 0)
		admit(s, &w);
	return rc;
}

/* A completed request reached its client at t_ns: record it, release it
 * and, in a closed loop (unless an earlier error stopped it: `next`
 * false), let its client send the next request. */
/* A session's turn r completed at t_ns: its next turn, if any, is
 * released to arrive a think time later (an EV_TURN). */
static void release_turn(struct sim *s, const struct req *r, int64_t t_ns)
{
	struct wl_req done, w;
	int32_t slot;

	memset(&done, 0, sizeof(done));
	done.prompt_tokens = r->prompt;
	done.output_tokens = r->output;
	done.prefix_group = r->prefix_group;
	done.turn = r->turn;
	done.lora = r->lora;
	if (wl_gen_next_turn(s->gen, &done, t_ns, &w) <= 0)
		return;
	if (w.arrival_ns <= s->now) {
		/* due already (the delivery time lies within the step just
		 * ended): it arrives now, stamped with its own time, as a
		 * closed-loop client's next request does */
		flow_stop(s); /* arrivals that follow completions: not judged */
		admit(s, &w);
		return;
	}
	slot = slot_take(s->later_free, &s->nlater_free, &s->nlater);
	XGROW(s->later, s->later_cap, s->nlater);
	s->later[slot] = w;
	evq_push(&s->q, w.arrival_ns, EV_TURN, slot);
}

/* The turn in slot arrives now. */
static void turn_arrive(struct sim *s, int32_t slot)
{
	struct wl_req w = s->later[slot];

	XGROW(s->later_free, s->later_free_cap, s->nlater_free + 1);
	s->later_free[s->nlater_free++] = slot;
	flow_stop(s); /* arrivals that follow completions: not judged */
	admit(s, &w);
}

static int complete_req(struct sim *s, struct req *r, int64_t t_ns, bool next, struct err *e)
{
	int rc;

	records_keep(s, r);
	if (r->turn > 0 && s->gen && next)
		release_turn(s, r, t_ns);
	sched_req_put(s, r);
	rc = next && s->closed ? next_closed(s, t_ns, e) : 0;
	return rc < 0 ? rc : 0;
}

/* What the scheduler may ask of the engine (core.h). */
static const struct sched_env engine_env = {reject_req, complete_req, handoff_req, abort_req};

/* --- invariants (test builds) --- */

static int check_invariants(struct sim *s, int64_t prev, struct err *e)
{
	uint64_t live = 0, rej = 0;
	char why[200];
	int i, k;

	if (s->now < prev)
		return err_set(e, SS_ERUNTIME, "invariant: clock went back from %lld to %lld ns",
			       (long long)prev, (long long)s->now);
	if (!evq_check(&s->q))
		return err_set(e, SS_ERUNTIME, "invariant: event heap order broken");
	for (i = 0; i < (int)s->nxfer; i++)
		live += s->xfer[i] != NULL;
	live += epd_live(s) + apiq_live(s);
	for (i = 0; i < s->nrep; i++) {
		live += s->reps[i].nrun + s->reps[i].wlen + s->reps[i].ninbox;
		if (!kvc_check(&s->reps[i].kv, why, sizeof(why)))
			return err_set(e, SS_ERUNTIME, "invariant: replica %d KV cache: %s", i, why);
		if (s->reps[i].host.total > 0 && !kvc_check(&s->reps[i].host, why, sizeof(why)))
			return err_set(e, SS_ERUNTIME, "invariant: replica %d host KV tier: %s", i, why);
		if (!sched_check(s, i, why, sizeof(why)))
			return err_set(e, SS_ERUNTIME, "invariant: replica %d running list: %s", i, why);
	}
	for (k = 0; k < REJ__COUNT; k++)
		rej += s->tot.rejected[k];
	if (s->tot.arrived != s->tot.completed + live + rej + s->tot.aborted)
		return err_set(e, SS_ERUNTIME,
			       "invariant: arrived %llu != completed %llu + running/waiting %llu + rejected %llu + aborted %llu",
			       (unsigned long long)s->tot.arrived, (unsigned long long)s->tot.completed,
			       (unsigned long long)live, (unsigned long long)rej, (unsigned long long)s->tot.aborted);
	return 0;
}

/* The queue is empty and no arrival is left: every request that arrived
 * has completed or been rejected.  One still running or waiting would be
 * lost from every count (a scheduler that stopped with work queued), so
 * the run fails rather than report without it. */
static int check_drained(const struct sim *s, struct err *e)
{
	uint64_t gone = 0, running, waiting;
	int k;

	for (k = 0; k < REJ__COUNT; k++)
		gone += s->tot.rejected[k];
	gone += s->tot.aborted;
	if (s->tot.arrived == s->tot.completed + gone)
		return 0;
	sim_queue_counts(s, &running, &waiting);
	return err_set(e, SS_ERUNTIME,
		       "internal error: the simulation stopped at %.6f s with %llu of %llu requests neither "
		       "completed nor rejected (%llu running, %llu waiting)",
		       (double)s->now * 1e-9,
		       (unsigned long long)(s->tot.arrived - s->tot.completed - gone),
		       (unsigned long long)s->tot.arrived, (unsigned long long)running,
		       (unsigned long long)waiting);
}

/* --- lifecycle --- */

/* A memo set's step and drafting memos made empty (off: never kept, the
 * run's --no-step-memo); the idle ranks' memos are made at first use. */
static void sim_memo_init(struct sim_memo *m, bool off)
{
	int k;

	for (k = 0; k < 4; k++) {
		stepmemo_init(&m->step[k / 2][k % 2]);
		m->step[k / 2][k % 2].off = off;
	}
	for (k = 0; k < 2; k++) {
		stepmemo_init(&m->draft[k]);
		m->draft[k].off = off;
	}
}

/* The joint-run tables of sp at kq drafts a step and blocks of bs tokens:
 * memo m's when it holds them for these (made there if it holds none),
 * else made in *own (the caller frees it).  The same tables either way. */
static const struct spath_draws *spath_draws_memo(struct sim_memo *m, const struct spec_cfg *sp, int64_t kq,
						  int64_t bs, struct spath_draws **own)
{
	struct spath_key key;
	int j;

	memset(&key, 0, sizeof(key));
	key.k = sp->k;
	key.nrates = sp->nrates;
	for (j = 0; j < sp->k && j < SPEC_MAX_TOKENS; j++)
		key.rate[j] = sp->rate[sp->nrates > 1 ? j : 0];
	key.kq = kq;
	key.bs = bs;
	if (m->spath && memcmp(&m->spath_key, &key, sizeof(key)) == 0)
		return m->spath;
	if (!m->spath) {
		m->spath = xmalloc(sizeof(*m->spath));
		m->spath_key = key;
		spath_draws_init(sp, kq, bs, m->spath);
		return m->spath;
	}
	*own = xmalloc(sizeof(**own));
	spath_draws_init(sp, kq, bs, *own);
	return *own;
}

/* Whether open-loop spec wl is worth a producer thread (sim_cfg.
 * arrival_thread): enough requests, and a stream no other reader shares
 * (sessions' later turns read what their first turns drew; wl_draws are
 * read by other generators). */
static bool arrival_thread_pays(const struct wl_spec *wl)
{
	double n;

	if (wl->sess.count > 0 || wl->draws)
		return false;
	if (wl->process == WL_TRACE && wl->records)
		n = (double)wl->nrecords;
	else if (wl->process == WL_TRACE)
		n = INFINITY; /* a file: its length is known as it is read */
	else
		n = wl_spec_expected_requests(wl);
	if (wl->num_requests > 0 && (double)wl->num_requests < n)
		n = (double)wl->num_requests;
	return n >= SIM_ARRIVAL_THREAD_MIN;
}

/* Whether a run of wl is expected to keep every record (at most
 * LOGHIST_EXACT_MAX requests): its sustainability test then reads each
 * request's values by id, which the records set as they are kept
 * (flow_complete; on the sinks' thread where records go there), not a
 * pass over the records on this thread after the run; a longer run's
 * test reads sketches, and the values would only take memory until the
 * records are folded. */
static bool flow_stays_exact(const struct sim_cfg *cfg, const struct wl_spec *wl)
{
	double n = wl_spec_expected_requests(wl);

	if (wl->num_requests > 0 && (double)wl->num_requests < n)
		n = (double)wl->num_requests;
	return n <= (double)(cfg->exact_max ? cfg->exact_max : LOGHIST_EXACT_MAX);
}

/* The pooled gaps and the energy meter applied on a thread of their own
 * (sinkq.h), beside the arrivals' (the same runs: one simulation in the
 * process, enough requests), where the run has either to apply. */
static void sinks_start(struct sim *s)
{
	struct sinkq_rep *reps = xmalloc(xmul((size_t)(s->nrep > 0 ? s->nrep : 1), sizeof(*reps)));
	int i;

	for (i = 0; i < s->nrep; i++) {
		const struct replica *rp = &s->reps[i];
		reps[i].cost = rp->cost;
		reps[i].power = rp->power;
		reps[i].gpus = rp->gpus;
		reps[i].peak = rp->cost->peak;
		reps[i].hbm_bw = rp->cost->g->hbm_bw;
	}
	s->sinkq = sinkq_start(s->gapd, s->tot.energy_dyn_j, reps, s->nrep, records_sink, s, &s->sinkw);
	free(reps);
	s->sink_recs = s->sinkq && !s->cfg.requests_out && !s->cfg.on_request && !s->keep_raw && !s->turns &&
		       s->wl->sess.count == 0;
}

/* Every sink record applied and the consumer joined: gapd and
 * tot.energy_dyn_j are the simulation's again (before sim_run returns). */
static void sinks_stop(struct sim *s)
{
	if (s->sinkq) {
		s->sink_recs_used |= s->sink_recs;
		s->sink_recs = false;
		s->sink_words += s->sinkw.head;
		s->tot.energy_dyn_j = sinkq_stop(s->sinkq, &s->sinkw);
		s->sinkq = NULL;
	}
}

/* sim_run's start: the rest of the arrival stream drawn on a thread of its
 * own (sim_cfg.arrival_thread); where none can start, drawn here. */
static void arrival_thread_start(struct sim *s)
{
	s->arrq_ok = false;
	s->arrq = arrq_start(s->gen);
	sinks_start(s);
}

int sim_new(const struct sim_cfg *cfg, const struct cost_model *cost, const struct wl_spec *wl,
	    struct sim **out, struct err *e)
{
	struct sim *s;
	int i, rc;
	int64_t k;
	bool huge;

	if (cfg->total_kv_blocks < 1)
		return err_set(e, SS_EUSAGE, "the KV cache needs at least 1 block, got %lld",
			       (long long)cfg->total_kv_blocks);
	if (cfg->total_kv_blocks > INT32_MAX / 4)
		return err_set(e, SS_EUSAGE, "--total-kv-blocks %lld is too large",
			       (long long)cfg->total_kv_blocks);
	if (cfg->replicas < 0 || cfg->replicas > SIM_MAX_REPLICAS ||
	    (int64_t)(cfg->replicas > 1 ? cfg->replicas : 1) * (cfg->pd.prefill + cfg->dp) > SIM_MAX_RANKS)
		return err_set(e, SS_EUSAGE, "replicas must be 1 to %d and ranks in all at most %d, got %d replicas of %d ranks",
			       SIM_MAX_REPLICAS, SIM_MAX_RANKS, cfg->replicas, cfg->pd.prefill + cfg->dp);
	if (cfg->pd.prefill > 0 && (cfg->pd.prefill_kv_blocks < 1 || cfg->pd.prefill_kv_blocks > INT32_MAX / 4))
		return err_set(e, SS_EUSAGE, "the prefill workers' KV cache needs 1 to %d blocks, got %lld",
			       INT32_MAX / 4, (long long)cfg->pd.prefill_kv_blocks);
	if (cfg->offload.host_blocks < 0 || cfg->offload.host_blocks > INT32_MAX / 4)
		return err_set(e, SS_EUSAGE, "the host KV tier needs 0 to %d blocks, got %lld", INT32_MAX / 4,
			       (long long)cfg->offload.host_blocks);
	if (cfg->epd.encoders < 0 || (cfg->epd.encoders > 0 && (cfg->mm.image_tokens < 1 || !cfg->epd.cost ||
								  !(cfg->epd.link_bw > 0) || !(cfg->epd.alpha_s >= 0))))
		return err_set(e, SS_EUSAGE, "an encoder pool needs images, its cost model, a link and a hand-off >= 0");
	if (cfg->mm.image_tokens < 0 || (cfg->mm.image_tokens > 0 && cfg->mm.patches < 1))
		return err_set(e, SS_EUSAGE, "images need image_tokens >= 0, and with it patches >= 1, got %lld, %lld",
			       (long long)cfg->mm.image_tokens, (long long)cfg->mm.patches);
	if (cfg->lora.max_loras < 0 || (cfg->lora.max_loras > 0 &&
					(cfg->lora.rank < 1 || cfg->lora.cpu_slots < 0 || !(cfg->lora.dtype_bytes > 0))))
		return err_set(e, SS_EUSAGE, "LoRA needs max_loras >= 0, and with it a rank >= 1, host slots >= 0 "
			       "and a dtype size > 0, got %d, %d, %lld, %g", cfg->lora.max_loras, cfg->lora.rank,
			       (long long)cfg->lora.cpu_slots, cfg->lora.dtype_bytes);
	/* one long simulation in the process: the heap it is about to fill
	 * on huge pages (the replicas, request slabs and records of 1 M chat
	 * requests at DP 64 take ~50 MB) */
	huge = cfg->arrival_thread && !cfg->live && arrival_thread_pays(wl);
	if (huge)
		xheap_huge(SIM_HUGE_HEAP);
	s = xcalloc(1, sizeof(*s));
	s->cfg = *cfg;
	s->huge = huge;
	if (cfg->live) {
		/* every request walked at every step: each chunk is seen */
		s->cfg.no_lazy_decoders = true;
		s->cfg.no_segments = true;
		s->cfg.no_pooled_gaps = false;
	}
	s->cost = cost;
	s->wl = wl;
	s->env = &engine_env;
	s->gapd = xmalloc(xmul(256, sizeof(*s->gapd)));
	for (k = 0; k < 256; k++)
		wdist_init(&s->gapd[k]);
	if (cfg->memo && !cfg->no_step_memo) {
		s->memo = cfg->memo;
	} else {
		s->memo = &s->own_memo;
		sim_memo_init(s->memo, cfg->no_step_memo);
	}
	s->per = cfg->pd.prefill + cfg->dp;
	s->nreplicas = cfg->replicas > 1 ? cfg->replicas : 1;
	s->nrep = s->per * s->nreplicas;
	s->nroute = s->nreplicas;
	s->step_prefetch = s->nrep >= SIM_PREFETCH_RANKS;
	s->prefetched_seq = UINT64_MAX;
	s->rr_in = xcalloc((size_t)s->nreplicas, sizeof(*s->rr_in));
	s->rr_dec = xcalloc((size_t)s->nreplicas, sizeof(*s->rr_dec));
	pcg32_seed(&s->route_rng, wl->seed, 12);
	pcg32_seed(&s->room_rng, wl->seed, 16);
	s->max_blocks_per_req = blocks_for(s, cfg->max_model_len) + 1;
	s->reps = xcalloc_aligned((size_t)s->nrep, sizeof(*s->reps), _Alignof(struct replica));
	for (i = 0; i < s->nrep; i++) {
		struct replica *rp = &s->reps[i];
		bool pre = i % s->per < cfg->pd.prefill;
		rp->prefill_only = pre;
		rp->cost = pre ? cfg->pd.prefill_cost : cost;
		rp->mbt = pre ? cfg->pd.prefill_max_num_batched_tokens : cfg->max_num_batched_tokens;
		rp->mns = pre ? cfg->pd.prefill_max_num_seqs : cfg->max_num_seqs;
		kvc_init(&rp->kv, (int32_t)(pre ? cfg->pd.prefill_kv_blocks : cfg->total_kv_blocks),
			 cfg->prefix_caching);
		if (cfg->offload.host_blocks > 0 && cfg->prefix_caching) {
			kvc_init(&rp->host, (int32_t)cfg->offload.host_blocks, true);
			rp->kv.lower = &rp->host;
		}
		rp->pp = rp->cost->p.pp > 1 ? rp->cost->p.pp : 1;
		sched_replica_init(s, rp);
		if (rp->pp > 1)
			rp->pipe = xcalloc((size_t)rp->pp, sizeof(*rp->pipe));
		/* (grown to the most chunks a step has: step.c plan_step) */
		rp->chunk_cap = 8;
		rp->chunk_len = xcalloc(rp->chunk_cap, sizeof(int64_t));
		rp->chunk_prefix = xcalloc(rp->chunk_cap, sizeof(int64_t));
		/* aiter's Triton GEMM's JIT cache (step.c jit_stall_s): one
		 * bit per key up to the largest step */
		if (rp->cost->tbs_jit_kernels > 0) {
			rp->jit_nkeys = cost_tbs_jit_key(rp->cost, rp->cost->max_m) + 2;
			rp->jit_seen = xcalloc((size_t)rp->jit_nkeys / 8 + 1, 1);
		}
	}
	/* the least-loaded router's choices from a tree over the ranks
	 * (router.c), whose leaves follow the ranks' loads; where every
	 * choice is over all ranks (one rank a replica, or one replica's DP
	 * ranks without P/D), from the ranks kept by load level: a load that
	 * moves moves one bit, where a leaf's path re-decides log2(ranks)
	 * nodes */
	if (s->cfg.router == ROUTER_LEAST_OUTSTANDING && s->nrep > 1) {
		if (cfg->pd.prefill == 0 && (s->per == 1 || s->nreplicas == 1))
			loadtree_init_levels(&s->ltree, s->nrep);
		else
			loadtree_init(&s->ltree, s->nrep);
		for (i = 0; i < s->nrep; i++)
			loadtree_mark_at(&s->ltree, i, &s->reps[i].ldirty, &s->reps[i].lbit);
	}
	if (cfg->epd.encoders > 0)
		epd_init(s);
	apiq_init(s);
	evq_init(&s->q, 64);
	pcg32_seed(&s->spec_rng, wl->seed, 11);
	spec_draws_init(&s->cfg.spec, s->spec_rng.inc, &s->spec_draws);
	s->spath_draws = spath_draws_memo(s->memo, &s->cfg.spec, spath_cap(s) - 1, s->cfg.block_size, &s->own_spath);
	/* no sustainability test for live use, closed loops, traces and rate
	 * curves (its windows assume one rate) */
	s->flow_off = cfg->live || wl->process == WL_TRACE || wl->process == WL_CONCURRENCY || wl->ncurve > 0;
	if (cfg->live) { /* arrivals come from sim_submit */
		s->nstages = 1;
		*out = s;
		return 0;
	}
	if ((rc = wl_gen_new(wl, &s->gen, e)) < 0) {
		sim_free(s);
		return rc;
	}
	s->closed = wl_gen_closed_loop(s->gen);
	{
		double n = wl_spec_expected_requests(wl);
		s->rec_hint = n > 0 && n < 1e15 ? (size_t)n : 0;
	}
	s->flow_off = s->flow_off || s->closed;
	s->nstages = wl->nstages > 0 ? (int)wl->nstages : 1;
	if (s->closed) {
		/* each client's first request; a workload of fewer requests
		 * than clients ends the loop early */
		for (k = 0, rc = 1; k < wl_gen_concurrency(s->gen) && rc > 0; k++)
			if ((rc = next_closed(s, 0, e)) < 0) {
				sim_free(s);
				return rc;
			}
	} else {
		rc = wl_gen_next(s->gen, 0, &s->next, e);
		if (rc < 0) {
			sim_free(s);
			return rc;
		}
		s->has_next = rc > 0;
		if (s->has_next)
			s->next_seq = s->q.next_seq++;
		s->arrq_ok = cfg->arrival_thread && s->has_next && arrival_thread_pays(wl);
		s->flow_byid = s->arrq_ok && !s->flow_off && flow_stays_exact(&s->cfg, wl);
	}
	*out = s;
	return 0;
}

static void sim_memo_release(struct sim_memo *m)
{
	int k;

	for (k = 0; k < 4; k++)
		stepmemo_release(&m->step[k / 2][k % 2]);
	for (k = 0; k < 2; k++)
		stepmemo_release(&m->draft[k]);
	for (k = 0; k < 2; k++)
		if (m->idle[k].e)
			dmemo_release(&m->idle[k]);
	free(m->spath);
	m->spath = NULL;
}

struct sim_memo *sim_memo_new(void)
{
	struct sim_memo *m = xcalloc(1, sizeof(*m));

	sim_memo_init(m, false);
	return m;
}

void sim_memo_free(struct sim_memo *m)
{
	if (!m)
		return;
	sim_memo_release(m);
	free(m);
}

void sim_free(struct sim *s)
{
	size_t i, j;
	int k;

	if (!s)
		return;
	sinks_stop(s);
	epd_release(s);
	apiq_release(s);
	for (k = 0; k < s->nrep; k++) {
		struct replica *rp = &s->reps[k];
		kvc_release(&rp->kv);
		if (rp->host.total > 0)
			kvc_release(&rp->host);
		sched_replica_release(s, rp);
		free(rp->chunk_len);
		free(rp->chunk_prefix);
		free(rp->jit_seen);
		for (j = 0; rp->pipe && j < (size_t)rp->pp; j++)
			free(rp->pipe[j].reqs);
		free(rp->pipe);
	}
	xfree_aligned(s->reps, (size_t)s->nrep, sizeof(*s->reps));
	if (s->ltree.n > 0)
		loadtree_release(&s->ltree);
	sim_memo_release(&s->own_memo);
	free(s->own_spath);
	free(s->rr_in);
	free(s->rr_dec);
	free(s->route_ix);
	free(s->route_chain);
	for (i = 0; i < s->nxfer; i++)
		if (s->xfer[i]) {
			free(s->xfer[i]->blocks);
			free(s->xfer[i]->chain);
		}
	free(s->xfer);
	free(s->xfer_free);
	for (i = 0; i < s->nslabs; i++)
		free(s->slabs[i]);
	free(s->slabs);
	evq_release(&s->q);
	arrq_free(s->arrq);
	wl_gen_free(s->gen);
	free(s->ttft);
	free(s->itl);
	free(s->tpot);
	free(s->e2e);
	free(s->queue);
	free(s->stage);
	free(s->rec_id);
	flow_stop(s);
	free(s->raw_first);
	free(s->raw_last);
	free(s->raw_out);
	free(s->later);
	free(s->later_free);
	if (s->turns)
		for (k = 0; k < SIM_TURN_ROWS; k++)
			loghist_release(&s->turns[k].ttft);
	free(s->turns);
	free(s->sum);
	free(s->sum_ok);
	for (i = 0; i < 256; i++)
		wdist_release(&s->gapd[i]);
	free(s->gapd);
	if (s->hist)
		for (i = 0; i < 256 * 5; i++)
			loghist_release(&s->hist[i]);
	free(s->hist);
	free(s);
}

/* sim_step's body, written into sim_run's loop too (a call per event,
 * with its register saves, cost more than the bookkeeping of a DP 64
 * rank's step end; GCC and Clang) */
static SCHED_STEP_INLINE int next_event(struct sim *s, struct err *e)
{
	struct event ev;
	int64_t prev = s->now, id;
	struct wl_req w; /* a request the API server's intake lets in */
	int rc;

	/* the next arrival, unless a queued event precedes it */
	if (s->has_next && (evq_size(&s->q) == 0 || s->next.arrival_ns < evq_top_ns(&s->q) ||
			    (s->next.arrival_ns == evq_top_ns(&s->q) && s->next_seq < evq_top_seq(&s->q)))) {
		ev.t_ns = s->next.arrival_ns;
		ev.kind = EV_ARRIVAL;
		ev.replica = -1;
	} else if (!evq_pop(&s->q, &ev)) {
		return check_drained(s, e);
	}
	/* (the next event's records fetched while this one runs) */
	if (s->step_prefetch && evq_size(&s->q) > 0 && evq_top_kind(&s->q) == EV_STEP_END &&
	    evq_top_seq(&s->q) != s->prefetched_seq) {
		s->prefetched_seq = evq_top_seq(&s->q);
		sched_step_end_next(s, evq_top_replica(&s->q));
	}
	s->now = ev.t_ns;
	s->tot.events++;
	switch (ev.kind) {
	case EV_ARRIVAL: {
		struct wl_req cur = s->next;
		/* queue the next arrival first: same-time arrivals precede the kick */
		rc = s->arrq ? arrq_next(s->arrq, &s->next, e) : wl_gen_next(s->gen, s->now, &s->next, e);
		if (rc < 0)
			return rc;
		s->has_next = rc > 0;
		if (s->has_next) /* as if queued now */
			s->next_seq = s->q.next_seq++;
		admit(s, &cur);
		break;
	}
	case EV_STEP_END:
		if ((rc = sched_finish_step(s, ev.replica, e)) < 0)
			return rc;
		break;
	case EV_KV_ARRIVE:
		kv_arrive(s, ev.replica);
		break;
	case EV_STAGE_FREE:
		sched_stage_free(s, ev.replica);
		break;
	case EV_TURN:
		turn_arrive(s, ev.replica);
		break;
	case EV_ENC_DONE:
		epd_encoded(s, ev.replica);
		break;
	case EV_EMB_ARRIVE:
		emb_arrive(s, ev.replica);
		break;
	case EV_API_CLOSE:
		apiq_close(s);
		break;
	case EV_API_TAKE:
		while (apiq_take(s, &w, &id))
			sim_enter(s, &w, id);
		break;
	case EV_API_PASS:
		while (apiq_pass(s, &w, &id))
			sim_enter(s, &w, id);
		break;
	case EV_KICK:
		s->reps[ev.replica].kick_pending = false;
		if (!s->reps[ev.replica].busy)
			sched_start_step(s, ev.replica);
		break;
	}
	s->tot.duration_ns = s->now;
	if (s->cfg.check_invariants && (rc = check_invariants(s, prev, e)) < 0)
		return rc;
	if (evq_size(&s->q) > 0 || s->has_next)
		return 1;
	return (rc = check_drained(s, e)) < 0 ? rc : 0;
}

int sim_step(struct sim *s, struct err *e)
{
	return next_event(s, e);
}

int sim_run_ticking(struct sim *s, void (*tick)(void *ctx, const struct sim *s), void *ctx, struct err *e)
{
	int rc;

	if (s->arrq_ok)
		arrival_thread_start(s);
	while ((rc = next_event(s, e)) > 0)
		if ((s->tot.events & 0xffff) == 0)
			tick(ctx, s);
	sinks_stop(s);
	return rc;
}

int sim_run(struct sim *s, struct err *e)
{
	int rc;

	if (s->arrq_ok)
		arrival_thread_start(s);
	while ((rc = next_event(s, e)) > 0)
		if (s->cfg.stop && *s->cfg.stop) {
			rc = 0;
			break;
		}
	sinks_stop(s);
	return rc;
}

const struct sim_totals *sim_totals(const struct sim *s)
{
	return &s->tot;
}

int64_t sim_now_ns(const struct sim *s)
{
	return s->now;
}

int sim_nstages(const struct sim *s)
{
	return s->nstages;
}

void sim_queue_counts(const struct sim *s, uint64_t *running, uint64_t *waiting)
{
	int i;

	*running = *waiting = 0;
	for (i = 0; i < s->nrep; i++) {
		*running += s->reps[i].nrun;
		*waiting += s->reps[i].wlen + s->reps[i].ninbox;
	}
}

double sim_kv_usage(const struct sim *s)
{
	double used = 0, total = 0;
	int i;

	for (i = 0; i < s->nrep; i++) {
		used += (double)kvc_used(&s->reps[i].kv);
		total += (double)s->reps[i].kv.total;
	}
	return total > 0 ? used / total : 0;
}

void sim_set_routable(struct sim *s, const int *ix, int n)
{
	int i;

	if (n <= 0 || !ix) {
		free(s->route_ix);
		s->route_ix = NULL;
		s->nroute = s->nreplicas;
		return;
	}
	assert(n <= s->nreplicas);
	if (!s->route_ix)
		s->route_ix = xcalloc((size_t)s->nreplicas, sizeof(*s->route_ix));
	for (i = 0; i < n; i++) {
		assert(ix[i] >= 0 && ix[i] < s->nreplicas);
		s->route_ix[i] = ix[i];
	}
	s->nroute = n;
}

int sim_nreplicas(const struct sim *s)
{
	return s->nreplicas;
}

void sim_replica_load(const struct sim *s, int replica, struct sim_replica_load *out)
{
	int k;

	memset(out, 0, sizeof(*out));
	for (k = replica * s->per; k < (replica + 1) * s->per; k++) {
		const struct replica *rp = &s->reps[k];
		out->running += rp->nrun;
		out->waiting += rp->wlen + rp->ninbox;
		out->kv_used += (double)kvc_used(&rp->kv);
		out->kv_total += (double)rp->kv.total;
		out->max_seqs += rp->mns;
	}
}

void sim_set_provisioned_share(struct sim *s, double share)
{
	s->provisioned_share = share;
	s->sum_events = s->tot.events + 1; /* summaries computed before are stale */
}

void sim_on_request(struct sim *s, void (*fn)(void *ctx, const struct sim_req_row *row), void *ctx)
{
	sinks_stop(s); /* (rows are read from here on: kept on this thread) */
	s->cfg.on_request = fn;
	s->cfg.on_request_ctx = ctx;
}

/* --- live use --- */

int64_t sim_next_event_ns(const struct sim *s)
{
	int64_t t = evq_size(&s->q) > 0 ? evq_top_ns(&s->q) : INT64_MAX;

	return s->has_next && s->next.arrival_ns < t ? s->next.arrival_ns : t;
}

int sim_advance(struct sim *s, int64_t t_ns, struct err *e)
{
	int64_t t;
	int rc;

	while ((t = sim_next_event_ns(s)) != INT64_MAX && t <= t_ns)
		if ((rc = sim_step(s, e)) < 0)
			return rc;
	if (t_ns > s->now && t_ns != INT64_MAX)
		s->now = t_ns;
	return 0;
}

int sim_submit(struct sim *s, int64_t prompt_tokens, int64_t output_tokens, int64_t *id,
	       enum reject_reason *why, struct err *e)
{
	struct wl_req w;
	int rc;

	if (!s->cfg.live)
		return err_set(e, SS_EUSAGE, "sim_submit: not a live simulation");
	if (prompt_tokens < 1 || output_tokens < 1 || prompt_tokens > (1 << 24) || output_tokens > (1 << 24))
		return err_set(e, SS_EUSAGE, "sim_submit: prompt and output tokens must be 1 to 2^24, got %lld and %lld",
			       (long long)prompt_tokens, (long long)output_tokens);
	memset(&w, 0, sizeof(w));
	w.arrival_ns = s->now;
	w.prompt_tokens = prompt_tokens;
	w.output_tokens = output_tokens;
	w.prefix_group = -1;
	w.content_id = -(int64_t)(s->tot.arrived + 1); /* unique: no prefix shared */
	*id = (int64_t)s->tot.arrived;
	if ((rc = admit(s, &w)) < 0)
		return 1;
	*why = (enum reject_reason)rc;
	return 0;
}

int sim_abort(struct sim *s, int64_t id, struct err *e)
{
	size_t i;
	int ri, rc;

	if (!s->cfg.live)
		return err_set(e, SS_EUSAGE, "sim_abort: not a live simulation");
	/* (live use submits no images: the E/P/D encoder pools hold none) */
	for (i = 0; i < s->nxfer; i++)
		if (s->xfer[i] && s->xfer[i]->id == id) {
			s->xfer[i]->aborting = true; /* kv_arrive */
			return 2;
		}
	for (ri = 0; ri < s->nrep; ri++)
		if ((rc = sched_abort(s, ri, id)) > 0)
			return rc;
	return 0;
}

