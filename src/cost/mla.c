/* mla.c - the MLA (multi-head latent attention) kernel family: a prefill
 * in the expanded form on the MLA tables (the dense ones where none are
 * measured) with kv_b's up-projection of the context, or in the absorbed
 * form where the engine runs it (SGLang's chunked-prefix rule) on the
 * absorbed-form context table with the absorb BMMs, the engines' measured
 * MLA module terms over that sum of parts, and the token-linear operators
 * of one MLA block (for DSA's module fit).  A decode runs the absorbed
 * form: the attention table (attn.c) and the absorb BMMs (cost.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/costmodel.h"
#include "cost/kern.h"
#include "cost/memo.h"

/* The engines' MLA modules measured against servesim's sum of their parts
 * (issue 9; aiconfigurator's mla_generation_module_perf and
 * mla_context_module_perf tables, scripts/mfu/check_mla_module.py): terms
 * fitted on the Hopper tables (h100_sxm, h200_sxm) alone, for MLA without
 * the DSA indexer (whose module is a separate table); each engine's values
 * and their provenance are its cost_engine's (src/engine/<name>.c). */
static bool mla_module_gpu(const struct gpu_spec *g)
{
	return strcmp(g->tables, "h100_sxm") == 0 || strcmp(g->tables, "h200_sxm") == 0;
}

/* The decode term for the engine and GPU, whatever the model. */
double cost_mla_engine_decode_s(const struct gpu_spec *g, const struct cost_cfg *cfg)
{
	if (!mla_module_gpu(g))
		return 0;
	return cfg->engine->mla_decode_s[cfg->kvdt == DT_FP8];
}

static double mla_module_term_s(const struct model_cfg *m, const struct gpu_spec *g,
				const struct cost_cfg *cfg)
{
	if (m->attn != ATTN_MLA || m->index_topk > 0)
		return 0;
	return cost_mla_engine_decode_s(g, cfg);
}

/* The context (prefill) term for the engine and GPU, whatever the model:
 * per prefill token per MLA layer. */
double cost_mla_engine_ctx_s(const struct gpu_spec *g, const struct cost_cfg *cfg, int heads)
{
	if (!mla_module_gpu(g))
		return 0;
	return cfg->engine->mla_ctx_tok_s + cfg->engine->mla_ctx_tok_head_s * (double)heads;
}

static double mla_ctx_term_s(const struct model_cfg *m, const struct gpu_spec *g, const struct cost_cfg *cfg,
			     int heads)
{
	if (m->attn != ATTN_MLA || m->index_topk > 0)
		return 0;
	return cost_mla_engine_ctx_s(g, cfg, heads);
}

/* The token-linear operators of one MLA attention block (after the input
 * norm, up to o_proj: projections, their norms, RoPE and, in a layer that
 * runs its own DSA indexer, the indexer's projections and key norm) at m
 * tokens, as tok_s prices them; the per-step parts (kernels, absorb BMMs,
 * kv_b, top-k) are not included.  0 for a model without MLA layers. */
double cost_mla_block_tok_s(const struct cost_model *c, double m, bool own_index)
{
	const struct opgraph *gr = &c->lazy->gr;
	double f = 0, b = 0, t = 0;
	size_t k, j;

	if (c->m->attn != ATTN_MLA || m <= 0)
		return 0;
	for (k = 0; k < gr->nkinds; k++) {
		const struct layer_kind *lk = &gr->kinds[k];
		bool shared = strstr(lk->name, "shared-idx") != NULL, in = false;
		if (lk->mixer != LM_FULL || strcmp(lk->name, "embed+head") == 0 ||
		    shared != (c->m->index_topk > 0 && !own_index))
			continue;
		for (j = 0; j < lk->nops; j++) {
			const struct op *o = &lk->ops[j];
			if (strcmp(o->name, "input_norm") == 0) {
				in = true;
				continue;
			}
			if (in && !cost_op_per_step_attention(o))
				t += cost_op_at(c, o, NULL, m, &f, &b);
			if (strcmp(o->name, "o_proj") == 0)
				break;
		}
		return t;
	}
	return 0;
}

/* AITER's MLA decode kernel at a negligible load: its per-call floor
 * (launch, the split-KV partials and their reduce), which an MLA decode
 * table measured at batch 128 only (MI300X's, AMD's tutorial figure) or
 * the roofline (no table) leaves out.  ROCm/aiter PR 2039 (commit
 * 57ed6a01a234223f527a0dffa371882df1fcd494, 2026-03-09), its table of
 * mla_decode_fwd's persistent assembly kernel ("ASM"), 128 query heads,
 * fp8 Q and KV, page size 1, 21 keys: MI300 15.491 us at batch 1 (15.089
 * at 3, 15.545 at 5, 16.445 at 16, 14.717 at batch 1 x 64 keys); MI355
 * 12.106 us at batch 1 (13.021 at 3, 12.942 at 5).  MI325X, the MI300X
 * die (tables "mi300x"), takes MI300's; MI350X/MI355X share gfx950. */
static const struct kernel_floor aiter_mla_floors[] = {
	{"mi300x", 15.491e-6, "MI300"},
	{"mi355x", 12.106e-6, "MI355"},
};

static const struct kernel_floor *aiter_mla_floor(const struct gpu_spec *g)
{
	return kernel_floor_find(aiter_mla_floors, sizeof(aiter_mla_floors) / sizeof(aiter_mla_floors[0]), g);
}

/* The floor applies where the decode of MLA without the DSA indexer runs
 * on the roofline or on a table with one batch value: its MFU, held
 * along the batch axis, would make a call of 4 requests cost 4/128 of
 * the batch-128 row, far under any kernel's launch. */
static void mla_dec_floor_init(struct cost_model *c)
{
	const struct kernel_floor *f = aiter_mla_floor(c->g);
	const struct mfu_attn_cfg *a = c->attn_decode_cfg;

	c->mla_dec_floor_s = c->mla_dec_ref_rows = 0;
	if (!f || c->m->attn != ATTN_MLA || c->m->index_topk > 0 || (a && a->g.len[0] >= 2))
		return;
	c->mla_dec_floor_s = f->floor_s;
	c->mla_dec_ref_rows = a ? exp(a->g.axis[0][0]) * (double)a->heads : 0;
}

/* The table's rows hold floor + work at their batch: a call of n requests
 * of c->heads heads costs floor + (row - floor) x w, w = its query rows
 * over the rows' (the MFU lookup gives row x w), so floor x (1 - w) is
 * added, w capped at 1 (none beyond the rows); on the roofline the whole
 * floor. */
double cost_mla_decode_floor_s(const struct cost_model *c, int64_t n)
{
	double w;

	if (c->mla_dec_floor_s <= 0 || n <= 0)
		return 0;
	if (c->mla_dec_ref_rows <= 0)
		return c->mla_dec_floor_s;
	w = (double)n * (double)c->heads / c->mla_dec_ref_rows;
	return w >= 1 ? 0 : c->mla_dec_floor_s * (1 - w);
}

void cost_mla_init(struct cost_model *c, const struct cost_cfg *cfg)
{
	c->mla_module_s = mla_module_term_s(c->m, c->g, cfg);
	c->mla_ctx_tok_s = mla_ctx_term_s(c->m, c->g, cfg, c->heads);
	mla_dec_floor_init(c);
	c->mla_abs_below = 0;
	c->mla_abs_cfg = NULL;
	if (c->m->attn == ATTN_MLA && c->m->index_topk <= 0 && cfg->engine->mla_absorbed_prefix_below > 0 &&
	    cfg->engine->mla_absorbed_family && strcmp(c->g->family, cfg->engine->mla_absorbed_family) == 0) {
		c->mla_abs_below = cfg->engine->mla_absorbed_prefix_below;
		c->mla_abs_cfg = mfu_mla_absorbed_resolve(c->tabs, c->heads, cfg->kvdt);
	}
}

bool cost_mla_absorbed(const struct cost_model *c, double prefix_sum)
{
	return c->mla_abs_cfg && prefix_sum > 0 && prefix_sum < (double)c->mla_abs_below;
}

/* kv_b_proj's weights (the expanded up-projection, the absorbed W_UK /
 * W_UV): bf16 where a quantised checkpoint stores its q/kv projections
 * unquantised (model_attn_stored_bf16; the per-op rule of opgraph.c), else
 * the linears' dtype. */
enum dtype cost_mla_kvb_dtype(const struct cost_model *c)
{
	return model_attn_stored_bf16(c->m, false) ? DT_BF16 : c->cfg.wdt;
}

/* The absorbed form of a step's prefill chunks, one layer: MQA over the
 * latent (QK over kv_lora_rank + rope, PV over kv_lora_rank, one KV head)
 * on the absorbed-form context table, looked up as attn.c looks the
 * expanded one up (n chunks of the prefix-free length with their mean
 * pairs, clamped between one such chunk and n of them), plus the absorb
 * BMMs of the new tokens (q_nope through W_UK, the latent output through
 * W_UV, per head, as a decode prices them); no kv_b over the context. */
static double mla_absorbed_prefill_s(const struct cost_model *c, const struct chunk_sums *k)
{
	const struct model_cfg *m = c->m;
	double dqk = (double)(m->kv_lora_rank + m->qk_rope_dim), dv = (double)m->kv_lora_rank;
	double flops = 2.0 * k->pairs * c->heads * (dqk + dv);
	double bytes = k->ctx * c->kv_tok_layer_bytes + k->tok * c->heads * (dqk + dv) * 2.0;
	double isl_eq = sqrt(2.0 * k->pairs / k->n), ll = isl_eq < 1 ? 0.0 : log(isl_eq);
	double t1 = cost_roofline(c, flops / k->n, c->attn_peak,
				  mfu_attn_eval_log(c->tabs, c->mla_abs_cfg, true, 0.0, ll), bytes / k->n);
	double t = cost_roofline(c, flops, c->attn_peak,
				 mfu_attn_eval_log(c->tabs, c->mla_abs_cfg, true, log(k->n), ll), bytes);

	t = t < t1 ? t1 : t > k->n * t1 ? k->n * t1 : t;
	t += cost_gemm_s(c, cost_mla_absorb_dtype(c), k->tok, dv, (double)m->qk_nope_dim, (double)c->heads);
	t += cost_gemm_s(c, cost_mla_absorb_dtype(c), k->tok, (double)m->v_head_dim, dv, (double)c->heads);
	return t;
}

/* MLA without the DSA indexer. */
double cost_mla_prefill_s(const struct cost_model *c, const struct chunk_sums *k)
{
	const struct model_cfg *m = c->m;
	double flops, bytes, t;

	if (cost_mla_absorbed(c, k->ctx - k->tok))
		return mla_absorbed_prefill_s(c, k) + c->mla_ctx_tok_s * k->tok;
	/* expanded form: q/k dims nope+rope, v dims v */
	flops = 2.0 * k->pairs * c->heads * (double)(m->qk_nope_dim + m->qk_rope_dim + m->v_head_dim);
	bytes = k->ctx * c->kv_tok_layer_bytes + 2.0 * k->tok * c->heads * (double)c->head_dim_qk * 2.0;
	t = cost_attn_prefill_call_s(c, k->n, k->pairs, flops, bytes,
				     2.0 * c->heads * (double)(m->qk_nope_dim + m->qk_rope_dim + m->v_head_dim), NULL, 0.0);
	/* kv_b up-projects the latent of every context token: one GEMM over
	 * the step's chunks (a dense linear, as the engine dispatches it) */
	t += cost_linear_col_s(c, NULL, cost_mla_kvb_dtype(c), k->ctx, (double)(c->heads * (m->qk_nope_dim + m->v_head_dim)),
			       (double)m->kv_lora_rank, 1);
	/* the engine's MLA context module term over the new tokens */
	return t + c->mla_ctx_tok_s * k->tok;
}

/* The absorbed W_UK / W_UV products' weights (a decode's, an absorbed
 * prefill's): bf16 where the engine dequantises a block-fp8 kv_b_proj at
 * load (cost_cfg.mla_absorb_bf16: SGLang on CUDA), else kv_b's. */
enum dtype cost_mla_absorb_dtype(const struct cost_model *c)
{
	return c->cfg.mla_absorb_bf16 ? DT_BF16 : cost_mla_kvb_dtype(c);
}

void cost_mla_note(struct cost_model *c)
{
	if (c->cfg.mla_absorb_bf16 && c->m->kv_lora_rank > 0)
		cost_src_add(c, COST_SRC_GEMM, "; absorbed MLA BMMs in bf16: %s", c->cfg.mla_absorb_bf16);
	if (c->mla_abs_below > 0 && c->mla_abs_cfg)
		cost_src_add(c, COST_SRC_ATTN_PREFILL,
			     "; a batch with 0 < summed cached prefix < %lld in the absorbed form: %s + absorb BMMs, no kv_b",
			     (long long)c->mla_abs_below, c->tabs->src[MFU_P_MLA_PREFILL_ABS]);
	else if (c->mla_abs_below > 0)
		cost_src_add(c, COST_SRC_ATTN_PREFILL,
			     "; no absorbed-form MLA context table for %s: a batch with 0 < summed cached prefix < %lld, "
			     "which the engine runs absorbed, priced in the expanded form",
			     c->g->id, (long long)c->mla_abs_below);
	if (c->mla_dec_floor_s > 0) {
		const struct kernel_floor *f = aiter_mla_floor(c->g);
		if (c->mla_dec_ref_rows > 0)
			cost_src_add(c, COST_SRC_ATTN_DECODE,
				     "; rows at batch %.0f only: below them + AITER's measured per-call floor %.1f us x (1 - the "
				     "call's share of their query rows) (%s, ROCm/aiter PR 2039; docs/hardware.md)",
				     c->mla_dec_ref_rows / (double)c->attn_decode_cfg->heads, c->mla_dec_floor_s * 1e6,
				     f->measured);
		else
			cost_src_add(c, COST_SRC_ATTN_DECODE,
				     " + AITER's measured MLA decode floor %.1f us per call (%s, ROCm/aiter PR 2039)",
				     c->mla_dec_floor_s * 1e6, f->measured);
	}
	if (c->mla_module_s > 0) {
		cost_src_add(c, COST_SRC_ATTN_DECODE,
			     "; MLA decode module: sum of parts + %.0f us per layer (vLLM 0.24 module tables, H100/H200)",
			     c->mla_module_s * 1e6);
	}
	if (c->mla_ctx_tok_s > 0) {
		cost_src_add(c, COST_SRC_ATTN_PREFILL,
			     "; MLA context module: sum of parts + %.1f us per 1k tokens per layer (%s module tables, H100/H200)",
			     c->mla_ctx_tok_s * 1e9,
			     c->cfg.engine->mla_src);
	}
}
