/* cost.h - tier-0 step pricing: a per-operator roofline fed with measured
 * MFU tables, precomputed per model/GPU so that pricing one engine step is a
 * handful of table lookups.
 *
 *   t_step = T_tok[m] (every op whose work scales with the step's tokens:
 *            GEMMs at fused shapes, norms, RoPE, MoE, TP all-reduce, EP a2a)
 *          + sum over prefill chunks of attention(chunk, prefix)
 *          + attention over the decode batch's per-request contexts
 *          + LM head on the sequences that produce a token
 *          + overheads (per step, per layer, per request)
 *   t_op   = max(FLOPs / (peak x MFU(shape)), bytes / (HBM BW x bw_eff))
 *
 * Six corrections can be switched off for ablation (tier0_off bits):
 * H1 bandwidth term, H2 overheads, H3 fused shapes, H4 per-component pricing
 * (off = one aggregate roofline), H5 additive mixed batches (off = 0.75/0.25
 * weighted average of the prefill and decode parts), H6 interpolation (off =
 * nearest grid point). */
#ifndef SERVESIM_COST_H
#define SERVESIM_COST_H
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

/* Parse "H1,H4" into bits; SS_EUSAGE on anything else. */
int cost_parse_off(const char *s, unsigned *bits, struct err *e);

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
	double eager_op_us;     /* a step holding prefill chunks runs eagerly (CUDA graphs
				 * only for decode-only batches): at least this host time
				 * per operator of the pass (0: every step replays a graph) */
	/* which terms were set by the user (flags, a calibration file): the
	 * others are the engine's own (engine_host), OV_* bits */
	unsigned given;
};
enum {
	OV_STEP = 1u << 0, OV_LAYER = 1u << 1, OV_REQ = 1u << 2, OV_API_TTFT = 1u << 3,
	OV_STREAM = 1u << 4, OV_DELIVERY = 1u << 5, OV_PREFILL_TOK = 1u << 6, OV_API_E2E = 1u << 7,
	OV_EAGER = 1u << 8, OV_API_PROMPT = 1u << 9,
	OV_TIER1 = OV_STEP | OV_LAYER | OV_REQ | OV_API_TTFT | OV_STREAM | OV_DELIVERY | OV_PREFILL_TOK |
		   OV_API_E2E, /* the terms a calibration file holds */
};

/* Defaults chosen by the H2 protocol (see DESIGN notes in README); nothing
 * given, so a scenario takes its engine's own terms (engine_host). */
void cost_default_overheads(struct overheads *ov);
/* The terms of over that were given (over->given) replace base's. */
void cost_overheads_apply(struct overheads *base, const struct overheads *over);
/* The terms named by OV_* bits `terms` times k (eval --cv's refits). */
void cost_overheads_scale(struct overheads *ov, unsigned terms, double k);
/* Whether a and b hold the same values of the terms named by `terms`. */
bool cost_overheads_same(const struct overheads *a, const struct overheads *b, unsigned terms);

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
};

/* One kernel launch with its tail: the smallest latencies in the measured
 * GEMM tables (H100, vLLM 0.14: 2.5 us for m = n = k = 32) round to this. */
#define COST_LAUNCH_S 3e-6

/* Components whose cost origin the run header lists. */
enum cost_src { COST_SRC_GEMM, COST_SRC_ATTN_PREFILL, COST_SRC_ATTN_DECODE, COST_SRC_WINDOW,
		COST_SRC_DSA_PREFILL, COST_SRC_DSA_DECODE, COST_SRC_MOE, COST_SRC_ALLREDUCE, COST_SRC_LINEAR,
		COST_SRC_EAGER, COST_SRC__COUNT };

const char *cost_src_name(enum cost_src s);

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
	double peak, attn_peak, bw;   /* bw: activations and everything else */
	double bw_weights, bw_kv;     /* GEMM weight streaming, paged-KV reads */
	const struct mfu_attn_cfg *attn_prefill_cfg, *attn_decode_cfg; /* resolved once */
	/* sliding-window layers: the windowed tables' penalty over the dense
	 * rows, resolved once (cfg[0] NULL: none, the keys capped at the window
	 * on the dense rows alone) */
	struct mfu_window win_prefill, win_decode;
	double *log_n;      /* [max_seqs + 1]: log of decode batch sizes */
	struct mfu_row *decode_rows; /* [max_seqs + 1]: decode attention per batch size */
	struct mfu_row prefill_row;  /* prefill attention (one sequence per chunk) */
	/* routed experts: one fused kernel (moetab.h) */
	struct moe_shape moe_shape;
	enum moe_fmt moe_fmt;
	enum dtype moe_wdt;
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
	/* SGLang attention-DP + EP (wide EP, --moe-a2a-backend deepep): the
	 * routed experts of a decode step (at most max(128, max_seqs) tokens
	 * per rank: DeepEP's low-latency mode) run as DeepGEMM's masked grouped
	 * GEMM, [0], those of a prefill step as its contiguous grouped GEMM,
	 * [1], priced from the GPU's own measured kernels (data/mfu/wideep/);
	 * curve NULL: none, moe_pick prices those steps */
	struct moetab *wideep_tab[2];
	struct moe_pick wideep_pick[2];
	/* where each component's cost comes from, for the run header */
	char src[COST_SRC__COUNT][512];
	/* attention-DP (an MoE model with p.dp > 1): DP ranks step together
	 * and share the MoE layers, so the routed experts and the EP
	 * dispatch/combine are priced at the tokens of all ranks (moe_s,
	 * indexed by that sum) and left out of tok_s */
	bool dp_attn;
	struct comm_place place;  /* the layout over nodes (comm.h) */
	struct comm_table comm;   /* DeepEP all-to-all fits */
	int64_t moe_max;
	double *moe_s;      /* [moe_max + 1]: shared MoE part of a step, seconds
			     * (an entry priced on first use, as tok_*) */
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
};

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
};

int cost_init(struct cost_model *c, const struct model_cfg *m, const struct gpu_spec *g,
	      const struct parallel *p, const struct cost_cfg *cfg, const char *data_dir,
	      struct err *e);
void cost_release(struct cost_model *c);
/* Seconds of one engine step (all pipeline stages).  With attention-DP
 * (c->dp_attn) the step is one DP rank's: attention, dense and shared-expert
 * parts at its own batch, the routed experts and EP all-to-all at
 * s->moe_tokens; the lockstep step costs the maximum over the ranks. */
double cost_step_s(const struct cost_model *c, const struct step_desc *s);
/* An attention-DP rank's decode-only step (cost_step_splits: no prefill
 * chunk, moe_tokens > 0, priced through its components) in two parts, so
 * that the first can be kept by the rank's own requests: what depends on
 * them alone (cost_step_local_s: attention, GEMMs, LM head, PP sends) and
 * the step's price from it and the group's MoE tokens (cost_step_join_s:
 * the shared MoE layers added, then the overheads).
 * cost_step_join_s(c, s, cost_step_local_s(c, s)) is cost_step_s(c, s) bit
 * for bit: the same operations on the same values, in the same order. */
bool cost_step_splits(const struct cost_model *c, const struct step_desc *s);
double cost_step_local_s(const struct cost_model *c, const struct step_desc *s);
double cost_step_join_s(const struct cost_model *c, const struct step_desc *s, double local_s);
/* cost_step_s of s and, in *t2, of the same step with nl2 sampled
 * sequences (nlogits): the same bits as two cost_step_s calls, the parts
 * that do not depend on the sampled sequences (attention, GEMMs, MoE)
 * priced once (speculative decoding's draft layer and LM head). */
double cost_step_pair_s(const struct cost_model *c, const struct step_desc *s, int64_t nl2, double *t2);
/* The work of one step on one GPU of a stage: *flops (GEMMs and the
 * other operators at the step's tokens, attention over its query-key
 * pairs) and *bytes (weights read, activations, the KV read and written),
 * as the H4-off roofline counts them; returns the step's tokens (0: no
 * work).  With attention-DP the routed experts priced at moe_tokens are
 * not in it.  What the power model (hw/power.h) drives GPU activity from. */
int64_t cost_step_work(const struct cost_model *c, const struct step_desc *s, double *flops, double *bytes);
/* Padded batch a CUDA graph would run for n decode tokens (n if none fits). */
int64_t cost_graph_pad(const struct cost_model *c, int64_t n);
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
double cost_overhead_s(const struct cost_model *c, int64_t nreq, int64_t prefill_tokens);
/* The routed experts of one MoE layer on one GPU as one fused kernel, for
 * `tokens` tokens entering the layer on that GPU (all DP ranks' tokens with
 * expert parallelism); with EPLB the measured curve at tokens x
 * eplb_curve_scale (the hottest rank's rows under EPLB, eplb.h) plus the
 * rebalance's amortised weight move (cost_eplb.layer_s). */
double cost_moe_s(const struct cost_model *c, double tokens);
/* The token-linear part of a step of m tokens (GEMMs, norms, collectives;
 * linear in m past max_m), seconds. */
double cost_tok_s(const struct cost_model *c, int64_t m);
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

/* A step's price component by component, for `run --breakdown`: each layer
 * kind's operators in graph order, each priced as cost_step_s prices it
 * (token-linear operators at the step's tokens, the attention call of the
 * kind's mixer once per layer, MLA's absorb BMMs, attention-DP's shared MoE
 * part at all ranks' tokens), then the step's own terms (pipeline hand-off,
 * the eager launch floor, the host terms and what overlap scheduling hides).
 * The rows' count x s sums to cost_step_s up to rounding (step_s holds it).
 * SS_EUSAGE with H4 or H5 off (the step is then not priced per component). */
enum cost_part { CP_ATTN, CP_GEMM, CP_MOE, CP_COMM, CP_OTHER, CP_HOST, CP__COUNT };
const char *cost_part_name(enum cost_part p);
/* How a row is priced: on its own; inside another row's price (the fused
 * MoE kernel, the attention call or block); not at all (final_norm). */
enum cost_bd_how { BD_PRICED, BD_INSIDE, BD_UNPRICED };

struct cost_bd_row {
	char kind[24];       /* the layer kind (opgraph.h), or "step" */
	char op[32];         /* the operator or term */
	enum cost_part part;
	double count;        /* times it runs in the step (layers of the kind) */
	double s;            /* seconds per run */
	double flops;        /* per run; 0 where not counted (attention, elementwise ops) */
	enum cost_bd_how how;
};

struct cost_breakdown {
	struct cost_bd_row *rows;
	size_t n;
	int64_t tokens;       /* new tokens in the step (one DP rank's) */
	int64_t graph_tokens; /* what the token-linear ops run at (CUDA-graph padding) */
	int64_t moe_tokens;   /* attention-DP: tokens entering the shared MoE layers, else 0 */
	double gpu_s;         /* the rows before the step's host terms */
	double rows_s;        /* all rows: sum of count x s */
	double step_s;        /* cost_step_s of the same step */
};

int cost_step_breakdown(const struct cost_model *c, const struct step_desc *s, struct cost_breakdown *bd,
			struct err *e);
void cost_breakdown_release(struct cost_breakdown *bd);

#endif
