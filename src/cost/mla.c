/* mla.c - the MLA (multi-head latent attention) kernel family: a prefill
 * in the expanded form on the MLA tables (the dense ones where none are
 * measured) with kv_b's up-projection of the context, the engines'
 * measured MLA module terms over that sum of parts, and the token-linear
 * operators of one MLA block (for DSA's module fit).  A decode runs the
 * absorbed form: the attention table (attn.c) and the absorb BMMs (cost.c). */
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

void cost_mla_init(struct cost_model *c, const struct cost_cfg *cfg)
{
	c->mla_module_s = mla_module_term_s(c->m, c->g, cfg);
	c->mla_ctx_tok_s = mla_ctx_term_s(c->m, c->g, cfg, c->heads);
}

/* MLA without the DSA indexer. */
double cost_mla_prefill_s(const struct cost_model *c, const struct chunk_sums *k)
{
	const struct model_cfg *m = c->m;
	double flops, bytes, t;

	/* expanded form: q/k dims nope+rope, v dims v */
	flops = 2.0 * k->pairs * c->heads * (double)(m->qk_nope_dim + m->qk_rope_dim + m->v_head_dim);
	bytes = k->ctx * c->kv_tok_layer_bytes + 2.0 * k->tok * c->heads * (double)c->head_dim_qk * 2.0;
	t = cost_attn_prefill_call_s(c, k->n, k->pairs, flops, bytes,
				     2.0 * c->heads * (double)(m->qk_nope_dim + m->qk_rope_dim + m->v_head_dim), NULL, 0.0);
	/* kv_b up-projects the latent of every context token: one GEMM over
	 * the step's chunks */
	t += cost_gemm_s(c, c->cfg.wdt, k->ctx, (double)(c->heads * (m->qk_nope_dim + m->v_head_dim)),
			 (double)m->kv_lora_rank, 1);
	/* the engine's MLA context module term over the new tokens */
	return t + c->mla_ctx_tok_s * k->tok;
}

void cost_mla_note(struct cost_model *c)
{
	if (c->mla_module_s > 0) {
		size_t n = strlen(c->src[COST_SRC_ATTN_DECODE]);
		snprintf(c->src[COST_SRC_ATTN_DECODE] + n, sizeof(c->src[0]) - n,
			 "; MLA decode module: sum of parts + %.0f us per layer (vLLM 0.24 module tables, H100/H200)",
			 c->mla_module_s * 1e6);
	}
	if (c->mla_ctx_tok_s > 0) {
		size_t n = strlen(c->src[COST_SRC_ATTN_PREFILL]);
		snprintf(c->src[COST_SRC_ATTN_PREFILL] + n, sizeof(c->src[0]) - n,
			 "; MLA context module: sum of parts + %.1f us per 1k tokens per layer (%s module tables, H100/H200)",
			 c->mla_ctx_tok_s * 1e9,
			 c->cfg.engine->mla_src);
	}
}
