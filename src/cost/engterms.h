/* engterms.h - what an engine brings to the cost model (its kernel
 * collections and the terms fitted on its kernels, struct cost_engine), and
 * what the measured attention modules (csamod.c, dsamod.c) take from the
 * cost model that builds them (struct cost_mod_in), so that those modules
 * depend on this header and not on cost.h. */
#ifndef SERVESIM_COST_ENGTERMS_H
#define SERVESIM_COST_ENGTERMS_H
#include <stdbool.h>

#include "hw/gpu.h"
#include "hw/mfucache.h"
#include "model/model.h"

/* Linear attention (Gated DeltaNet and the like) in the fitted form linattn.c
 * prices: a prefill of b sequences of s tokens costs launch + per_chunk x
 * ceil(s / 64) + b s E x (sm_s / SM count + tok_bytes / HBM) + b E x
 * seq_bytes / HBM, a decode step gen_launch + the fp32 state read and
 * written / (HBM x gen_eta), with E the state elements per GPU. */
struct cost_lin_terms {
	double launch, per_chunk, sm_s, tok_bytes, seq_bytes; /* prefill */
	double gen_launch, gen_eta;                            /* decode step */
};

/* DeepSeek-V4's fitted parts model of one attention block: seconds = c0 +
 * c_gemm x (f_lp / peak_lp + f_hp / peak_bf16) + c_attn x f_attn /
 * peak_bf16 + c_bytes x bytes / HBM (cost/csamod.c). */
struct cost_csa_fit {
	double c0, c_gemm, c_attn, c_bytes;
};

/* What an engine brings to the cost model: where its measured kernel
 * tables are and the terms fitted on its kernels.  Each engine's file
 * (src/engine/<name>.c) holds its own, with the provenance of every
 * number; a zero term is one the engine does not have. */
struct cost_engine {
	/* its kernel collections, data/mfu/<gpu tables>/<name>-<version>/,
	 * and the engine whose collections a GPU without its own lends first
	 * (NULL: any, newest first) */
	const char *name, *fallback;
	/* the engine whose measured DSA module (dsa_module.csv.gz) a GPU
	 * without the engine's own lends first, where it is not fallback's
	 * (NULL: fallback's; cost/dsamod.c) */
	const char *dsa_fallback;
	/* its kernel collections on an AMD GPU (gpu_spec.vendor "amd"): the
	 * prefix of the kernel library its ROCm build calls ("aiter":
	 * data/mfu/<gpu>/aiter-<commit>/), or NULL where it has no ROCm build
	 * (engine_type.start_refused says so) */
	const char *rocm;
	struct cost_lin_terms lin;           /* GDN kernels (scripts/mfu/fit_gdn.py) */
	/* MLA module against the sum of its parts, fitted on the Hopper
	 * tables (h100_sxm, h200_sxm) only: per MLA layer of a step with
	 * decodes [bf16 KV, fp8 KV], and per prefill token per MLA layer
	 * ctx_tok_s + ctx_tok_head_s x heads; mla_src names the tables */
	double mla_decode_s[2], mla_ctx_tok_s, mla_ctx_tok_head_s;
	const char *mla_src;
	bool dense_window_decode;            /* its windowed decode rows not used */
	/* mfu/wideep/<wideep>/: MoE tables measured under DP+EP, or NULL */
	const char *wideep;
	/* the GPU family (gpu_spec.family) on which this engine's own
	 * collections time the fp8 block-scaled experts with the kernel it
	 * runs for a block-scaled checkpoint, so that such experts named
	 * per-tensor fp8 (a source's label, --moe-format fp8) are priced as
	 * block-scaled there (cost/moe.c moe_block_checkpoint); NULL: none */
	const char *fp8_block_moe_family;
	/* attention DP without EP: in a step where some rank prefills, each
	 * MoE layer gathers the ranks' tokens with an all-reduce of the whole
	 * zero-filled buffer and sums the TP-sharded experts' output with a
	 * second all-reduce of it, where a decode step all-gathers and
	 * reduce-scatters (SGLang's DpPaddingMode.SUM_LEN; cost.c) */
	bool dp_extend_allreduce;
	/* attention DP: the gathers of a step (a decode step's all-gather
	 * before and reduce-scatter after the TP-sharded experts, the DP LM
	 * head's all-gathers) are whole NCCL calls in the step's stream,
	 * priced from NCCL's measured latencies (data/comm/nccl.csv, the GPU's
	 * own series) instead of the ring model (comm.c comm_dp_gather_s) */
	bool dp_gather_nccl;
	/* DSA prefill: the engine hands FlashMLA's sparse prefill kernel each
	 * query's count of valid top-k entries (topk_length), and the kernel
	 * stops after that many 64-key blocks; without it every query walks
	 * all index_topk entries, -1 padding included (dsa.c) */
	bool dsa_topk_length;
	/* MLA (without the DSA indexer): an extend batch whose summed cached
	 * prefix is above 0 and below this many tokens runs its attention in
	 * the absorbed form, as decode (SGLang's _handle_attention_backend and
	 * chunked_prefix_cache_threshold; cost/mla.c), on GPUs of family
	 * mla_absorbed_family (gpu_spec.family: where its default MLA
	 * backend follows that rule); 0 / NULL: always expanded */
	int64_t mla_absorbed_prefix_below;
	const char *mla_absorbed_family;
	/* DeepSeek-V4's parts model, [prefill][CSA, HCA and window-only] */
	const struct cost_csa_fit (*csa)[2];
};

/* The collection prefix ce's kernels are looked up under on g: its ROCm
 * kernel library on an AMD GPU, else its own name. */
const char *cost_engine_tables(const struct cost_engine *ce, const struct gpu_spec *g);

/* What a measured attention module is built from: the model, GPU and
 * dtypes the cost model prices, its heads per GPU and peaks, the engine's
 * collections and fitted terms, and the shared table cache. */
struct cost_mod_in {
	const struct model_cfg *m;
	const struct gpu_spec *g;
	int heads;                        /* attention heads per GPU */
	enum dtype wdt, kvdt;             /* weights, KV cache */
	double peak, attn_peak;           /* FLOP/s: the weights' dtype, attention (bf16) */
	const struct cost_engine *engine;
	const char *engine_version;       /* nearest collected version; "" = the newest */
	struct mfu_cache *cache;          /* shared tables (NULL: the module loads its own) */
};

#endif
