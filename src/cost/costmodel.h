/* costmodel.h - the cost model's state (struct cost_model, its
 * configuration and host terms, a step's shape) and the kernel families'
 * entry points (gemm.c, attn.c, mla.c, dsa.c, csa.c, linattn.c, moe.c,
 * allreduce.c, mixer.c): what the families and their callers share, below
 * cost.h's step pricing (cost.c), which includes it. */
#ifndef SERVESIM_COST_COSTMODEL_H
#define SERVESIM_COST_COSTMODEL_H
#include <stdbool.h>
#include <stdint.h>

#include "cost/comm.h"
#include "cost/eplb.h"
#include "cost/engterms.h"
#include "base/err.h"
#include "hw/gpu.h"
#include "hw/mfu.h"
#include "hw/mfucache.h"
#include "model/model.h"
#include "hw/moetab.h"
#include "hw/tier2.h"

enum { COST_H1 = 1, COST_H2 = 2, COST_H3 = 4, COST_H4 = 8, COST_H5 = 16, COST_H6 = 32 };

struct overheads {
	double step_us;         /* per engine step (scheduler, input prep, sampling launch) */
	double layer_us;        /* per layer per step (launch gaps not hidden by CUDA graphs) */
	double req_us;          /* per request in the step's batch */
	double api_ttft_ms;     /* client-side: request handling before the first token */
	double stream_token_us; /* client-side: per streamed output token */
	double delivery_steps;  /* client-side: a step's tokens reach the client this
				 * fraction (0..1) of the next step after its end */
	double prefill_token_us;/* per prefill token in a step (tier 1) */
	double api_e2e_ms;      /* client-side: after the last token (tier 1) */
	double api_prompt_us;   /* client-side: per prompt token before the first token (the
				 * API server's tokenisation; 0: none) */
	double api_loop_ms;     /* the API server's own time per request on its one event
				 * loop, which takes a burst of arrivals in whole before
				 * any reaches the engine (sim/apiq.c; 0: none) */
	double eager_op_us;     /* a step holding prefill chunks runs eagerly (CUDA graphs
				 * only for decode-only batches): at least this host time
				 * per operator of the pass (0: every step replays a graph) */
	double jit_compile_ms;  /* a kernel the engine compiles at run time, per compile
				 * (aiter's Triton block-scaled GEMM at a new prefill
				 * size: cost/tritonbs.c; 0: not priced) */
	/* which terms were set by the user (flags, a calibration file): the
	 * others are the engine's own (engine_host), OV_* bits */
	unsigned given;
};
enum {
	OV_STEP = 1u << 0, OV_LAYER = 1u << 1, OV_REQ = 1u << 2, OV_API_TTFT = 1u << 3,
	OV_STREAM = 1u << 4, OV_DELIVERY = 1u << 5, OV_PREFILL_TOK = 1u << 6, OV_API_E2E = 1u << 7,
	OV_EAGER = 1u << 8, OV_API_PROMPT = 1u << 9, OV_API_LOOP = 1u << 10, OV_JIT = 1u << 11,
	OV_TIER1 = OV_STEP | OV_LAYER | OV_REQ | OV_API_TTFT | OV_STREAM | OV_DELIVERY | OV_PREFILL_TOK |
		   OV_API_E2E, /* the terms a calibration file holds */
};

/* Where an engine's ROCm images run aiter's Triton block-scaled fp8 GEMM
 * and with which per-shape configs (cost/tritonbs.c): not that kernel;
 * every shape on gfx942, none configured (aiter v0.1.10.post3); every
 * shape on gfx942, DeepSeek's and GLM-5's TP-8 shapes configured (the
 * aiter of SGLang's images from 0.5.10); on gfx950 the shapes of the
 * engine's gfx950 Triton list, at aiter v0.1.10.post3's configs (SGLang
 * 0.5.6-0.5.9). */
enum cost_tbs { COST_TBS_OFF, COST_TBS_DEFAULT, COST_TBS_TUNED, COST_TBS_GFX950 };

struct cost_cfg {
	enum dtype wdt, kvdt;
	unsigned off;                 /* COST_H* bits switched off */
	struct overheads ov;
	int64_t max_tokens;           /* largest step (max_num_batched_tokens) */
	int64_t max_seqs;             /* max_num_seqs */
	int64_t graph_max;            /* largest CUDA-graph capture size (0: none) */
	const struct tier2 *tier2;    /* measured bandwidth per access pattern, or NULL */
	const struct cost_engine *engine; /* its kernel collections and fitted terms */
	char engine_version[32];      /* nearest collected version; "" = the newest */
	bool moe_wdt_given;           /* routed experts stored as moe_wdt (else wdt) */
	enum dtype moe_wdt;
	enum moe_dist moe_dist;       /* routing imbalance of the MoE tables (default power law 1.01) */
	struct mfu_cache *cache;      /* shared tables (NULL: this model loads its own) */
	int moe_format;               /* routed experts' format: 0 = as the checkpoint stores them,
				       * else enum moe_fmt + 1 (run --moe-format) */
	/* the kernels the routed experts run on as the launch names them
	 * (TensorRT-LLM's moe_config.backend; run --moe-backend, the P/D
	 * pools' own): DEFAULT prices the collections' fastest per shape */
	enum moe_backend moe_backend;
	/* overlap scheduling (SGLang's default): the step's CPU work, the
	 * overheads' step_us + req_us x requests, runs while the GPU runs the
	 * previous batch, so a step lasts max(GPU, CPU) instead of their sum */
	bool overlap_cpu;
	/* where the engine's host terms (ov's ungiven fields) come from, for
	 * the run header; NULL: nowhere said */
	const char *host_src;
	/* EPLB (cost/eplb.h; eplb false: off): the layout's redundant
	 * experts (struct parallel ep_redundant) over the EP ranks, the
	 * placement recomputed every
	 * eplb_interval engine steps (vLLM's step_interval, SGLang's
	 * eplb_rebalance_num_iterations); eplb_async: the rebalance's weight
	 * move runs beside the steps (vLLM's use_async), not on them */
	bool eplb, eplb_async;
	int64_t eplb_interval;
	/* vLLM's FlashInfer all-reduce + RMSNorm fusion (compilation-config
	 * pass_config fuse_allreduce_rms, enable_fi_allreduce_fusion before
	 * 0.12): a TP all-reduce of at most this many bytes runs FlashInfer's
	 * trtllm_allreduce_fusion, TensorRT-LLM's all-reduce kernel, and is
	 * priced from the GPU's TensorRT-LLM all-reduce table; larger ones
	 * take the engine's own path.  0: off */
	double ar_fused_bytes;
	/* MXFP4 routed experts run the engine's Marlin W4A16 MoE kernel
	 * (weights dequantised to bf16 in registers) rather than the kernel
	 * its newer collections time for MXFP4 (engine_type.moe_marlin):
	 * priced from the tables' int4 rows, which time that Marlin kernel.
	 * NULL: the engine's MXFP4 kernel; else why, for the run header */
	const char *mxfp4_marlin;
	/* the engine's ROCm build runs a block-scaled fp8 checkpoint's dense
	 * linears on aiter's Triton gemm_a8w8_blockscale on this GPU (all of
	 * them on CDNA3, its gfx950 list on CDNA4), not the CK kernel the
	 * aiter tables time, with the per-shape configs of its images' aiter
	 * (cost/tritonbs.c, engine_type.rocm_triton_bs) */
	enum cost_tbs rocm_triton_bs;
	/* the same build's Triton path as it runs whatever prices it (the
	 * gfx950 list at any aiter: COST_TBS_GFX950), for the kernel's JIT
	 * compiles at a new prefill size (cost/tritonbs.c, cost_tbs_jit_init;
	 * engine_type.rocm_triton_jit); COST_TBS_OFF: none */
	enum cost_tbs rocm_triton_jit;
	/* the engine keeps the MXFP4 experts' block scales twice (the
	 * checkpoint's and its kernel's relaid copy): NULL: no; else why */
	const char *mxfp4_scales_kept;
	/* the engine runs block-scaled fp8 routed experts on DeepGEMM's
	 * contiguous grouped GEMM over its whole padded workspace, every one
	 * of its rows computed (moe.c moe_dg_padded_s): NULL: no; else why */
	const char *moe_dg_padded;
	/* the engine runs a block-scaled fp8 checkpoint's dense linears on
	 * its CUTLASS block-scaled GEMM (cost/cutlassbs.c: vLLM on Hopper
	 * without DeepGEMM): NULL: no; else why */
	const char *cutlass_bs;
	/* that path pads each call's quantised activations and their scales
	 * to a multiple of 4 rows in fresh buffers, whatever the rows
	 * (cutlassbs.c cost_cbs_pad_s): NULL: no; else why */
	const char *cutlass_bs_pad;
	/* the engine runs the decoder's attention on vLLM's Triton unified
	 * attention kernel where its tables time FlashAttention (cost/
	 * tritonattn.c: vLLM on SM 8.x for a model with attention sinks):
	 * NULL: no; else why */
	const char *triton_attn;
	/* the engine runs an MLA model's absorbed W_UK / W_UV products (the
	 * decode's, the absorbed prefill's) in bf16, kv_b_proj's block-fp8
	 * weights dequantised at load (mla.c cost_mla_absorb_dtype): NULL:
	 * in kv_b's stored format; else why */
	const char *mla_absorb_bf16;
};

/* One kernel launch with its tail: the smallest latencies in the measured
 * GEMM tables (H100, vLLM 0.14: 2.5 us for m = n = k = 32) round to this. */
#define COST_LAUNCH_S 3e-6

/* Components whose cost origin the run header lists. */
enum cost_src { COST_SRC_GEMM, COST_SRC_ATTN_PREFILL, COST_SRC_ATTN_DECODE, COST_SRC_WINDOW,
		COST_SRC_DSA_PREFILL, COST_SRC_DSA_DECODE, COST_SRC_MOE, COST_SRC_ALLREDUCE, COST_SRC_LINEAR,
		COST_SRC_EAGER, COST_SRC__COUNT };

struct dsa_module;
struct csa_module;

/* EPLB's terms on one deployment (cost_cfg.eplb; cost_moe_s): the hot
 * rank's load by tokens and the rebalance's weight move. */
struct cost_eplb {
	struct eplb_curve curve;
	double bytes_gpu;    /* the redundant experts' weights on one GPU */
	double link_bw;      /* the EP group's slowest link, bytes/s per GPU */
	double move_s;       /* one rebalance: bytes_gpu received over it at COMM_LINK_EFF */
	double layer_s;      /* move_s over eplb_interval steps x the stage's MoE layers */
	int moe_layers;      /* MoE layers of the stage */
};

struct cost_model {
	const struct model_cfg *m;
	const struct gpu_spec *g;
	struct parallel p;
	struct cost_cfg cfg;
	const struct mfu_tables *tabs; /* &own_tabs, or borrowed from cfg.cache */
	struct mfu_tables own_tabs;
	/* cfg.ar_fused_bytes > 0: the tables whose all-reduce prices the fused
	 * all-reduces (&own_ar_tabs, or borrowed from cfg.cache); else NULL */
	const struct mfu_tables *ar_tabs;
	struct mfu_tables own_ar_tabs;
	int64_t max_m;
	double *tok_s;      /* [max_m + 1]: token-linear part of a step, seconds */
	double *tok_flops;  /* [max_m + 1]: FLOPs of that part (for H4-off) */
	double *tok_bytes;  /* [max_m + 1]: bytes of that part (for H4-off) */
	double *head_s;     /* [max_seqs + 1]: LM head on n rows */
	double *absorb_s;   /* [max_seqs + 1]: MLA decode absorb bmms, n decode tokens */
	double mla_module_s; /* per MLA layer of a step with decodes: the engine's measured
			      * MLA decode module over servesim's sum of its parts (0: none) */
	double mla_ctx_tok_s; /* per prefill token per MLA layer: the engine's measured MLA
			       * context module over servesim's sum of its parts (0: none) */
	/* MLA decode on AMD where no table measures small batches (mla.c):
	 * the AITER kernel's measured per-call floor (0: none) and the
	 * query rows (batch x heads) of the batch-only table it tops up
	 * (0: the roofline, no table) */
	double mla_dec_floor_s, mla_dec_ref_rows;
	/* MLA prefill in the absorbed form (mla.c): the engine's summed-prefix
	 * bound (cost_engine.mla_absorbed_prefix_below; 0: never) and the
	 * absorbed-form context table's configuration (NULL: none on this
	 * GPU, the expanded form priced and the header says so) */
	int64_t mla_abs_below;
	const struct mfu_attn_cfg *mla_abs_cfg;
	/* GQA (and MHA, MQA) decode on AMD without a decode table (attn.c):
	 * AITER's measured paged-attention per-call floor, which a call's
	 * roofline never goes under (0: none) */
	double gqa_dec_floor_s;
	/* DSA (DeepSeek-V3.2, GLM-5): the engine's measured DSA module over the
	 * sum of its parts, per layer (cost/dsamod.h; NULL: none on this GPU),
	 * and for layers reusing an earlier layer's top-k without a measured
	 * module of their own, the engine's plain MLA module terms */
	struct dsa_module *dsa;
	double dsa_shared_dec_s, dsa_shared_tok_s;
	/* DeepSeek-V4: each layer's attention block from the engine's measured
	 * blocks, or the fitted parts model without them (cost/csamod.h); NULL
	 * for other models */
	struct csa_module *csa;
	/* attention geometry per GPU and per stage */
	int heads, kv_heads, head_dim_qk, head_dim_v;
	int64_t layers_stage;
	double kv_tok_layer_bytes;  /* KV bytes per token per layer on one GPU */
	/* the LM head's work on one GPU (cost_step_work): FLOPs per sampled
	 * sequence and its weight bytes (bf16), read once a step that samples */
	double head_flops_seq, head_weight_bytes;
	double peak, attn_peak, bw;   /* bw: activations and everything else */
	double bw_weights, bw_kv;     /* GEMM weight streaming, paged-KV reads */
	const struct mfu_attn_cfg *attn_prefill_cfg, *attn_decode_cfg; /* resolved once */
	/* sliding-window layers: the windowed tables' penalty over the dense
	 * rows, resolved once (cfg[0] NULL: none, the keys capped at the window
	 * on the dense rows alone) */
	struct mfu_window win_prefill, win_decode;
	/* the decode prices' log of the window (window.size < 1 ? 0 : its
	 * log): a sliding layer's mean context once it passes the window */
	double log_window;
	double *log_n;      /* [max_seqs + 1]: log of decode batch sizes */
	struct mfu_row *decode_rows; /* [max_seqs + 1]: decode attention per batch size */
	struct mfu_row prefill_row;  /* prefill attention (one sequence per chunk) */
	/* routed experts: one fused kernel (moetab.h) */
	struct moe_shape moe_shape;
	/* the shape the experts' kernel computes, which a curve of another
	 * shape is priced on: moe_shape, or with moe_marlin its padded sizes
	 * (moe.c moe_marlin_shape) */
	struct moe_shape moe_run;
	enum moe_fmt moe_fmt;        /* the format looked up (int4 for MXFP4 on Marlin) */
	enum dtype moe_wdt;
	bool moe_marlin;             /* MXFP4 experts on Marlin (cost_cfg.mxfp4_marlin) */
	double moe_pad;              /* routed experts' stored bytes over the checkpoint's
					(moe_marlin: padded for the kernel, moe_marlin_pad;
					cost_cfg.mxfp4_scales_kept: 18/17); 1 else */
	bool tbs;                    /* dense block-fp8 linears on aiter's Triton GEMM (tritonbs.c) */
	/* aiter's Triton block-scaled GEMM compiles anew at a prefill size it
	 * has not met (tritonbs.c, cost_tbs_jit_init): the distinct kernels a
	 * forward compiles then (0: none), each compile's seconds, and the
	 * largest M whose configs the engine compiled at start-up */
	int tbs_jit_kernels;
	double tbs_jit_s;
	int64_t tbs_jit_warm_m;
	/* dense block-fp8 linears on vLLM's CUTLASS block-scaled GEMM: its
	 * measured table (cutlassbs.c; NULL: not this deployment) */
	struct mfu_tables *cbs;
	char cbs_src[112];
	bool moe_dg_pad;             /* routed experts priced as moe.c moe_dg_padded_s (cost_cfg.moe_dg_padded) */
	struct moe_pick moe_pick;    /* curve = NULL: roofline with one launch */
	bool moe_own;                /* moe_pick is from the GPU's own measurements */
	/* 0: moe_pick is from tabs->moe (or the GPU's own); k > 0: that table
	 * has no rows of moe_fmt and the pick is from tabs->moe_more[k - 1],
	 * the next collection in the fallback order that measures it */
	size_t moe_more;
	/* fp8 experts: the same shape's measured bf16 kernel and, for per-tensor
	 * fp8, its block-scaled fp8 kernel, from the same table (curve NULL:
	 * none at a shape as near as moe_pick's); the experts cost no more
	 * than the faster of them (cost_moe_s) */
	struct moe_pick moe_alt[2];
	/* 4-bit weight-only experts (MOE_INT4: W4A16, MXFP4 on Marlin) with no
	 * int4 curve in any collection: the GPU's own bf16 fused-MoE curve,
	 * priced less the weight bytes the 4-bit experts save (cost/moe.c,
	 * moe_w4a16_s); curve NULL: none, the roofline */
	struct moe_pick moe_w4a16;
	/* 0, or the table whose curve of moe_fmt measured a fallback path
	 * slower than its own bf16 kernel (1: tabs->moe, k + 2:
	 * tabs->moe_more[k]); moe_pick is then from a later collection, or,
	 * moe_as_bf16, none had a faster one and the experts cost what the
	 * bf16 kernel does (moe.c moe_skip_fallback) */
	size_t moe_fallback_of;
	bool moe_as_bf16;
	/* seconds per MoE call of a kernel the table's times leave out:
	 * aiter's moe_sorting (COST_AITER_MOE_SORT_S) for a curve from
	 * AMD's tuned tables; 0 otherwise */
	double moe_unseen_s;
	/* and aiter's per-1x128 input quant (cost_aiter_quant_s) of an fp8
	 * curve from them, which their tuner quantises before timing */
	bool moe_unseen_quant;
	/* SGLang attention-DP + EP (wide EP, --moe-a2a-backend deepep): the
	 * routed experts of a decode step (at most max(128, max_seqs) tokens
	 * per rank: DeepEP's low-latency mode) run as DeepGEMM's masked grouped
	 * GEMM, [0], those of a prefill step as its contiguous grouped GEMM,
	 * [1], priced from the GPU's own measured kernels (data/mfu/wideep/);
	 * curve NULL: none, moe_pick prices those steps */
	struct moetab *wideep_tab[2];
	struct moe_pick wideep_pick[2];
	/* cfg.moe_backend's own table where it replaces moe_pick (cost_moe_
	 * backend_load: TRTLLM's trtllm-gen fp8 block-scale kernels on
	 * Blackwell): owned when no cache holds it (NULL otherwise), and the
	 * file it came from ("" when moe_pick is not from it) */
	struct moetab *backend_tab;
	char moe_backend_src[112];
	/* where each component's cost comes from, for the run header */
	char src[COST_SRC__COUNT][512];
	/* attention-DP (an MoE model with p.dp > 1): DP ranks step together
	 * and share the MoE layers, so the routed experts and the EP
	 * dispatch/combine are priced at the tokens of all ranks (moe_s,
	 * indexed by that sum) and left out of tok_s */
	bool dp_attn;
	struct comm_place place;  /* the layout over nodes (comm.h) */
	/* DeepEP all-to-all and NCCL fits (comm.h): the process's shared copy
	 * (mfu_cache_obj) or own_comm */
	const struct comm_table *comm;
	struct comm_table *own_comm;
	int64_t moe_max;
	double *moe_s;      /* [moe_max + 1]: shared MoE part of a step, seconds
			     * (an entry priced on first use, as tok_*) */
	/* [moe_max + 1]: the shared MoE part's work on one GPU at those tokens
	 * (its FLOPs and bytes, as cost_op_at counts them: the GPU's share of the
	 * routed experts), filled with moe_s[g] (cost_step_work) */
	double *moe_flops, *moe_bytes;
	/* tok_*, head_s, absorb_s and decode_rows are filled entry by entry
	 * on first use, through a const model (cost.c, memo.h): one model serves one
	 * thread at a time */
	struct cost_lazy *lazy;
	/* an engine that runs a step holding prefill chunks eagerly
	 * (TensorRT-LLM: CUDA graphs only for generation-only batches), its
	 * kernels launched one by one from Python: such a step lasts at least
	 * eager_s (the pass's operators x cfg.engine->eager_op_s; 0 with H2
	 * off) */
	double eager_s;
	/* the engine's linear-attention (GDN) kernel terms (linattn.c), chosen once */
	const struct cost_lin_terms *lin;
	/* EPLB (cfg.eplb with EP > 1 on an MoE model), or NULL */
	struct cost_eplb *eplb;
	/* the model of a share (cost/share.h) whose tables this one reads
	 * and fills, NULL: its own; own_rest: the rest is this model's (else
	 * that model's too: the one moved into the share) */
	struct cost_master *master;
	bool own_rest;
};

/* c's tables (cost_lazy and the arrays it flags) released, c reading and
 * filling from's instead (cost/share.h; built from equal inputs). */
void cost_tables_adopt(struct cost_model *c, const struct cost_model *from);
/* cost_release of c's parts but its tables (cost/share.h: they are another
 * model's); c cleared. */
void cost_release_rest(struct cost_model *c);

struct step_desc {
	int64_t nchunks;            /* prefill chunks in the step */
	const int64_t *chunk_len;   /* new tokens of each chunk */
	const int64_t *chunk_prefix;/* tokens already cached before each chunk */
	int64_t ndecode;            /* decode requests (1 token each) */
	double decode_ctx_sum;      /* keys attended, summed over decode requests */
	int64_t nlogits;            /* sequences that sample a token this step */
	/* attention-DP only: tokens entering the shared MoE layers, summed
	 * over the DP ranks stepping together (idle ranks count their dummy
	 * token); 0 = every rank runs this step's own tokens */
	int64_t moe_tokens;
	/* attention-DP only: some rank of the group runs a prefill chunk this
	 * step (SGLang's is_extend_in_batch: cost_engine.dp_extend_allreduce) */
	bool moe_extend;
};

/* Append printf-style text to part s's source line (srcnote.c). */
void cost_src_add(struct cost_model *c, enum cost_src s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Components, exposed for tests and reports. */
double cost_gemm_s(const struct cost_model *c, enum dtype dt, double m, double n, double k,
		   double batch);
double cost_attn_prefill_s(const struct cost_model *c, int64_t len, int64_t prefix);
/* A step's n prefill chunks (len[i] new tokens after prefix[i] cached ones)
 * as the engines run them: one varlen attention call per layer; the mean
 * per layer, as cost_attn_prefill_s (which is the n = 1 case). */
double cost_attn_prefill_step_s(const struct cost_model *c, int64_t n, const int64_t *len,
				const int64_t *prefix);
double cost_attn_decode_s(const struct cost_model *c, int64_t n, double ctx_sum);
/* One bidirectional attention call over n sequences of len tokens each
 * (every query sees every key of its own sequence: len^2 pairs a
 * sequence), heads x head_dim on this GPU, nothing cached: an image
 * encoder's.  Priced on the prefill table at the causal length with as
 * many pairs (the language model's attention kernel and head layout: the
 * engines run the ViT's through the same FlashAttention varlen call), one
 * call for all n.  Seconds. */
double cost_attn_vision_s(const struct cost_model *c, int64_t n, int64_t len, int64_t heads, int64_t head_dim);
/* The same call over n sequences of unequal lengths: tokens in all, pairs
 * query-key pairs in all (a windowed encoder block's windows). */
double cost_attn_vision_pairs_s(const struct cost_model *c, double n, double tokens, double pairs, int64_t heads,
				int64_t head_dim);
/* One all-reduce of elems bf16 elements over the model's TP group (the
 * measured collective table, else a ring over the GPU's link), seconds. */
double cost_allreduce_s(const struct cost_model *c, double elems);
/* One linear-attention layer (GDN-style recurrent state): a prefill chunk of
 * `tokens` over `seqs` sequences, or a decode step of `seqs` sequences
 * (decode = true); 0-safe for models without linear layers. */
double cost_linear_attn_s(const struct cost_model *c, double tokens, double seqs, bool decode);
/* The routed experts of one MoE layer on one GPU as one fused kernel, for
 * `tokens` tokens entering the layer on that GPU (all DP ranks' tokens with
 * expert parallelism); with EPLB the measured curve at tokens x
 * eplb_curve_scale (the hottest rank's rows under EPLB, eplb.h) plus the
 * rebalance's amortised weight move (cost_eplb.layer_s). */
double cost_moe_s(const struct cost_model *c, double tokens);
/* The token-linear operators of one MLA attention block at m tokens
 * (projections, norms, RoPE; with own_index the DSA indexer's projections
 * too), seconds; the kernels, absorb BMMs and kv_b are priced per step. */
double cost_mla_block_tok_s(const struct cost_model *c, double m, bool own_index);
/* One DSA layer (DeepSeek-V3.2, GLM-5) as servesim prices its parts: batch
 * decode requests attending len keys each (the block's token-linear ops at
 * batch tokens, the absorb BMMs, the indexer and the sparse kernel), or
 * batch prefix-free prompts of len tokens (prefill: the ops at batch x len
 * tokens, one sparse call with the indexer); own: a layer running its own
 * indexer.  Seconds; 0 for other models. */
double cost_dsa_parts_s(const struct cost_model *c, bool prefill, bool own, double batch, double len);
/* DeepSeek-V4: one layer's attention block of mixer mix (LM_CSA, LM_HCA or
 * LM_SLIDING) as a step prices it, seconds: n decode requests attending
 * prefix + 1 keys each (prefill false; isl ignored), or n prompts of isl new
 * tokens after prefix cached ones; 0 for other models.  cost_csa_parts
 * gives the block's parts at that point (GEMM FLOPs at the weights' dtype
 * and at bf16, attention FLOPs, bytes: cost/csamod.h). */
double cost_csa_block_s(const struct cost_model *c, int mix, bool prefill, double n, double isl, double prefix);
void cost_csa_parts(const struct cost_model *c, int mix, double n, double isl, double prefix, double out[4]);
/* The engine's measured DSA module minus those parts at the same point (the
 * term a step adds per DSA layer), seconds; 0 without a module table. */
double cost_dsa_module_s(const struct cost_model *c, bool prefill, bool own, double batch, double len);

#endif
