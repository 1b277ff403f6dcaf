/* launch.h - what an engine's command lines that start a deployment servesim
 * simulated are written from (flag names as each engine's documentation
 * spells them; engine_type.launch). */
#ifndef SERVESIM_LAUNCH_H
#define SERVESIM_LAUNCH_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hw/gpu.h"
#include "model/model.h"
#include "base/sbuf.h"

struct launch_in {
	const char *model;          /* Hugging Face id (or the registry id) */
	const char *checkpoint_quant; /* the checkpoint's quant_method ("" none) */
	struct parallel par;        /* attention TP, DP, EP, PP as servesim counts them */
	enum dtype wdt, kvdt;
	int64_t max_num_seqs;       /* SGLang: max_running_requests */
	int64_t max_num_batched_tokens; /* SGLang: chunked_prefill_size */
	int spec_k;                 /* MTP draft tokens (0: off) */
	int pd_prefill, pd_decode;  /* 0: aggregated */
	bool moe;                   /* DP is attention DP (else replicas) */
	/* EPLB on the deployments with EP > 1 (eplb_redundant redundant
	 * experts, eplb_interval steps between rebalances, 0: the engine's) */
	bool eplb;
	int eplb_redundant;
	int64_t eplb_interval;
	/* engine flags as given: vLLM without DeepGEMM (VLLM_USE_DEEP_GEMM=0),
	 * SGLang's attention-DP layout (--enable-dp-lm-head,
	 * --moe-dense-tp-size 1) */
	bool no_deep_gemm, dp_lm_head, moe_dense_tp1;
};

/* An engine's launch lines (engine_type.launch, src/engine/<name>.c): one
 * line per process to start, each ending in '\n'; for P/D the prefill and
 * decode workers and what routes between them. */

/* fp8 weights from a checkpoint that is not fp8 itself: the engine
 * quantises online (--quantization fp8). */
static inline bool launch_online_fp8(const struct launch_in *in)
{
	return in->wdt == DT_FP8 && strcmp(in->checkpoint_quant, "fp8") != 0;
}

#endif
