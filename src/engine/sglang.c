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
#include <string.h>

#include "engine/engine.h"
#include "servesim/cost.h"
#include "servesim/launch.h"
#include "servesim/memplan.h"
#include "servesim/scenario.h"
#include "servesim/sglang.h"

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

/* --- the engine type --- */

/* Its defaults where a deployment leaves them: chunked_prefill_size by GPU
 * memory, radix-cache pages of one token, max_running_requests by its rule
 * over the KV pool. */
static void sglang_defaults(struct scenario *sc)
{
	sc->max_num_batched_tokens = sglang_chunk_default(sc->gpu);
	sc->block_size = 1;
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

/* mem_fraction_static (given, else its rule) of the GPU's memory holds the
 * weights and the KV pool; the rule's terms are kept for the run header. */
static int sglang_plan_memory(const struct scenario *s, const struct parallel *rep,
			      struct scenario_state *st, struct err *e)
{
	/* SGLang's tp_size counts the attention-DP ranks' GPUs */
	bool dpa = scenario_dp_attention(s->model, &s->par);

	sglang_mem_fraction(s->gpu, s->par.tp * (dpa ? s->par.dp : 1), s->par.pp, s->par.dp, dpa,
			    s->max_num_batched_tokens, s->model->attn == ATTN_MLA, &st->sg_mem);
	st->mem_fraction_static = s->mem_fraction_static > 0 ? s->mem_fraction_static : st->sg_mem.fraction;
	return memplan_compute_static(s->model, s->gpu, rep, s->wdt, s->kvdt, st->mem_fraction_static,
				      s->block_size, s->sglang_mrr_rule ? 4096 : s->max_num_seqs, &st->mp, e);
}

/* max_running_requests by its rule over the KV pool, no more than the
 * sequences whose window / recurrent state the plan reserved. */
static int64_t sglang_max_running(const struct scenario *s, const struct scenario_state *st)
{
	int64_t mns = sglang_max_running_requests(
		(st->kv_from_memory ? st->mp.blocks : s->total_kv_blocks) * s->block_size, s->max_model_len);

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
	/* Gated DeltaNet on SGLang 0.5.14's measured GDN kernels (as vLLM's:
	 * data/mfu/fit_gdn.py, H100/H200/B200) */
	.lin = {25.91e-6, 1.253e-6, 1.580e-11, 0.3054, 22.83, 6.20e-6, 0.8104},
	/* its DeepEP wide-EP MoE kernels under DP+EP, aiconfigurator's SGLang
	 * 0.5.10 collections (data/mfu/derive_wideep.mjs) */
	.wideep = "sglang-0.5.10",
	.csa = sglang_csa_fits,
};

static void sglang_common(const struct launch_in *in, struct sbuf *o)
{
	/* with DP attention --tp counts all the engine's GPUs */
	sb_printf(o, "python -m sglang.launch_server --model-path %s --tp %d", in->model,
		  in->moe ? in->par.tp * in->par.dp : in->par.tp);
	if (in->par.dp > 1)
		sb_printf(o, " --dp-size %d%s", in->par.dp, in->moe ? " --enable-dp-attention" : "");
	if (in->par.ep > 1)
		sb_printf(o, " --ep-size %d", in->par.ep);
	if (in->par.pp > 1)
		sb_printf(o, " --pp-size %d", in->par.pp);
	if (launch_online_fp8(in))
		sb_puts(o, " --quantization fp8");
	if (in->kvdt == DT_FP8)
		sb_puts(o, " --kv-cache-dtype fp8_e4m3");
	sb_printf(o, " --max-running-requests %lld", (long long)in->max_num_seqs);
	if (in->max_num_batched_tokens > 0)
		sb_printf(o, " --chunked-prefill-size %lld", (long long)in->max_num_batched_tokens);
	if (in->spec_k > 0)
		sb_printf(o, " --speculative-algorithm EAGLE --speculative-num-steps %d --speculative-eagle-topk 1 "
			     "--speculative-num-draft-tokens %d", in->spec_k, in->spec_k + 1);
}

/* SGLang (server arguments): --tp counts every GPU of the engine; with
 * --enable-dp-attention, --dp-size splits them into attention-DP ranks
 * (without it, --dp-size runs replicas behind SGLang's data-parallel
 * router); --ep-size, --pp-size, --quantization fp8, --kv-cache-dtype
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

const struct engine_type engine_sglang = {
	.name = "sglang",
	.title = "SGLang",
	.knobs = ENGINE_KNOB_MEM_FRACTION | ENGINE_KNOB_SCHEDULE_POLICY | ENGINE_KNOB_NO_OVERLAP |
		 ENGINE_KNOB_MAX_PREFILL | ENGINE_KNOB_MIXED_CHUNK | ENGINE_KNOB_RULE_LIMITS,
	.defaults = sglang_defaults,
	.kv_auto = sglang_kv_auto,
	.plan_memory = sglang_plan_memory,
	.max_running = sglang_max_running,
	.overlap_schedule = true,
	/* P/D hand-off: 229 ms, the median of measured - predicted TTFT over 22
	 * disaggregated DeepSeek-R1 rows (SGLang 0.5.5-0.5.8, B200/GB200/GB300)
	 * at concurrency <= 16: the frontend's hand-off between the prefill and
	 * the decode worker (Dynamo), SGLang's bootstrap handshake and its
	 * Mooncake/NIXL transfer set-up, and the decode worker polling for the
	 * transfer (eval/silicon/HARNESS.md, "Disaggregated rows: the
	 * hand-off") */
	.pd_handoff_s = 0.229,
	.cost = &sglang_cost,
	.sched_sglang = true,
	.launch = sglang_launch,
};
