/* launch.h - the vLLM and SGLang command lines that start a deployment
 * servesim simulated (flag names as the engines' documentation spells
 * them: vLLM engine arguments, SGLang server arguments). */
#ifndef SERVESIM_LAUNCH_H
#define SERVESIM_LAUNCH_H
#include <stdbool.h>
#include <stdint.h>

#include "servesim/gpu.h"
#include "servesim/model.h"
#include "servesim/sbuf.h"

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
};

/* One line per process to start, each ending in '\n'; for P/D the prefill
 * and decode workers and what routes between them. */
void launch_vllm(const struct launch_in *in, struct sbuf *out);
void launch_sglang(const struct launch_in *in, struct sbuf *out);

#endif
