/* sglang.c - SGLang: its start-up defaults (sglang.h), the engine type
 * (defaults, KV dtype rule, memory plan, max_running_requests, scheduler,
 * fitted kernel terms, launch line).
 *
 * Sources (sgl-project/sglang, Apache-2.0; rules restated, no code taken):
 * - python/sglang/srt/server_args.py at 001067fffe33427bee0ed2f007fb7551a1d76b44,
 *   ServerArgs._handle_gpu_memory_settings, reserve_for_graph_mb and
 *   _generate_prefill_cuda_graph_batch_sizes: chunked_prefill_size and the
 *   decode CUDA-graph batch limit by GPU memory, mem_fraction_static from the
 *   memory reserved for activations and CUDA graphs.  servesim follows the
 *   default path: no P/D role, no speculative decoding, no DeepEP, the
 *   post-capture KV sizing off, no multimodal headroom.
 * - python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py at
 *   001ccef0072a4537d4ec6bdd50a73e6feb2c907d, init_memory: the request pool,
 *   min(max(tokens / context_len x 512, 2048), 4096), and
 *   max_running_requests = min(tokens // 2, request pool) when not given.
 * - python/sglang/srt/arg_groups/fields/schedule.py at
 *   001b88623b1def14a6970a26626d17c7ee874e91: schedule_policy defaults to
 *   fcfs; python/sglang/srt/managers/schedule_policy.py at
 *   00550cd11b35def9d584bf761a1e32729c20a21d: lpm sorts the waiting queue by
 *   the longest cached prefix, becomes fcfs when the radix cache is off and
 *   for one round when more than 128 requests wait.
 * - python/sglang/srt/model_executor/model_runner.py (0.5.x),
 *   init_memory_pool: --kv-cache-dtype auto makes the KV cache the model's
 *   dtype (config.json torch_dtype, bf16 for DeepSeek-R1/V3's fp8
 *   checkpoints, which declare no KV quantisation); fp8 only when asked;
 *   server_args.py _handle_model_specific_adjustments: DeepSeek NSA models
 *   get fp8_e4m3 on compute capability >= 10, bfloat16 below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "cost/cost.h"
#include "engine/launch.h"
#include "engine/registry.h"
#include "cost/memplan.h"
#include "engine/scenario.h"
#include "engine/sglang.h"
#include "sim/specpath.h"
#include "sim/core.h"

int sglang_policy_parse(const char *s, enum sglang_policy *out, struct err *e)
{
	if (strcmp(s, "fcfs") == 0)
		*out = SGLANG_FCFS;
	else if (strcmp(s, "lpm") == 0)
		*out = SGLANG_LPM;
	else
		return err_set(e, SS_EUSAGE, "--schedule-policy must be fcfs or lpm, got '%s'", s);
	return 0;
}

const char *sglang_policy_name(enum sglang_policy p)
{
	return p == SGLANG_LPM ? "lpm" : "fcfs";
}

static double gpu_mib(const struct gpu_spec *g)
{
	return g ? g->mem_bytes / 1048576.0 : 0;
}

int64_t sglang_chunk_default(const struct gpu_spec *g)
{
	/* under 20 and 35 GiB (T4, 4080; A10, 4090, 5090) 2048; under 60 GiB
	 * (A100 40GB, L40) 4096; under 90 and 160 GiB (H100, A100 80GB; H20,
	 * H200) 8192; else (B200, MI300) 16384 */
	double m = gpu_mib(g);

	return m < 35 * 1024 ? 2048 : m < 60 * 1024 ? 4096 : m < 160 * 1024 ? 8192 : 16384;
}

int64_t sglang_graph_max_bs(const struct gpu_spec *g, int tp)
{
	double m = gpu_mib(g);

	if (m < 20 * 1024)
		return 8;
	if (m < 35 * 1024)
		return tp < 4 ? 24 : 80;
	if (m < 60 * 1024)
		return tp < 4 ? 32 : 160;
	if (m < 160 * 1024)
		return tp < 4 ? 256 : 512;
	return 512;
}

/* Prefill CUDA-graph token sizes up to max_bs: 4..32 by 4, 48..256 by 16,
 * 288..512 by 32, 576..1024 by 64, 1280..4096 by 256, 4608.. by 512. */
static int64_t prefill_graph_sizes(int64_t max_bs)
{
	static const int64_t lo[6] = {4, 48, 288, 576, 1280, 4608};
	static const int64_t hi[6] = {32, 256, 512, 1024, 4096, INT64_MAX};
	static const int64_t step[6] = {4, 16, 32, 64, 256, 512};
	int64_t n = 0;
	int k;

	for (k = 0; k < 6; k++) {
		int64_t top = hi[k] < max_bs ? hi[k] : max_bs;
		if (top >= lo[k])
			n += (top - lo[k]) / step[k] + 1;
	}
	return n;
}

void sglang_mem_fraction(const struct gpu_spec *g, int tp, int pp, int dp, bool dp_attention,
			 int64_t chunk, bool mla, struct sglang_mem *o)
{
	double r;

	memset(o, 0, sizeof(*o));
	o->gpu_mib = gpu_mib(g);
	o->chunk = chunk;
	o->graph_max_bs = sglang_graph_max_bs(g, tp);
	/* prefill graphs up to the chunk (2048 with an MLA backend) */
	o->prefill_graphs = prefill_graph_sizes(mla ? 2048 : chunk);
	r = 512.0 + 1.5 * (double)(chunk > 2048 ? chunk : 2048) + (double)tp * (double)pp / 8.0 * 1024.0;
	o->graph_mib = 2.0 * (double)o->graph_max_bs;
	if (dp_attention) {
		o->graph_mib += 3.0 * (double)o->graph_max_bs * (double)dp;
		if (o->graph_max_bs > 300)
			o->graph_mib += 1.5 * (double)o->graph_max_bs * (double)dp;
	}
	o->graph_mib += mla ? 1.5 * 1024.0 : 8.0 * (double)o->prefill_graphs;
	r += o->graph_mib;
	if (o->gpu_mib > 60 * 1024 && r < 10 * 1024) {
		r = 10 * 1024;
		o->floored = true;
	}
	o->reserved_mib = r;
	o->fraction = o->gpu_mib > 0 ? floor((o->gpu_mib - r) / o->gpu_mib * 1000.0 + 0.5) / 1000.0 : 0.88;
}

int64_t sglang_max_running_requests(int64_t pool_tokens, int64_t context_len)
{
	int64_t pool = context_len > 0 ? (int64_t)((double)pool_tokens / (double)context_len * 512.0) : 0;
	int64_t half = pool_tokens / 2;

	if (pool < 2048)
		pool = 2048;
	if (pool > 4096)
		pool = 4096;
	return half < pool ? (half > 0 ? half : 1) : pool;
}

enum dtype sglang_kv_dtype_default(const struct model_cfg *m, const struct gpu_spec *g, enum dtype weights)
{
	/* DeepSeek NSA (V3.2's sparse attention): server_args.py
	 * _handle_model_specific_adjustments sets fp8_e4m3 on compute
	 * capability >= 10 (Blackwell: the GPUs with fp4 tensor cores), bf16
	 * on Hopper */
	if (m && m->index_topk > 0 && g && g->peak_flops[DT_FP4] > 0)
		return DT_FP8;
	/* a checkpoint that declares its KV quantisation (ModelOpt
	 * kv_cache_quant_algo) is scenario_kv_auto's rule, before this one */
	return weights == DT_FP16 ? DT_FP16 : DT_BF16;
}

/* --- the scheduler (over sim/core.h's mechanics) --- */

/* Its state per replica. */
struct sg_state {
	double ratio;     /* the current new-token ratio */
	/* its start (and value after a retraction), floor and decay per
	 * decode batch: SCHED_SG_RATIO_* scaled by the conservativeness */
	double ratio_init, ratio_min, ratio_decay;
	/* SGLang's batch_is_full: set (to the running count, > 0) when an
	 * admission stopped for KV or max_running_requests; no new prefill is
	 * tried until fewer requests run (one finished or was retracted) */
	size_t full_at;
	/* without lazy decoders (and when they fall back): the running
	 * requests mid-prefill and the decoders, in running order, as the
	 * step's one walk of the running list found them (collect_running) */
	struct req **pre, **dec;
	size_t npre, ndec, pre_cap, dec_cap;
	/* the lists above hold every running request, each a decoder, as of
	 * running-list version dec_ver (replica.run_ver): true only after the
	 * walk of a replica without lazy decoders or PP found nobody
	 * mid-prefill (see sg_collect) */
	bool all_dec;
	uint64_t dec_ver;
	/* the last batch was a decode batch (the recv interval's count);
	 * rp->dec_run says whether the decoders ran in it, which a prefill
	 * batch under --enable-mixed-chunk also makes them do */
	bool dec_batch;
};

static struct sg_state *sg_of(const struct replica *rp)
{
	return rp->pstate;
}

/* SGLang's new-token ratio (sglang/srt/environ.py defaults:
 * SGLANG_INIT_NEW_TOKEN_RATIO 0.7, SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14,
 * SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600, SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION
 * 4096).  The scheduler starts it at min(0.7 x schedule_conservativeness,
 * 1), floors it at min(that x 0.14, 1) and decays it by their difference /
 * 600 per decode batch (python/sglang/srt/managers/scheduler.py,
 * Scheduler.__init__, 0.5.x; sglang_replica_init); schedule_conservativeness
 * is 1 unless given, 0.3 x the given one under attention DP
 * (engine_sglang.dp_conservativeness). */
#define SCHED_SG_RATIO_INIT 0.7
#define SCHED_SG_RATIO_MIN_FACTOR 0.14
#define SCHED_SG_DECAY_STEPS 600.0
#define SCHED_SG_CLIP 4096

/* SGLang: the tokens a request may still generate, as its scheduler
 * estimates them (max_new_tokens left, clipped). */
static int64_t sg_future(const struct req *r)
{
	int64_t left = r->output - r->generated;

	return left < SCHED_SG_CLIP ? left : SCHED_SG_CLIP;
}

/* (int64_t)ceil(x) for 0 <= x < 2^62 (a conversion and a compare, not a
 * libm call: the reservation takes one per running request). */
static inline int64_t ceil_nonneg(double x)
{
	int64_t i = (int64_t)x;

	return i + ((double)i < x);
}

/* SGLang's admission reservation: the running requests' future tokens at
 * the new-token ratio, in blocks, plus what this step's admissions added.
 * Summed exactly (`known`) only when a bound cannot decide an admission:
 * with lazy decoders or lazy verifiers `hi` is the explicit requests' exact
 * part plus an upper bound of the decoders' or verifiers' (sg_reserve_start). */
struct sg_res {
	int64_t val, hi, added;
	bool known;
};

/* The decoders' part, exactly: from their dk entries (a sum of integers:
 * in any order). */
static int64_t sg_reserve_dk(const struct sim *s, const struct replica *rp)
{
	double ratio = sg_of(rp)->ratio;
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < rp->ndk; i++) {
		int64_t left = rp->dk[i].k - rp->G;
		sum += blocks_for(s, ceil_nonneg((double)(left < SCHED_SG_CLIP ? left : SCHED_SG_CLIP) * ratio));
	}
	return sum;
}

/* Take the reservation before admitting: the explicit requests (`others`
 * with lazy decoders, else the whole running list) summed; the decoders'
 * part bounded by each one's blocks_for(ceil(left ratio)) <= (left ratio
 * (1 + 2^-52) + 1) / block_size + 1, left unclipped (dk_sum - ndk G: at
 * least the clipped sum), with margin for the double's rounding. */
static void sg_reserve_start(const struct sim *s, const struct replica *rp, bool lazy, bool sp,
			     struct sg_res *res)
{
	double ratio = sg_of(rp)->ratio;
	int64_t sum = 0;
	const struct req *r;
	size_t i;

	memset(res, 0, sizeof(*res));
	if (!lazy && !sp) {
		for (r = rp->run_head; r; r = r->next)
			sum += blocks_for(s, ceil_nonneg((double)sg_future(r) * ratio));
		res->val = sum;
		res->known = true;
		return;
	}
	for (i = 0; i < rp->nothers; i++)
		sum += blocks_for(s, ceil_nonneg((double)sg_future(rp->others[i]) * ratio));
	res->val = sum;
	if (rp->ndk > 0) {
		double left = (double)(rp->dk_sum - (int64_t)rp->ndk * rp->G), n = (double)rp->ndk;
		res->hi = sum + (int64_t)((left * ratio * (1 + 1e-12) + n) / (double)s->cfg.block_size) +
			  (int64_t)rp->ndk + 2;
	} else if (rp->nspath > 0) { /* their tokens left: sp_K - sp_C (specpath.h) */
		double left = (double)(rp->sp_K - rp->sp_C), n = (double)rp->nspath;
		res->hi = sum + (int64_t)((left * ratio * (1 + 1e-12) + n) / (double)s->cfg.block_size) +
			  (int64_t)rp->nspath + 2;
	} else {
		res->hi = sum;
		res->known = true;
	}
}

/* Does an admission needing `need` blocks (and the evictable hits it takes
 * back) leave the reservation's blocks free?  (need + reserve > available
 * decides, as the exact sum would.) */
static bool sg_res_fits(const struct sim *s, struct replica *rp, struct sg_res *res, int64_t need)
{
	int64_t avail = kvc_available(&rp->kv);

	if (!res->known) {
		if (need + res->hi + res->added <= avail)
			return true;
		if (rp->nspath > 0) {
			/* each verifier's own future: made explicit (the
			 * others' list rebuilt after the step: fallback),
			 * none joins again (sp_hold: a rejoin redraws the
			 * whole path) */
			double ratio = sg_of(rp)->ratio;
			struct req *r;
			for (r = rp->run_head; r && rp->nspath > 0; r = r->next)
				if (r->spath) {
					spath_leave(s, rp, r);
					res->val += blocks_for(s, ceil_nonneg((double)sg_future(r) * ratio));
				}
			rp->fallback = true;
			rp->sp_hold = true;
		} else {
			res->val += sg_reserve_dk(s, rp);
		}
		res->known = true;
	}
	return need + res->val + res->added <= avail;
}

/* SGLang's lpm policy: the leading blocks of a waiting request's tokens the
 * cache holds (as prefix_lookup counts them, without taking them).  A
 * compact arrival (no record yet) is looked at through a stack copy of the
 * fields its record would get (waitq_req_fill). */
static int64_t sg_cached_blocks(const struct sim *s, const struct replica *rp,
				const struct wq_ent *q)
{
	struct req tmp;
	const struct req *r = q->r;
	int64_t maxb, b;
	uint64_t h = 0;

	if (!r) {
		memset(&tmp, 0, sizeof(tmp));
		waitq_req_fill(s, rp, q, &tmp);
		r = &tmp;
	}
	maxb = (req_num_tokens(r) - 1) / s->cfg.block_size;
	if (r->transferred || (r->preempts == 0 && !block_shareable(r, 0)))
		return 0;
	for (b = 0; b < maxb; b++) {
		h = r->nchain > b ? r->chain[b] : sched_block_hash(s, r, b, h);
		if (kvc_lookup(&rp->kv, h) < 0)
			break;
	}
	return b;
}

/* Order the waiting queue by the longest cached prefix, FCFS among equals
 * (a stable insertion sort over at most SGLANG_LPM_MAX_QUEUE requests). */
static void sg_sort_lpm(const struct sim *s, struct replica *rp)
{
	int64_t key[SGLANG_LPM_MAX_QUEUE];
	size_t i, j, n = rp->wlen;

	if (n < 2 || n > SGLANG_LPM_MAX_QUEUE || !s->cfg.prefix_caching)
		return;
	for (i = 0; i < n; i++)
		key[i] = sg_cached_blocks(s, rp, &rp->wq[(rp->whead + i) & (rp->wcap - 1)]);
	for (i = 1; i < n; i++) {
		struct wq_ent e = rp->wq[(rp->whead + i) & (rp->wcap - 1)];
		int64_t k = key[i];
		for (j = i; j > 0 && key[j - 1] < k; j--) {
			key[j] = key[j - 1];
			rp->wq[(rp->whead + j) & (rp->wcap - 1)] = rp->wq[(rp->whead + j - 1) & (rp->wcap - 1)];
		}
		key[j] = k;
		rp->wq[(rp->whead + j) & (rp->wcap - 1)] = e;
	}
}

/* SGLang's decode batch when every decoder's block is there (no
 * retraction): the class crossing a block boundary and the explicit
 * decoders take theirs, the named ones as the literal walk names them and
 * the anonymous ones in one kvc_alloc_anon (the same blocks evicted, as
 * schedule_fast); false, having changed nothing, otherwise. */
static bool sg_decode_fast(struct sim *s, struct replica *rp)
{
	int32_t cls = cls_of(s, -rp->G), anon;
	int64_t need = rp->cls_count[cls];
	struct req *r;
	size_t i;

	/* (scheduled already: a mixed prefill batch's admission of a P/D
	 * decode worker's transferred request, its first token) */
	for (i = 0; i < rp->nothers; i++) {
		r = rp->others[i];
		if (decoding(r) && !r->scheduled)
			need += blocks_for(s, r->computed + 1) - r->nblocks;
	}
	if (need > kvc_available(&rp->kv))
		return false;
	rp->fallback = false;
	anon = sched_crossing_blocks(s, rp, cls);
	for (i = 0; i < rp->nothers; i++) {
		int32_t k;
		r = rp->others[i];
		if (!decoding(r) || r->scheduled)
			continue;
		k = blocks_for(s, r->computed + 1) - r->nblocks;
		if (k > 0 && named_take(s, r, k) == 0) {
			r->nblocks += k;
			anon += k;
		} else if (k > 0) {
			sched_take_blocks(s, rp, r, k);
		}
		sched_push(rp, r, 1);
	}
	if (anon > 0)
		kvc_alloc_anon(&rp->kv, anon);
	return true;
}

/* SGLang's decode batch with lazy verifiers (specpath.h; MTP): when
 * their blocks (from their sums) and the explicit decoders' are all there
 * (no retraction), theirs are allocated (anonymous: only counted) and the
 * explicit decoders take theirs as sg_decode_fast's do; plan_step adds the
 * verifiers' terms.  False, having changed nothing, otherwise (or when a
 * reservation made them explicit this step: fallback). */
static bool sg_decode_spath(struct sim *s, struct replica *rp)
{
	struct spath_next x = {0, 0, 0, 0, 0};
	int64_t need;
	int32_t anon = 0;
	struct req *r;
	size_t i;

	if (rp->fallback)
		return false;
	if (rp->nspath > 0)
		spath_next_step(rp, spath_cap(s), &x);
	need = x.need;
	for (i = 0; i < rp->nothers; i++) {
		int64_t k;
		r = rp->others[i];
		if (!decoding(r))
			continue;
		k = blocks_for(s, r->computed + chunk_of(s, r, INT64_MAX)) - r->nblocks;
		need += k > 0 ? k : 0;
	}
	if (need > kvc_available(&rp->kv))
		return false;
	if (x.need > 0)
		kvc_alloc_anon(&rp->kv, (int32_t)x.need);
	for (i = 0; i < rp->nothers; i++) {
		int64_t n;
		int32_t k;
		r = rp->others[i];
		if (!decoding(r))
			continue;
		n = chunk_of(s, r, INT64_MAX);
		k = blocks_for(s, r->computed + n) - r->nblocks;
		if (k > 0 && named_take(s, r, k) == 0) {
			r->nblocks += k;
			anon += k;
		} else if (k > 0) {
			if (anon > 0) {
				kvc_alloc_anon(&rp->kv, anon);
				anon = 0;
			}
			sched_take_blocks(s, rp, r, k);
		}
		sched_push(rp, r, n);
	}
	if (anon > 0)
		kvc_alloc_anon(&rp->kv, anon);
	return true;
}

/* SGLang's decode batch without lazy decoders (MTP) from the plan
 * finish_rank summed as the last step ended (plan_ahead, step.c
 * sg_ahead_applies): when the running list is as it left it, every
 * running request one of the decoders summed (st->dec, in running order)
 * and their blocks all there, the growers take theirs as the literal walk
 * would (in order: anonymous ones counted, allocated before a named take
 * and at the end) and every one is scheduled with the chunk_of it kept;
 * plan_step describes them from the sums.  False, having changed nothing,
 * otherwise.  (With MTP the literal walk was a fifth of the scheduler's
 * instructions: the chunk, blocks and push of every running request.) */
static bool sg_decode_ahead(struct sim *s, struct replica *rp, const struct sg_state *st)
{
	int32_t pend = 0;
	size_t j;

	if (!rp->ahead_valid || rp->ahead_ver != rp->run_ver || st->npre > 0 || rp->ahead.n != (int64_t)st->ndec ||
	    rp->ahead.need > kvc_available(&rp->kv))
		return false;
	for (j = 0; j < rp->ngrowers; j++) {
		struct req *r = rp->growers[j];
		int32_t need = blocks_for(s, r->computed + r->step_tokens) - r->nblocks;
		if (named_take(s, r, need) == 0) {
			pend += need;
			r->nblocks += need;
			continue;
		}
		if (pend > 0) {
			kvc_alloc_anon(&rp->kv, pend);
			pend = 0;
		}
		sched_grow_blocks(s, rp, r, need);
	}
	if (pend > 0)
		kvc_alloc_anon(&rp->kv, pend);
	sched_take_all(s, rp, st->dec, st->ndec);
	rp->ahead_used = true;
	return true;
}

/* SGLang (scheduler.py get_next_batch_to_run): a step is a prefill batch
 * when a request is mid-prefill or a waiting one can be admitted (chunk
 * budget chunked_prefill_size = max_num_batched_tokens), else a decode
 * batch of every running request; prefill and decode never share a step.
 * Admission reserves the running requests' future tokens at the new-token
 * ratio; once it stops for KV or max_running_requests the batch is "full"
 * and decode batches run until a request finishes or is retracted
 * (batch_is_full, reset in update_running_batch when the batch shrinks);
 * a decode batch that runs out of KV retracts the newest requests and the
 * ratio resets, else it decays by (init - min) / 600 per step.
 *
 * Steady decoders are lazy (dec_join after a batch they ran in): a prefill
 * batch leaves them where they are (dec_run false: the step count G counts
 * the batches they run in), the walks below take the explicit requests from
 * `others` (running order) and the reservation reads a decoder's progress
 * from G, and a decode batch whose blocks are all there is sg_decode_fast's;
 * one that must retract makes every decoder explicit and takes the literal
 * walk.  Under --enable-mixed-chunk a prefill batch carries them too:
 * sg_decode_fast's when every decoder's block is there (dec_run: G counts
 * it), else every one explicit and the literal ride-along, which skips
 * those without a block.  (They were explicit under mixed chunks before
 * 2026-12-04: the aiconfigurator SGLang rows walked every running request
 * at every step.) */
/* The running requests not in a pipeline batch (PP), in running order:
 * those mid-prefill in st->pre, the decoders in st->dec. */
static void collect_running(const struct replica *rp, struct sg_state *st)
{
	struct req *r;

	st->npre = st->ndec = 0;
	/* (the running count bounds both lists: grown once, not per request) */
	XGROW(st->dec, st->dec_cap, rp->nrun);
	XGROW(st->pre, st->pre_cap, rp->nrun);
	for (r = rp->run_head; r; r = r->next) {
		if (r->inflight)
			continue;
		if (decoding(r))
			st->dec[st->ndec++] = r;
		else
			st->pre[st->npre++] = r;
	}
}

/* collect_running for a replica without lazy decoders, its walk saved
 * when nothing can have changed since the last one: no request joined or
 * left the running list (run_ver) and every one was a decoder then.  A
 * running decoder stays one (a step adds its accepted tokens to computed
 * and generated alike; only a retraction, a preemption or its completion
 * ends that, and each takes it off the list), so the lists are what a walk
 * would find, in the same order.  Not with PP, whose batches in flight a
 * walk skips.  (With MTP the scheduler walked every running request up to
 * four times a step; this was one of them, a pointer chase.) */
static void sg_collect(const struct replica *rp, struct sg_state *st)
{
	if (st->all_dec && st->dec_ver == rp->run_ver && rp->pp == 1)
		return;
	collect_running(rp, st);
	st->all_dec = st->npre == 0 && rp->pp == 1;
	st->dec_ver = rp->run_ver;
}

/* A running request mid-prefill takes its next chunk within *budget:
 * false when its blocks do not fit (the prefill stops there). */
static bool sg_prefill_chunk(struct sim *s, struct replica *rp, struct req *r, int64_t *budget,
			     int64_t *rem_input)
{
	int64_t n = chunk_of(s, r, *budget);

	if (!sched_grow_blocks(s, rp, r, blocks_for(s, r->computed + n) - r->nblocks))
		return false;
	sched_push(rp, r, n);
	*budget -= n;
	if (*rem_input < INT64_MAX)
		*rem_input -= n;
	return true;
}

/* The new-token ratio after a batch that retracted nothing: one decay
 * step, down to its floor (sglang_schedule, sglang_steady_step). */
static void sg_ratio_decay(struct sg_state *st)
{
	st->ratio -= st->ratio_decay;
	if (st->ratio < st->ratio_min)
		st->ratio = st->ratio_min;
}

/* --enable-mixed-chunk: a prefill batch also carries one token of each of
 * the ndec running decoders, taken from both prompt-token budgets
 * (PrefillAdder's mixed_with_decode_tokens). */
static void sg_mixed_budgets(int64_t ndec, int64_t *budget, int64_t *rem_input)
{
	*budget -= ndec;
	if (*rem_input < INT64_MAX)
		*rem_input -= ndec;
}

/* Every lazy decoder and verifier made explicit for the literal walk of
 * this step (st's lists from a walk of the running list); verifiers do
 * not rejoin (their whole path would be drawn again). */
static void sg_all_explicit(struct sim *s, struct replica *rp, struct sg_state *st)
{
	struct req *r;

	for (r = rp->run_head; r && rp->ndec > 0; r = r->next)
		if (r->dec)
			sched_dec_leave(s, rp, r);
	if (rp->nspath > 0) {
		spath_leave_all(s, rp);
		rp->sp_hold = true;
	}
	rp->fallback = true;
	collect_running(rp, st);
	st->all_dec = false;
}

static void sglang_schedule(struct sim *s, struct replica *rp)
{
	int64_t budget = rp->mbt;
	int64_t rem_input = s->cfg.max_prefill_tokens > 0 ? s->cfg.max_prefill_tokens : INT64_MAX;
	int32_t pend = 0;
	struct sg_res res = {.known = true}; /* nobody to admit: none */
	struct sg_state *st = sg_of(rp);
	/* lazy verifiers (specpath.h): the explicit requests in `others`, as
	 * with lazy decoders */
	bool retracted = false, lazy = rp->lazy, sp = rp->spath_on && !rp->sp_hold;
	struct req *r;
	size_t i;

	if (rp->recv_gate) {
		/* SchedulerRecvSkipper: the last batch adds 1 when it was a
		 * decode batch, else the threshold; the scheduler polls the
		 * tokenizer once the count reaches --scheduler-recv-interval,
		 * and at once when it has nothing running or waiting (its idle
		 * loop) */
		rp->recv_ct += st->dec_batch ? 1 : s->cfg.recv_interval;
		if (rp->ninbox > 0 && (rp->recv_ct >= s->cfg.recv_interval || (rp->nrun == 0 && rp->wlen == 0)))
			sched_receive(rp);
		else if (rp->recv_ct >= s->cfg.recv_interval)
			rp->recv_ct = 0;
	}
	rp->dec_run = st->dec_batch = false;
	if (!lazy && !sp) {
		rp->fallback = true;
		rp->nothers = 0;
	} else if (sp) {
		rp->fallback = false; /* (the others as finish_rank left them) */
	}
	/* 1. prefill: requests mid-prefill first, then admissions.  With lazy
	 * decoders the explicit ones (`others`, in running order); without,
	 * one walk of the running list finds the requests mid-prefill and the
	 * decoders (st->pre, st->dec, in running order) for every later walk
	 * of this step */
	if (!lazy && !sp) {
		sg_collect(rp, st);
		if (s->cfg.mixed_chunk)
			sg_mixed_budgets((int64_t)st->ndec, &budget, &rem_input);
		for (i = 0; i < st->npre && budget > 0; i++)
			if (!sg_prefill_chunk(s, rp, st->pre[i], &budget, &rem_input))
				break;
	} else {
		if (s->cfg.mixed_chunk) { /* the lazy decoders and the explicit ones */
			int64_t ndec = rp->ndec;
			for (i = 0; i < rp->nothers; i++)
				ndec += decoding(rp->others[i]); /* (lazy: no PP, none in flight) */
			sg_mixed_budgets(ndec, &budget, &rem_input);
		}
		for (i = 0; i < rp->nothers && budget > 0; i++) {
			r = rp->others[i];
			if (r->inflight || decoding(r))
				continue;
			if (!sg_prefill_chunk(s, rp, r, &budget, &rem_input))
				break;
		}
	}
	if (sg_of(rp)->full_at > 0 && rp->nrun < sg_of(rp)->full_at)
		sg_of(rp)->full_at = 0; /* the running batch shrank */
	/* batch_is_full: no admission until then, unless a prompt is
	 * mid-prefill (get_new_batch_prefill still walks the queue) */
	if (budget > 0 && rem_input > 0 && (sg_of(rp)->full_at == 0 || rp->nsched > 0)) {
		/* the reservation only matters to an admission (most decode
		 * steps have nobody to admit, or a full batch): a walk of the
		 * batch otherwise saved */
		if (rp->wlen > 0 && (int64_t)rp->nrun < rp->mns)
			sg_reserve_start(s, rp, lazy, sp, &res);
		if (s->cfg.lpm)
			sg_sort_lpm(s, rp);
		/* P/D workers never latch it: the prefill server's loop resets
		 * it every iteration, the decode server admits from its
		 * pre-allocated queue (disaggregation/prefill.py, decode.py) */
		/* (sched_admit's loop starts only for someone waiting below
		 * max_num_seqs, budget and rem_input tested above; else it
		 * returns false, having changed nothing: a call a decode
		 * batch saves) */
		if (((rp->wlen > 0 && (int64_t)rp->nrun < rp->mns && sched_admit(s, rp, budget, rem_input, &res)) ||
		     (rp->wlen > 0 && (int64_t)rp->nrun >= rp->mns)) && rp->nrun > 0 && s->cfg.pd.prefill <= 0)
			sg_of(rp)->full_at = rp->nrun;
	}
	if (rp->nsched > 0) {
		/* mixed chunk: the running decoders join the prefill batch (those
		 * whose next token finds no KV block wait for a decode batch).
		 * Lazy decoders ride along as a decode batch's would when every
		 * decoder's block is there (sg_decode_fast: the step counts for
		 * them, dec_run); else each is made explicit and the literal walk
		 * below skips those without a block */
		if (!s->cfg.mixed_chunk) {
			if (lazy)
				rp->fallback = false;
			return;
		}
		if (lazy) {
			if (sg_decode_fast(s, rp)) {
				rp->dec_run = true;
				return;
			}
			sg_all_explicit(s, rp, st);
		}
		for (i = 0; i < st->ndec; i++) {
			int64_t n;
			r = st->dec[i];
			if (r->scheduled)
				continue;
			n = chunk_of(s, r, INT64_MAX);
			if (sched_grow_blocks(s, rp, r, blocks_for(s, r->computed + n) - r->nblocks))
				sched_push(rp, r, n);
		}
		return;
	}
	rp->dec_run = st->dec_batch = true;
	if (lazy ? sg_decode_fast(s, rp) : sp ? sg_decode_spath(s, rp) : sg_decode_ahead(s, rp, st))
		goto decay;
	if (lazy || sp)
		sg_all_explicit(s, rp, st);
	/* 2. decode every running request (st->dec: a request admitted this
	 * step would be scheduled; one retracted below is no longer decoding:
	 * skipped, as out of the running list).  The anonymous blocks
	 * decoders take (with one-token pages, one each a step) are counted
	 * as they go and allocated in one kvc_alloc_anon call before any other
	 * cache change (a named take, a retraction) and at the end: free
	 * blocks first, then the oldest cached, as one by one, so the cache
	 * ends the same */
	for (i = 0; i < st->ndec; i++) {
		int64_t n;
		int32_t need;
		bool self = false;
		r = st->dec[i];
		if (!decoding(r))
			continue;
		/* a decoder's chunk is its one token (chunk_of's answer) unless
		 * drafts ride along */
		n = s->cfg.spec.k > 0 ? chunk_of(s, r, INT64_MAX) : 1;
		need = blocks_for(s, r->computed + n) - r->nblocks;
		if (need <= 0 || (need <= kvc_available(&rp->kv) - pend && named_take(s, r, need) == 0)) {
			if (need > 0) {
				pend += need;
				r->nblocks += need;
			}
			sched_push(rp, r, n);
			continue;
		}
		if (pend > 0) {
			kvc_alloc_anon(&rp->kv, pend);
			pend = 0;
		}
		while (!sched_grow_blocks(s, rp, r, need)) {
			struct req *victim = rp->run_tail;
			while (victim && (victim->inflight || victim->scheduled))
				victim = victim->prev;
			if (!victim) {
				self = true;
				break;
			}
			sched_preempt(s, rp, victim);
			retracted = true;
			if (victim == r) {
				self = true;
				break;
			}
		}
		if (!self)
			sched_push(rp, r, n);
	}
	if (pend > 0)
		kvc_alloc_anon(&rp->kv, pend);
decay:
	if (retracted)
		sg_of(rp)->ratio = sg_of(rp)->ratio_init;
	else if (rp->nsched > 0 || rp->ndec > 0 || rp->nspath > 0)
		sg_ratio_decay(sg_of(rp));
}

/* Admission (PrefillAdder add_one_req): only while the KV left after
 * reserving the running requests' future tokens at the new-token ratio
 * (res) holds the request's whole uncached prompt and all its future tokens
 * (extend_input_len + min(max_new_tokens, 4096), not scaled by the ratio,
 * which only applies once the request runs; a P/D decode worker's
 * transferred request: its future at the ratio, its pre-allocation queue
 * not modelled), and, past the batch's first request, while rem_input
 * (what is left of --max-prefill-tokens) is above the prompt tokens to
 * compute: such a prompt waits whole rather than being chunked.  Stopping
 * for KV is SGLang's NO_TOKEN. */
static enum admit_verdict sglang_admit(struct sim *s, struct replica *rp, struct req *r, const struct admit_try *t,
				       int32_t *grow)
{
	struct sg_res *res = t->ctx;
	int32_t need;

	if (t->rem_input < INT64_MAX && rp->nsched > 0 && s->cfg.max_prefill_whole &&
	    req_num_tokens(r) - r->computed >= t->rem_input)
		return ADMIT_WAIT;
	need = blocks_for(s, r->computed + t->n) - t->hits;
	if (!r->transferred) /* and its rest and future tokens */
		need = blocks_for(s, req_num_tokens(r) + sg_future(r)) - t->hits;
	else /* P/D decode: its future at the ratio */
		need += blocks_for(s, ceil_nonneg((double)sg_future(r) * sg_of(rp)->ratio));
	if (!sg_res_fits(s, rp, res, (int64_t)need + t->evictable))
		return ADMIT_FULL;
	*grow = blocks_for(s, r->computed + t->n) - t->hits;
	res->added += need - *grow;
	return ADMIT_GO;
}

static void sglang_replica_init(struct sim *s, struct replica *rp)
{
	struct sg_state *st = xcalloc(1, sizeof(*st));
	double c = rp->prefill_only ? s->cfg.prefill_conservativeness : s->cfg.conservativeness;

	if (!(c > 0))
		c = 1.0;
	st->ratio_init = fmin(SCHED_SG_RATIO_INIT * c, 1.0);
	st->ratio_min = fmin(st->ratio_init * SCHED_SG_RATIO_MIN_FACTOR, 1.0);
	st->ratio_decay = (st->ratio_init - st->ratio_min) / SCHED_SG_DECAY_STEPS;
	st->ratio = st->ratio_init;
	st->dec_batch = true; /* (as rp->dec_run starts) */
	rp->pstate = st;
}

static void sglang_replica_release(struct replica *rp)
{
	struct sg_state *st = rp->pstate;

	if (st) {
		free(st->pre);
		free(st->dec);
	}
	free(rp->pstate);
	rp->pstate = NULL;
}

/* sched_check's test of the state: lists kept as current (sg_collect)
 * must be what a walk of the running list finds now. */
static bool sglang_check(const struct sim *s, const struct replica *rp, char *why, size_t n)
{
	const struct sg_state *st = sg_of(rp);
	const struct req *r;
	size_t i = 0;

	(void)s;
	if (!st->all_dec || st->dec_ver != rp->run_ver || rp->pp != 1)
		return true;
	for (r = rp->run_head; r; r = r->next, i++)
		if (i >= st->ndec || st->dec[i] != r || !decoding(r) || r->inflight) {
			snprintf(why, n, "running request %lld: not the kept decoder list's entry %zu (%zu kept)",
				 (long long)r->id, i, st->ndec);
			return false;
		}
	if (i != st->ndec || st->npre != 0) {
		snprintf(why, n, "%zu running, the kept lists hold %zu decoders and %zu mid-prefill", i, st->ndec,
			 st->npre);
		return false;
	}
	return true;
}

/* A steady decode step (step.c decode_steps, quick_plan: decoders alone,
 * nothing explicit, nobody it could admit, the crossing class's blocks
 * free, lazy decoders): sglang_schedule's step is then its decoders' tokens
 * and blocks (sg_decode_fast, with no explicit request) and the counters it
 * keeps, as long as the recv interval's poll has nothing to receive (an
 * inbox waits for it: the general path) and no LPM sort of a waiting queue
 * is due.  get_next_batch_to_run then returns the running batch unchanged
 * (scheduler.py: no new prefill batch, update_running_batch retracts
 * nothing). */
static bool sglang_steady_ok(const struct sim *s, const struct replica *rp)
{
	return !(rp->recv_gate && rp->ninbox > 0) && !(s->cfg.lpm && rp->wlen > 0);
}

/* Those counters, as sglang_schedule moves them on such a step: the recv
 * interval's count (a decode batch adds 1; nothing to receive), the latch
 * of a full batch (someone waiting at max_num_seqs; never on a P/D worker)
 * and the new-token ratio's decay. */
static void sglang_steady_step(struct sim *s, struct replica *rp)
{
	struct sg_state *st = sg_of(rp);

	if (rp->recv_gate && ++rp->recv_ct >= s->cfg.recv_interval)
		rp->recv_ct = 0;
	if (st->full_at > 0 && rp->nrun < st->full_at)
		st->full_at = 0;
	if (st->full_at == 0 && rp->wlen > 0 && (int64_t)rp->nrun >= rp->mns && rp->nrun > 0 && s->cfg.pd.prefill <= 0)
		st->full_at = rp->nrun;
	sg_ratio_decay(st);
}

static const struct sched_policy sglang_policy = {
	.schedule = sglang_schedule,
	.admit = sglang_admit,
	.split_batches = true,
	.decoder_keys = true,
	.replica_init = sglang_replica_init,
	.replica_release = sglang_replica_release,
	.check = sglang_check,
	.steady_ok = sglang_steady_ok,
	.steady_step = sglang_steady_step,
};

/* SGLang's ROCm build: the aiter attention backend (SGLang docs,
 * attention_backend.md, "AITER (ROCm)"; page size 1 as on CUDA), AITER
 * fused MoE and block-scale fp8 GEMM (ROCm blog "Supercharge DeepSeek-R1
 * Inference on AMD Instinct MI300X", 2025-03-21); its memory and limit
 * rules are the CUDA build's. */
static void sglang_rocm_words(const struct gpu_spec *g, char *out, size_t n)
{
	snprintf(out, n, "SGLang's ROCm build: --attention-backend aiter, AITER fused MoE and block-scale GEMM, page size, "
		 "memory and limit rules as on CUDA; fp8 %s", engine_rocm_fp8(g));
}

/* SGLang's ROCm build on CDNA3 (gfx942: MI300X, MI325X) runs a block-fp8
 * checkpoint's dense linears on aiter's Triton gemm_a8w8_blockscale, not
 * the CK kernel the aiter tables time: aiter_w8a8_block_fp8_linear
 * (python/sglang/srt/layers/quantization/fp8_utils.py) takes Triton for
 * every shape off gfx95 (use_triton = True), since sgl-project/sglang PR
 * 13617 (merged 2025-11-20, "Replace aiter gemm_a8w8_blockscale with the
 * Triton implementation"; PR 14043, which would have kept MI300X on CK,
 * was closed unmerged); first in a release at 0.5.6.  Which shapes have a
 * Triton config of their own is the images' aiter's: SGLang 0.5.9's
 * docker/rocm.Dockerfile pins aiter v0.1.10.post3 for gfx942 (none), the
 * later ones v0.1.11.post1 and newer commits (DeepSeek's TP-8 q_a/kv_a,
 * q_b and o_proj: ROCm/aiter PR 2024; GLM-5's: PR 2743, in the a6bb4993
 * that 0.5.10.post1 pins; 0.5.10's own pin was not found).  On gfx950
 * (CDNA4) the same function takes Triton for the shapes of
 * use_aiter_triton_gemm_w8a8_tuned_gfx950 (DeepSeek's TP-8 linears among
 * them) and CK, whose times the MI355X tables hold, for the rest; priced
 * at 0.5.6-0.5.9's aiter v0.1.10.post3 configs (cost/tritonbs.c).  The
 * later images' aiter retuned those configs (v0.1.12: 2112 x 7168's
 * catch-all 128 x 64, 3072 x 1536's four warps) and pipelined the kernel
 * (ROCm/aiter PR 3136, 2026-05-13), for which no timing carries: the
 * tables, as before.  An unnamed version is the newest. */
static enum cost_tbs sglang_rocm_triton_bs(const struct scenario *sc)
{
	if (strcmp(sc->gpu->vendor, "amd") != 0 || engine_version_before(sc->engine_version, "0.5.6"))
		return COST_TBS_OFF;
	if (strcmp(sc->gpu->family, "cdna4") == 0)
		return engine_version_before(sc->engine_version, "0.5.10") ? COST_TBS_GFX950 : COST_TBS_OFF;
	if (strcmp(sc->gpu->family, "cdna3") != 0)
		return COST_TBS_OFF;
	return engine_version_before(sc->engine_version, "0.5.10") ? COST_TBS_DEFAULT : COST_TBS_TUNED;
}

/* The same Triton path for its compiles at new prefill sizes
 * (cost/tritonbs.c, cost_tbs_jit_init): from 0.5.6 (sglang PR 13617) on
 * CDNA3 every shape, on CDNA4 the gfx950 list in every release (priced on
 * the tables from 0.5.10, sglang_rocm_triton_bs, but run on the Triton
 * kernel still); every image's aiter has GRID_MN as a constexpr (ROCm/aiter
 * PR 4199 / 5217 took it out in 2026-08/09, after 0.5.19's images). */
static enum cost_tbs sglang_rocm_triton_jit(const struct scenario *sc)
{
	if (strcmp(sc->gpu->vendor, "amd") != 0 || engine_version_before(sc->engine_version, "0.5.6"))
		return COST_TBS_OFF;
	if (strcmp(sc->gpu->family, "cdna4") == 0)
		return COST_TBS_GFX950;
	if (strcmp(sc->gpu->family, "cdna3") != 0)
		return COST_TBS_OFF;
	return engine_version_before(sc->engine_version, "0.5.10") ? COST_TBS_DEFAULT : COST_TBS_TUNED;
}

/* SGLang's absorbed MLA products run in bf16 on CUDA for a block-fp8
 * checkpoint: DeepseekV2ForCausalLM.post_load_weights
 * (python/sglang/srt/models/deepseek_v2.py, the 0.4.x-0.5.x releases)
 * splits kv_b_proj's weight into w_kc / w_vc, and where it is fp8 with
 * weight_block_size [128, 128] on CUDA it dequantises it to bf16
 * (block_quant_dequant) unless SGL_USE_DEEPGEMM_BMM is set (off by
 * default, and never on Blackwell: "not DEEPGEMM_BLACKWELL"), so the
 * decode's q_nope x W_UK and latent x W_UV run as torch.bmm in bf16.
 * Other fp8 layouts (per-tensor, ROCm) take bmm_fp8 on a per-tensor
 * requant: kv_b's stored format. */
static const char *sglang_mla_absorb_bf16(const struct scenario *sc)
{
	if (sc->model->q.attn != Q_FP8_BLOCK || strcmp(sc->gpu->vendor, "nvidia") != 0)
		return NULL;
	return "SGLang dequantises a block-fp8 kv_b_proj at load on CUDA (post_load_weights)";
}

static void sglang_sched_words(const struct sim_cfg *c, bool overlap, char *out, size_t n)
{
	double k = c->conservativeness > 0 ? c->conservativeness : 1.0;
	double init = fmin(SCHED_SG_RATIO_INIT * k, 1.0);

	snprintf(out, n,
		 "SGLang scheduling: chunked_prefill_size %lld, max_running_requests %lld%s, context_length %lld, page size %lld, radix cache %s, schedule policy %s, overlap scheduling %s; prefill and decode in separate steps, new prefills first; admission reserves the running requests' future tokens at the new-token ratio %.3g, decaying to %.3g over 600 decode steps%s, and once it stops for KV or max_running_requests only decode batches run until a request finishes",
		 (long long)c->max_num_batched_tokens, (long long)c->max_num_seqs,
		 c->lockstep && c->dp > 1 ? " per DP rank" : "", (long long)c->max_model_len,
		 (long long)c->block_size, c->prefix_caching ? "on" : "off", c->lpm ? "lpm" : "fcfs",
		 overlap ? "on" : c->spec.k > 0 ? "off (SGLang turns it off under speculative decoding unless SGLANG_ENABLE_SPEC_V2 is set)" : "off",
		 init, fmin(init * SCHED_SG_RATIO_MIN_FACTOR, 1.0),
		 k != 1.0 ? " (schedule_conservativeness 1 x 0.3: SGLang's scale under attention DP)" : "");
	if (c->max_prefill_tokens > 0 && strlen(out) + 64 < n)
		snprintf(out + strlen(out), n - strlen(out), "; max_prefill_tokens %lld (%s)", (long long)c->max_prefill_tokens,
			 c->max_prefill_whole ? "a prompt joins a batch past its first only while it fits"
					      : "prompts join until it is spent; SGLang >= 0.5.13");
	/* the settings off by default, named only when given */
	if (c->mixed_chunk && strlen(out) + 64 < n)
		snprintf(out + strlen(out), n - strlen(out), "; mixed chunks (prefill batches carry the running decoders)");
	if (c->recv_interval > 1 && strlen(out) + 64 < n)
		snprintf(out + strlen(out), n - strlen(out),
			 "; scheduler_recv_interval %d (while it runs, new requests are polled every %d decode batches or after any other batch)",
			 c->recv_interval, c->recv_interval);
}

/* --- the engine type --- */

/* Its defaults where a deployment leaves them: chunked_prefill_size by GPU
 * memory, radix-cache pages of one token, max_running_requests by its rule
 * over the KV pool. */
static void sglang_defaults(struct scenario *sc)
{
	sc->k.max_num_batched_tokens = sglang_chunk_default(sc->gpu);
	sc->k.block_size = 1;
	sc->sglang_mrr_rule = true;
}

/* SGLang: ModelRunner.configure_kv_cache_dtype, "auto" = fp8_e4m3 when the
 * quant config's kv_cache_quant_algo is FP8, else the model dtype
 * (scenario_kv_model), and fp8 for DeepSeek sparse attention on Blackwell
 * where the checkpoint declares nothing (sglang_kv_dtype_default). */
static enum dtype sglang_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, enum dtype wdt,
				 char *why, size_t n)
{
	if (!(m && m->q.kv_fp8[0]) && sglang_kv_dtype_default(m, g, wdt) == DT_FP8) {
		if (n)
			snprintf(why, n, "SGLang's default for DeepSeek sparse attention on Blackwell");
		return DT_FP8;
	}
	return scenario_kv_model(m, wdt, why, n);
}

double sglang_preload_bytes(int gpus)
{
	return gpus > 1 ? SGLANG_PRELOAD_MULTI_GPU_BYTES : SGLANG_PRELOAD_ONE_GPU_BYTES;
}

/* mem_fraction_static (given, else its rule) of the memory free before the
 * weights load holds the weights and the KV pool (sglang_preload_bytes); the
 * rule's terms are kept for the run header. */
static int sglang_plan_memory(const struct scenario *s, const struct parallel *rep,
			      struct scenario_state *st, struct err *e)
{
	/* SGLang's tp_size counts the attention-DP ranks' GPUs */
	bool dpa = scenario_dp_attention(s->model, &s->par);

	sglang_mem_fraction(s->gpu, s->par.tp * (dpa ? s->par.dp : 1), s->par.pp, s->par.dp, dpa,
			    s->k.max_num_batched_tokens, s->model->attn == ATTN_MLA, &st->sg_mem);
	st->mem_fraction_static = s->k.mem_fraction_static > 0 ? s->k.mem_fraction_static : st->sg_mem.fraction;
	return memplan_compute_static(s->model, s->gpu, rep, s->wdt, s->kvdt,
				      sglang_preload_bytes(s->par.tp * s->par.pp * (dpa ? s->par.dp : 1)),
				      st->mem_fraction_static,
				      s->k.block_size, s->sglang_mrr_rule ? 4096 : scenario_rank_seqs(s, &s->par, s->k.max_num_seqs),
				      &st->mp, e);
}

/* max_running_requests by its rule over the KV pool, no more than the
 * sequences whose window / recurrent state the plan reserved. */
static int64_t sglang_max_running(const struct scenario *s, const struct scenario_state *st)
{
	int64_t mns = sglang_max_running_requests(
		(st->kv_from_memory ? st->mp.blocks : s->k.total_kv_blocks) * s->k.block_size, s->k.max_model_len);

	if (st->kv_from_memory && st->mp.state_bytes_per_seq > 0 && mns > st->mp.state_seqs)
		mns = st->mp.state_seqs;
	return mns;
}

/* DeepSeek-V4's parts model on SGLang's blocks (as vllm_csa_fits: data/mfu/
 * check_dsv4_module.py; [decode, prefill] x [CSA, HCA and window-only]). */
static const struct cost_csa_fit sglang_csa_fits[2][2] = {
	{{7.748e-05, 1.24, 3.54, 1.332}, {5.05e-05, 1.413, 3.192, 1.41}},
	{{9.882e-05, 2.225, 1.947, 0.9831}, {6.011e-05, 2.002, 2.756, 1.003}},
};

/* SGLang's terms in the cost model: no MLA module table (the sum of its
 * parts stands). */
static const struct cost_engine sglang_cost = {
	.name = "sglang",
	.fallback = "vllm",
	/* SGLang's ROCm build calls AMD's AITER kernels (its "aiter"
	 * attention backend, AITER fused-MoE and block-scale GEMM: ROCm blog
	 * "Supercharge DeepSeek-R1 Inference on AMD Instinct MI300X",
	 * 2025-03-21; SGLang docs, attention_backend.md, "AITER (ROCm)") */
	.rocm = "aiter",
	/* Gated DeltaNet on SGLang 0.5.14's measured GDN kernels (as vLLM's:
	 * scripts/mfu/fit_gdn.py, H100/H200/B200) */
	.lin = {25.91e-6, 1.253e-6, 1.580e-11, 0.3054, 22.83, 6.20e-6, 0.8104},
	/* its DeepEP wide-EP MoE kernels under DP+EP, aiconfigurator's SGLang
	 * 0.5.10 collections (scripts/mfu/derive_wideep.mjs) */
	.wideep = "sglang-0.5.10",
	.csa = sglang_csa_fits,
	/* python/sglang/srt/layers/dp_attention.py (the 0.5.x releases):
	 * DpPaddingMode.get_dp_padding_mode returns SUM_LEN whenever some
	 * rank's batch is an extend (is_extend_in_batch) and dp_size > 1, and
	 * SUM_LEN gathers a MoE layer's input with an all-reduce of the
	 * zero-filled buffer of all ranks' tokens (_dp_gather_via_all_reduce);
	 * the TP experts' output is then all-reduced whole (DeepseekV2MoE's
	 * tensor_model_parallel_all_reduce: layers/communicator.py reduce-
	 * scatters only under MAX_LEN) and each rank copies its rows back
	 * (dp_scatter) */
	.dp_extend_allreduce = true,
	/* the same file, MAX_LEN: _dp_gather_via_all_gather is
	 * get_tp_group().all_gather_into_tensor at attention TP 1, and the
	 * experts' output is reduce-scattered (reduce_scatter_tensor), both
	 * NCCL through the group coordinator (pynccl inside the CUDA graph);
	 * layers/logits_processor.py all-gathers the DP LM head's input and
	 * logits the same way.  Whole calls between the step's kernels: no
	 * chunking hides them (TensorRT-LLM's chunked attention-DP MoE
	 * overlaps its reduce-scatter with the next chunk, HARNESS "adp") */
	.dp_gather_nccl = true,
	/* python/sglang/srt/models/deepseek_v2.py (0.5.x; later
	 * deepseek_common/attention_backend_handler.py),
	 * _handle_attention_backend: the fa3 (Hopper default), flashinfer and
	 * flashmla backends run MHA (kv_b up-projects the cached latent: the
	 * expanded form) for an extend batch only when the sum of its
	 * extend_prefix_lens is 0 or >= chunked_prefix_cache_threshold
	 * (SGL_CHUNKED_PREFIX_CACHE_THRESHOLD, default 8192); otherwise the
	 * whole batch runs MLA in the absorbed form (MQA over the latent).
	 * fa3 is its default on Hopper; Blackwell's trtllm_mla
	 * (handle_attention_trtllm_mla) and AMD's aiter expand every extend
	 * batch without a speculative draft, so the rule is Hopper's */
	.mla_absorbed_prefix_below = 8192,
	.mla_absorbed_family = "hopper",
};

/* SGLang's --enable-dp-attention keeps attention per DP rank (attention TP
 * = tp / dp) but runs the rest of the layer on the TP group of all its GPUs
 * (sgl-project/sglang, python/sglang/srt/models/deepseek_v2.py and
 * layers/communicator.py, 0.4.x-0.5.x; GLM-4.5 and GLM-5 take the same
 * code): a dense FFN layer is DeepseekV2MLP at the full TP size unless
 * --moe-dense-tp-size 1 (default None; enable_moe_dense_fully_dp), run on
 * every rank's tokens gathered (LayerScatterModes FULL); the shared experts
 * are DeepseekV2MLP on the full TP group too, or inside the routed experts'
 * TP-sharded kernel (determine_num_fused_shared_experts), except under
 * DeepEP's all-to-all (--moe-a2a-backend deepep: tp_size 1, each rank's
 * own tokens); the LM head is ParallelLMHead over the full TP group unless
 * --enable-dp-lm-head (default off; layers/logits_processor.py gathers the
 * ranks' last hidden states, all-gathers the vocab shards of the logits and
 * scatters each rank's rows back).  Before 0.4.6 the LM head under DP
 * attention was a ReplicatedLinear (PR #5558, 2025-04-19, already describes
 * vocab parallel over the whole TP group as the original implementation;
 * 0.4.6 is the first release certain to hold it).  --moe-dense-tp-size 1
 * keeps the dense layers on each rank (whole at attention TP 1; servesim
 * splits them over the rank's own TP group), --enable-dp-lm-head the head
 * (vocab-parallel over the rank's attention TP group).  servesim's EP under
 * attention DP is DeepEP's all-to-all (cost/ops.c), so ep > 1 keeps the
 * shared experts whole (par_part_tp). */
static unsigned sglang_dp_shard(const struct scenario *sc)
{
	unsigned b = PAR_DPS_SHARED;

	if (sc->k.moe_dense_tp_size != 1)
		b |= PAR_DPS_DENSE_FFN;
	if (!sc->k.sglang_dp_lm_head && !engine_version_before(sc->engine_version, "0.4.6"))
		b |= PAR_DPS_LM_HEAD;
	return b;
}

static void sglang_common(const struct launch_in *in, struct sbuf *o)
{
	/* DP attention: a MoE model's DP ranks share its experts */
	bool dp_attention = in->moe && in->par.dp > 1;

	/* with DP attention --tp counts all the engine's GPUs */
	sb_puts(o, "python -m sglang.launch_server --model-path ");
	sb_put_shell(o, in->model);
	sb_printf(o, " --tp %d", in->moe ? in->par.tp * in->par.dp : in->par.tp);
	if (in->par.dp > 1)
		sb_printf(o, " --dp-size %d%s", in->par.dp, dp_attention ? " --enable-dp-attention" : "");
	if (dp_attention && in->dp_lm_head)
		sb_puts(o, " --enable-dp-lm-head");
	if (dp_attention && in->moe_dense_tp1)
		sb_puts(o, " --moe-dense-tp-size 1");
	if (in->par.ep > 1)
		sb_printf(o, " --ep-size %d", in->par.ep);
	if (in->eplb) {
		sb_printf(o, " --enable-eplb --ep-num-redundant-experts %d", in->eplb_redundant);
		if (in->eplb_interval > 0)
			sb_printf(o, " --eplb-rebalance-num-iterations %lld", (long long)in->eplb_interval);
	}
	if (in->par.pp > 1)
		sb_printf(o, " --pp-size %d", in->par.pp);
	if (launch_online_fp8(in))
		sb_puts(o, " --quantization fp8");
	if (in->kvdt == DT_FP8)
		sb_puts(o, " --kv-cache-dtype fp8_e4m3");
	/* under DP attention SGLang gives each rank --max-running-requests /
	 * dp-size (sgl-project/sglang, python/sglang/srt/model_executor/
	 * model_runner.py, ModelRunner: dp_size is the DP size with
	 * enable_dp_attention, else 1; "Init max running requests"); the
	 * simulated limit is a rank's */
	sb_printf(o, " --max-running-requests %lld",
		  (long long)in->max_num_seqs * (dp_attention ? in->par.dp : 1));
	if (in->max_num_batched_tokens > 0)
		sb_printf(o, " --chunked-prefill-size %lld", (long long)in->max_num_batched_tokens);
	if (in->spec_k > 0)
		sb_printf(o, " --speculative-algorithm EAGLE --speculative-num-steps %d --speculative-eagle-topk 1 "
			     "--speculative-num-draft-tokens %d", in->spec_k, in->spec_k + 1);
}

/* SGLang (server arguments): --tp counts every GPU of the engine; with
 * --enable-dp-attention, --dp-size splits them into attention-DP ranks
 * (without it, --dp-size runs replicas behind SGLang's data-parallel
 * router); with attention DP, --enable-dp-lm-head and --moe-dense-tp-size
 * 1 as given; --ep-size, --pp-size, --quantization fp8, --kv-cache-dtype
 * fp8_e4m3, --max-running-requests, --chunked-prefill-size; MTP as SGLang's
 * DeepSeek guide gives it: --speculative-algorithm EAGLE with K steps, top-k
 * 1 and K + 1 draft tokens; P/D with --disaggregation-mode prefill|decode
 * and the sglang_router in --pd-disaggregation mode. */
static void sglang_launch(const struct launch_in *in, struct sbuf *o)
{
	if (in->pd_prefill == 0) {
		sglang_common(in, o);
		sb_putc(o, '\n');
		return;
	}
	sb_printf(o, "# %d prefill server%s:\n", in->pd_prefill, in->pd_prefill > 1 ? "s" : "");
	sglang_common(in, o);
	sb_puts(o, " --disaggregation-mode prefill\n");
	sb_printf(o, "# %d decode server%s:\n", in->pd_decode, in->pd_decode > 1 ? "s" : "");
	sglang_common(in, o);
	sb_puts(o, " --disaggregation-mode decode\n");
	sb_puts(o, "python -m sglang_router.launch_router --pd-disaggregation --prefill http://PREFILL:30000 "
		   "--decode http://DECODE:30000\n");
}

/* SGLang's host terms: vLLM's H2 terms (src/engine/vllm.c), with its
 * overlap scheduler on by default (--disable-overlap-schedule turns it off:
 * the step's CPU work runs while the GPU runs the previous batch), and an
 * eager floor for any batch holding a prefill.  SGLang replays CUDA graphs
 * for decode batches only (cuda_graph_max_bs); an extend or mixed batch runs
 * its forward eagerly from Python unless --enable-piecewise-cuda-graph is
 * given (opt-in in the 0.5.1-0.5.10 images of the silicon rows; sglang
 * server_args, sgl-project/sglang#10062, #13377), so it lasts at least the
 * pass's operators x the host launch time per operator, as TensorRT-LLM's
 * (src/engine/trtllm.c).  100 us per operator, swept on the 486 SGLang agg
 * silicon rows in steps of 12.5-25 us (75: TTFT / ITL median APE 55.8 /
 * 15.4 %, 100: 44.5 / 16.0 %, 125: 57.2 / 14.9 % on all rows; without the
 * floor 68.9 / 17.2 %): DeepSeek-R1/V3 on B200 at ISL 1024 get a first
 * token 90-100 ms above the kernels' prefill at 4 clients (measured 183-209
 * ms against 83-113).
 *
 * The step's CPU work: 1.25 ms per step + 25 us per running request,
 * fitted (grid step 500-2000 us x request 10-40 us, objective median
 * |ITL err| + 0.5 x median |TTFT err| over the SGLang agg silicon rows;
 * eval/silicon/HARNESS.md, "SGLang's CPU time per step"; 1 ms + 30 us on
 * the 2026-11-29 grid of 250 us x 10 us, refitted 2026-12-01 on a grid of
 * 250 us x 5 us after "ckptattn" priced the DeepSeek-R1 fp4 rows as they
 * ran: objective 16.83 -> 16.35, the 324 rows' TTFT / ITL 16.39 / 8.64 ->
 * 16.31 / 8.19 %) where it shows:
 * - under speculative decoding, where SGLang turns its overlap scheduler
 *   off (engine_sglang.spec_no_overlap): the 26 InferenceX DeepSeek-R1 MTP
 *   rows, median |ITL err| 45.0 -> 30.1 %;
 * - under aiconfigurator's aiperf client (the 154 gap-analysis rows:
 *   Qwen3-32B 0.5.1 on H100, Llama-3.1-8B and Qwen3-235B 0.5.6 on H200),
 *   where the time adds to the GPU's batch as if nothing overlapped it:
 *   median |ITL err| 14.1 -> 6.7 % (signed -10.9 -> +3.3 %).  That client
 *   sends min_tokens = max_tokens = OSL, which makes SGLang run its
 *   min-new-tokens penalizer on every step (sampling/penaltylib,
 *   BatchedMinNewTokensPenalizer: required while any request sets
 *   min_new_tokens); that this is the cost, and why the overlap does not
 *   hide it, is a hypothesis these rows cannot test (as vLLM's aiperf row).
 * Elsewhere (InferenceX's vllm-bench client, no min_tokens, overlap on) the
 * same time hides under the GPU's batch and moves no median. */
static const struct engine_host sglang_host[] = {
	/* Under speculative decoding, aggregated: its EAGLE worker's host time,
	 * where the overlap is off (spec v1; engine_sglang.spec_no_overlap): 5 ms
	 * per step + 60 us per verified token + 5 us per prompt token,
	 * fitted (2026-11-29, grid step 1000-8000 us x token 30-80 us x
	 * prompt token 0-20 us, objective median |ITL err| + 0.5 x median
	 * |TTFT err|) on the 43 InferenceX DeepSeek-R1 fp8 B200 rows of
	 * dsr1_fp8_b200_mtp.sh (2 steps, 3 draft tokens, top-1), the only
	 * SGLang rows with drafts: their ITL median |err| 27.8 -> 11.2 %.
	 * What the worker does that servesim's verification + draft pricing
	 * does not hold (python/sglang/srt/speculative/eagle_worker.py,
	 * EAGLEWorker.forward_batch_generation): a decode step is three
	 * forward passes (draft, target verify, draft extend), each prepared
	 * on the host, with the accepted tokens read back to the host between
	 * verify and draft extend, and the per-request bookkeeping of every
	 * accepted token; a prefill runs the target with every position's
	 * hidden state kept (CaptureHiddenMode.FULL), then the draft model's
	 * extend over the whole prompt.  At 4 clients the rows' speed-up over
	 * their plain twins (1.31-1.50x) is what servesim's acceptance and
	 * draft pricing give (1.39-1.43x); at 64 it falls to 1.10-1.22x
	 * (servesim's 1.38-1.47x): the time grows with the batch, not the
	 * acceptance (eval/silicon/HARNESS.md, "SGLang's EAGLE steps").  The
	 * other terms are the plain rows'; only the three above are this
	 * row's own fit (what `eval --cv` refits: leaving DeepSeek or B200 out
	 * leaves no row with drafts to fit them on, and the held-out MTP rows
	 * run without them). */
	{"", NULL,
	 {.step_us = 5000.0, .layer_us = 5.0, .req_us = 60.0, .prefill_token_us = 5.0, .api_ttft_ms = 40.0,
	  .api_prompt_us = 20.0, .delivery_steps = 1.0, .eager_op_us = 100.0},
	 false, "fitted on the SGLang silicon rows, EAGLE terms on MTP rows",
	 OV_STEP | OV_REQ | OV_PREFILL_TOK, true, true},
	{"", "aiperf",
	 {.step_us = 1250.0, .layer_us = 5.0, .req_us = 25.0, .api_ttft_ms = 40.0, .api_prompt_us = 20.0,
	  .delivery_steps = 1.0, .eager_op_us = 100.0},
	 false, "fitted on the SGLang silicon rows; aiperf: CPU not hidden",
	 OV_STEP | OV_REQ | OV_EAGER | OV_API_TTFT | OV_API_PROMPT, true, false},
	{"", NULL,
	 {.step_us = 1250.0, .layer_us = 5.0, .req_us = 25.0, .api_ttft_ms = 40.0, .api_prompt_us = 20.0,
	  .delivery_steps = 1.0, .eager_op_us = 100.0},
	 true, "eager floor and CPU terms fitted on the SGLang silicon rows",
	 OV_STEP | OV_REQ | OV_EAGER | OV_API_TTFT | OV_API_PROMPT, true, false},
	{"", NULL, {.layer_us = 5.0, .api_ttft_ms = 9.0, .delivery_steps = 1.0}, true,
	 "vLLM's H2 terms (P/D workers)", 0, false, false},
};

/* SGLang's --kv-cache-dtype: auto, bf16, fp8_e5m2, fp8_e4m3, and fp4_e2m1
 * on the GPUs with fp4 tensor cores (server_args.py); no int4. */
static bool sglang_start_refused(const struct scenario *sc, char *msg, size_t n)
{
	if (sc->kvdt == DT_INT4 || (sc->kvdt == DT_FP4 && !(sc->gpu->peak_flops[DT_FP4] > 0))) {
		snprintf(msg, n, "kv_cache_dtype %s is not one SGLang takes on %s (auto, bf16, fp8_e5m2, fp8_e4m3; "
			 "fp4_e2m1 on a GPU with fp4 tensor cores)", dtype_name(sc->kvdt), sc->gpu->id);
		return true;
	}
	return false;
}

/* --- KV offload: HiCache ---
 *
 * --enable-hierarchical-cache with --hicache-ratio R (host pool = R x the
 * device pool, 2 by default) or --hicache-size GB (per rank, over the
 * ratio): SGLang's HostKVCache sizes the pool so (host_size x 1e9 / bytes
 * per token, else device pool x ratio, in pages; mem_cache/
 * memory_pool_host.py), and wants it larger than the device pool (older
 * releases assert it, newer ones warn).  HiCache (docs.sglang.io,
 * advanced_features/hicache_design): GPU memory L1, host L2; a radix-tree
 * prefix that misses L1 and hits L2 is loaded back layer by layer
 * (load_to_device_per_layer: a layer's forward waits for its own KV only),
 * so the load overlaps the compute of the layers before: the step lasts
 * max(compute, loads) + min(compute, loads) / layers.  Writes to the host
 * (write_through, the default of recent releases: backup_from_device_all_layer
 * on its own stream) are hidden.  servesim writes a page to the host when
 * the GPU evicts it (write-through also keeps copies of pages still on the
 * GPU: see vllm.c). */
static int sglang_offload(const struct scenario *sc, const struct scenario_state *st, struct sim_offload *o,
			  char *words, size_t n, struct err *e)
{
	int64_t dev = st->sc.total_kv_blocks;
	double bb, ratio;
	int rc;

	if ((rc = sc->k.hicache_gb > 0 ? scenario_offload_tier(sc, sc->k.hicache_gb * 1e9, 0, "--hicache-size", o, &bb, e)
				     : scenario_offload_tier(sc, 0, floor((double)dev * sc->k.hicache_ratio),
							     "--hicache-ratio", o, &bb, e)) < 0)
		return rc;
	o->overlap = OFFLOAD_LAYERWISE;
	ratio = (double)o->host_blocks / (double)dev;
	snprintf(words, n,
		 "SGLang HiCache (--enable-hierarchical-cache, %s): %lld pages of %lld token%s (%.3g MB per GPU) in host memory per engine, %.2f x the device pool%s, LRU, fed by the GPU radix cache's evictions; a page moves in %.3g us each way over %s (%g GB/s one way x %.2f achieved); load-back layer by layer under the compute (the step lasts max(compute, loads) + min(compute, loads) / %d layers), write-through hidden",
		 sc->k.hicache_gb > 0 ? "--hicache-size" : "--hicache-ratio", (long long)o->host_blocks,
		 (long long)sc->k.block_size, sc->k.block_size > 1 ? "s" : "", bb / 1e6, ratio,
		 ratio <= 1 ? " (not larger than the device pool: SGLang warns, older releases refuse to start)" : "",
		 o->block_s * 1e6, sc->gpu->host_link, sc->gpu->host_link_bw / 1e9, SCENARIO_HOST_LINK_EFF, o->layers);
	return 0;
}

/* --- LoRA ---
 *
 * --enable-lora with --max-loras-per-batch N (adapters in one running
 * batch, the base model counting as one, and the slots of the GPU memory
 * pool: default 8), --max-lora-rank R (SGLang infers it from --lora-paths;
 * servesim's adapters have no files: 16, vLLM's default) and
 * --max-loaded-loras M (adapters in host memory, >= max_loras_per_batch;
 * default: every adapter stays loaded) (docs.sglang.io, advanced_features/
 * lora).  The scheduler skips a waiting request whose adapter would take
 * the running set past max_loras_per_batch (get_new_batch_prefill,
 * validate_lora_batch); the memory pool (lora/mem_pool.py) holds
 * max_loras_per_batch buffers of rank R, allocated before the KV pool is
 * sized, and evicts LRU (--lora-eviction-policy lru, the default); loads
 * run before the batch (without --enable-lora-overlap-loading). */
static int sglang_lora(const struct scenario *sc, struct sim_lora *o, char *words, size_t n, struct err *e)
{
	char host[64] = "unset (every adapter loaded at start-up and kept)";

	memset(o, 0, sizeof(*o));
	o->max_loras = sc->lora_max > 0 ? (int)sc->lora_max : 8;
	o->rank = sc->k.lora_rank > 0 ? (int)sc->k.lora_rank : 16;
	o->cpu_slots = sc->lora_host;
	o->base_counts = true;
	if (o->cpu_slots > 0 && o->cpu_slots < o->max_loras)
		return err_set(e, SS_EUSAGE, "--max-loaded-loras (%lld) must be >= --max-loras-per-batch (%d), as SGLang requires",
			       (long long)o->cpu_slots, o->max_loras);
	if (o->cpu_slots > 0)
		snprintf(host, sizeof(host), "%lld", (long long)o->cpu_slots);
	snprintf(words, n, "SGLang --max-loras-per-batch %d%s, --max-lora-rank %d%s, --max-loaded-loras %s; the base model takes a slot",
		 o->max_loras, sc->lora_max > 0 ? "" : " (default)", o->rank,
		 sc->k.lora_rank > 0 ? "" : " (servesim's default: SGLang infers it from --lora-paths)", host);
	return 0;
}

const struct engine_type engine_sglang = {
	.name = "sglang",
	.title = "SGLang",
	.knobs = ENGINE_KNOB_MEM_FRACTION | ENGINE_KNOB_SCHEDULE_POLICY | ENGINE_KNOB_NO_OVERLAP |
		 ENGINE_KNOB_MAX_PREFILL | ENGINE_KNOB_MIXED_CHUNK | ENGINE_KNOB_RULE_LIMITS | ENGINE_KNOB_RECV_INTERVAL |
		 ENGINE_KNOB_HICACHE | ENGINE_KNOB_LORA_SGLANG | ENGINE_KNOB_EPLB_SGLANG | ENGINE_KNOB_DP_LM_HEAD |
		 ENGINE_KNOB_MOE_DENSE_TP,
	.defaults = sglang_defaults,
	.kv_auto = sglang_kv_auto,
	.start_refused = sglang_start_refused,
	.plan_memory = sglang_plan_memory,
	.max_running = sglang_max_running,
	.host = sglang_host,
	.nhost = sizeof(sglang_host) / sizeof(sglang_host[0]),
	/* P/D hand-off: 210 ms (229 until the first token waited for the decode
	 * worker, 2026-11-28), the median of measured - predicted TTFT over 22
	 * disaggregated DeepSeek-R1 rows (SGLang 0.5.5-0.5.8, B200/GB200/GB300)
	 * at concurrency <= 16: the frontend's hand-off between the prefill and
	 * the decode worker (Dynamo), SGLang's bootstrap handshake and its
	 * Mooncake/NIXL transfer set-up, and the decode worker polling for the
	 * transfer (eval/silicon/HARNESS.md, "Disaggregated rows: the
	 * hand-off") */
	.pd_handoff_s = 0.210,
	/* the decode server streams the prefill's token once it admits the
	 * request (its prebuilt batch), then its own */
	.pd_first = SIM_PD_FIRST_DECODE_STEP,
	/* A P/D prefill server with attention DP sends each request to DP rank
	 * bootstrap_room % dp_size (python/sglang/srt/managers/
	 * data_parallel_controller.py: in P/D mode the "round_robin" method
	 * did this until sgl-project/sglang#16110, "follow_bootstrap_room"
	 * since, the default for --disaggregation-mode prefill), so that the
	 * decode server can find the KV's rank from the room alone (#13052);
	 * the room is a random 63-bit number the router draws per request
	 * (sglang_router mini_lb.py _generate_bootstrap_room:
	 * random.randint(0, 2**63 - 1); Dynamo's SGLang handler likewise).
	 * So a prompt lands on a uniformly random rank of the worker, not the
	 * least-loaded one: a rank can hold several prompts while another
	 * idles, and every rank of the worker steps with the busiest
	 * (eval/silicon/HARNESS.md, "SGLang P/D: the prefill rank of a
	 * request"). */
	.pd_prefill_rank_random = true,
	/* ServerArgs._handle_data_parallelism (python/sglang/srt/
	 * server_args.py, the 0.5.x releases): with --enable-dp-attention,
	 * chunked_prefill_size = chunked_prefill_size // dp_size ("DP attention
	 * is enabled. The chunked prefill size is adjusted to ..."), applied
	 * after the memory settings took the undivided value; every DP
	 * rank's scheduler then budgets that many tokens per prefill batch */
	.chunk_split_dp = true,
	/* the same function, the line before: with --enable-dp-attention,
	 * schedule_conservativeness = schedule_conservativeness x 0.3 (no log
	 * line), so each DP rank's new-token ratio starts at 0.21 and floors
	 * at 0.0294 (sglang_replica_init) */
	.dp_conservativeness = 0.3,
	.dp_shard = sglang_dp_shard,
	/* TpModelWorker.__init__ (python/sglang/srt/managers/tp_worker.py,
	 * 0.4.x-0.5.x): max_running_requests = min(--max-running-requests //
	 * dp_size under --enable-dp-attention, the request pool); later
	 * releases do the same in the memory pool configurator
	 * (requested_max_running_requests_per_worker); its own rule
	 * (max_total_num_tokens // 2) is a rank's already */
	.seqs_split_dp = true,
	/* ServerArgs._handle_speculative_decoding (python/sglang/srt/
	 * server_args.py, 0.5.x): EAGLE / MTP sets disable_overlap_schedule
	 * unless SGLANG_ENABLE_SPEC_V2 is in the environment */
	.spec_no_overlap = true,
	/* A cold server's one-time stall (sim_cfg.cold_start_s): 90 s, fitted
	 * (grid 60-120 s in steps of 15, median |TTFT err| of the 102
	 * InferenceX DeepSeek-R1/V3 B200 rows measured in November 2025, whose
	 * client sent no warm-up and whose runner kept no FlashInfer JIT
	 * cache: experiment.c, IX_WARMUP_FROM).  Those rows' TTFT jumps to
	 * 5-9 s exactly where the first wave of prompts needs a second
	 * prefill batch (fp4, 16,384-token batches: 1k prompts from 32
	 * clients, 8k prompts from 4; fp8, 32,768: from 64 and 8), and the
	 * jump times the prompts per client (10, 20 or 50 by the runner's
	 * rule) is 50-90 s in all three, as one stall paid by the first wave
	 * would give.  What the server compiles or loads then is not known
	 * from the rows; fitted on the fp4 rows alone (90 s) it takes the
	 * held-out fp8 rows from 36.0 to 22.6 % (eval/silicon/HARNESS.md,
	 * "A cold server"). */
	.cold_start_s = 90.0,
	/* ServerArgs.eplb_rebalance_num_iterations' default (sglang/srt/server_args.py) */
	.eplb_interval = 1000,
	/* ServerArgs.max_prefill_tokens' default (sglang/srt/server_args.py,
	 * 0.4-0.5.x: 16384), PrefillAdder's rem_input_tokens.  Until
	 * sgl-project/sglang#25741 ("fix chunked prefill not always being
	 * full", merged 2026-05-20, after 0.5.12 of 2026-05-18: first in
	 * 0.5.13) add_one_req stopped the batch at any prompt past the first
	 * whose tokens reach what is left of it, chunked prefill or not; since,
	 * only without chunked prefill: with it such a prompt joins (chunked
	 * to the chunk budget when longer) and the batch stops once the budget
	 * is spent (budget_state) */
	.max_prefill_default = 16384,
	.max_prefill_fill_from = "0.5.13",
	.cost = &sglang_cost,
	.policy = &sglang_policy,
	.sched_words = sglang_sched_words,
	.rocm_words = sglang_rocm_words,
	.rocm_triton_bs = sglang_rocm_triton_bs,
	.rocm_triton_jit = sglang_rocm_triton_jit,
	.mla_absorb_bf16 = sglang_mla_absorb_bf16,
	.launch = sglang_launch,
	.offload = sglang_offload,
	.lora = sglang_lora,
};
