/* engine.c - replicas, the vLLM v1 scheduler, steps and request accounting.
 *
 * Hot-loop discipline: requests come from a slab free list, block-id arrays
 * from a per-replica pool, the scheduler's per-step arrays are sized to
 * max_num_seqs at start-up; nothing is allocated per step once the pools
 * have grown to the run's high-water mark. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/evq.h"
#include "servesim/kvcache.h"
#include "servesim/sim.h"

struct req {
	int64_t id, arrival_ns, prompt, output, prefix_tokens, prefix_group, content_id;
	int64_t computed, generated, step_tokens;
	int64_t first_ns, last_ns, sched_ns;
	int64_t prefix_hit_tokens;
	uint64_t last_hash;
	int32_t nblocks, nhashed, preempts;
	int32_t *blocks;
	int stage, replica;
	bool done;
	struct req *next_free;
};

struct replica {
	struct kvc kv;
	struct req **running;
	size_t nrun;
	struct req **wq;        /* ring buffer deque */
	size_t whead, wlen, wcap;
	struct req **sched;
	size_t nsched;
	int64_t *chunk_len, *chunk_prefix;
	int32_t **arrays;       /* free block-id arrays */
	size_t narrays, arrays_cap;
	bool busy;
	bool kick_pending;      /* an EV_KICK is queued to start a step */
	int64_t step_dur_ns;    /* duration of the step in flight */
};

struct sim {
	struct sim_cfg cfg;
	const struct cost_model *cost;
	const struct wl_spec *wl;
	struct wl_gen *gen;
	struct evq q;
	int64_t now;
	struct replica *reps;
	int nrep;
	struct req *free_reqs;
	struct req **slabs;
	size_t nslabs, slabs_cap;
	struct wl_req next;
	bool has_next, closed;
	uint64_t rr;
	int32_t max_blocks_per_req;
	/* completed-request records */
	float *ttft, *itl, *tpot, *e2e, *queue;
	uint8_t *stage;
	int32_t *in_tok, *out_tok;
	int64_t *arr_ns, *done_ns;
	size_t nrec, cap_rec;
	struct sim_totals tot;
	int nstages;
};

const char *reject_reason_name(enum reject_reason r)
{
	switch (r) {
	case REJ_TOO_LONG: return "too_long";
	case REJ_KV_CAPACITY: return "kv_capacity";
	default: return "?";
	}
}

/* --- requests and pools --- */

static struct req *req_get(struct sim *s)
{
	struct req *r;

	if (!s->free_reqs) {
		size_t i, n = 1024;
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
	memset(r, 0, sizeof(*r));
	return r;
}

static void req_put(struct sim *s, struct req *r)
{
	r->next_free = s->free_reqs;
	s->free_reqs = r;
}

static int32_t *array_get(struct sim *s, struct replica *rp)
{
	if (rp->narrays > 0)
		return rp->arrays[--rp->narrays];
	return xmalloc(xmul((size_t)s->max_blocks_per_req, sizeof(int32_t)));
}

static void array_put(struct replica *rp, int32_t *a)
{
	XGROW(rp->arrays, rp->arrays_cap, rp->narrays + 1);
	rp->arrays[rp->narrays++] = a;
}

static void wq_grow(struct replica *rp)
{
	size_t ncap = rp->wcap ? rp->wcap * 2 : 64, i;
	struct req **n = xmalloc(xmul(ncap, sizeof(*n)));

	for (i = 0; i < rp->wlen; i++)
		n[i] = rp->wq[(rp->whead + i) % rp->wcap];
	free(rp->wq);
	rp->wq = n;
	rp->wcap = ncap;
	rp->whead = 0;
}

static void wq_push_back(struct replica *rp, struct req *r)
{
	if (rp->wlen == rp->wcap)
		wq_grow(rp);
	rp->wq[(rp->whead + rp->wlen) % rp->wcap] = r;
	rp->wlen++;
}

static void wq_push_front(struct replica *rp, struct req *r)
{
	if (rp->wlen == rp->wcap)
		wq_grow(rp);
	rp->whead = (rp->whead + rp->wcap - 1) % rp->wcap;
	rp->wq[rp->whead] = r;
	rp->wlen++;
}

static struct req *wq_front(const struct replica *rp)
{
	return rp->wq[rp->whead];
}

static void wq_pop_front(struct replica *rp)
{
	rp->whead = (rp->whead + 1) % rp->wcap;
	rp->wlen--;
}

/* --- block content hashes --- */

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Hash of block b of r given the previous block's hash: the chain makes a
 * block's key depend on everything before it, as vLLM's block hashes do. */
static uint64_t block_hash(const struct sim *s, const struct req *r, int64_t b, uint64_t prev)
{
	int64_t end = (b + 1) * s->cfg.block_size;
	uint64_t key;

	if (end <= r->prefix_tokens && r->prefix_group >= 0)
		key = mix64(0x4700000000000000ULL ^ (uint64_t)r->prefix_group);
	else if (end <= r->prompt)
		key = mix64(0x4300000000000000ULL ^ (uint64_t)r->content_id);
	else
		key = mix64(0x4f00000000000000ULL ^ (uint64_t)r->id);
	key = mix64(prev * 0x9e3779b97f4a7c15ULL + key + (uint64_t)b);
	return key ? key : 1;
}

static int64_t num_tokens(const struct req *r)
{
	return r->prompt + r->generated;
}

static int32_t blocks_for(const struct sim *s, int64_t tokens)
{
	return (int32_t)((tokens + s->cfg.block_size - 1) / s->cfg.block_size);
}

/* --- metrics --- */

static void csv_row(struct sim *s, const struct req *r, const char *status, double ttft_ms,
		    double itl_ms, double tpot_ms, double e2e_ms, double queue_ms)
{
	if (!s->cfg.requests_out)
		return;
	fprintf(s->cfg.requests_out, "%lld,%d,%d,%.6f,%lld,%lld,%lld,%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f\n",
		(long long)r->id, r->replica, r->stage, (double)r->arrival_ns * 1e-9,
		(long long)r->prompt, (long long)r->output, (long long)r->prefix_hit_tokens,
		r->preempts, status, queue_ms, ttft_ms, itl_ms, tpot_ms, e2e_ms);
}

static void record(struct sim *s, const struct req *r)
{
	const struct overheads *ov = &s->cost->cfg.ov;
	bool h2 = !(s->cost->cfg.off & COST_H2);
	double api = h2 ? ov->api_ttft_ms : 0, stream = h2 ? ov->stream_token_us : 0;
	double ttft = (double)(r->first_ns - r->arrival_ns) * 1e-6 + api;
	double e2e = (double)(r->last_ns - r->arrival_ns) * 1e-6 + api +
		     stream * 1e-3 * (double)r->output;
	double itl = r->output > 1 ? (e2e - ttft) / (double)(r->output - 1) : NAN;
	double queue = (double)(r->sched_ns - r->arrival_ns) * 1e-6;
	size_t i = s->nrec;

	if (i == s->cap_rec) {
		size_t c = s->cap_rec ? s->cap_rec * 2 : 4096;
		s->ttft = xreallocarray(s->ttft, c, sizeof(float));
		s->itl = xreallocarray(s->itl, c, sizeof(float));
		s->tpot = xreallocarray(s->tpot, c, sizeof(float));
		s->e2e = xreallocarray(s->e2e, c, sizeof(float));
		s->queue = xreallocarray(s->queue, c, sizeof(float));
		s->stage = xreallocarray(s->stage, c, sizeof(uint8_t));
		s->in_tok = xreallocarray(s->in_tok, c, sizeof(int32_t));
		s->out_tok = xreallocarray(s->out_tok, c, sizeof(int32_t));
		s->arr_ns = xreallocarray(s->arr_ns, c, sizeof(int64_t));
		s->done_ns = xreallocarray(s->done_ns, c, sizeof(int64_t));
		s->cap_rec = c;
	}
	s->ttft[i] = (float)ttft;
	s->itl[i] = (float)itl;
	s->tpot[i] = (float)(e2e / (double)r->output);
	s->e2e[i] = (float)e2e;
	s->queue[i] = (float)queue;
	s->stage[i] = (uint8_t)(r->stage > 255 ? 255 : r->stage);
	s->in_tok[i] = (int32_t)r->prompt;
	s->out_tok[i] = (int32_t)r->output;
	s->arr_ns[i] = r->arrival_ns;
	s->done_ns[i] = r->last_ns;
	s->nrec++;
	csv_row(s, r, "completed", ttft, isnan(itl) ? 0 : itl, e2e / (double)r->output, e2e, queue);
}

/* --- admission and routing --- */

static int pick_replica(struct sim *s)
{
	int i, best = 0;
	size_t bl = SIZE_MAX;

	if (s->nrep == 1)
		return 0;
	if (s->cfg.router == ROUTER_ROUND_ROBIN)
		return (int)(s->rr++ % (uint64_t)s->nrep);
	for (i = 0; i < s->nrep; i++) {
		size_t l = s->reps[i].nrun + s->reps[i].wlen;
		if (l < bl) {
			bl = l;
			best = i;
		}
	}
	return best;
}

static void start_step(struct sim *s, int ri);

static void reject(struct sim *s, struct req *r, enum reject_reason why)
{
	s->tot.rejected[why]++;
	csv_row(s, r, why == REJ_TOO_LONG ? "rejected:too_long" : "rejected:kv_capacity", 0, 0, 0,
		0, 0);
	req_put(s, r);
}

static void admit(struct sim *s, const struct wl_req *w)
{
	struct req *r = req_get(s);
	struct replica *rp;
	int ri;

	r->id = (int64_t)s->tot.arrived++;
	r->arrival_ns = w->arrival_ns;
	r->prompt = w->prompt_tokens;
	r->output = w->output_tokens;
	r->prefix_tokens = w->prefix_tokens;
	r->prefix_group = w->prefix_group;
	r->content_id = w->content_id;
	r->stage = w->stage;
	r->sched_ns = -1;
	if (r->stage + 1 > s->nstages)
		s->nstages = r->stage + 1;
	/* vLLM answers 400 when prompt + max_tokens exceeds max_model_len */
	if (r->prompt + r->output > s->cfg.max_model_len) {
		reject(s, r, REJ_TOO_LONG);
		return;
	}
	if (blocks_for(s, r->prompt + r->output) > s->cfg.total_kv_blocks) {
		reject(s, r, REJ_KV_CAPACITY);
		return;
	}
	ri = pick_replica(s);
	r->replica = ri;
	rp = &s->reps[ri];
	wq_push_back(rp, r);
	/* an idle engine starts its next step after every event of this
	 * instant, so requests arriving together are scheduled together */
	if (!rp->busy && !rp->kick_pending) {
		rp->kick_pending = true;
		evq_push(&s->q, s->now, EV_KICK, ri);
	}
}

/* --- scheduler --- */

static void free_blocks(struct sim *s, struct replica *rp, struct req *r)
{
	int32_t i;

	/* reverse order: a request's tail blocks are evicted first */
	for (i = r->nblocks; i-- > 0;)
		kvc_put(&rp->kv, r->blocks[i]);
	r->nblocks = r->nhashed = 0;
	r->last_hash = 0;
	if (r->blocks)
		array_put(rp, r->blocks);
	r->blocks = NULL;
	(void)s;
}

static void preempt(struct sim *s, struct replica *rp, struct req *r)
{
	if (s->cfg.step_log)
		fprintf(s->cfg.step_log, "preempt %lld at t=%.6f\n", (long long)r->id,
			(double)s->now * 1e-9);
	free_blocks(s, rp, r);
	r->computed = 0;
	r->preempts++;
	s->tot.preemptions++;
	wq_push_front(rp, r);
}

static bool grow_blocks(struct replica *rp, struct req *r, int32_t need)
{
	int32_t i;

	if (need <= 0)
		return true;
	if (need > kvc_available(&rp->kv))
		return false;
	for (i = 0; i < need; i++)
		r->blocks[r->nblocks++] = kvc_alloc(&rp->kv);
	return true;
}

static int64_t chunk_of(const struct sim *s, const struct req *r, int64_t budget)
{
	int64_t n = num_tokens(r) - r->computed;

	if (n > budget)
		n = budget;
	if (s->cfg.long_prefill_token_threshold > 0 && n > s->cfg.long_prefill_token_threshold)
		n = s->cfg.long_prefill_token_threshold;
	return n;
}

/* Prefix-cache lookup on admission: the leading full blocks whose content
 * is cached (at most num_tokens - 1 tokens, so at least one token is
 * computed).  Only looks: references are taken once admission succeeds, so
 * a failed admission leaves the LRU order untouched (vLLM v1 likewise). */
static int32_t prefix_lookup(struct sim *s, struct replica *rp, struct req *r, int32_t *evictable,
			     uint64_t *last)
{
	int64_t maxb = (num_tokens(r) - 1) / s->cfg.block_size, b;
	uint64_t h = 0;
	int32_t n = 0;

	*evictable = 0;
	*last = 0;
	if (!s->cfg.prefix_caching)
		return 0;
	for (b = 0; b < maxb; b++) {
		uint64_t hb = block_hash(s, r, b, h);
		int32_t blk = kvc_lookup(&rp->kv, hb);
		if (blk < 0)
			break;
		r->blocks[n++] = blk;
		*evictable += rp->kv.ref[blk] == 0;
		h = hb;
	}
	*last = h;
	return n;
}

static void schedule(struct sim *s, struct replica *rp)
{
	int64_t budget = s->cfg.max_num_batched_tokens;
	bool preempted = false;
	size_t i = 0;

	rp->nsched = 0;
	while (i < rp->nrun && budget > 0) {
		struct req *r = rp->running[i];
		int64_t n = chunk_of(s, r, budget);
		bool self = false;
		while (!grow_blocks(rp, r, blocks_for(s, r->computed + n) - r->nblocks)) {
			struct req *victim = rp->running[--rp->nrun];
			preempt(s, rp, victim);
			preempted = true;
			if (victim == r) {
				self = true;
				break;
			}
		}
		if (self)
			break;
		r->step_tokens = n;
		rp->sched[rp->nsched++] = r;
		budget -= n;
		i++;
	}
	if (preempted)
		return;
	while (rp->wlen > 0 && (int64_t)rp->nrun < s->cfg.max_num_seqs && budget > 0) {
		struct req *r = wq_front(rp);
		bool first = r->sched_ns < 0 && r->preempts == 0;
		int32_t hits, evictable, need, k;
		uint64_t last;
		int64_t n;
		r->blocks = array_get(s, rp);
		hits = prefix_lookup(s, rp, r, &evictable, &last);
		r->computed = (int64_t)hits * s->cfg.block_size;
		n = chunk_of(s, r, budget);
		need = blocks_for(s, r->computed + n) - hits;
		if (need + evictable > kvc_available(&rp->kv)) {
			array_put(rp, r->blocks);
			r->blocks = NULL;
			r->computed = 0;
			if (rp->nrun == 0 && rp->nsched == 0) {
				/* nothing running will ever free memory for it */
				wq_pop_front(rp);
				reject(s, r, REJ_KV_CAPACITY);
				continue;
			}
			break;
		}
		for (k = 0; k < hits; k++)
			kvc_acquire(&rp->kv, r->blocks[k]);
		r->nblocks = r->nhashed = hits;
		r->last_hash = last;
		grow_blocks(rp, r, need);
		if (first) {
			r->prefix_hit_tokens = r->computed;
			s->tot.prefix_lookup_tokens += (uint64_t)r->prompt;
			s->tot.prefix_hit_tokens += (uint64_t)r->computed;
		}
		wq_pop_front(rp);
		if (r->sched_ns < 0)
			r->sched_ns = s->now;
		rp->running[rp->nrun++] = r;
		r->step_tokens = n;
		rp->sched[rp->nsched++] = r;
		budget -= n;
	}
}

static void start_step(struct sim *s, int ri)
{
	struct replica *rp = &s->reps[ri];
	struct step_desc d;
	size_t i;
	double t, used;

	schedule(s, rp);
	if (rp->nsched == 0) {
		rp->busy = false;
		return;
	}
	memset(&d, 0, sizeof(d));
	d.chunk_len = rp->chunk_len;
	d.chunk_prefix = rp->chunk_prefix;
	for (i = 0; i < rp->nsched; i++) {
		const struct req *r = rp->sched[i];
		bool samples = r->computed + r->step_tokens == num_tokens(r);
		if (r->step_tokens == 1 && samples && r->generated > 0) {
			d.ndecode++;
			d.decode_ctx_sum += (double)(r->computed + 1);
		} else {
			rp->chunk_len[d.nchunks] = r->step_tokens;
			rp->chunk_prefix[d.nchunks] = r->computed;
			d.nchunks++;
		}
		d.nlogits += samples;
	}
	t = cost_step_s(s->cost, &d);
	if (s->cfg.step_log) {
		fprintf(s->cfg.step_log, "step %llu t=%.6f r%d:", (unsigned long long)s->tot.steps,
			(double)s->now * 1e-9, ri);
		for (i = 0; i < rp->nsched; i++)
			fprintf(s->cfg.step_log, " %lld+%lld", (long long)rp->sched[i]->id,
				(long long)rp->sched[i]->step_tokens);
		fprintf(s->cfg.step_log, " | run %zu wait %zu kv %d/%d dur=%.6f\n", rp->nrun, rp->wlen,
			kvc_used(&rp->kv), rp->kv.total, t);
	}
	used = (double)kvc_used(&rp->kv) / (double)rp->kv.total;
	s->tot.kv_util_sum_steps += used;
	if (used > s->tot.kv_util_max)
		s->tot.kv_util_max = used;
	s->tot.steps++;
	rp->busy = true;
	rp->step_dur_ns = (int64_t)llround(t * 1e9);
	evq_push(&s->q, s->now + rp->step_dur_ns, EV_STEP_END, ri);
}

static int next_closed(struct sim *s, struct err *e)
{
	struct wl_req w;
	int rc = wl_gen_next(s->gen, s->now, &w, e);

	if (rc > 0)
		admit(s, &w);
	return rc < 0 ? rc : 0;
}

static int finish_step(struct sim *s, int ri, struct err *e)
{
	struct replica *rp = &s->reps[ri];
	size_t i, j;
	int rc;
	/* client-side delivery lag (H2): tokens surface k steps later */
	int64_t lag = (s->cost->cfg.off & COST_H2)
			      ? 0
			      : (int64_t)llround(s->cost->cfg.ov.delivery_steps * (double)rp->step_dur_ns);

	for (i = 0; i < rp->nsched; i++) {
		struct req *r = rp->sched[i];
		int64_t full;
		r->computed += r->step_tokens;
		/* register newly full blocks for prefix caching */
		full = r->computed / s->cfg.block_size;
		while (r->nhashed < full && r->nhashed < r->nblocks) {
			uint64_t h = block_hash(s, r, r->nhashed, r->last_hash);
			kvc_register(&rp->kv, r->blocks[r->nhashed], h);
			r->last_hash = h;
			r->nhashed++;
		}
		if (r->computed < num_tokens(r))
			continue; /* a prefill chunk: no token yet */
		r->generated++;
		if (r->generated == 1)
			r->first_ns = s->now + lag;
		r->last_ns = s->now + lag;
		if (r->generated >= r->output)
			r->done = true;
	}
	/* remove finished requests, keeping the running order */
	for (i = j = 0; i < rp->nrun; i++) {
		struct req *r = rp->running[i];
		if (!r->done) {
			rp->running[j++] = r;
			continue;
		}
		free_blocks(s, rp, r);
		s->tot.completed++;
		record(s, r);
		req_put(s, r);
		if (s->closed && (rc = next_closed(s, e)) < 0)
			return rc;
	}
	rp->nrun = j;
	rp->nsched = 0;
	start_step(s, ri);
	return 0;
}

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
	for (i = 0; i < s->nrep; i++) {
		live += s->reps[i].nrun + s->reps[i].wlen;
		if (!kvc_check(&s->reps[i].kv, why, sizeof(why)))
			return err_set(e, SS_ERUNTIME, "invariant: replica %d KV cache: %s", i, why);
	}
	for (k = 0; k < REJ__COUNT; k++)
		rej += s->tot.rejected[k];
	if (s->tot.arrived != s->tot.completed + live + rej)
		return err_set(e, SS_ERUNTIME,
			       "invariant: arrived %llu != completed %llu + running/waiting %llu + rejected %llu",
			       (unsigned long long)s->tot.arrived, (unsigned long long)s->tot.completed,
			       (unsigned long long)live, (unsigned long long)rej);
	return 0;
}

/* --- lifecycle --- */

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
	s = xcalloc(1, sizeof(*s));
	s->cfg = *cfg;
	s->cost = cost;
	s->wl = wl;
	s->nrep = cfg->dp;
	s->max_blocks_per_req = blocks_for(s, cfg->max_model_len) + 1;
	s->reps = xcalloc((size_t)s->nrep, sizeof(*s->reps));
	for (i = 0; i < s->nrep; i++) {
		struct replica *rp = &s->reps[i];
		kvc_init(&rp->kv, (int32_t)cfg->total_kv_blocks, cfg->prefix_caching);
		rp->running = xcalloc((size_t)cfg->max_num_seqs + 1, sizeof(*rp->running));
		rp->sched = xcalloc((size_t)cfg->max_num_seqs + 1, sizeof(*rp->sched));
		rp->chunk_len = xcalloc((size_t)cfg->max_num_seqs + 1, sizeof(int64_t));
		rp->chunk_prefix = xcalloc((size_t)cfg->max_num_seqs + 1, sizeof(int64_t));
	}
	evq_init(&s->q, 64);
	if ((rc = wl_gen_new(wl, &s->gen, e)) < 0) {
		sim_free(s);
		return rc;
	}
	s->closed = wl_gen_closed_loop(s->gen);
	s->nstages = wl->nstages > 0 ? (int)wl->nstages : 1;
	if (s->closed) {
		for (k = 0; k < wl_gen_concurrency(s->gen); k++)
			if ((rc = next_closed(s, e)) < 0) {
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
			evq_push(&s->q, s->next.arrival_ns, EV_ARRIVAL, -1);
	}
	*out = s;
	return 0;
}

void sim_free(struct sim *s)
{
	size_t i, j;
	int k;

	if (!s)
		return;
	for (k = 0; k < s->nrep; k++) {
		struct replica *rp = &s->reps[k];
		kvc_release(&rp->kv);
		for (i = 0; i < rp->nrun; i++)
			free(rp->running[i]->blocks);
		for (i = 0; i < rp->narrays; i++)
			free(rp->arrays[i]);
		free(rp->arrays);
		free(rp->running);
		free(rp->sched);
		free(rp->chunk_len);
		free(rp->chunk_prefix);
		for (j = 0; j < rp->wlen; j++)
			free(rp->wq[(rp->whead + j) % rp->wcap]->blocks);
		free(rp->wq);
	}
	free(s->reps);
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
	free(s->in_tok);
	free(s->out_tok);
	free(s->arr_ns);
	free(s->done_ns);
	free(s);
}

int sim_step(struct sim *s, struct err *e)
{
	struct event ev;
	int64_t prev = s->now;
	int rc;

	if (!evq_pop(&s->q, &ev))
		return 0;
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
		if (s->has_next)
			evq_push(&s->q, s->next.arrival_ns, EV_ARRIVAL, -1);
		admit(s, &cur);
		break;
	}
	case EV_STEP_END:
		if ((rc = finish_step(s, ev.replica, e)) < 0)
			return rc;
		break;
	case EV_KICK:
		s->reps[ev.replica].kick_pending = false;
		if (!s->reps[ev.replica].busy)
			start_step(s, ev.replica);
		break;
	}
	s->tot.duration_ns = s->now;
	if (s->cfg.check_invariants && (rc = check_invariants(s, prev, e)) < 0)
		return rc;
	return evq_size(&s->q) > 0 ? 1 : 0;
}

int sim_run(struct sim *s, struct err *e)
{
	int rc;

	while ((rc = sim_step(s, e)) > 0)
		;
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
		*waiting += s->reps[i].wlen;
	}
}

static size_t gather(const struct sim *s, const float *src, int stage, float *dst)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrec; i++)
		if ((stage < 0 || s->stage[i] == stage) && !isnan(src[i]))
			dst[n++] = src[i];
	return n;
}

void sim_summary(struct sim *s, int stage, struct metric_set *o)
{
	float *buf = xmalloc(xmul(s->nrec ? s->nrec : 1, sizeof(float)));
	size_t i, n;
	double first = INFINITY, last = 0;

	memset(o, 0, sizeof(*o));
	n = gather(s, s->ttft, stage, buf);
	stats_summarise(buf, n, &o->ttft_ms);
	n = gather(s, s->itl, stage, buf);
	stats_summarise(buf, n, &o->itl_ms);
	n = gather(s, s->tpot, stage, buf);
	stats_summarise(buf, n, &o->tpot_ms);
	n = gather(s, s->e2e, stage, buf);
	stats_summarise(buf, n, &o->e2e_ms);
	n = gather(s, s->queue, stage, buf);
	stats_summarise(buf, n, &o->queue_ms);
	free(buf);
	for (i = 0; i < s->nrec; i++) {
		if (stage >= 0 && s->stage[i] != stage)
			continue;
		o->completed++;
		o->input_tokens += s->in_tok[i];
		o->output_tokens += s->out_tok[i];
		if ((double)s->arr_ns[i] < first)
			first = (double)s->arr_ns[i];
		if ((double)s->done_ns[i] > last)
			last = (double)s->done_ns[i];
	}
	if (o->completed > 0 && last > first) {
		double span = (last - first) * 1e-9;
		o->first_arrival_s = first * 1e-9;
		o->last_done_s = last * 1e-9;
		o->throughput_rps = (double)o->completed / span;
		o->input_tok_s = o->input_tokens / span;
		o->output_tok_s = o->output_tokens / span;
	}
}
