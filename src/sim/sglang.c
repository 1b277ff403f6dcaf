/* sglang.c - SGLang's start-up defaults (see sglang.h).
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
