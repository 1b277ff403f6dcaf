/* lora.h - LoRA adapters as the cost model sees them: which projections
 * they target, their bytes on one GPU and in all, and the step time of the
 * LoRA kernels (punica / SGMV-style shrink and expand GEMMs) by the step's
 * tokens, the distinct adapters in its batch and the rank. */
#ifndef SERVESIM_COST_LORA_H
#define SERVESIM_COST_LORA_H
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "cost/costmodel.h"
#include "model/model.h"

/* The most targeted projection shapes per layer kind, in all. */
#define COST_LORA_MAX_PROJ 64

/* The projections an adapter targets on one GPU (one pipeline stage):
 * every per-token linear projection of the attention and dense-FFN blocks
 * (q/k/v/o, gate/up/down and their MLA, linear-attention equivalents;
 * vLLM's and SGLang's default when an adapter targets "all-linear"); the
 * routed and shared experts, the LM head, the embedding and the sparse
 * indexers are not targeted.  A packed projection (qkv_proj: 3 slices,
 * gate_up_proj: 2) has one A matrix per slice, as vLLM's packed LoRA
 * layers do. */
struct cost_lora {
	struct cost_lora_proj {
		int64_t k, n;       /* the base GEMM on this GPU: [m, k] x [k, n] */
		int slices;         /* A matrices (r x k each); B is r x n in all */
		double count;       /* layers of this stage that run it */
	} proj[COST_LORA_MAX_PROJ];
	size_t nproj;
	/* parameters per unit of rank: on one GPU (its shards; replicated
	 * halves counted whole, as vLLM's not fully sharded layers keep them)
	 * and in the whole adapter (every layer, unsharded: what its file
	 * holds) */
	double params_gpu_per_rank, params_all_per_rank;
};

/* The projections of model m on one GPU of layout p (and the whole
 * adapter's size from the unsplit model); SS_EUSAGE when m has none. */
int cost_lora_init(const struct model_cfg *m, const struct parallel *p, struct cost_lora *l, struct err *e);
/* Seconds the LoRA kernels add to a step of `tokens` tokens whose batch
 * runs `adapters` distinct adapters of rank `rank`: for each projection a
 * shrink GEMM [tokens, k] x [k, slices x rank] and an expand GEMM
 * [tokens, rank] x [rank, n], each segmented by adapter (a batched GEMM of
 * `adapters` segments of tokens / adapters rows, every adapter's weights
 * read once), priced through the cost model's GEMM tables in bf16 (the
 * engines' LoRA dtype "auto": the activation dtype).  0 for no tokens. */
double cost_lora_step_s(const struct cost_model *c, const struct cost_lora *l, int rank, int64_t tokens,
			int64_t adapters);

#endif
