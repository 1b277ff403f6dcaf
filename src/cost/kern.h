/* kern.h - the kernel families of the cost model, one file each, as cost.c
 * (the roofline and step pricing) reaches them; private to src/cost/.
 * A family chooses its measured tables at cost_init (cost_FAMILY_init),
 * prices one call (cost.h: cost_moe_s, cost_gemm_s, ...; here: the layer
 * pricers the mixers call) and writes its run-header line (cost_FAMILY_note,
 * into c->src).  The families: gemm.c, attn.c (GQA, sliding window,
 * chunked), mla.c, dsa.c, csa.c (DeepSeek-V4 blocks), linattn.c (linear
 * attention), moe.c, allreduce.c; mixer.c sums the attention of a step over
 * the model's layer groups; ops.c prices one operator of the graph. */
#ifndef SERVESIM_COST_KERN_H
#define SERVESIM_COST_KERN_H
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cost/comm.h"
#include "cost/costmodel.h"
#include "model/opgraph.h"

/* The roofline every family prices on: FLOPs at peak x mfu, or bytes at
 * bw, the longer (H1 off: FLOPs alone).  Inline: it is on the per-step
 * path of attention, and here it ties no family file back to cost.c. */
static inline double cost_roofline_bw(const struct cost_model *c, double flops, double peak, double mfu,
				      double bytes, double bw)
{
	double tc = flops / (peak * mfu), tb = bytes / bw;

	if (c->cfg.off & COST_H1)
		return tc;
	return tc > tb ? tc : tb;
}

/* cost_roofline_bw at the activations' bandwidth. */
static inline double cost_roofline(const struct cost_model *c, double flops, double peak, double mfu, double bytes)
{
	return cost_roofline_bw(c, flops, peak, mfu, bytes, c->bw);
}

/* What the measured attention modules take of c (engterms.h: dsamod.c, csamod.c). */
static inline const struct cost_mod_in *cost_mod_in_of(const struct cost_model *c, struct cost_mod_in *in)
{
	*in = (struct cost_mod_in){c->m, c->g, c->heads, c->cfg.wdt, c->cfg.kvdt, c->peak, c->attn_peak,
				   c->cfg.engine, c->cfg.engine_version, c->cfg.cache};
	return in;
}

/* A kernel's measured time per call at a negligible load on the GPUs of
 * one table set (tables: gpu_spec.tables; measured: the part it was
 * measured on, for the header): where the roofline or a thin table would
 * price a call below any launch (AMD: AITER's MLA decode, mla.c, and its
 * paged-attention decode, attn.c). */
struct kernel_floor {
	const char *tables;
	double floor_s;
	const char *measured;
};

/* The floor of t[0, n) for g's tables, NULL where none is known. */
static inline const struct kernel_floor *kernel_floor_find(const struct kernel_floor *t, size_t n,
							   const struct gpu_spec *g)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(g->tables, t[i].tables) == 0)
			return &t[i];
	return NULL;
}

/* --- the run header's lines (srcnote.c) --- */
/* A run-header line, cut at cap like snprintf. */
void cost_note_line(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The provenance note of a priced component: measured on the GPU itself
 * (own), or borrowed from the GPU whose tables g uses ("" otherwise). */
void cost_part_note(const struct cost_model *c, bool own, char *note, size_t cap);

/* --- one operator of the graph (ops.c) --- */
/* One per-token operator at m step tokens (col: its GEMM's table column,
 * NULL: looked up), seconds; its FLOPs and bytes added to *flops, *bytes. */
double cost_op_at(const struct cost_model *c, const struct op *o, const struct mfu_gemm_col *col, double m,
		  double *flops, double *bytes);
/* Whether o is priced once per step with the attention (not per token). */
bool cost_op_per_step_attention(const struct op *o);

/* --- dense GEMMs (gemm.c) --- */
/* cost_gemm_s with the shape's table column resolved once (col from
 * cost_gemm_col for the same dt, n, k and batch; NULL: looked up here). */
double cost_gemm_col_s(const struct cost_model *c, const struct mfu_gemm_col *col, enum dtype dt, double m,
		       double n, double k, double batch);
/* A GEMM priced on tabs' dt table as cost_gemm_col_s prices one on
 * c->tabs' (col: a column of tabs, or NULL). */
double cost_gemm_tab_s(const struct cost_model *c, const struct mfu_tables *tabs, const struct mfu_gemm_col *col,
		       enum dtype dt, double m, double n, double k, double batch);
/* The lookup column of a GEMM that cost_gemm_col_s prices at (dt, n, k, batch). */
void cost_gemm_col(const struct cost_model *c, enum dtype dt, double n, double k, double batch,
		   struct mfu_gemm_col *col);
void cost_gemm_note(struct cost_model *c);

/* A dense linear as the engine dispatches it: with c->tbs a block-fp8
 * one (dt fp8, not batched) where cost_tbs_s prices it on aiter's Triton
 * kernel, with c->cbs a block-fp8 one on vLLM's CUTLASS kernel
 * (cutlassbs.c), else cost_gemm_col_s (col: as there); linear.c. */
double cost_linear_col_s(const struct cost_model *c, const struct mfu_gemm_col *col, enum dtype dt, double m,
			 double n, double k, double batch);

/* --- aiter's per-1x128 fp8 activation quant on ROCm (aiterquant.c) --- */
/* A call at decode sizes, seconds (its source in aiterquant.c). */
#define COST_AITER_QUANT_S 4.719e-6
/* One call on m rows of K: COST_AITER_QUANT_S + its bytes, seconds (0
 * without rows). */
double cost_aiter_quant_s(const struct cost_model *c, double m, double k);

/* --- aiter's Triton block-scaled fp8 GEMM on ROCm (tritonbs.c) --- */
/* c->tbs from the engine's cost_cfg.rocm_triton_bs and the checkpoint. */
void cost_tbs_init(struct cost_model *c);
/* c->tbs_jit_kernels, tbs_jit_s from cost_cfg.rocm_triton_jit and the
 * checkpoint's linears in gr (cost_tbs_jit_key: which prefill sizes share
 * a compiled kernel). */
void cost_tbs_jit_init(struct cost_model *c, const struct opgraph *gr);
/* A block-fp8 m x n x k linear on the Triton kernel as the engine's
 * aiter configures it, seconds; < 0 where the engine runs it on the
 * kernel the tables time (a gfx942 config of the shape's own, a gfx950
 * shape off the list or at M <= 128). */
double cost_tbs_s(const struct cost_model *c, double m, double n, double k);
/* Whether each such linear pays aiter's activation quant as a kernel of
 * its own (gfx942; on gfx950 SGLang fuses it into the norms). */
bool cost_tbs_quant_apart(const struct cost_model *c);
/* The gfx950 catch-all config (128 x 128 tiles, two workgroups a CU) on
 * g: m x n x k, seconds. */
double cost_tbs950_any_s(const struct gpu_spec *g, double m, double n, double k);
/* Whether the engine's aiter runs an m x n x k call on a gfx942 config of
 * the shape's own (not the default). */
bool cost_tbs_configured(const struct cost_model *c, double m, double n, double k);
/* The kernel at its default config on g: m x n x k, seconds. */
double cost_tbs_default_s(const struct gpu_spec *g, double m, double n, double k);
/* Its part of the GEMM line. */
void cost_tbs_note(struct cost_model *c);

/* --- vLLM's CUTLASS block-scaled fp8 GEMM on Hopper (cutlassbs.c) --- */
/* c->cbs: the kernel's measured table where the engine runs it
 * (cost_cfg.cutlass_bs) for the checkpoint's block-fp8 linears and a
 * collection holds one; 0 or a negative status (a bad table). */
int cost_cbs_init(struct cost_model *c, const char *data_dir, struct err *e);
/* One m x n x k call on it, seconds (c->cbs set): the table, plus
 * cost_cbs_pad_s where the engine pads every call (cost_cfg.cutlass_bs_pad). */
double cost_cbs_s(const struct cost_model *c, double m, double n, double k);
/* The four padding copies of one call of m rows of K, seconds. */
double cost_cbs_pad_s(const struct cost_model *c, double m, double k);
void cost_cbs_release(struct cost_model *c);
/* Its part of the GEMM line. */
void cost_cbs_note(struct cost_model *c);

/* --- vLLM's Triton unified attention on SM 8.x (tritonattn.c) --- */
/* The kernel's measured prefill cost over FlashAttention-2's at a
 * prefix-free causal prefill of isl tokens (L40S, vLLM 0.24.0). */
double cost_triton_attn_ratio(double isl);
/* What a decoder prefill attention call of `pairs` query-key pairs over
 * `tokens` new tokens priced on the FlashAttention tables is multiplied by
 * where the engine runs the Triton kernel (cost_cfg.triton_attn), else 1. */
double cost_triton_attn_scale(const struct cost_model *c, double pairs, double tokens);
/* Its part of the prefill attention line. */
void cost_triton_attn_note(struct cost_model *c);

/* --- routed experts (moe.c) --- */
/* The experts' shape, format and measured curves (an MoE model). */
void cost_moe_init(struct cost_model *c, const struct cost_cfg *cfg);
/* The named MoE backend's own table (cost_cfg.moe_backend) where the
 * collections' pick is not its kernel: TRTLLM's trtllm-gen fp8 block-scale
 * experts on Blackwell, from the first collection in the fallback order
 * holding moe_trtllm_gen.csv.gz.  Called after cost_moe_init. */
int cost_moe_backend_load(struct cost_model *c, const char *data_dir, struct err *e);
/* The engine's wide-EP curves (cost_engine.wideep), when it runs DP+EP. */
int cost_moe_wideep_load(struct cost_model *c, const char *data_dir, struct err *e);
/* EPLB's terms (cost_cfg.eplb, EP > 1): the hot rank's load curve and the
 * rebalance's move of the redundant experts, stored at given->wdt (the
 * weights' dtype as the caller gave it, as the memory plan counts them);
 * c->place set. */
void cost_eplb_init(struct cost_model *c, const struct cost_cfg *given);
/* DeepEP's all-to-all mode at tokens_per_rank. */
enum comm_a2a_mode cost_ep_mode(const struct cost_model *c, double tokens_per_rank);
void cost_moe_note(struct cost_model *c);

/* --- all-reduce (allreduce.c) --- */
/* The tables of vLLM's fused all-reduce (cost_cfg.ar_fused_bytes): c->ar_tabs. */
int cost_allreduce_init(struct cost_model *c, const char *data_dir, struct err *e);
void cost_allreduce_note(struct cost_model *c);

/* --- attention kernels: GQA, sliding window, chunked, vision (attn.c) --- */
/* Head layout of one GQA layer group on one GPU. */
struct attn_group {
	double heads, dqk, dv, kv_tok; /* kv_tok: KV bytes per token of one layer */
};
/* The full-attention layers' layout (MLA's latent as one KV head). */
struct attn_group cost_attn_full_group(const struct cost_model *c);
/* The sliding-window layers' own layout. */
struct attn_group cost_attn_window_group(const struct cost_model *c);
/* The attention tables' layouts for the model (dense, MLA, windowed). */
void cost_attn_init(struct cost_model *c, const struct cost_cfg *cfg);
/* One prefill attention call over n chunks (see attn.c). */
double cost_attn_prefill_call_s(const struct cost_model *c, double n, double pairs, double flops, double bytes,
				double flops_pair, const struct mfu_window *win, double log_wlen);
/* GQA prefill of one layer: n chunks of len tokens in all, pairs
 * query-key pairs, keys read from the cache. */
double cost_gqa_prefill_s(const struct cost_model *c, const struct attn_group *g, double n, double pairs,
			  double keys, double len, const struct mfu_window *win, double log_wlen);
/* Mean contexts and their logs as the decode prices take them (mean < 1 ?
 * 0 : log(mean)), computed once for a step's layers: a layer whose own mean
 * is one of those doubles uses its log, bit for bit the value it would
 * compute (alt: a second one, NAN for none). */
struct cost_log_mean {
	double mean, log_mean, alt, log_alt;
};
/* GQA decode of one layer: n requests attending ctx_sum keys in all; lm:
 * the step's mean contexts and logs (NULL: none). */
double cost_gqa_decode_s(const struct cost_model *c, const struct attn_group *g, int64_t n, double ctx_sum,
			 const struct mfu_window *win, double log_len, const struct cost_log_mean *lm);
/* cost_gqa_decode_s of the full-attention layout without a window, bit for
 * bit (a decode step's full layers, mixer.c: the layout and the window's
 * test folded into the call). */
double cost_gqa_decode_full_s(const struct cost_model *c, int64_t n, double ctx_sum, const struct cost_log_mean *lm);
/* The prefill, decode and sliding-window lines. */
void cost_attn_note(struct cost_model *c);

/* --- a step's prefill chunks, summed (mixer.c) --- */
/* Their count, new tokens, context (new + cached) tokens and causal
 * query-key pairs; for a DSA model also topk_pairs, the sum over the new
 * tokens of min(index_topk, keys the token sees): the top-k entries its
 * sparse attention reads (0 elsewhere). */
struct chunk_sums {
	double n, tok, ctx, pairs, topk_pairs;
};

/* --- MLA (mla.c) --- */
/* The engine's measured MLA module terms over the parts (c->mla_*). */
void cost_mla_init(struct cost_model *c, const struct cost_cfg *cfg);
/* The engine's decode and context module terms on g, whatever the model
 * (DSA's layers that reuse an earlier top-k take them). */
double cost_mla_engine_decode_s(const struct gpu_spec *g, const struct cost_cfg *cfg);
double cost_mla_engine_ctx_s(const struct gpu_spec *g, const struct cost_cfg *cfg, int heads);
/* One MLA layer (no DSA indexer) for a step's prefill chunks: in the
 * absorbed form when cost_mla_absorbed says so, else expanded. */
double cost_mla_prefill_s(const struct cost_model *c, const struct chunk_sums *k);
/* Whether a step's MLA prefill chunks with prefix_sum cached tokens in
 * all run in the absorbed form (the engine's rule, and a table for it). */
bool cost_mla_absorbed(const struct cost_model *c, double prefix_sum);
/* The dtype kv_b_proj's weights run in (the expanded up-projection, the
 * absorbed W_UK / W_UV BMMs): bf16 where the checkpoint stores its q/kv
 * projections unquantised (model_attn_stored_bf16), else the linears'. */
enum dtype cost_mla_kvb_dtype(const struct cost_model *c);
/* The dtype operator o's GEMM runs in (ops.c): bf16 for the operators not
 * low_precision (opgraph.c marks the router, the LM head and the parts a
 * checkpoint excludes so), else the linears' dtype. */
enum dtype cost_op_dtype(const struct cost_model *c, const struct op *o);
/* the absorbed W_UK / W_UV products' weights (mla.c) */
enum dtype cost_mla_absorb_dtype(const struct cost_model *c);
/* The per-call floor of one MLA decode layer (no DSA indexer) of n
 * requests, seconds, added to the table's or the roofline's time where
 * the GPU's MLA decode table has no small batches (c->mla_dec_*; 0
 * elsewhere). */
double cost_mla_decode_floor_s(const struct cost_model *c, int64_t n);
/* The module terms' part of the attention lines. */
void cost_mla_note(struct cost_model *c);

/* --- DSA: MLA with the lightning indexer (dsa.c) --- */
/* The engine's measured DSA module (dsamod.h) and the shared-index terms. */
int cost_dsa_init(struct cost_model *c, const struct cost_cfg *cfg, const char *data_dir, struct err *e);
/* One DSA layer for a step's prefill chunks, for n decode requests. */
double cost_dsa_prefill_s(const struct cost_model *c, const struct chunk_sums *k);
double cost_dsa_decode_s(const struct cost_model *c, int64_t n, double ctx_sum);
void cost_dsa_note(struct cost_model *c);

/* --- DeepSeek-V4's attention blocks (csa.c over csamod.h) --- */
/* Every layer's blocks for n decode requests (prefill false) or n chunks
 * of tok new tokens after prefix cached ones each on average. */
double cost_csa_attn_s(const struct cost_model *c, bool prefill, double n, double tok, double prefix);
void cost_csa_note(struct cost_model *c);

/* --- linear attention (linattn.c) --- */
/* The terms of the model's kind: KDA's and Mamba2's fits, else the engine's GDN. */
const struct cost_lin_terms *cost_lin_terms_for(const struct model_cfg *m, const struct cost_engine *en);
/* Whether the graph's op o is priced inside cost_linear_attn_s. */
bool cost_lin_conv_in_terms(const struct cost_model *c, const struct op *o);
void cost_lin_note(struct cost_model *c);

/* --- the attention of a step over the layer groups (mixer.c) --- */
/* Mean per layer for a step's n >= 1 prefill chunks run as one call per layer. */
double cost_attn_prefill_n_s(const struct cost_model *c, int64_t n, const int64_t *len, const int64_t *prefix);
/* One layer of mixer mix for the step's chunks and decodes, seconds. */
double cost_attn_step_mixer_s(const struct cost_model *c, const struct step_desc *s, int mix);

#endif
