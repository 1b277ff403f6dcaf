/* launch.c - vLLM and SGLang launch lines for a deployment.
 *
 * vLLM (engine arguments): --tensor-parallel-size, --pipeline-parallel-size,
 * --data-parallel-size (replicas of a dense model behind vLLM's internal
 * load balancer, attention DP for an MoE model), --enable-expert-parallel
 * (EP = TP x DP), --quantization fp8 (online FP8 of a 16-bit checkpoint),
 * --kv-cache-dtype fp8, --max-num-seqs, --max-num-batched-tokens,
 * --speculative-config '{"method":"mtp","num_speculative_tokens":K}'; P/D
 * through a KV connector (--kv-transfer-config, NixlConnector) and a proxy
 * that sends each request to a prefill then a decode instance.
 * SGLang (server arguments): --tp counts every GPU of the engine; with
 * --enable-dp-attention, --dp-size splits them into attention-DP ranks
 * (without it, --dp-size runs replicas behind SGLang's data-parallel
 * router); --ep-size, --pp-size, --quantization fp8, --kv-cache-dtype
 * fp8_e4m3, --max-running-requests, --chunked-prefill-size; MTP as SGLang's
 * DeepSeek guide gives it: --speculative-algorithm EAGLE with K steps, top-k
 * 1 and K + 1 draft tokens; P/D with --disaggregation-mode prefill|decode
 * and the sglang_router in --pd-disaggregation mode. */
#include "servesim/launch.h"

#include <string.h>

static bool online_fp8(const struct launch_in *in)
{
	return in->wdt == DT_FP8 && strcmp(in->checkpoint_quant, "fp8") != 0;
}

static void vllm_common(const struct launch_in *in, struct sbuf *o)
{
	sb_printf(o, "vllm serve %s --tensor-parallel-size %d", in->model, in->par.tp);
	if (in->par.pp > 1)
		sb_printf(o, " --pipeline-parallel-size %d", in->par.pp);
	if (in->par.dp > 1)
		sb_printf(o, " --data-parallel-size %d", in->par.dp);
	if (in->par.ep > 1)
		sb_puts(o, " --enable-expert-parallel");
	if (online_fp8(in))
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

void launch_vllm(const struct launch_in *in, struct sbuf *o)
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
	if (online_fp8(in))
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

void launch_sglang(const struct launch_in *in, struct sbuf *o)
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
