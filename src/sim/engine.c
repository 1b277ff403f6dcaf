/* engine.c - simulation lifecycle, events, admission and routing, request
 * records and summaries.  The scheduler and the step live in sched.c.
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

const char *reject_reason_name(enum reject_reason r)
{
	switch (r) {
	case REJ_TOO_LONG: return "too_long";
	case REJ_KV_CAPACITY: return "kv_capacity";
	default: return "?";
	}
}

/* --- requests and pools --- */

/* --- metrics --- */

static void csv_row(struct sim *s, const struct req *r, const char *status, double ttft_ms,
		    double itl_ms, double tpot_ms, double e2e_ms, double queue_ms)
{
	if (s->cfg.on_request) {
		struct sim_req_row row = {r->id, r->arrival_ns, strcmp(status, "completed") == 0,
					  strcmp(status, "aborted") == 0, queue_ms,
					  ttft_ms, itl_ms, tpot_ms, e2e_ms, r->prompt, r->output};
		s->cfg.on_request(s->cfg.on_request_ctx, &row);
	}
	if (!s->cfg.requests_out)
		return;
	fprintf(s->cfg.requests_out, "%lld,%d,%d,%.6f,%lld,%lld,%lld,%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f",
		(long long)r->id, r->replica, r->stage, (double)r->arrival_ns * 1e-9,
		(long long)r->prompt, (long long)r->output, (long long)r->prefix_hit_tokens,
		r->preempts, status, queue_ms, ttft_ms, itl_ms, tpot_ms, e2e_ms);
	if (s->cfg.spec.k > 0) /* output tokens after the first per decode step */
		fprintf(s->cfg.requests_out, ",%.4f",
			r->dsteps > 0 ? (double)(r->output - 1) / r->dsteps : 0.0);
	if (s->cfg.pd.prefill > 0)
		fprintf(s->cfg.requests_out, ",%.4f", (double)r->xfer_ns * 1e-6);
	fputc('\n', s->cfg.requests_out);
}

void sim_requests_csv_header(FILE *f, bool spec, bool pd)
{
	fprintf(f, "id,replica,stage,arrival_s,prompt_tokens,output_tokens,cached_tokens,preemptions,status,queue_ms,ttft_ms,itl_ms,tpot_ms,e2e_ms%s%s\n",
		spec ? ",tokens_per_step" : "", pd ? ",kv_transfer_ms" : "");
}

/* Move the recorded values into the per-stage histograms (allocated on
 * first use) and empty the arrays: memory stays bounded past
 * LOGHIST_EXACT_MAX completions. */
static void fold_records(struct sim *s)
{
	const float *src[5] = {s->ttft, s->itl, s->tpot, s->e2e, s->queue};
	size_t i, k;

	if (!s->hist) {
		flow_fold(s); /* (from the records about to go) */
		s->hist = xmalloc(xmul(256 * 5, sizeof(struct loghist)));
		for (i = 0; i < 256 * 5; i++)
			loghist_init(&s->hist[i]);
	}
	for (i = 0; i < s->nrec; i++)
		for (k = 0; k < 5; k++)
			loghist_add(&s->hist[s->stage[i] * 5 + k], src[k][i]);
	s->nrec = 0;
	/* folded: sim_reprice_api has nothing left to recompute */
	free(s->raw_first);
	free(s->raw_last);
	free(s->raw_out);
	s->raw_first = s->raw_last = s->raw_out = NULL;
	if (s->cap_rec > 4096) { /* from here on the arrays only buffer 4096 */
		s->cap_rec = 4096;
		s->ttft = xreallocarray(s->ttft, 4096, sizeof(float));
		s->itl = xreallocarray(s->itl, 4096, sizeof(float));
		s->tpot = xreallocarray(s->tpot, 4096, sizeof(float));
		s->e2e = xreallocarray(s->e2e, 4096, sizeof(float));
		s->queue = xreallocarray(s->queue, 4096, sizeof(float));
		s->stage = xreallocarray(s->stage, 4096, sizeof(uint8_t));
		s->rec_id = xreallocarray(s->rec_id, 4096, sizeof(int32_t));
	}
}

/* A completion's client-side TTFT and E2E (ms) from its first and last
 * token's engine times after its arrival (record, sim_reprice_api). */
static void client_times(const struct sim *s, const struct overheads *ov, int64_t first_ns,
			 int64_t last_ns, int64_t output, int64_t prompt, double *ttft, double *e2e)
{
	bool h2 = !(s->cost->cfg.off & COST_H2);
	double api = h2 ? ov->api_ttft_ms : 0, stream = h2 ? ov->stream_token_us : 0;

	if (h2 && ov->api_prompt_us > 0)
		api += ov->api_prompt_us * 1e-3 * (double)prompt;

	*ttft = (double)first_ns * 1e-6 + api;
	*e2e = (double)last_ns * 1e-6 + api + stream * 1e-3 * (double)output + (h2 ? ov->api_e2e_ms : 0);
}

/* A completed session turn's figures, in its turn's row. */
static void turn_record(struct sim *s, const struct req *r, double ttft_ms)
{
	struct turn_agg *ta;
	int k;

	if (!s->turns) {
		s->turns = xcalloc(SIM_TURN_ROWS, sizeof(*s->turns));
		for (k = 0; k < SIM_TURN_ROWS; k++)
			loghist_init(&s->turns[k].ttft);
	}
	ta = &s->turns[(r->turn < SIM_TURN_ROWS ? r->turn : SIM_TURN_ROWS) - 1];
	loghist_add(&ta->ttft, ttft_ms);
	ta->completed++;
	ta->prompt += (double)r->prompt;
	ta->hit += (double)r->prefix_hit_tokens;
}

size_t sim_turn_stats(const struct sim *s, struct sim_turn_stats *out, size_t max)
{
	size_t n = 0;
	int k;

	for (k = 0; s->turns && k < SIM_TURN_ROWS && n < max; k++) {
		const struct turn_agg *ta = &s->turns[k];
		if (ta->completed == 0)
			continue;
		out[n].turn = k + 1;
		out[n].and_later = k + 1 == SIM_TURN_ROWS;
		out[n].completed = (size_t)ta->completed;
		out[n].prompt_tokens_mean = ta->prompt / (double)ta->completed;
		out[n].prefix_hit_rate = ta->prompt > 0 ? ta->hit / ta->prompt : 0;
		loghist_summarise(&ta->ttft, &out[n].ttft_ms);
		n++;
	}
	return n;
}

static void record(struct sim *s, const struct req *r)
{
	/* (the decode pool's overheads: its cost model is s->cost) */
	const struct overheads *ov = &s->cost->cfg.ov;
	double ttft, e2e, itl;
	double queue = (double)(r->sched_ns - r->arrival_ns) * 1e-6;
	size_t i = s->nrec;
	struct stage_agg *ag;

	client_times(s, ov, r->first_ns - r->arrival_ns, r->last_ns - r->arrival_ns, r->output, r->prompt, &ttft,
		     &e2e);
	itl = r->output > 1 ? (e2e - ttft) / (double)(r->output - 1) : NAN;
	flow_complete(s, r, ttft, e2e);
	if (i == s->cap_rec) {
		size_t c = s->cap_rec ? s->cap_rec * 2 : 4096;
		if (s->keep_raw && !s->hist) {
			s->raw_first = xreallocarray(s->raw_first, c, sizeof(int64_t));
			s->raw_last = xreallocarray(s->raw_last, c, sizeof(int64_t));
			s->raw_out = xreallocarray(s->raw_out, c, sizeof(int64_t));
		}
		s->ttft = xreallocarray(s->ttft, c, sizeof(float));
		s->itl = xreallocarray(s->itl, c, sizeof(float));
		s->tpot = xreallocarray(s->tpot, c, sizeof(float));
		s->e2e = xreallocarray(s->e2e, c, sizeof(float));
		s->queue = xreallocarray(s->queue, c, sizeof(float));
		s->stage = xreallocarray(s->stage, c, sizeof(uint8_t));
		s->rec_id = xreallocarray(s->rec_id, c, sizeof(int32_t));
		s->cap_rec = c;
	}
	if (s->raw_first) {
		s->raw_first[i] = r->first_ns - r->arrival_ns;
		s->raw_last[i] = r->last_ns - r->arrival_ns;
		s->raw_out[i] = r->output;
	}
	s->ttft[i] = (float)ttft;
	s->itl[i] = (float)itl;
	s->tpot[i] = (float)(e2e / (double)r->output);
	s->e2e[i] = (float)e2e;
	s->queue[i] = (float)queue;
	s->stage[i] = (uint8_t)(r->stage > 255 ? 255 : r->stage);
	s->rec_id[i] = r->id <= INT32_MAX ? (int32_t)r->id : -1;
	ag = &s->agg[s->stage[i]];
	s->nrec++;
	if (s->hist ? s->nrec == s->cap_rec
		    : s->nrec > (s->cfg.exact_max ? s->cfg.exact_max : LOGHIST_EXACT_MAX) &&
			      !s->cfg.exact_percentiles)
		fold_records(s);
	if (ag->completed == 0 || r->arrival_ns < ag->first_arr_ns)
		ag->first_arr_ns = r->arrival_ns;
	if (ag->completed == 0 || r->arrival_ns > ag->last_arr_ns)
		ag->last_arr_ns = r->arrival_ns;
	if (ag->completed == 0 || r->last_ns > ag->last_done_ns)
		ag->last_done_ns = r->last_ns;
	ag->completed++;
	ag->in_tok += (double)r->prompt;
	ag->out_tok += (double)r->output;
	ag->wait_ms += queue;
	ag->run_ms += (double)(r->last_ns - r->sched_ns) * 1e-6;
	{
		/* speculative decoding: explicit requests count their chunks;
		 * P/D's first token may come with the second (pd_merged) */
		double ng = s->cfg.spec.k > 0 ? (double)r->ngaps : (double)(r->output - 1 - r->pd_merged);
		if (ng > 0) {
			ag->gap_ms += e2e - ttft;
			ag->gaps += ng;
		}
	}
	if (r->turn > 0)
		turn_record(s, r, ttft);
	csv_row(s, r, "completed", ttft, isnan(itl) ? 0 : itl, e2e / (double)r->output, e2e, queue);
}


/* --- admission and routing --- */

const char *router_name(enum router_kind k)
{
	switch (k) {
	case ROUTER_ROUND_ROBIN: return "round-robin";
	case ROUTER_LEAST_OUTSTANDING: return "least-loaded";
	case ROUTER_KV_AWARE: return "kv-aware";
	}
	return "?";
}

enum router_kind router_kind_of(const char *name, enum router_kind none)
{
	static const struct {
		const char *name;
		enum router_kind k;
	} names[] = {{"round-robin", ROUTER_ROUND_ROBIN}, {"rr", ROUTER_ROUND_ROBIN},
		     {"least-loaded", ROUTER_LEAST_OUTSTANDING}, {"lo", ROUTER_LEAST_OUTSTANDING},
		     {"least-outstanding", ROUTER_LEAST_OUTSTANDING}, {"kv-aware", ROUTER_KV_AWARE},
		     {"kv", ROUTER_KV_AWARE}};
	size_t i;

	if (!name)
		return none;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i].name) == 0)
			return names[i].k;
	assert(!"a router name the field table did not take");
	return none;
}

/* A bare record of arrival w, request id (what its arrival says). */
static void req_of_arrival(struct req *r, const struct wl_req *w, int64_t id)
{
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->arrival_ns = w->arrival_ns;
	r->prompt = w->prompt_tokens;
	r->output = w->output_tokens;
	r->prefix_tokens = w->prefix_tokens;
	r->prefix_group = w->prefix_group;
	r->content_id = w->content_id;
	r->stage = w->stage;
}

/* The kv-aware router's weights: llm-d's precise prefix-cache routing
 * profile (llm-d guides/precise-prefix-cache-aware, gaie-kv-events/values.yaml,
 * llm-d-inference-scheduler v0.7; https://llm-d.ai/docs/dev/guides/precise-prefix-cache-routing):
 * precise-prefix-cache-scorer 3 (the share of the prompt's blocks resident
 * in the endpoint's KV cache, from the engines' KV events: here read
 * straight from the cache), kv-cache-utilization-scorer 2 (1 - the share
 * of KV blocks in use) and queue-scorer 2 (waiting requests, min-max
 * normalised over the candidates: the shortest queue 1, the longest 0, all
 * 1 when equal), then max-score-picker (the highest sum; equal sums drawn
 * at random, as its shuffle before a stable sort does). */
#define ROUTE_W_PREFIX 3.0
#define ROUTE_W_KV 2.0
#define ROUTE_W_QUEUE 2.0

/* The content chain of arrival w (request id) a router looks up: the
 * hashes of the blocks others can hold (its group prefix or repeated
 * prompt, at most what a prefix hit may cover: all but the last token), as
 * the scheduler computes them (sched_block_hash); their count. */
static int32_t route_chain(struct sim *s, const struct wl_req *w, int64_t id)
{
	int64_t bs = s->cfg.block_size, maxb = full_blocks(s, w->prompt_tokens - 1), n, b;
	uint64_t prev = 0;
	struct req r;

	n = w->content_id >= 0 ? w->prompt_tokens / bs : w->prefix_group >= 0 ? w->prefix_tokens / bs : 0;
	if (n > maxb)
		n = maxb;
	if (n <= 0 || !s->cfg.prefix_caching)
		return 0;
	req_of_arrival(&r, w, id);
	XGROW(s->route_chain, s->route_chain_cap, (size_t)n);
	for (b = 0; b < n; b++)
		prev = s->route_chain[b] = sched_block_hash(s, &r, b, prev);
	return (int32_t)n;
}

/* Candidate i of a routing choice: ranks [lo + i x stride, + width). */
struct route_cands {
	int n, lo, stride, width;
	const uint64_t *chain;   /* the arrival's content chain (kv-aware), nchain blocks */
	int32_t nchain, nfull;   /* nfull: the prompt's full blocks */
	const int *map;          /* candidate i is block map[i] (autoscaling: sim_set_routable), or NULL: i */
};

/* The first rank of candidate i. */
static inline int cand_lo(const struct route_cands *c, int i)
{
	return c->lo + (c->map ? c->map[i] : i) * c->stride;
}

/* kv-aware: candidate i's score (weights above); its ranks' waiting
 * queues summed, their KV use pooled, their longest cached prefix. */
static double route_score(const struct sim *s, const struct route_cands *c, int i, size_t qmin, size_t qmax)
{
	double used = 0, total = 0, q = 1;
	size_t wait = 0;
	int32_t hits = 0;
	int k, r0 = cand_lo(c, i);

	for (k = r0; k < r0 + c->width; k++) {
		const struct replica *rp = &s->reps[k];
		wait += rp->wlen + rp->ninbox;
		used += (double)kvc_used(&rp->kv);
		total += (double)rp->kv.total;
		if (c->nchain > hits) {
			int32_t h = kvc_cached_prefix(&rp->kv, c->chain, c->nchain);
			if (h > hits)
				hits = h;
		}
	}
	if (qmax > qmin)
		q = (double)(qmax - wait) / (double)(qmax - qmin);
	return ROUTE_W_PREFIX * (c->nfull > 0 ? (double)hits / (double)c->nfull : 0) +
	       ROUTE_W_KV * (total > 0 ? 1 - used / total : 0) + ROUTE_W_QUEUE * q;
}

/* The candidate the router picks (ctr: its round-robin counter). */
static int route(struct sim *s, const struct route_cands *c, uint64_t *ctr)
{
	int i, k, best = 0;
	size_t bl = SIZE_MAX, qmin = SIZE_MAX, qmax = 0;
	double bs = -1;
	uint32_t ties = 0;

	if (c->n == 1)
		return 0;
	switch (s->cfg.router) {
	case ROUTER_ROUND_ROBIN:
		return (int)((*ctr)++ % (uint64_t)c->n);
	case ROUTER_LEAST_OUTSTANDING:
		for (i = 0; i < c->n; i++) {
			size_t l = 0;
			for (k = cand_lo(c, i); k < cand_lo(c, i) + c->width; k++)
				l += s->reps[k].nrun + s->reps[k].wlen + s->reps[k].ninbox;
			if (l < bl) {
				bl = l;
				best = i;
			}
		}
		return best;
	case ROUTER_KV_AWARE:
		break;
	}
	for (i = 0; i < c->n; i++) {
		size_t wait = 0;
		for (k = cand_lo(c, i); k < cand_lo(c, i) + c->width; k++)
			wait += s->reps[k].wlen + s->reps[k].ninbox;
		qmin = wait < qmin ? wait : qmin;
		qmax = wait > qmax ? wait : qmax;
	}
	for (i = 0; i < c->n; i++) {
		double sc = route_score(s, c, i, qmin, qmax);
		if (sc > bs) {
			bs = sc;
			best = i;
			ties = 1;
		} else if (sc == bs && pcg32_bounded(&s->route_rng, ++ties) == 0) {
			best = i; /* each of the equal best kept with chance 1/ties */
		}
	}
	return best;
}

/* The engine rank arrival w (request id) is queued on: a replica by the
 * router, then one of its ranks (with P/D, one of its prefill workers). */
static int route_arrival(struct sim *s, const struct wl_req *w, int64_t id)
{
	int pre = s->cfg.pd.prefill, k = 0;
	struct route_cands c = {s->nroute, 0, s->per, pre > 0 ? pre : s->per, NULL, 0, 0, s->route_ix};

	if (s->cfg.router == ROUTER_KV_AWARE) {
		c.nchain = route_chain(s, w, id);
		c.chain = s->route_chain;
		c.nfull = (int32_t)full_blocks(s, w->prompt_tokens);
	}
	if (c.n > 1)
		k = route(s, &c, &s->rr);
	if (c.map)
		k = c.map[k];
	c.map = NULL;
	c.n = c.width;
	c.lo = k * s->per;
	c.stride = c.width = 1;
	return c.lo + route(s, &c, &s->rr_in[k]);
}

static void reject_req(struct sim *s, struct req *r, enum reject_reason why)
{
	s->tot.rejected[why]++;
	csv_row(s, r, why == REJ_TOO_LONG ? "rejected:too_long" : "rejected:kv_capacity", 0, 0, 0,
		0, 0);
	sched_req_put(s, r);
}

/* Live use: r's client went away (sim_abort); reported with the tokens
 * it generated as its output. */
static void abort_req(struct sim *s, struct req *r)
{
	s->tot.aborted++;
	r->output = r->generated;
	csv_row(s, r, "aborted", 0, 0, 0, 0, 0);
	sched_req_put(s, r);
}

/* An arrival that can never run, rejected before it has a record. */
static void reject_arrival(struct sim *s, const struct wl_req *w, int64_t id, enum reject_reason why)
{
	struct req r;

	req_of_arrival(&r, w, id);
	s->tot.rejected[why]++;
	csv_row(s, &r, why == REJ_TOO_LONG ? "rejected:too_long" : "rejected:kv_capacity", 0, 0, 0,
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

/* The arrival w: queued on a replica (-1), or rejected at once (the
 * reason). */
static int admit(struct sim *s, const struct wl_req *w)
{
	int64_t id = (int64_t)s->tot.arrived++;
	struct wl_req wi;
	int ri;

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

	flow_arrive(s, w);
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
	/* P/D: prompts go to a prefill worker */
	ri = route_arrival(s, w, id);
	if (s->epd && w->images > 0) { /* E/P/D: its images go to an encoder first */
		epd_arrive(s, w, id, ri);
		return -1;
	}
	queue_on(s, ri, w, id);
	return -1;
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
	r->done = false;
	r->pd_first = s->cfg.pd.first != SIM_PD_FIRST_HANDOFF;
	r->first_ns = s->now;
	r->tok_ns = s->now; /* the first token's client time: its next gap's start */
	if (s->cfg.on_chunk) /* live use: the first token reaches the client now */
		s->cfg.on_chunk(s->cfg.on_chunk_ctx, r->id, s->now, 1, false);
	{
		/* a decode worker of the request's replica */
		int k = r->replica / s->per;
		struct route_cands c = {s->cfg.dp, k * s->per + s->cfg.pd.prefill, 1, 1, NULL, 0, 0, NULL};
		ri = c.lo + route(s, &c, &s->rr_in[k]);
	}
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

	record(s, r);
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
	live += epd_live(s);
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

int sim_new(const struct sim_cfg *cfg, const struct cost_model *cost, const struct wl_spec *wl,
	    struct sim **out, struct err *e)
{
	struct sim *s;
	int i, rc;
	int64_t k;

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
	s = xcalloc(1, sizeof(*s));
	s->cfg = *cfg;
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
	s->rr_in = xcalloc((size_t)s->nreplicas, sizeof(*s->rr_in));
	pcg32_seed(&s->route_rng, wl->seed, 12);
	s->max_blocks_per_req = blocks_for(s, cfg->max_model_len) + 1;
	s->reps = xcalloc((size_t)s->nrep, sizeof(*s->reps));
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
		/* (grown to the most chunks a step has: sched.c plan_step) */
		rp->chunk_cap = 8;
		rp->chunk_len = xcalloc(rp->chunk_cap, sizeof(int64_t));
		rp->chunk_prefix = xcalloc(rp->chunk_cap, sizeof(int64_t));
	}
	if (cfg->epd.encoders > 0)
		epd_init(s);
	evq_init(&s->q, 64);
	pcg32_seed(&s->spec_rng, wl->seed, 11);
	spec_draws_init(&s->cfg.spec, &s->spec_draws);
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
	epd_release(s);
	for (k = 0; k < s->nrep; k++) {
		struct replica *rp = &s->reps[k];
		kvc_release(&rp->kv);
		if (rp->host.total > 0)
			kvc_release(&rp->host);
		sched_replica_release(s, rp);
		free(rp->chunk_len);
		free(rp->chunk_prefix);
		for (j = 0; rp->pipe && j < (size_t)rp->pp; j++)
			free(rp->pipe[j].reqs);
		free(rp->pipe);
	}
	free(s->reps);
	sim_memo_release(&s->own_memo);
	free(s->rr_in);
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

int sim_step(struct sim *s, struct err *e)
{
	struct event ev;
	int64_t prev = s->now;
	int rc;

	/* the next arrival, unless a queued event precedes it */
	if (s->has_next && (evq_size(&s->q) == 0 || s->next.arrival_ns < evq_top_ns(&s->q) ||
			    (s->next.arrival_ns == evq_top_ns(&s->q) && s->next_seq < s->q.h[0].seq))) {
		ev.t_ns = s->next.arrival_ns;
		ev.kind = EV_ARRIVAL;
		ev.replica = -1;
	} else if (!evq_pop(&s->q, &ev)) {
		return check_drained(s, e);
	}
	s->now = ev.t_ns;
	s->tot.events++;
	switch (ev.kind) {
	case EV_ARRIVAL: {
		struct wl_req cur = s->next;
		/* queue the next arrival first: same-time arrivals precede the kick */
		rc = wl_gen_next(s->gen, s->now, &s->next, e);
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

int sim_run(struct sim *s, struct err *e)
{
	int rc;

	while ((rc = sim_step(s, e)) > 0)
		if (s->cfg.stop && *s->cfg.stop)
			return 0;
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

static size_t gather(const struct sim *s, const float *src, int stage, float *dst)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrec; i++)
		if ((stage < 0 || s->stage[i] == stage) && !isnan(src[i]))
			dst[n++] = src[i];
	return n;
}

/* The five summaries from the histograms of one stage, or all merged. */
static void summary_hist(const struct sim *s, int stage, struct metric_set *o)
{
	struct dist_summary *d[5] = {&o->ttft_ms, &o->itl_ms, &o->tpot_ms, &o->e2e_ms, &o->queue_ms};
	size_t k, st;

	for (k = 0; k < 5; k++) {
		struct loghist h;
		loghist_init(&h);
		for (st = 0; st < 256; st++)
			if (stage < 0 || (size_t)stage == st)
				loghist_merge(&h, &s->hist[st * 5 + k]);
		loghist_summarise(&h, d[k]);
		loghist_release(&h);
	}
}

static void summary_compute(struct sim *s, int stage, bool all, struct metric_set *o);

/* The pooled token gaps of one stage or all (sim.h).  Its mean sums the
 * gaps themselves: within rounding of itl_pooled_mean_ms, which the
 * reports print (the tests hold them together). */
static void pooled_gaps(const struct sim *s, int stage, struct metric_set *o)
{
	struct wdist all;
	const struct wdist *d = &all;
	int st;

	if (stage >= 0) {
		d = &s->gapd[stage > 255 ? 255 : stage];
	} else {
		wdist_init(&all);
		for (st = 0; st < 256; st++)
			if (s->gapd[st].n > 0)
				wdist_merge(&all, &s->gapd[st]);
	}
	wdist_summarise(d, &o->itl_pooled_ms);
	o->itl_pooled_exact = wdist_exact(d);
	if (d == &all)
		wdist_release(&all);
}

/* One summary per stage (and overall) per state of the run: the callers
 * print the same stage several times (text, JSON and CSV reports), and
 * with one stage its summary is the overall one (the same values in the
 * same order). */
void sim_summary(struct sim *s, int stage, struct metric_set *o)
{
	size_t k;

	if (stage == 0 && s->nstages == 1)
		stage = -1;
	if (stage < -1 || stage >= 255) {
		summary_compute(s, stage, true, o);
		return;
	}
	k = (size_t)(stage + 1);
	if (s->sum_events != s->tot.events || k >= s->nsum) {
		size_t n = k + 1 > (size_t)s->nstages + 1 ? k + 1 : (size_t)s->nstages + 1;
		if (n > s->nsum) {
			s->sum = xreallocarray(s->sum, n, sizeof(*s->sum));
			s->sum_ok = xreallocarray(s->sum_ok, n, sizeof(*s->sum_ok));
			s->nsum = n;
		}
		if (s->sum_events != s->tot.events || s->nsum == n)
			memset(s->sum_ok, 0, s->nsum * sizeof(*s->sum_ok));
		s->sum_events = s->tot.events;
	}
	if (!s->sum_ok[k]) {
		summary_compute(s, stage, true, &s->sum[k]);
		s->sum_ok[k] = true;
	}
	*o = s->sum[k];
}

void sim_summary_core(struct sim *s, int stage, struct metric_set *o)
{
	if (stage == 0 && s->nstages == 1)
		stage = -1;
	if (stage >= -1 && stage < 255 && s->sum_events == s->tot.events && (size_t)(stage + 1) < s->nsum &&
	    s->sum_ok[stage + 1]) {
		*o = s->sum[stage + 1]; /* (a whole one kept already) */
		return;
	}
	summary_compute(s, stage, false, o);
}

/* all false: the TPOT and queue-time distributions are left zero. */
/* o's energy figures (sim.h metric_set), from its span and the steps'. */
static void summary_energy(const struct sim *s, int stage, struct metric_set *o)
{
	double idle_w = 0, gpus = 0, span = o->last_done_s - o->first_arrival_s;
	int i;

	o->energy_j = o->avg_power_w_per_gpu = o->energy_j_per_output_token = NAN;
	if ((stage >= 0 && s->nstages > 1) || o->completed == 0 || !(span > 0) || isnan(s->tot.energy_dyn_j))
		return;
	for (i = 0; i < s->nrep; i++) {
		idle_w += s->reps[i].power.idle_w * s->reps[i].gpus;
		gpus += s->reps[i].gpus;
	}
	if (s->provisioned_share > 0) { /* autoscaling: the GPUs held part of the time */
		idle_w *= s->provisioned_share;
		gpus *= s->provisioned_share;
	}
	o->energy_j = idle_w * span + s->tot.energy_dyn_j;
	o->avg_power_w_per_gpu = o->energy_j / span / gpus;
	if (o->output_tokens > 0)
		o->energy_j_per_output_token = o->energy_j / o->output_tokens;
}

static void summary_compute(struct sim *s, int stage, bool all, struct metric_set *o)
{
	float *buf = xmalloc(xmul(s->nrec ? s->nrec : 1, sizeof(float)));
	size_t i, n;
	double first = INFINITY, last = 0, gap_ms = 0, gaps = 0, last_arr = 0, wait = 0, run = 0;

	memset(o, 0, sizeof(*o));
	if (s->hist) {
		fold_records(s);
		summary_hist(s, stage, o);
		free(buf);
		buf = NULL;
	}
	n = buf ? gather(s, s->ttft, stage, buf) : 0;
	if (buf) {
		stats_summarise(buf, n, &o->ttft_ms);
		n = gather(s, s->itl, stage, buf);
		stats_summarise(buf, n, &o->itl_ms);
		if (all) {
			n = gather(s, s->tpot, stage, buf);
			stats_summarise(buf, n, &o->tpot_ms);
		}
		n = gather(s, s->e2e, stage, buf);
		stats_summarise(buf, n, &o->e2e_ms);
		if (all) {
			n = gather(s, s->queue, stage, buf);
			stats_summarise(buf, n, &o->queue_ms);
		}
		free(buf);
	}
	for (i = 0; i < 256; i++) {
		const struct stage_agg *ag = &s->agg[i];
		if ((stage >= 0 && (size_t)stage != i) || ag->completed == 0)
			continue;
		o->completed += (size_t)ag->completed;
		o->input_tokens += ag->in_tok;
		o->output_tokens += ag->out_tok;
		gap_ms += ag->gap_ms;
		gaps += ag->gaps;
		wait += ag->wait_ms;
		run += ag->run_ms;
		if ((double)ag->first_arr_ns < first)
			first = (double)ag->first_arr_ns;
		if ((double)ag->last_arr_ns > last_arr)
			last_arr = (double)ag->last_arr_ns;
		if ((double)ag->last_done_ns > last)
			last = (double)ag->last_done_ns;
	}
	o->token_gaps = (size_t)gaps;
	o->itl_pooled_mean_ms = gaps > 0 ? gap_ms / gaps : NAN;
	pooled_gaps(s, stage, o);
	o->running_per_rank = o->queue_share = NAN;
	if (o->completed > 0 && wait + run > 0)
		o->queue_share = wait / (wait + run);
	if (o->completed > 0 && last > first) {
		double span = (last - first) * 1e-9;
		o->running_per_rank = run * 1e-3 / span / (double)s->nrep;
		o->first_arrival_s = first * 1e-9;
		o->last_done_s = last * 1e-9;
		o->last_arrival_s = last_arr * 1e-9;
		o->throughput_rps = (double)o->completed / span;
		o->input_tok_s = o->input_tokens / span;
		o->output_tok_s = o->output_tokens / span;
	}
	summary_energy(s, stage, o);
}

/* sim_per_request into doubles (td, ed) or floats (tf, ef). */
static void per_request(const struct sim *s, double *td, double *ed, float *tf, float *ef, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (td)
			td[i] = ed[i] = NAN;
		else
			tf[i] = ef[i] = NAN;
	if (s->hist)
		return; /* not kept past LOGHIST_EXACT_MAX (sim.h) */
	for (i = 0; i < s->nrec; i++) {
		int32_t id = s->rec_id[i];
		if (id < 0 || (size_t)id >= n)
			continue;
		if (td) {
			td[id] = s->ttft[i];
			ed[id] = s->e2e[i];
		} else {
			tf[id] = s->ttft[i];
			ef[id] = s->e2e[i];
		}
	}
}

void sim_per_request(const struct sim *s, double *ttft_ms, double *e2e_ms, size_t n)
{
	per_request(s, ttft_ms, e2e_ms, NULL, NULL, n);
}

void sim_per_request_f(const struct sim *s, float *ttft_ms, float *e2e_ms, size_t n)
{
	per_request(s, NULL, NULL, ttft_ms, e2e_ms, n);
}

void sim_per_request_itl(const struct sim *s, double *itl_ms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		itl_ms[i] = NAN;
	if (s->hist)
		return;
	for (i = 0; i < s->nrec; i++) {
		int32_t id = s->rec_id[i];
		if (id >= 0 && (size_t)id < n)
			itl_ms[id] = s->itl[i];
	}
}

void sim_keep_client_times(struct sim *s)
{
	s->keep_raw = true;
}

bool sim_reprice_api(struct sim *s, double api_ttft_ms, double api_e2e_ms)
{
	struct overheads ov = s->cost->cfg.ov;
	size_t i;

	/* the pooled gaps and the CSV rows (or whoever read them) hold the
	 * old terms */
	if (!s->raw_first || s->hist || s->flow || !s->cfg.no_pooled_gaps || s->cfg.requests_out ||
	    s->cfg.on_request || ov.api_prompt_us > 0) /* (no prompt lengths kept) */
		return false;
	ov.api_ttft_ms = api_ttft_ms;
	ov.api_e2e_ms = api_e2e_ms;
	for (i = 0; i < 256; i++)
		s->agg[i].gap_ms = 0;
	/* record()'s values, in its order (the gap sums add up the same) */
	for (i = 0; i < s->nrec; i++) {
		int64_t out = s->raw_out[i];
		double ttft, e2e, itl;
		client_times(s, &ov, s->raw_first[i], s->raw_last[i], out, 0, &ttft, &e2e);
		itl = out > 1 ? (e2e - ttft) / (double)(out - 1) : NAN;
		s->ttft[i] = (float)ttft;
		s->itl[i] = (float)itl;
		s->tpot[i] = (float)(e2e / (double)out);
		s->e2e[i] = (float)e2e;
		if (out > 1)
			s->agg[s->stage[i]].gap_ms += e2e - ttft;
	}
	if (s->nsum)
		memset(s->sum_ok, 0, s->nsum * sizeof(*s->sum_ok));
	return true;
}
