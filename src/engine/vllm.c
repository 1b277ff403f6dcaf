/* vllm.c - vLLM v1: the default engine.  Its defaults are scenario_defaults'
 * (vLLM's EngineArgs for the OpenAI API server), its scheduler vLLM v1's
 * (sim.h), its KV cache dtype "auto"; here its fitted kernel terms, its P/D
 * hand-off and its launch line. */
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/vllm.h"
#include "servesim/cost.h"
#include "servesim/launch.h"
#include "servesim/scenario.h"

/* DeepSeek-V4's parts model (cost/csamod.c) per phase [decode, prefill] and
 * mixer [CSA, HCA and window-only], fitted by data/mfu/check_dsv4_module.py
 * on vLLM's blocks measured on H100, H200 and B200 (fp8 projections and KV;
 * least squares on the relative error, coefficients >= 0; 4,632 to 64,215
 * rows each): c0 is the launch-bound floor, 1 / c_gemm, 1 / c_attn and
 * 1 / c_bytes the efficiencies against the fp8 / bf16 peaks and HBM.  Held
 * out by GPU (fitted on two, predicting the third), the measured block of
 * the nearest GPU times the model's ratio between the two GPUs - what a GPU
 * borrowing another's tables gets (carried) - has median |log error|
 * 0.012-0.179 (B200 from H200 the worst), against 0.045-0.501 for the
 * borrowed block as it is and 0.044-0.191 for the model alone (README,
 * "DeepSeek-V4").  The engines that fall back to vLLM's tables use these. */
const struct cost_csa_fit vllm_csa_fits[2][2] = {
	{{7.139e-05, 1.862, 2.398, 1.077}, {4.832e-05, 1.773, 5.641, 1.157}},
	{{7.914e-05, 2.099, 1.979, 1.33}, {5.571e-05, 2.166, 2.761, 1.193}},
};

/* vLLM's terms in the cost model. */
static const struct cost_engine vllm_cost = {
	.name = "vllm",
	/* Gated DeltaNet, fitted by data/mfu/fit_gdn.py on aiconfigurator's
	 * measured GDN kernels of vLLM 0.24 (conv + chunked delta rule for a
	 * prefill, conv update + recurrent kernel for a decode step, H100/H200/
	 * B200): launch s, s a chunk, s x SM an elem-token, bytes an elem-token,
	 * bytes a state elem a sequence; decode launch s, eta.  Its prefill has
	 * no HBM term (H100 = H200 to 1 %).  Median |log error| before -> after
	 * and the hold-outs: README "Linear attention" and fit_gdn.py's output. */
	.lin = {13.57e-6, 2.398e-6, 5.154e-12, 1.054e-14, 19.35, 6.38e-6, 0.8298},
	/* MLA decode module (issue 9): aiconfigurator times vLLM 0.24's whole
	 * DeepseekV2MLAAttention forward under a CUDA graph
	 * (collector/vllm/collect_mla_module.py, ../shared/data/mfu/aic-engines/
	 * <gpu>/mla/vllm/0.24.0/mla_generation_module_perf.csv.gz, fp8_block
	 * GEMMs, bf16 MLA compute); servesim's parts at the same heads, batch
	 * and keys (the q_a, kv_a, q_b and o GEMMs, the absorb BMMs and the MLA
	 * kernel from that engine's own tables; norms and RoPE at their bytes)
	 * come out below it by a near-constant amount over heads 8..128, batch
	 * 1..64 and 1k..16k keys, the unfused elementwise, quantisation and
	 * cache-write kernels of vLLM's MLA path.  Median of module - parts (105
	 * points each; data/mfu/check_mla_module.py): H200 46.1 us (bf16 KV) and
	 * 61.1 us (fp8 KV), H100 47.4 and 62.3 us.  TensorRT-LLM's module
	 * against the same parts: H200 3.0 / 1.4 us, H100 0.1 / -1.5 us, i.e. the
	 * parts are right and the excess is vLLM's; on B200 vLLM's excess (14.2 /
	 * 15.1 us) matches TensorRT-LLM's (12.6 / 9.6 us), a parts error there,
	 * not an engine term.  Applied on the Hopper tables (h100_sxm,
	 * h200_sxm) for MLA without the DSA indexer (whose module is a separate
	 * table). */
	.mla_decode_s = {46e-6, 61e-6},
	/* MLA context (prefill) module against the parts, on aiconfigurator's
	 * mla_context_module_perf tables (vLLM 0.24.0 and TensorRT-LLM
	 * 1.3.0rc20, tp 1, heads 1..128, batch 1..256 x isl 1..32k prefix-free
	 * prompts, fp8_block or bf16 GEMMs, bf16 MLA compute): servesim's parts
	 * (q_a, kv_a, q_b and o GEMMs over the tokens, the expanded MLA prefill
	 * kernel as one varlen call, the kv_b GEMM, norms and RoPE at their
	 * bytes; tools/mlacheck.c prefill) come out below the module by an
	 * amount that grows with the tokens and with the heads: module / parts
	 * median at >= 1024 tokens on H100 / H200 with bf16 / fp8 KV 1.17 / 1.17
	 * / 1.17 / 1.16.  Least squares over those points
	 * (data/mfu/check_mla_module.py --prefill, heads 8..128, batch 1..256,
	 * isl 128..16k, batch x isl 1k..64k, pooled over H100/H200 x bf16/fp8
	 * KV): module - parts per 1k tokens = 19.3 + 0.411 x heads us (888
	 * points; per set 18.9 + 0.475 h, 20.6 + 0.371 h, 16.8 + 0.464 h, 21.4 +
	 * 0.318 h).  Applied per prefill token per MLA layer on the Hopper
	 * tables, not DSA (its module is a separate table).  Not applied on B200
	 * (vLLM's module is 0.90-0.94 of the parts). */
	.mla_ctx_tok_s = 19.3e-9,
	.mla_ctx_tok_head_s = 0.411e-9,
	.mla_src = "vLLM 0.24",
	.csa = vllm_csa_fits,
};

static void vllm_common(const struct launch_in *in, struct sbuf *o)
{
	sb_printf(o, "vllm serve %s --tensor-parallel-size %d", in->model, in->par.tp);
	if (in->par.pp > 1)
		sb_printf(o, " --pipeline-parallel-size %d", in->par.pp);
	if (in->par.dp > 1)
		sb_printf(o, " --data-parallel-size %d", in->par.dp);
	if (in->par.ep > 1)
		sb_puts(o, " --enable-expert-parallel");
	if (launch_online_fp8(in))
		sb_puts(o, " --quantization fp8");
	else if (in->wdt != DT_FP8 && in->wdt != DT_BF16)
		sb_printf(o, " # %s weights: serve a %s-quantised checkpoint;", dtype_name(in->wdt),
			  dtype_name(in->wdt));
	if (in->kvdt == DT_FP8)
		sb_puts(o, " --kv-cache-dtype fp8");
	sb_printf(o, " --max-num-seqs %lld", (long long)in->max_num_seqs);
	if (in->max_num_batched_tokens > 0)
		sb_printf(o, " --max-num-batched-tokens %lld", (long long)in->max_num_batched_tokens);
	if (in->spec_k > 0)
		sb_printf(o, " --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":%d}'",
			  in->spec_k);
}

/* vLLM (engine arguments): --tensor-parallel-size, --pipeline-parallel-size,
 * --data-parallel-size (replicas of a dense model behind vLLM's internal
 * load balancer, attention DP for an MoE model), --enable-expert-parallel
 * (EP = TP x DP), --quantization fp8 (online FP8 of a 16-bit checkpoint),
 * --kv-cache-dtype fp8, --max-num-seqs, --max-num-batched-tokens,
 * --speculative-config '{"method":"mtp","num_speculative_tokens":K}'; P/D
 * through a KV connector (--kv-transfer-config, NixlConnector) and a proxy
 * that sends each request to a prefill then a decode instance. */
static void vllm_launch(const struct launch_in *in, struct sbuf *o)
{
	if (in->pd_prefill == 0) {
		vllm_common(in, o);
		sb_putc(o, '\n');
		return;
	}
	sb_printf(o, "# %d prefill instance%s:\n", in->pd_prefill, in->pd_prefill > 1 ? "s" : "");
	vllm_common(in, o);
	sb_puts(o, " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n");
	sb_printf(o, "# %d decode instance%s:\n", in->pd_decode, in->pd_decode > 1 ? "s" : "");
	vllm_common(in, o);
	sb_puts(o, " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n");
	sb_puts(o, "# and a proxy sending each request to a prefill, then a decode instance\n");
}

/* vLLM: CacheConfig.cache_dtype "auto" = the model's dtype (vllm/config/
 * cache.py; vllm/utils/torch_utils.py kv_cache_dtype_str_to_dtype), fp8
 * when a ModelOpt checkpoint declares it (resolve_kv_cache_dtype_string,
 * vLLM PR #30785): scenario_kv_model, whatever the GPU. */
static enum dtype vllm_kv_auto(const struct model_cfg *m, const struct gpu_spec *g, enum dtype wdt, char *why,
			       size_t n)
{
	(void)g;
	return scenario_kv_model(m, wdt, why, n);
}

const struct engine_type engine_vllm = {
	.name = "vllm",
	.title = "vLLM",
	.kv_auto = vllm_kv_auto,
	/* P/D hand-off: 267 ms, the median of measured - predicted TTFT over 6
	 * disaggregated Kimi-K2.5 rows (vLLM 0.18, GB200) at concurrency <= 16,
	 * where the prefill pool has no queue to speak of: the frontend's hand-off
	 * between the prefill and the decode worker (Dynamo), vLLM's
	 * NixlConnector set-up (the decode worker pulls the blocks once the
	 * prefill returns their ids) and the decode worker polling for the
	 * transfer's completion (eval/silicon/HARNESS.md, "Disaggregated rows:
	 * the hand-off"; scenario_prepare) */
	.pd_handoff_s = 0.267,
	.cost = &vllm_cost,
	.launch = vllm_launch,
};
