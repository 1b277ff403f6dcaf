/* cost.c - tier-0 step pricing: the cost model's start-up (each kernel
 * family's tables chosen, kern.h), the per-token and per-sequence tables
 * priced on first use (memo.h), and a step's price from its components
 * (token-linear operators, attention per layer group through mixer.c, LM
 * head, shared MoE part, pipeline sends) with the host overheads.  See
 * cost.h for the model; the choices that are ours are explained where they
 * are made. */
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/argval.h"
#include "base/alloc.h"
#include "cost/cost.h"
#include "base/dmemo.h"
#include "model/opgraph.h"
#include "base/paths.h"
#include "cost/csamod.h"
#include "cost/dsamod.h"
#include "cost/kern.h"
#include "cost/memo.h"

int cost_parse_off(const char *s, unsigned *bits, struct err *e)
{
	struct argval_items it;
	int rc;

	*bits = 0;
	if (!s)
		return 0;
	argval_items_start(&it, "--tier0-off", s);
	while ((rc = argval_items_next(&it, e)) > 0) {
		const char *tok = it.item;
		if ((tok[0] == 'H' || tok[0] == 'h') && tok[1] >= '1' && tok[1] <= '6' && !tok[2])
			*bits |= 1u << (tok[1] - '1');
		else if (strcasecmp(tok, "none") == 0)
			continue;
		else
			return err_set(e, SS_EUSAGE,
				       "--tier0-off: unknown correction '%s' (expected a list of H1..H6)", tok);
	}
	return rc;
}

void cost_default_overheads(struct overheads *ov)
{
	memset(ov, 0, sizeof(*ov)); /* the tier-1 terms default to 0 */
	/* Chosen by the H2 protocol (eval/h2_sweep.sh, figures in
	 * eval/H2_SWEEP.md): swept on the 'general' and 'codegen'
	 * inference-perf runs of Llama-2-7B and CodeLlama-34B on H100, checked
	 * on the held-out 'roleplay' runs (median APE TTFT 3.4 %, ITL 5.3 %,
	 * E2E 5.3 %).  The measured kernel tables already hold most launch
	 * costs, hence the small engine terms; a step's tokens reach the
	 * client when the next step ends (output processing overlaps it). */
	ov->step_us = 0.0;
	ov->layer_us = 5.0;
	ov->req_us = 0.0;
	ov->api_ttft_ms = 9.0;
	ov->stream_token_us = 0.0;
	ov->delivery_steps = 1.0;
}

/* Each host term and its OV_* bit: apply and scale walk the one list. */
static const struct {
	unsigned bit;
	size_t off;
} ov_terms[] = {
	{OV_STEP, offsetof(struct overheads, step_us)},
	{OV_LAYER, offsetof(struct overheads, layer_us)},
	{OV_REQ, offsetof(struct overheads, req_us)},
	{OV_API_TTFT, offsetof(struct overheads, api_ttft_ms)},
	{OV_STREAM, offsetof(struct overheads, stream_token_us)},
	{OV_DELIVERY, offsetof(struct overheads, delivery_steps)},
	{OV_PREFILL_TOK, offsetof(struct overheads, prefill_token_us)},
	{OV_API_E2E, offsetof(struct overheads, api_e2e_ms)},
	{OV_EAGER, offsetof(struct overheads, eager_op_us)},
	{OV_API_PROMPT, offsetof(struct overheads, api_prompt_us)},
	{OV_API_LOOP, offsetof(struct overheads, api_loop_ms)},
	{OV_JIT, offsetof(struct overheads, jit_compile_ms)},
};

static double *ov_term(struct overheads *ov, size_t k)
{
	return (double *)(void *)((char *)ov + ov_terms[k].off);
}

static double ov_term_of(const struct overheads *ov, size_t k)
{
	return *(const double *)(const void *)((const char *)ov + ov_terms[k].off);
}

void cost_overheads_apply(struct overheads *base, const struct overheads *over)
{
	size_t k;

	for (k = 0; k < sizeof(ov_terms) / sizeof(ov_terms[0]); k++)
		if (over->given & ov_terms[k].bit)
			*ov_term(base, k) = ov_term_of(over, k);
	base->given |= over->given;
}

void cost_overheads_scale(struct overheads *ov, unsigned terms, double k)
{
	size_t i;

	for (i = 0; i < sizeof(ov_terms) / sizeof(ov_terms[0]); i++)
		if (terms & ov_terms[i].bit)
			*ov_term(ov, i) *= k;
}

bool cost_overheads_same(const struct overheads *a, const struct overheads *b, unsigned terms)
{
	struct overheads x = *a, y = *b;
	size_t i;

	for (i = 0; i < sizeof(ov_terms) / sizeof(ov_terms[0]); i++)
		if ((terms & ov_terms[i].bit) && *ov_term(&x, i) != *ov_term(&y, i))
			return false;
	return true;
}

/* Ops of an MoE layer that attention-DP ranks share: the routed experts
 * and the EP all-to-all around them (router, shared experts, attention and
 * norms stay with each rank's own batch). */
static bool moe_shared_op(const struct op *o)
{
	return strncmp(o->name, "experts_", 8) == 0 || strcmp(o->name, "ep_dispatch") == 0 ||
	       strcmp(o->name, "ep_combine") == 0;
}

/* Ops an engine runs split over every GPU on all DP ranks' tokens gathered
 * (parallel.dp_shard: a dense FFN layer's, the shared experts'), priced with
 * the shared MoE part at the group's tokens. */
static bool dp_split_op(const struct cost_model *c, const struct op *o)
{
	const char *n = o->name;
	bool shared = strncmp(n, "shared_", 7) == 0;

	if (shared)
		n += 7;
	if (strcmp(n, "gate_up_proj") != 0 && strcmp(n, "up_proj") != 0 && strcmp(n, "act_mul") != 0 &&
	    strcmp(n, "down_proj") != 0)
		return false;
	if (shared)
		return o->cat == OPC_MOE && par_part_tp(c->m, &c->p, PAR_DPS_SHARED) > c->p.tp;
	return o->cat == OPC_FFN && par_part_tp(c->m, &c->p, PAR_DPS_DENSE_FFN) > c->p.tp;
}

/* Ops of an attention-DP step priced once for the group at its tokens. */
static bool group_op(const struct cost_model *c, const struct op *o)
{
	return moe_shared_op(o) || dp_split_op(c, o);
}

static void shared_ops_find(const struct cost_model *c, const struct opgraph *gr, struct shared_ops *so)
{
	size_t k, j;

	so->n = 0;
	so->e = NULL;
	for (k = 0; k < gr->nkinds; k++) {
		const struct layer_kind *lk = &gr->kinds[k];
		bool split = false;
		for (j = 0; j < lk->nops; j++)
			if (group_op(c, &lk->ops[j])) {
				so->e = xreallocarray(so->e, so->n + 1, sizeof(*so->e));
				so->e[so->n++] = (struct shared_op_ref){k, (ptrdiff_t)j};
				split |= lk->ops[j].cat == OPC_FFN;
			}
		/* without EP every GPU needs every rank's tokens (comm.c), as a
		 * dense FFN split over every GPU does (SGLang's FULL scatter
		 * mode: the same gather and scatter, communicator.py) */
		if ((c->p.ep <= 1 && strcmp(lk->name, "moe") == 0) || split) {
			so->e = xreallocarray(so->e, so->n + 1, sizeof(*so->e));
			so->e[so->n++] = (struct shared_op_ref){k, -1};
		}
	}
}

/* The measured NCCL series for the attention-DP gathers where the engine
 * runs them as whole NCCL calls (cost_engine.dp_gather_nccl), else NULL:
 * the ring model (comm.c). */
static const struct comm_table *gather_tab(const struct cost_model *c)
{
	return c->cfg.engine && c->cfg.engine->dp_gather_nccl ? c->comm : NULL;
}

/* Shared MoE part at g tokens summed over the DP ranks.  op_at's expert
 * GEMMs take the rank's tokens and scale them by dp with EP, by 1 without;
 * the per-token ops were built at one token per rank: each is called with
 * the m that makes it see g tokens in all.  *flops and *bytes: the work of
 * one GPU (cost_op_at's: its share of the routed experts' FLOPs, the
 * weights of the experts of its slots the g x top_k routed tokens are
 * expected to activate, moe_expected_experts), over the layers. */
static double moe_shared_at(const struct cost_model *c, const struct opgraph *gr, const struct shared_ops *so,
			    double g, double *flops, double *bytes)
{
	double t = 0, dp = (double)c->p.dp;
	size_t i;

	*flops = *bytes = 0;

	for (i = 0; i < so->n; i++) {
		const struct layer_kind *lk = &gr->kinds[so->e[i].k];
		if (so->e[i].j < 0) {
			t += (double)lk->count * comm_dp_gather_s(gather_tab(c), c->g, &c->place, c->p.tp * c->p.dp,
								  g * (double)c->m->hidden * 2.0);
		} else {
			const struct op *o = &lk->ops[so->e[i].j];
			bool gemm = o->kind == OPK_GEMM;
			double f = 0, b = 0;
			/* the split dense ops run every rank's tokens at once */
			t += (double)lk->count *
			     cost_op_at(c, o, NULL, dp_split_op(c, o) || (gemm && c->p.ep <= 1) ? g : g / dp, &f, &b);
			*flops += (double)lk->count * f;
			*bytes += (double)lk->count * b;
		}
	}
	return t;
}

const char *cost_src_name(enum cost_src s)
{
	static const char *const n[COST_SRC__COUNT] = {"GEMMs", "prefill attention",
		"decode attention", "sliding window", "DSA prefill", "DSA decode", "routed experts", "all-reduce",
		"linear attention", "eager steps"};
	return (unsigned)s < COST_SRC__COUNT ? n[s] : "?";
}

/* The dtype a part stored as f runs in on g, when narrower than dflt:
 * fp4 formats need fp4 tensor cores, else they run weight-only (W4A16). */
static enum dtype stored_dtype(enum model_qfmt f, const struct gpu_spec *g, enum dtype dflt)
{
	enum dtype d;

	switch (f) {
	case Q_FP8: case Q_FP8_BLOCK: d = DT_FP8; break;
	case Q_MXFP4: case Q_NVFP4: d = g->peak_flops[DT_FP4] > 0 ? DT_FP4 : DT_INT4; break;
	case Q_INT4_W4A16: d = DT_INT4; break;
	default: return dflt;
	}
	return dtype_bytes(d) < dtype_bytes(dflt) ? d : dflt;
}

/* AMD GPUs: a part without a public measured table (decode attention but
 * for AITER's per-call floors, all-reduce off MI300X's; issue 29,
 * docs/hardware.md) is priced by the roofline or the ring model, and says
 * that it is a fallback. */
#define AMD_AR_MEASURED "mi300x"

static void amd_fallback_note(struct cost_model *c)
{
	static const enum cost_src parts[] = {COST_SRC_ATTN_PREFILL, COST_SRC_ATTN_DECODE, COST_SRC_ALLREDUCE};
	size_t i;

	if (strcmp(c->g->vendor, "amd") != 0)
		return;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		const char *s = c->src[parts[i]];
		if (strncmp(s, "roofline", 8) != 0 && strncmp(s, "ring model", 10) != 0)
			continue;
		cost_src_add(c, parts[i], " (fallback: no public AMD table of this part, docs/hardware.md)");
	}
	/* the one measured AMD all-reduce table is MI300X's: another GPU's
	 * (MI355X) is derived from it (scripts/mfu/derive_amd.py) */
	if (c->src[COST_SRC_ALLREDUCE][0] == 'm' && !strstr(c->src[COST_SRC_ALLREDUCE], "/" AMD_AR_MEASURED "/")) {
		cost_src_add(c, COST_SRC_ALLREDUCE,
			     " (derived: %s's measured all-reduce carried to this GPU's xGMI links, docs/hardware.md)",
			     AMD_AR_MEASURED);
	}
}

/* Fill c->src: which table (and version) or fallback prices each
 * component, each family its own line. */
static void describe_sources(struct cost_model *c)
{
	cost_gemm_note(c);
	cost_tbs_note(c);
	cost_cbs_note(c);
	cost_attn_note(c);
	cost_triton_attn_note(c);
	cost_mla_note(c);
	cost_dsa_note(c);
	cost_csa_note(c);
	cost_moe_note(c);
	cost_lin_note(c);
	cost_allreduce_note(c);
	amd_fallback_note(c);
}

int64_t cost_graph_pad(const struct cost_model *c, int64_t n)
{
	int64_t p;

	if (c->cfg.graph_max <= 0 || n > c->cfg.graph_max)
		return n;
	/* vLLM capture sizes: 1, 2, 4, then multiples of 8 */
	if (n <= 2)
		return n;
	if (n <= 4)
		return 4;
	p = (n + 7) / 8 * 8;
	return p > c->cfg.graph_max ? n : p;
}

/* tok_s, tok_flops and tok_bytes at mm tokens (1 <= mm <= max_m). */
static void tok_fill(const struct cost_model *c, int64_t mm)
{
	const struct cost_lazy *z = c->lazy;
	const struct opgraph *gr = &z->gr;
	double t = 0, f = 0, b = 0;
	size_t u = 0, k, j;

	for (k = 0; k < gr->nkinds; k++) {
		const struct layer_kind *lk = &gr->kinds[k];
		double cnt = z->kcnt[k];
		double tk = 0, fk = 0, bk = 0;
		for (j = 0; j < lk->nops; j++, u++)
			if (z->use[u])
				tk += cost_op_at(c, &lk->ops[j], &z->cols[u], (double)mm, &fk, &bk);
		t += cnt * tk;
		f += cnt * fk;
		b += cnt * bk;
	}
	/* with PP every stage runs its share of layers in turn */
	c->tok_s[mm] = t;
	c->tok_flops[mm] = f;
	c->tok_bytes[mm] = b;
	z->tok_done[mm] = 1;
}

/* head_s and absorb_s at i sequences (1 <= i <= max_seqs). */
static void seq_fill(const struct cost_model *c, int64_t i)
{
	const struct cost_lazy *z = c->lazy;
	const struct opgraph *gr = &z->gr;
	size_t k, j;

	int hp = par_part_tp(c->m, &c->p, PAR_DPS_LM_HEAD);

	if (hp > c->p.tp) {
		/* split over every GPU of attention DP (parallel.dp_shard): the
		 * ranks' last hidden states gathered (i rows a rank, the ranks
		 * taken as even), their logits on each GPU's vocab shard, the
		 * shards all-gathered (bf16) before each rank keeps its rows
		 * (SGLang's LogitsProcessor: dp_gather_replicate,
		 * tensor_model_parallel_all_gather, dp_scatter) */
		double rows = (double)i * (double)c->p.dp;
		c->head_s[i] = cost_gemm_s(c, DT_BF16, rows, (double)(c->m->vocab / hp), (double)c->m->hidden, 1) +
			       comm_all_gather_s(gather_tab(c), c->g, &c->place, hp, rows * (double)c->m->hidden * 2.0) +
			       comm_all_gather_s(gather_tab(c), c->g, &c->place, hp, rows * (double)c->m->vocab * 2.0);
	} else {
		c->head_s[i] = cost_gemm_s(c, DT_BF16, (double)i, (double)(c->m->vocab / c->p.tp),
					   (double)c->m->hidden, 1);
	}
	for (k = 0; k < gr->nkinds; k++)
		for (j = 0; j < gr->kinds[k].nops; j++) {
			const struct op *o = &gr->kinds[k].ops[j];
			if (strcmp(o->name, "q_absorb_uk") == 0 || strcmp(o->name, "out_absorb_uv") == 0)
				c->absorb_s[i] += (double)gr->kinds[k].count *
						  cost_gemm_s(c, cost_mla_absorb_dtype(c), (double)i, (double)o->n,
							      (double)o->k, (double)o->batch);
		}
	z->seq_done[i] = 1;
}

static inline void tok_need(const struct cost_model *c, int64_t mm)
{
	if (!c->lazy->tok_done[mm])
		tok_fill(c, mm);
}

static inline void seq_need(const struct cost_model *c, int64_t i)
{
	if (!c->lazy->seq_done[i])
		seq_fill(c, i);
}


/* comm_table_load as mfu_cache_obj's loader (a table of its own). */
static int comm_load_obj(const char *data_dir, void **obj, struct err *e)
{
	struct comm_table *t = xmalloc(sizeof(*t));
	int rc;

	if ((rc = comm_table_load(data_dir, t, e)) < 0) {
		free(t);
		return rc;
	}
	*obj = t;
	return 0;
}

/* The communication fits: parsed once per process where the cost model
 * has the shared cache (eval's and search's workers build one model a
 * row or deployment), else its own copy.  A model on one GPU (TP, DP and
 * EP 1) reads none (every collective of one rank is free before any table
 * is looked at: comm.c), so none is read for it (c->comm NULL). */
static int comm_get(struct cost_model *c, const struct cost_cfg *cfg, const char *data_dir, struct err *e)
{
	const void *t;
	void *own;
	int rc;

	if (c->p.tp <= 1 && c->p.dp <= 1 && c->p.ep <= 1)
		return 0;
	if (cfg->cache) {
		if ((rc = mfu_cache_obj(cfg->cache, "comm", data_dir, comm_load_obj, free, &t, e)) < 0)
			return rc;
		c->comm = t;
		return 0;
	}
	if ((rc = comm_load_obj(data_dir, &own, e)) < 0)
		return rc;
	c->own_comm = own;
	c->comm = own;
	return 0;
}

int cost_init(struct cost_model *c, const struct model_cfg *m, const struct gpu_spec *g,
	      const struct parallel *p, const struct cost_cfg *cfg, const char *data_dir,
	      struct err *e)
{
	struct pass_shape one = {1, 1, 0, false};
	struct cost_mod_in mi;
	const struct cost_cfg *given = cfg; /* as the caller gave it (EPLB's balanced model) */
	struct opgraph gr;
	int64_t i;
	size_t k, j;
	bool *use = NULL;
	struct mfu_gemm_col *cols = NULL;
	double *kcnt = NULL;
	int rc;

	assert(cfg->engine); /* every cost model prices some engine's kernels */
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->g = g;
	c->p = *p;
	c->cfg = *cfg;
	c->lin = cost_lin_terms_for(m, cfg->engine);
	/* fp4 on a GPU without fp4 tensor cores is refused by the start-up
	 * checks (engine/startup.c); with --allow-invalid it is priced as weight-only
	 * 4-bit at the bf16 rate (cost_gemm_s's no-table path) */
	if (cfg->cache && !(cfg->tier2 && cfg->tier2->tables[0])) {
		const struct mfu_tables *t;
		if ((rc = mfu_cache_get(cfg->cache, data_dir, g, cost_engine_tables(cfg->engine, g), cfg->engine->fallback,
					cfg->engine_version,
					(cfg->off & COST_H6) != 0, m->n_experts > 0, cfg->moe_dist, &t,
					e)) < 0)
			return rc;
		c->tabs = t;
	} else {
		if (cfg->tier2 && cfg->tier2->tables[0])
			rc = mfu_load_dir(&c->own_tabs, cfg->tier2->tables, g, e);
		else
			rc = mfu_load(&c->own_tabs, data_dir, g, cost_engine_tables(cfg->engine, g), cfg->engine->fallback,
				      cfg->engine_version, e);
		if (rc < 0)
			return rc;
		c->own_tabs.nearest = (cfg->off & COST_H6) != 0;
		if (m->n_experts > 0 && (rc = mfu_load_moe(&c->own_tabs, g, cfg->moe_dist, e)) < 0) {
			mfu_release(&c->own_tabs);
			return rc;
		}
		c->tabs = &c->own_tabs;
	}
	/* the checkpoint's stored formats (quantization_config): a part stored
	 * narrower than --dtype runs in its stored format, as the engines load
	 * it (DeepSeek's block fp8, gpt-oss's MXFP4 experts, Kimi-K2.5's int4
	 * experts); --moe-dtype overrides the experts */
	c->moe_wdt = cfg->moe_wdt_given ? cfg->moe_wdt : stored_dtype(m->q.experts, g, cfg->wdt);
	{
		/* the linears' one low-precision format: that of every linear
		 * part the checkpoint quantises (attention q/kv, o_proj, dense
		 * FFN, shared experts), where they agree; the parts it stores
		 * unquantised are bf16 op by op (opgraph.c: model_attn_stored_bf16,
		 * model_dense_ffn_stored_bf16, model_shared_experts_stored_bf16) */
		const enum model_qfmt part[4] = {m->q.attn, m->q.attn_o, m->q.mlp, m->q.shared};
		const bool kept[4] = {model_attn_stored_bf16(m, false), model_attn_stored_bf16(m, true),
				      model_dense_ffn_stored_bf16(m), model_shared_experts_stored_bf16(m)};
		enum model_qfmt lin = Q_NONE;
		bool any = false;
		for (k = 0; k < 4; k++) {
			if (kept[k])
				continue;
			if (any && part[k] != lin)
				lin = Q_NONE;
			else if (!any)
				lin = part[k];
			any = true;
		}
		if (lin != Q_NONE) {
			c->cfg.wdt = stored_dtype(lin, g, cfg->wdt);
			cfg = &c->cfg;
		}
	}
	if (m->n_experts > 0)
		cost_moe_init(c, cfg);
	comm_place(g, p, &c->place);
	if ((rc = comm_get(c, cfg, data_dir, e)) < 0 ||
	    (m->n_experts > 0 && (rc = cost_moe_backend_load(c, data_dir, e)) < 0) ||
	    (rc = cost_moe_wideep_load(c, data_dir, e)) < 0) {
		moetab_free(c->wideep_tab[0]);
		moetab_free(c->wideep_tab[1]);
		moetab_free(c->backend_tab);
		free(c->own_comm);
		c->own_comm = NULL;
		mfu_release(&c->own_tabs);
		return rc;
	}
	/* H1: one default efficiency, or tier 2's measured one per pattern */
	c->bw = c->bw_weights = c->bw_kv = g->hbm_bw * g->bw_eff;
	if (cfg->tier2) {
		c->bw = g->hbm_bw * cfg->tier2->bw_eff_mixed;
		c->bw_weights = g->hbm_bw * cfg->tier2->bw_eff_weights;
		c->bw_kv = g->hbm_bw * cfg->tier2->bw_eff_kv;
	}
	c->peak = g->peak_flops[cfg->wdt] > 0 ? g->peak_flops[cfg->wdt] : g->peak_flops[DT_BF16];
	c->attn_peak = g->peak_flops[DT_BF16];
	c->layers_stage = (m->layers + p->pp - 1) / p->pp;
	c->heads = (int)(m->heads / p->tp);
	if (m->attn == ATTN_MLA) {
		c->kv_heads = 1;
		c->head_dim_qk = (int)(m->kv_lora_rank + m->qk_rope_dim);
		c->head_dim_v = (int)m->kv_lora_rank;
		c->kv_tok_layer_bytes = (double)(m->kv_lora_rank + m->qk_rope_dim) * dtype_bytes(cfg->kvdt);
	} else {
		c->kv_heads = (int)(m->kv_heads / p->tp > 0 ? m->kv_heads / p->tp : 1);
		c->head_dim_qk = (int)m->head_dim;
		c->head_dim_v = (int)m->v_head_dim;
		c->kv_tok_layer_bytes = c->kv_heads * (double)(m->head_dim + (m->k_eq_v ? 0 : m->v_head_dim)) *
					dtype_bytes(cfg->kvdt);
	}
	{
		/* the LM head as seq_fill prices it: vocab / hp rows of weights
		 * per GPU, each rank's rows gathered when hp spans the DP ranks */
		int hp = par_part_tp(m, p, PAR_DPS_LM_HEAD);
		double shard = (double)(m->vocab / hp) * (double)m->hidden;
		c->head_weight_bytes = shard * dtype_bytes(DT_BF16);
		c->head_flops_seq = 2.0 * shard * (hp > p->tp ? (double)p->dp : 1.0);
	}
	cost_attn_init(c, cfg);
	cost_mla_init(c, cfg);
	cost_tbs_init(c);
	c->max_m = cfg->max_tokens > cfg->graph_max ? cfg->max_tokens : cfg->graph_max;
	if (c->max_m < cfg->max_seqs)
		c->max_m = cfg->max_seqs;
	c->tok_s = xcalloc((size_t)c->max_m + 1, sizeof(double));
	c->tok_flops = xcalloc((size_t)c->max_m + 1, sizeof(double));
	c->tok_bytes = xcalloc((size_t)c->max_m + 1, sizeof(double));
	c->head_s = xcalloc((size_t)cfg->max_seqs + 1, sizeof(double));
	c->absorb_s = xcalloc((size_t)cfg->max_seqs + 1, sizeof(double));
	c->log_n = xcalloc((size_t)cfg->max_seqs + 1, sizeof(double));
	c->decode_rows = xcalloc((size_t)cfg->max_seqs + 1, sizeof(struct mfu_row));
	for (i = 1; i <= cfg->max_seqs; i++)
		c->log_n[i] = log((double)i);
	mfu_attn_row(c->tabs, c->attn_prefill_cfg, true, 0.0, &c->prefill_row);
	c->lazy = xcalloc(1, sizeof(*c->lazy));
	c->lazy->tok_done = xcalloc((size_t)c->max_m + 1, 1);
	c->lazy->seq_done = xcalloc((size_t)cfg->max_seqs + 1, 1);
	c->lazy->row_done = xcalloc((size_t)cfg->max_seqs + 1, 1);
	c->lazy->decode_hint = xcalloc((size_t)cfg->max_seqs + 1, sizeof(size_t));
	c->lazy->dec = xcalloc((size_t)cfg->max_seqs + 1, sizeof(struct dec_terms));
	c->lazy->dec_done = xcalloc((size_t)cfg->max_seqs + 1, 1);
	if ((rc = opgraph_build(m, p, &one, cfg->wdt, cfg->kvdt, &gr, e)) < 0) {
		cost_release(c);
		return rc;
	}
	c->lazy->gr = gr; /* released with the model */
	c->dp_attn = m->n_experts > 0 && p->dp > 1;
	c->lazy->plain = m->attn != ATTN_MLA && m->n_mixer[LM_FULL] > 0 && m->n_mixer[LM_SLIDING] == 0 &&
			 m->n_mixer[LM_CHUNKED] == 0 && m->n_mixer[LM_LINEAR] == 0 && p->pp == 1 &&
			 !c->dp_attn;
	c->lazy->full_only = m->attn != ATTN_CSA && !(m->attn == ATTN_MLA && m->index_topk > 0) &&
			     m->n_mixer[LM_FULL] > 0 && m->n_mixer[LM_SLIDING] == 0 && m->n_mixer[LM_CHUNKED] == 0 &&
			     m->n_mixer[LM_LINEAR] == 0;
	if (c->dp_attn) {
		/* a table up to every rank at max_m tokens, linear beyond 64 Ki */
		c->moe_max = c->max_m * p->dp < 65536 ? c->max_m * p->dp : 65536;
		c->moe_s = xcalloc((size_t)c->moe_max + 1, sizeof(double));
		c->moe_flops = xcalloc((size_t)c->moe_max + 1, sizeof(double));
		c->moe_bytes = xcalloc((size_t)c->moe_max + 1, sizeof(double));
		c->lazy->moe_done = xcalloc((size_t)c->moe_max + 1, 1);
		shared_ops_find(c, &gr, &c->lazy->moe_ops);
	}
	/* DeepSeek-V4: the attention blocks from the engine's measured blocks
	 * (csamod.h), priced per step, not per token */
	if (m->attn == ATTN_CSA && (rc = csa_module_init(cost_mod_in_of(c, &mi), &gr, data_dir, &c->csa, e)) < 0) {
		cost_release(c);
		return rc;
	}
	/* which ops are priced per token, and each kind's count, decided once
	 * rather than by name at each of the max_m token counts */
	{
		size_t nuse = 0;
		for (k = 0; k < gr.nkinds; k++)
			nuse += gr.kinds[k].nops;
		use = xcalloc(nuse ? nuse : 1, sizeof(bool));
		cols = xcalloc(nuse ? nuse : 1, sizeof(*cols));
		kcnt = xcalloc(gr.nkinds ? gr.nkinds : 1, sizeof(double));
		nuse = 0;
		for (k = 0; k < gr.nkinds; k++) {
			const struct layer_kind *lk = &gr.kinds[k];
			size_t b0 = 1, b1 = 0; /* a V4 attention block's operators */
			if (c->csa)
				csa_block_range(m, lk, &b0, &b1);
			kcnt[k] = strcmp(lk->name, "embed+head") == 0 ? 1.0 : (double)lk->count;
			for (j = 0; j < lk->nops; j++) {
				const struct op *o = &lk->ops[j];
				/* a GEMM's table lookup at its n and k, resolved
				 * once for the max_m token counts */
				if (o->kind == OPK_GEMM)
					cost_gemm_col(c, cost_op_dtype(c, o), (double)o->n,
						 (double)o->k, (double)o->batch, &cols[nuse]);
				use[nuse++] = !(cost_op_per_step_attention(o) || cost_lin_conv_in_terms(c, o) ||
						(j >= b0 && j <= b1) || o->cat == OPC_LM_HEAD ||
						strcmp(o->name, "final_norm") == 0 ||
						(c->dp_attn && group_op(c, o)));
			}
		}
	}
	/* tok_s, head_s, absorb_s and decode_rows: filled on first use */
	c->lazy->use = use;
	c->lazy->cols = cols;
	c->lazy->kcnt = kcnt;
	/* an engine that launches a step holding a prefill kernel by kernel
	 * from Python (TensorRT-LLM's PyTorch backend: CUDA graphs for
	 * generation-only batches only) makes the GPU wait for the host where
	 * the kernels are short: the step lasts at least (operators of the
	 * pass) x the host terms' eager_op_us (the engine's: src/engine/) */
	if (cfg->ov.eager_op_us > 0 && !(cfg->off & COST_H2)) {
		double nops = 0;
		for (k = 0; k < gr.nkinds; k++)
			nops += kcnt[k] * (double)gr.kinds[k].nops;
		c->eager_s = nops * cfg->ov.eager_op_us * 1e-6;
		snprintf(c->src[COST_SRC_EAGER], sizeof(c->src[0]),
			 "a step with prefill runs without CUDA graphs: at least %.0f operators x %.0f us "
			 "of host launch time = %.1f ms (%.60s)",
			 nops, cfg->ov.eager_op_us, c->eager_s * 1e3,
			 (cfg->ov.given & OV_EAGER) || !cfg->host_src ? "given" : cfg->host_src);
	}
	/* EPLB: only where experts are spread over EP ranks (the start-up
	 * checks refuse it elsewhere) */
	if (cfg->eplb && m->n_experts > 0 && p->ep > 1)
		cost_eplb_init(c, given);
	/* DSA: the engine's measured module over the parts (dsamod.h); the
	 * layers that reuse an earlier layer's top-k run an MLA block without
	 * the indexer and take the engine's plain MLA module terms where no
	 * skip-indexer module was measured */
	if (m->attn == ATTN_MLA && m->index_topk > 0 && (rc = cost_dsa_init(c, cfg, data_dir, e)) < 0) {
		cost_release(c);
		return rc;
	}
	/* vLLM's CUTLASS block-scaled linears (cutlassbs.c) */
	if ((rc = cost_cbs_init(c, data_dir, e)) < 0) {
		cost_release(c);
		return rc;
	}
	/* vLLM's FlashInfer all-reduce fusion (allreduce.c) */
	if ((rc = cost_allreduce_init(c, data_dir, e)) < 0) {
		cost_release(c);
		return rc;
	}
	/* aiter's Triton GEMM's compiles at new prefill sizes (tritonbs.c) */
	cost_tbs_jit_init(c, &gr);
	describe_sources(c);
	return 0;
}

/* The tables a model fills as it prices: cost_lazy and the arrays its
 * flags cover (cost/share.h: what a share's models read in common). */
static void tables_release(struct cost_model *c)
{
	int64_t i;

	free(c->tok_s);
	free(c->tok_flops);
	free(c->tok_bytes);
	free(c->moe_s);
	free(c->moe_flops);
	free(c->moe_bytes);
	free(c->head_s);
	free(c->absorb_s);
	if (c->decode_rows)
		for (i = 0; i <= c->cfg.max_seqs; i++)
			mfu_row_release(&c->decode_rows[i]);
	free(c->decode_rows);
	if (c->lazy) {
		opgraph_release(&c->lazy->gr);
		free(c->lazy->use);
		free(c->lazy->cols);
		free(c->lazy->kcnt);
		free(c->lazy->tok_done);
		free(c->lazy->seq_done);
		free(c->lazy->row_done);
		free(c->lazy->decode_hint);
		free(c->lazy->dec);
		free(c->lazy->dec_done);
		free(c->lazy->loc);
		free(c->lazy->loc_done);
		free(c->lazy->wide);
		free(c->lazy->wide_done);
		free(c->lazy->moe_ops.e);
		free(c->lazy->moe_done);
		free(c->lazy->dpx_s);
		free(c->lazy->pre0_s);
		free(c->lazy->pre0_done);
		if (c->lazy->pre.e)
			dmemo_release(&c->lazy->pre);
		free(c->lazy);
	}
}

void cost_tables_adopt(struct cost_model *c, const struct cost_model *from)
{
	tables_release(c);
	c->tok_s = from->tok_s;
	c->tok_flops = from->tok_flops;
	c->tok_bytes = from->tok_bytes;
	c->moe_s = from->moe_s;
	c->moe_flops = from->moe_flops;
	c->moe_bytes = from->moe_bytes;
	c->head_s = from->head_s;
	c->absorb_s = from->absorb_s;
	c->decode_rows = from->decode_rows;
	c->lazy = from->lazy;
}

/* Every part of c but its tables (tables_release). */
static void rest_release(struct cost_model *c)
{
	dsa_module_free(c->dsa);
	csa_module_free(c->csa);
	free(c->eplb);

	mfu_release(&c->own_tabs);
	mfu_release(&c->own_ar_tabs);
	cost_cbs_release(c);
	moetab_free(c->wideep_tab[0]);
	moetab_free(c->wideep_tab[1]);
	moetab_free(c->backend_tab);
	free(c->own_comm);
	free(c->log_n);
	mfu_row_release(&c->prefill_row);
}

void cost_release_rest(struct cost_model *c)
{
	rest_release(c);
	memset(c, 0, sizeof(*c));
}

void cost_release(struct cost_model *c)
{
	rest_release(c);
	tables_release(c);
	memset(c, 0, sizeof(*c));
}

/* cost_attn_prefill_s, from the model's table of prefix-free chunks
 * when it covers len (the same value: the same function of len). */
static double attn_prefill_s(const struct cost_model *c, int64_t len, int64_t prefix)
{
	struct cost_lazy *z = c->lazy;

	if (prefix > 0 && len > 0) {
		struct dmemo_ent *x;
		double v;
		if (!z->pre.e)
			dmemo_init(&z->pre, 12);
		x = dmemo_slot(&z->pre, (uint64_t)len, (uint64_t)prefix);
		if (dmemo_holds(x, (uint64_t)len, (uint64_t)prefix))
			return x->v;
		v = cost_attn_prefill_s(c, len, prefix);
		dmemo_keep(x, (uint64_t)len, (uint64_t)prefix, v);
		return v;
	}
	if (prefix != 0 || len <= 0 || len > c->max_m)
		return cost_attn_prefill_s(c, len, prefix);
	if (!z->pre0_s) { /* at the first chunk: a start-up need not clear it */
		z->pre0_s = xmalloc(xmul((size_t)c->max_m + 1, sizeof(double))); /* read once set */
		z->pre0_done = xcalloc((size_t)c->max_m + 1, 1);
	}
	if (!z->pre0_done[len]) {
		z->pre0_s[len] = cost_attn_prefill_s(c, len, 0);
		z->pre0_done[len] = 1;
	}
	return z->pre0_s[len];
}

/* cost_attn_decode_s of a model whose attention layers are all full
 * (cost_lazy.full_only) or plain (cost_lazy.plain), 0 < n <=
 * max_seqs, row: cost_decode_row(c, n): mixer.c's sum over the full layers
 * (full_decode_s: gqa_decode_x of attn.c with its floor, and the MLA decode
 * floor, 0 but for MLA) written out, the same operations in the same order
 * (it runs at every step: the general path's calls and branches were most
 * of its price, the log and exp a fifth); mfu: the decode table's at n
 * and the mean context (full_decode_row_s, full_decode_wide_s). */
static inline __attribute__((always_inline)) double full_decode_mfu_s(const struct cost_model *c, int64_t n,
									 double ctx_sum, double mfu)
{
	double heads = (double)c->heads, dqk = (double)c->head_dim_qk, dv = (double)c->head_dim_v;
	double t, full;
	double flops = 2.0 * ctx_sum * heads * (dqk + dv), bytes = ctx_sum * c->kv_tok_layer_bytes;

	t = cost_roofline_bw(c, flops, c->attn_peak, mfu, bytes, c->bw_kv);
	t = t < c->gqa_dec_floor_s ? c->gqa_dec_floor_s : t;
	/* cost_mla_decode_floor_s is 0 without a floor */
	full = t + (c->mla_dec_floor_s > 0 ? cost_mla_decode_floor_s(c, n) : 0.0);
	t = 0;
	t += (double)c->m->n_mixer[LM_FULL] * full;
	return t / (double)c->m->layers;
}

static inline double full_decode_row_s(const struct cost_model *c, const struct mfu_row *row, int64_t n,
				       double ctx_sum)
{
	double mean = ctx_sum / (double)n;

	return full_decode_mfu_s(c, n, ctx_sum,
				 mfu_row_eval_hint(row, mean < 1 ? 0.0 : log(mean), &c->lazy->decode_hint[n]));
}

/* The same for max_seqs < n <= max_m: gqa_decode_x's lookup in the decode
 * grid's column at n (cost_decode_wide_col), the rest as above (mixer.c's
 * full_decode_s adds cost_mla_decode_floor_s, 0 without a floor).  Out of
 * line: local_decode_a, written into its callers, stays as small as it was
 * for the steps within max_seqs (inlined, it cost them ~20 instructions a
 * price: the DeepSeek-V3 search). */
static __attribute__((noinline)) double full_decode_wide_s(const struct cost_model *c, struct mfu_attn_col *col,
							    int64_t n, double ctx_sum)
{
	double mean = ctx_sum / (double)n;

	return full_decode_mfu_s(c, n, ctx_sum, mfu_attn_col_eval(col, mean < 1 ? 0.0 : log(mean)));
}

/* cost_overhead_s, written into step_host and decode_total_s (they run at
 * every step) */
static inline double overhead_s(const struct cost_model *c, int64_t nreq, int64_t prefill_tokens)
{
	const struct overheads *ov = &c->cfg.ov;
	double t;

	if (c->cfg.off & COST_H2)
		return 0;
	t = (ov->step_us + ov->layer_us * (double)c->m->layers + ov->req_us * (double)nreq +
	     ov->prefill_token_us * (double)prefill_tokens) * 1e-6;
	return t > 0 ? t : 0; /* tier-1 terms may be negative; a step never is */
}

double cost_overhead_s(const struct cost_model *c, int64_t nreq, int64_t prefill_tokens)
{
	return overhead_s(c, nreq, prefill_tokens);
}

static double tok_part(const struct cost_model *c, int64_t m)
{
	if (m <= 0)
		return 0;
	if (m > c->max_m) { /* beyond the table: linear in tokens */
		tok_need(c, c->max_m);
		return c->tok_s[c->max_m] * (double)m / (double)c->max_m;
	}
	tok_need(c, m);
	return c->tok_s[m];
}

double cost_tok_s(const struct cost_model *c, int64_t m)
{
	return tok_part(c, m);
}

static double head_part(const struct cost_model *c, int64_t n)
{
	if (n <= 0)
		return 0;
	if (n > c->cfg.max_seqs) {
		seq_need(c, c->cfg.max_seqs);
		return c->head_s[c->cfg.max_seqs] * (double)n / (double)c->cfg.max_seqs;
	}
	seq_need(c, n);
	return c->head_s[n];
}

/* moe_s[g], priced on first use (cost_lazy.moe_done). */
static double moe_at(const struct cost_model *c, int64_t g)
{
	if (!(c->lazy->moe_done[g] & MOE_DONE_SHARED)) {
		c->moe_s[g] = moe_shared_at(c, &c->lazy->gr, &c->lazy->moe_ops, (double)g, &c->moe_flops[g],
					    &c->moe_bytes[g]);
		c->lazy->moe_done[g] |= MOE_DONE_SHARED;
	}
	return c->moe_s[g];
}

/* One all-reduce of g tokens' hidden states (bf16) over the GPUs the
 * attention-DP ranks' MoE layers span (tp x dp): the engine's measured
 * table, over the network where those GPUs leave the NVLink domain (as
 * comm_dp_gather_s), else the ring over the GPU's link (cost_allreduce_s's
 * fallback). */
static double dp_allreduce_s(const struct cost_model *c, double g)
{
	int n = c->p.tp * c->p.dp;
	double elems = g * (double)c->m->hidden, t = -1;

	if (c->place.ep_domains > 1)
		return comm_allreduce_cross_s(&c->place, n, elems * 2.0);
	if (n <= 8)
		t = mfu_allreduce_s(c->tabs, n, elems);
	if (t < 0)
		t = 10e-6 + 2.0 * (n - 1) / n * elems * 2.0 / (c->g->link_bw * 0.7);
	return t;
}

/* cost_engine.dp_extend_allreduce: what a step in which some DP rank
 * prefills costs beyond moe_s[g].  SGLang (python/sglang/srt/layers/
 * dp_attention.py, DpPaddingMode.get_dp_padding_mode: is_extend_in_batch
 * with dp_size > 1 -> SUM_LEN) gathers a MoE layer's input by zero-filling
 * a buffer of all ranks' tokens, copying its own in and all-reducing it
 * over the TP group (_dp_gather_via_all_reduce), and with SUM_LEN the
 * TP-sharded experts' output is all-reduced whole before each rank copies
 * its rows back (DeepseekV2MoE: tensor_model_parallel_all_reduce unless
 * the communicator reduce-scatters, which it does under MAX_LEN only;
 * layers/communicator.py _scatter_hidden_states, dp_scatter): two
 * all-reduces of the whole buffer a MoE layer, where moe_s holds the
 * all-gather and reduce-scatter of a decode step (MAX_LEN). */
static double dp_extend_extra_s(const struct cost_model *c, double g)
{
	const struct shared_ops *so = &c->lazy->moe_ops;
	double layers = 0;
	size_t i;

	for (i = 0; i < so->n; i++)
		if (so->e[i].j < 0)
			layers += (double)c->lazy->gr.kinds[so->e[i].k].count;
	if (layers == 0)
		return 0;
	return layers * (2.0 * dp_allreduce_s(c, g) - comm_dp_gather_s(gather_tab(c), c->g, &c->place, c->p.tp * c->p.dp,
								       g * (double)c->m->hidden * 2.0));
}

/* dp_extend_extra_s at g tokens, priced on first use up to moe_max
 * (cost_lazy.dpx_s, made at the first: a function of g alone, ~840
 * instructions a call, asked at every step in which a rank prefills). */
static double dp_extend_at(const struct cost_model *c, int64_t g)
{
	if (g > c->moe_max)
		return dp_extend_extra_s(c, (double)g);
	if (!c->lazy->dpx_s)
		c->lazy->dpx_s = xmalloc(((size_t)c->moe_max + 1) * sizeof(double));
	if (!(c->lazy->moe_done[g] & MOE_DONE_DPX)) {
		c->lazy->dpx_s[g] = dp_extend_extra_s(c, (double)g);
		c->lazy->moe_done[g] |= MOE_DONE_DPX;
	}
	return c->lazy->dpx_s[g];
}

/* Shared MoE part of an attention-DP step (0 otherwise); ext: some rank
 * of the group prefills (step_desc.moe_extend). */
static double moe_part(const struct cost_model *c, int64_t g, bool ext)
{
	double t;

	if (!c->dp_attn || g <= 0)
		return 0;
	if (g > c->moe_max)
		t = moe_at(c, c->moe_max) * (double)g / (double)c->moe_max;
	else
		t = moe_at(c, g);
	if (ext && c->cfg.engine->dp_extend_allreduce)
		t += dp_extend_at(c, g);
	return t;
}

/* The sum of the components but the shared MoE part (components_x's
 * ((tok + L attn) + head) + send), *mtok the tokens the GEMMs run; with
 * t2, also the sum for nl2 sampled sequences. */
static inline double components_local_x(const struct cost_model *c, const struct step_desc *s, int64_t nl2,
					double *t2, int64_t *mtok_out)
{
	int64_t tokens = s->ndecode, i, mtok;
	double attn = 0, L = (double)c->m->layers, send = 0;

	for (i = 0; i < s->nchunks; i++)
		tokens += s->chunk_len[i];
	/* one attention call per layer over the step's chunks (see above);
	 * one chunk from the memo */
	if (s->nchunks == 1)
		attn += attn_prefill_s(c, s->chunk_len[0], s->chunk_prefix[0]);
	else if (s->nchunks > 1)
		attn += cost_attn_prefill_n_s(c, s->nchunks, s->chunk_len, s->chunk_prefix);
	if ((c->lazy->plain || c->lazy->full_only) && s->ndecode > 0 && s->ndecode <= c->cfg.max_seqs)
		attn += full_decode_row_s(c, cost_decode_row(c, s->ndecode), s->ndecode, s->decode_ctx_sum);
	else
		attn += cost_attn_decode_s(c, s->ndecode, s->decode_ctx_sum);
	mtok = s->nchunks == 0 ? cost_graph_pad(c, tokens) : tokens;
	/* attn is the mean per layer over the layer groups (see above) */
	if (c->m->attn == ATTN_MLA && s->ndecode > 0) {
		int64_t n = s->ndecode <= c->cfg.max_seqs ? s->ndecode : c->cfg.max_seqs;
		seq_need(c, n);
		attn += c->absorb_s[n] / L;
		/* the engine's MLA decode module term, once per MLA layer */
		attn += c->mla_module_s * (double)c->m->n_mixer[LM_FULL] / L;
	}
	if (c->p.pp > 1) /* activations handed between stages, no micro-batch overlap */
		send = (double)(c->p.pp - 1) *
		       comm_send_s(&c->place, (double)tokens * (double)c->m->hidden * 2.0);
	*mtok_out = mtok;
	{
		/* (((tok + L attn) + head) + send), then components_x's
		 * + moe: the one expression it was written as */
		double a = tok_part(c, mtok) + L * attn, h = head_part(c, s->nlogits);
		if (t2)
			*t2 = a + head_part(c, nl2) + send;
		return a + h + send;
	}
}

/* Shared MoE part of a step of mtok tokens (components_x's). */
static inline double moe_of(const struct cost_model *c, const struct step_desc *s, int64_t mtok)
{
	return moe_part(c, s->moe_tokens > 0 ? s->moe_tokens : mtok * c->p.dp, s->moe_extend || s->nchunks > 0);
}

/* Sum of the components, without overheads; with t2, also the sum for
 * the same step with nl2 sampled sequences (s->nlogits otherwise): the
 * same operations on the same values, the step's other parts computed
 * once (cost_step_pair_s). */
static inline double components_x(const struct cost_model *c, const struct step_desc *s, int64_t nl2,
				  double *t2)
{
	int64_t mtok;
	double l2, l = components_local_x(c, s, nl2, t2 ? &l2 : NULL, &mtok), moe = moe_of(c, s, mtok);

	if (t2)
		*t2 = l2 + moe;
	return l + moe;
}

static double components(const struct cost_model *c, const struct step_desc *s)
{
	return components_x(c, s, 0, NULL);
}

/* cost_step_work without the LM head (aggregate prices it apart). */
static int64_t step_work_body(const struct cost_model *c, const struct step_desc *s, double *flops, double *bytes)
{
	int64_t tokens = s->ndecode, i;
	double L = (double)c->m->layers, pairs = s->decode_ctx_sum, kvb = 0;

	for (i = 0; i < s->nchunks; i++) {
		tokens += s->chunk_len[i];
		pairs += attn_causal_pairs(s->chunk_len[i], s->chunk_prefix[i]);
		kvb += (double)(s->chunk_len[i] + s->chunk_prefix[i]);
	}
	kvb += s->decode_ctx_sum;
	*flops = *bytes = 0;
	if (tokens <= 0)
		return 0;
	i = tokens > c->max_m ? c->max_m : tokens;
	tok_need(c, i);
	*flops = c->tok_flops[i] * (double)tokens / (double)i +
		 L * 2.0 * pairs * c->heads * (double)(c->head_dim_qk + c->head_dim_v);
	*bytes = c->tok_bytes[i] + L * kvb * c->kv_tok_layer_bytes;
	return tokens;
}

/* The group's MoE tokens of an attention-DP step of `tokens` tokens (0
 * otherwise): s->moe_tokens, else this rank's at every rank, as moe_of. */
static int64_t work_moe_tokens(const struct cost_model *c, const struct step_desc *s, int64_t tokens)
{
	if (!c->dp_attn || tokens <= 0)
		return 0;
	if (s->moe_tokens > 0)
		return s->moe_tokens;
	return (s->nchunks == 0 ? cost_graph_pad(c, tokens) : tokens) * c->p.dp;
}

int64_t cost_step_work(const struct cost_model *c, const struct step_desc *s, double *flops, double *bytes)
{
	int64_t tokens = step_work_body(c, s, flops, bytes), g = work_moe_tokens(c, s, tokens);

	/* the LM head on the sequences that sample: its weights read once */
	if (tokens > 0 && s->nlogits > 0) {
		*flops += c->head_flops_seq * (double)s->nlogits;
		*bytes += c->head_weight_bytes;
	}
	/* attention-DP: this GPU's share of the group's shared MoE layers
	 * (priced once for the group at g tokens, left out of tok_*); past
	 * moe_max its FLOPs grow with g, its bytes (the local experts'
	 * weights, all of them activated long before) do not, as tok_* past
	 * max_m */
	if (g > 0) {
		int64_t k = g > c->moe_max ? c->moe_max : g;
		moe_at(c, k);
		*flops += c->moe_flops[k] * (double)g / (double)k;
		*bytes += c->moe_bytes[k];
	}
	return tokens;
}

void cost_step_work_need(const struct cost_model *c, const struct step_desc *s)
{
	int64_t tokens = s->ndecode, i, g;

	for (i = 0; i < s->nchunks; i++)
		tokens += s->chunk_len[i];
	if (tokens > 0)
		tok_need(c, tokens > c->max_m ? c->max_m : tokens);
	if ((g = work_moe_tokens(c, s, tokens)) > 0)
		moe_at(c, g > c->moe_max ? c->moe_max : g);
}

void cost_work_dec_fill(struct cost_work_dec *w, const struct cost_model *c, const struct step_desc *s)
{
	int64_t tokens = s->ndecode, i = tokens > c->max_m ? c->max_m : tokens;
	double L = (double)c->m->layers;

	if (s->nchunks != 0 || tokens <= 0)
		BUG("cost_work_dec_fill: not a decode-only step");
	w->c = c;
	w->ndecode = s->ndecode;
	w->nlogits = s->nlogits;
	/* step_work_body's terms, as it writes them */
	tok_need(c, i);
	w->tok_f = c->tok_flops[i] * (double)tokens / (double)i;
	w->tok_b = c->tok_bytes[i];
	w->l2 = L * 2.0;
	w->heads = (double)c->heads;
	w->hd = (double)(c->head_dim_qk + c->head_dim_v);
	w->layers = L;
	w->kv_b = c->kv_tok_layer_bytes;
	/* cost_step_work's additions: the head's, and the MoE share's where
	 * work_moe_tokens is > 0 (its own tokens' where s names none) */
	w->head = s->nlogits > 0;
	w->head_f = w->head ? c->head_flops_seq * (double)s->nlogits : 0;
	w->head_b = c->head_weight_bytes;
	w->moe = c->dp_attn;
	w->own_g = c->dp_attn ? cost_graph_pad(c, tokens) * c->p.dp : 0;
}

void cost_work_moe_fill(struct cost_work_moe *m, const struct cost_model *c, int64_t g)
{
	int64_t k = g > c->moe_max ? c->moe_max : g;

	/* cost_step_work's */
	m->c = c;
	m->g = g;
	moe_at(c, k);
	m->f = c->moe_flops[k] * (double)g / (double)k;
	m->b = c->moe_bytes[k];
}

/* H4 off: one roofline over the whole step's FLOPs and bytes. */
static double aggregate(const struct cost_model *c, const struct step_desc *s)
{
	double f, b, mfu;
	int64_t tokens = step_work_body(c, s, &f, &b);

	if (tokens <= 0)
		return 0;
	mfu = mfu_gemm(c->tabs, c->cfg.wdt, (double)tokens, (double)c->m->hidden,
		       (double)c->m->hidden);
	return cost_roofline(c, f, c->peak, mfu, b) + head_part(c, s->nlogits);
}

/* cost_step_s of a decode-only step of a plain model (cost_lazy.plain,
 * no H4, 0 < ndecode, nlogits <= max_seqs, the graph-padded token count
 * within max_m): components' and cost_step_s's operations in their order,
 * the terms that are zero for such a step added as the zeros they are. */
static inline double decode_total_s(const struct cost_model *c, const struct step_desc *s, double tok, double head)
{
	double attn = 0, t, ov, cpu;

	attn += full_decode_row_s(c, cost_decode_row(c, s->ndecode), s->ndecode, s->decode_ctx_sum);
	t = tok + (double)c->m->layers * attn + head + 0.0 + 0.0;
	ov = overhead_s(c, s->ndecode, 0);
	if (!c->cfg.overlap_cpu || (c->cfg.off & COST_H2))
		return t + ov;
	cpu = (c->cfg.ov.step_us + c->cfg.ov.req_us * (double)s->ndecode) * 1e-6;
	cpu = cpu < 0 ? 0 : cpu > ov ? ov : cpu;
	t += ov - cpu;
	return t > cpu ? t : cpu;
}

static double decode_step_s(const struct cost_model *c, const struct step_desc *s, int64_t mtok)
{
	double head = 0;

	tok_need(c, mtok);
	if (s->nlogits > 0) {
		seq_need(c, s->nlogits);
		head = c->head_s[s->nlogits];
	}
	return decode_total_s(c, s, c->tok_s[mtok], head);
}

/* dec[n]: what decode_step_s takes from n alone (1 <= n <= max_seqs). */
static void dec_fill(const struct cost_model *c, int64_t n)
{
	struct cost_lazy *z = c->lazy;
	struct dec_terms *d = &z->dec[n];
	int64_t mtok = cost_graph_pad(c, n);

	if (mtok > c->max_m) {
		z->dec_done[n] = 2;
		return;
	}
	tok_need(c, mtok);
	seq_need(c, n);
	d->tok = c->tok_s[mtok];
	d->head = c->head_s[n];
	z->dec_done[n] = 1;
}

/* A step of t seconds on the GPU with ov seconds of host overheads for its
 * nreq requests: added, or under overlap scheduling the CPU part hidden
 * under the GPU part (step_host, cost_draft_pair_s). */
static inline __attribute__((always_inline)) double host_overlap(const struct cost_model *c, int64_t nreq,
								   double ov, double t)
{
	double cpu;

	if (!c->cfg.overlap_cpu || (c->cfg.off & COST_H2))
		return t + ov;
	cpu = (c->cfg.ov.step_us + c->cfg.ov.req_us * (double)nreq) * 1e-6;
	cpu = cpu < 0 ? 0 : cpu > ov ? ov : cpu;
	t += ov - cpu;
	return t > cpu ? t : cpu;
}

/* cost_step_s's host part: a step of t seconds of components with its
 * overheads (its requests and prefill tokens, not its sampled sequences). */
static inline __attribute__((always_inline)) double step_host(const struct cost_model *c,
								const struct step_desc *s, double t)
{
	int64_t pre = 0, i;

	for (i = 0; i < s->nchunks; i++)
		pre += s->chunk_len[i];
	/* an eager step: the GPU waits for the host's launches (the
	 * overlap scheduler hides the host's other work, not these) */
	if (s->nchunks > 0 && t < c->eager_s)
		t = c->eager_s;
	return host_overlap(c, s->ndecode + s->nchunks, overhead_s(c, s->ndecode + s->nchunks, pre), t);
}

/* loc[n] (1 <= n <= max_m, full_only): what components_local_x takes
 * from n alone for a decode-only step of n decoders (past max_seqs its
 * general path: the absorb term at max_seqs, the head linear in n, the
 * decode grid's column at n). */
/* cost_local_rise_range: the decode attention's log MFU may rise at most this
 * fast against the log of the mean context, so that its compute time
 * rises at least (1 - COST_RISE_SLOPE) / C relatively from summed contexts
 * C to C + 1 (below COST_RISE_CTX: above 4e-11, where the evaluation's
 * rounding -- the mean, its log, the interpolation weight over a segment
 * of COST_RISE_WIDTH at least, exp, the roofline's products -- stays
 * below 1e-12); the tables' decode rows rise at slopes 0.96-1.2 up to
 * 64-128 tokens (a latency flat in the context) and below 0.6 from 1,024 */
#define COST_RISE_SLOPE 0.9
#define COST_RISE_WIDTH 0.05
#define COST_RISE_CTX 0x1p30

static void loc_fill(const struct cost_model *c, int64_t n)
{
	struct cost_lazy *z = c->lazy;
	struct loc_terms *k;
	int64_t mtok = cost_graph_pad(c, n);
	double L = (double)c->m->layers, from;

	if (!z->loc) { /* at the first such step */
		z->loc = xmalloc(xmul((size_t)c->max_m + 1, sizeof(*z->loc))); /* read once set */
		z->loc_done = xcalloc((size_t)c->max_m + 1, 1);
	}
	if (mtok > c->max_m) { /* (tok_part's linear path: the general one) */
		z->loc_done[n] = 2;
		return;
	}
	k = &z->loc[n];
	k->mtok = mtok;
	k->tok = tok_part(c, mtok);
	k->absorb = 0;
	if (c->m->attn == ATTN_MLA) {
		int64_t na = n <= c->cfg.max_seqs ? n : c->cfg.max_seqs;
		seq_need(c, na);
		k->absorb = c->absorb_s[na] / L;
	}
	k->head = head_part(c, n);
	k->moe0 = NAN;
	k->send = 0;
	if (c->p.pp > 1)
		k->send = (double)(c->p.pp - 1) * comm_send_s(&c->place, (double)n * (double)c->m->hidden * 2.0);
	/* (the row or column read by local_decode_a) */
	from = n <= c->cfg.max_seqs ? mfu_row_rises_from(cost_decode_row(c, n), COST_RISE_SLOPE, COST_RISE_WIDTH)
				    : mfu_attn_col_rises_from(cost_decode_wide_col(c, n), COST_RISE_SLOPE, COST_RISE_WIDTH);
	/* past exp(from) by a margin that the mean's and its log's rounding
	 * cannot cross */
	k->rise_mean = from == -INFINITY ? 0 : from == INFINITY ? INFINITY : exp(from) * (1 + 1e-6);
	z->loc_done[n] = 1;
}

/* The terms of decode-only step s's n decoders where components_local_x's
 * decode path through full_decode_row_s applies and its tables hold n
 * (full_only, not plain: decode_total_s prices theirs), else
 * NULL. */
static inline const struct loc_terms *loc_of(const struct cost_model *c, const struct step_desc *s)
{
	const struct cost_lazy *z = c->lazy;
	int64_t n = s->ndecode;

	if (!z->full_only || z->plain || s->nchunks != 0 || n <= 0 || n > c->max_m)
		return NULL;
	if (!z->loc || !z->loc_done[n])
		loc_fill(c, n);
	return z->loc_done[n] == 1 ? &z->loc[n] : NULL;
}

/* components_local_x's a = tok + L attn of such a step (k: loc_of's):
 * its operations and full_decode_row_s's in their order on the same
 * values, the terms of n read from k (an attention-DP rank's own part is
 * priced at every one of its steps the memo misses: the general path's
 * calls and branches cost more than its log and exp). */
static inline __attribute__((always_inline)) double local_decode_a(const struct cost_model *c,
								    const struct loc_terms *k, int64_t n,
								    double ctx_sum)
{
	double L = (double)c->m->layers, attn = 0;

	/* components_local_x */
	if (n <= c->cfg.max_seqs)
		attn += full_decode_row_s(c, &c->decode_rows[n], n, ctx_sum);
	else
		attn += full_decode_wide_s(c, &c->lazy->wide[n - c->cfg.max_seqs - 1], n, ctx_sum);
	if (c->m->attn == ATTN_MLA) {
		attn += k->absorb;
		attn += c->mla_module_s * (double)c->m->n_mixer[LM_FULL] / L;
	}
	return k->tok + L * attn;
}

/* head_part(nl) for such a step (k's when nl is its decoders) */
static inline double loc_head(const struct cost_model *c, const struct loc_terms *k, const struct step_desc *s,
			      int64_t nl)
{
	return nl == s->ndecode ? k->head : head_part(c, nl);
}

double cost_step_s(const struct cost_model *c, const struct step_desc *s)
{
	double t;

	if (s->nchunks == 0 && c->lazy->plain && !(c->cfg.off & COST_H4) && s->ndecode > 0 &&
	    s->ndecode <= c->cfg.max_seqs && s->nlogits <= c->cfg.max_seqs) {
		int64_t mtok;
		if (s->nlogits == s->ndecode) {
			/* decode_step_s with its terms of n kept: the same
			 * operations on the same values */
			const struct dec_terms *d = &c->lazy->dec[s->ndecode];
			if (!c->lazy->dec_done[s->ndecode])
				dec_fill(c, s->ndecode);
			if (c->lazy->dec_done[s->ndecode] == 1)
				return decode_total_s(c, s, d->tok, d->head);
		}
		mtok = cost_graph_pad(c, s->ndecode);
		if (mtok <= c->max_m)
			return decode_step_s(c, s, mtok);
	}

	if (s->nchunks == 0 && !(c->cfg.off & COST_H4)) {
		/* components_x of a decode-only step through loc_of's terms */
		const struct loc_terms *k = loc_of(c, s);
		if (k) {
			double l = local_decode_a(c, k, s->ndecode, s->decode_ctx_sum) + loc_head(c, k, s, s->nlogits) +
				   k->send;
			return step_host(c, s, l + moe_of(c, s, k->mtok));
		}
	}
	if (c->cfg.off & COST_H4) {
		t = aggregate(c, s);
	} else if ((c->cfg.off & COST_H5) && s->nchunks > 0 && s->ndecode > 0) {
		/* the weighted-average pricing of mixed batches that H5 replaces */
		struct step_desc pre = *s, dec = *s;
		double tp, td;
		pre.ndecode = 0;
		pre.decode_ctx_sum = 0;
		dec.nchunks = 0;
		tp = components(c, &pre);
		td = components(c, &dec);
		t = 0.75 * (tp > td ? tp : td) + 0.25 * (tp > td ? td : tp);
	} else {
		t = components(c, s);
	}
	return step_host(c, s, t);
}

bool cost_splits_decode(const struct cost_model *c)
{
	/* cost_step_s's path through components() for a decode-only step of
	 * moe_tokens: neither the plain decode path nor H4's aggregate (H5
	 * takes mixed steps only) */
	return !c->lazy->plain && !(c->cfg.off & COST_H4);
}

bool cost_step_splits(const struct cost_model *c, const struct step_desc *s)
{
	return s->nchunks == 0 && s->moe_tokens > 0 && cost_splits_decode(c);
}

double cost_step_local_s(const struct cost_model *c, const struct step_desc *s)
{
	const struct loc_terms *k = loc_of(c, s);
	int64_t mtok;

	if (k)
		return local_decode_a(c, k, s->ndecode, s->decode_ctx_sum) + loc_head(c, k, s, s->nlogits) + k->send;
	return components_local_x(c, s, 0, NULL, &mtok);
}

void cost_local_rise_range(const struct cost_model *c, int64_t n, double *lo, double *hi)
{
	struct step_desc d;
	const struct loc_terms *k;

	memset(&d, 0, sizeof(d));
	d.ndecode = d.nlogits = n;
	k = loc_of(c, &d);
	*lo = k ? (double)n * k->rise_mean : INFINITY;
	*hi = COST_RISE_CTX;
}

void cost_draft_rise_range(const struct cost_model *c, int64_t n, double *lo, double *hi)
{
	const struct cost_lazy *z = c->lazy;

	/* cost_draft_pair_s's path through loc_of's terms, at n <= max_seqs
	 * (the decode row); the attention's floor (a maximum whose two sides
	 * may be nearly equal) absent, and the layers' KV bytes' time rising
	 * at least 1e-11 s a summed context: the attention's time at least
	 * 0.1 of that (COST_RISE_SLOPE), and spec_draft_s's price, its layer's
	 * share plus the head's difference of two prices, as much, where
	 * their rounding stays below 1e-15 s */
	cost_local_rise_range(c, n, lo, hi);
	if (z->plain || (c->cfg.off & (COST_H4 | COST_H5)) || !z->full_only || n > c->cfg.max_seqs ||
	    c->gqa_dec_floor_s != 0 ||
	    !(c->kv_tok_layer_bytes / c->bw_kv * (double)c->m->n_mixer[LM_FULL] / (double)c->m->layers >= 1e-11))
		*lo = INFINITY;
}

double cost_step_moe_s(const struct cost_model *c, int64_t moe_tokens, bool ext)
{
	return moe_part(c, moe_tokens, ext);
}

double cost_step_join_moe_s(const struct cost_model *c, const struct step_desc *s, double local_s, double moe_s)
{
	return step_host(c, s, local_s + moe_s);
}

double cost_step_join_s(const struct cost_model *c, const struct step_desc *s, double local_s)
{
	return cost_step_join_moe_s(c, s, local_s, cost_step_moe_s(c, s->moe_tokens, s->moe_extend));
}

double cost_step_pair_s(const struct cost_model *c, const struct step_desc *s, int64_t nl2, double *t2)
{
	struct step_desc d2;
	double t;

	if (c->lazy->plain || (c->cfg.off & (COST_H4 | COST_H5))) {
		/* (paths of their own: priced one after the other) */
		d2 = *s;
		d2.nlogits = nl2;
		*t2 = cost_step_s(c, &d2);
		return cost_step_s(c, s);
	}
	if (s->nchunks == 0) {
		/* components_x with t2 of a decode-only step through loc_of's
		 * terms: a computed once, as there */
		const struct loc_terms *k = loc_of(c, s);
		if (k) {
			double a = local_decode_a(c, k, s->ndecode, s->decode_ctx_sum), moe = moe_of(c, s, k->mtok);
			double l = a + loc_head(c, k, s, s->nlogits) + k->send, l2 = a + loc_head(c, k, s, nl2) + k->send;
			*t2 = step_host(c, s, l2 + moe);
			return step_host(c, s, l + moe);
		}
	}
	t = components_x(c, s, nl2, t2);
	*t2 = step_host(c, s, *t2);
	return step_host(c, s, t);
}

double cost_draft_pair_s(const struct cost_model *c, int64_t n, double ctx_sum, double *t2, double *ov_s)
{
	struct cost_lazy *z = c->lazy;
	struct step_desc d;
	double t;

	if (!z->plain && !(c->cfg.off & (COST_H4 | COST_H5)) && z->full_only && n > 0 && n <= c->max_m) {
		/* cost_step_pair_s's path through loc_of's terms for such a
		 * step (nlogits 0, nl2 n): the same operations on the same
		 * values, its overheads computed once (step_host's for n
		 * requests and no prefill, both prices', and the caller's) */
		if (!z->loc || !z->loc_done[n])
			loc_fill(c, n);
		if (z->loc_done[n] == 1) {
			struct loc_terms *k = &z->loc[n];
			double a = local_decode_a(c, k, n, ctx_sum), ov = overhead_s(c, n, 0);
			if (k->moe0 != k->moe0) /* (moe_of's: no group tokens, no prefill) */
				k->moe0 = moe_part(c, k->mtok * c->p.dp, false);
			*ov_s = ov;
			*t2 = host_overlap(c, n, ov, a + k->head + k->send + k->moe0);
			return host_overlap(c, n, ov, a + head_part(c, 0) + k->send + k->moe0);
		}
	}
	memset(&d, 0, sizeof(d));
	d.ndecode = n;
	d.decode_ctx_sum = ctx_sum;
	t = cost_step_pair_s(c, &d, n, t2);
	*ov_s = overhead_s(c, n, 0);
	return t;
}

/* --- a step's price, component by component (cost.h: cost_step_breakdown) --- */

const char *cost_part_name(enum cost_part p)
{
	static const char *const n[CP__COUNT] = {"attention", "gemm", "moe", "comm", "other", "host"};

	return p >= 0 && p < CP__COUNT ? n[p] : "?";
}

static void bd_add(struct cost_breakdown *bd, const char *kind, const char *op, enum cost_part part,
		   double count, double s, double flops, enum cost_bd_how how)
{
	struct cost_bd_row *r;

	bd->rows = xreallocarray(bd->rows, bd->n + 1, sizeof(*bd->rows));
	r = &bd->rows[bd->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->kind, sizeof(r->kind), "%s", kind);
	snprintf(r->op, sizeof(r->op), "%s", op);
	r->part = part;
	r->count = count;
	r->s = s;
	r->flops = flops;
	r->how = how;
	bd->rows_s += count * s;
}

static enum cost_part op_part(const struct op *o)
{
	if (strncmp(o->name, "experts_", 8) == 0)
		return CP_MOE;
	switch (o->kind) {
	case OPK_ATTN: return CP_ATTN;
	case OPK_GEMM: return CP_GEMM;
	case OPK_COMM: return CP_COMM;
	default: return CP_OTHER;
	}
}

/* The attention row of a kind: its operator's name for a decode step (the
 * template is built at one decode token), else what the call runs. */
static const char *attn_row_name(const struct cost_model *c, const struct step_desc *s, const char *op)
{
	if (s->nchunks == 0)
		return op;
	if (s->ndecode > 0)
		return "attn_prefill+decode";
	if (c->m->attn == ATTN_MLA && c->m->index_topk <= 0 && !c->csa) {
		double prefix = 0;
		int64_t i;
		for (i = 0; i < s->nchunks; i++)
			prefix += (double)s->chunk_prefix[i];
		return cost_mla_absorbed(c, prefix) ? "attn_prefill_absorbed" : "attn_prefill+kv_b_proj";
	}
	return "attn_prefill";
}

/* The rows of layer kind k: its operators in graph order, each priced as
 * the step prices it (token-linear ones at mtok tokens, scaled by tok_scale
 * past max_m; the shared MoE ops of attention-DP at g tokens in all, scaled
 * by moe_scale past moe_max), the attention of its mixer once per layer. */
static void bd_kind(const struct cost_model *c, const struct step_desc *s, size_t k, size_t *u, int64_t mtok,
		    double tok_scale, double g, double moe_scale, const double *mix_layers,
		    struct cost_breakdown *bd)
{
	const struct cost_lazy *z = c->lazy;
	const struct layer_kind *lk = &z->gr.kinds[k];
	const int64_t *nk = c->m->n_mixer;
	bool eh = strcmp(lk->name, "embed+head") == 0, attn_done = eh, mla = c->m->attn == ATTN_MLA;
	/* the kind's share of its mixer's layers (embed+head has none) */
	double att_count = mix_layers[lk->mixer] > 0 && !eh
				   ? (double)lk->count * (double)nk[lk->mixer] / mix_layers[lk->mixer]
				   : 0;
	int64_t nabs = s->ndecode <= c->cfg.max_seqs ? s->ndecode : c->cfg.max_seqs;
	size_t j, i;

	for (j = 0; j < lk->nops; j++, (*u)++) {
		const struct op *o = &lk->ops[j];
		double f = 0, b = 0, t;
		if (z->use[*u]) {
			t = cost_op_at(c, o, &z->cols[*u], (double)mtok, &f, &b) * tok_scale;
			bd_add(bd, lk->name, o->name, op_part(o), z->kcnt[k], t, f * tok_scale,
			       t == 0 ? BD_INSIDE : BD_PRICED);
		} else if (c->dp_attn && group_op(c, o)) {
			bool gemm = o->kind == OPK_GEMM;
			t = cost_op_at(c, o, NULL, dp_split_op(c, o) || (gemm && c->p.ep <= 1) ? g : g / (double)c->p.dp,
				       &f, &b) * moe_scale;
			bd_add(bd, lk->name, o->name, op_part(o), (double)lk->count, t, f * moe_scale,
			       t == 0 ? BD_INSIDE : BD_PRICED);
		} else if (mla && (!strcmp(o->name, "q_absorb_uk") || !strcmp(o->name, "out_absorb_uv"))) {
			if (nabs <= 0) /* decode only: a prefill runs the expanded form */
				continue;
			t = cost_gemm_s(c, cost_mla_absorb_dtype(c), (double)nabs, (double)o->n, (double)o->k, (double)o->batch);
			bd_add(bd, lk->name, o->name, CP_GEMM, (double)lk->count, t,
			       2.0 * (double)nabs * (double)o->n * (double)o->k * (double)o->batch, BD_PRICED);
		} else if (o->kind == OPK_ATTN && !attn_done) {
			bd_add(bd, lk->name, attn_row_name(c, s, o->name), CP_ATTN, att_count,
			       cost_attn_step_mixer_s(c, s, lk->mixer), 0, BD_PRICED);
			attn_done = true;
		} else if (o->cat == OPC_LM_HEAD) {
			bd_add(bd, lk->name, o->name, CP_GEMM, 1, head_part(c, s->nlogits),
			       2.0 * (double)s->nlogits * (double)(c->m->vocab / c->p.tp) * (double)c->m->hidden,
			       BD_PRICED);
		} else {
			bd_add(bd, lk->name, o->name, op_part(o), z->kcnt[k], 0, 0,
			       strcmp(o->name, "final_norm") == 0 ? BD_UNPRICED : BD_INSIDE);
		}
	}
	if (!attn_done && cost_attn_step_mixer_s(c, s, lk->mixer) > 0)
		bd_add(bd, lk->name, attn_row_name(c, s, "attention"), CP_ATTN, att_count,
		       cost_attn_step_mixer_s(c, s, lk->mixer), 0, BD_PRICED);
	if (mla && s->ndecode > 0 && c->mla_module_s != 0 && lk->mixer == LM_FULL && att_count > 0)
		bd_add(bd, lk->name, "mla module term", CP_ATTN, att_count, c->mla_module_s, 0, BD_PRICED);
	if (c->dp_attn) { /* without EP: the DP gather of the MoE layer's tokens */
		/* with a prefill in the group, SGLang's two all-reduces instead
		 * (dp_extend_extra_s, spread over the layers it counts) */
		bool ext = (s->moe_extend || s->nchunks > 0) && c->cfg.engine->dp_extend_allreduce;
		double layers = 0;
		for (i = 0; i < z->moe_ops.n; i++)
			if (z->moe_ops.e[i].j < 0)
				layers += (double)z->gr.kinds[z->moe_ops.e[i].k].count;
		for (i = 0; i < z->moe_ops.n; i++)
			if (z->moe_ops.e[i].k == k && z->moe_ops.e[i].j < 0)
				bd_add(bd, lk->name, ext ? "dp_allreduce x2" : "dp_gather", CP_COMM, (double)lk->count,
				       comm_dp_gather_s(gather_tab(c), c->g, &c->place, c->p.tp * c->p.dp,
							g * (double)c->m->hidden * 2.0) *
						       moe_scale +
					       (ext ? dp_extend_extra_s(c, g * moe_scale) / layers : 0),
				       0, BD_PRICED);
	}
}

int cost_step_breakdown(const struct cost_model *c, const struct step_desc *s, struct cost_breakdown *bd,
			struct err *e)
{
	const struct cost_lazy *z = c->lazy;
	const struct overheads *ov = &c->cfg.ov;
	double mix_layers[LM__COUNT] = {0}, g, t, host, cpu, nreq = (double)(s->ndecode + s->nchunks);
	int64_t tokens = s->ndecode, pre = 0, mtok, i;
	size_t k, u = 0;
	int mx;

	memset(bd, 0, sizeof(*bd));
	if (c->cfg.off & (COST_H4 | COST_H5))
		return err_set(e, SS_EUSAGE, "a step's breakdown prices it per component: not with H4 or H5 off (--tier0-off)");
	for (i = 0; i < s->nchunks; i++)
		pre += s->chunk_len[i];
	tokens += pre;
	mtok = s->nchunks == 0 ? cost_graph_pad(c, tokens) : tokens;
	g = (double)(s->moe_tokens > 0 ? s->moe_tokens : mtok * c->p.dp);
	bd->tokens = tokens;
	bd->graph_tokens = mtok;
	bd->moe_tokens = c->dp_attn ? (int64_t)g : 0;
	for (k = 0; k < z->gr.nkinds; k++)
		if (strcmp(z->gr.kinds[k].name, "embed+head") != 0)
			mix_layers[z->gr.kinds[k].mixer] += (double)z->gr.kinds[k].count;
	for (k = 0; k < z->gr.nkinds; k++)
		bd_kind(c, s, k, &u, mtok > c->max_m ? c->max_m : mtok,
			mtok > c->max_m ? (double)mtok / (double)c->max_m : 1.0,
			g > (double)c->moe_max && c->moe_max > 0 ? (double)c->moe_max : g,
			g > (double)c->moe_max && c->moe_max > 0 ? g / (double)c->moe_max : 1.0, mix_layers, bd);
	for (mx = 0; mx < LM__COUNT; mx++) /* a mixer no layer kind holds */
		if (c->m->n_mixer[mx] > 0 && mix_layers[mx] == 0 && cost_attn_step_mixer_s(c, s, mx) > 0)
			bd_add(bd, "step", attn_row_name(c, s, "attention"), CP_ATTN, (double)c->m->n_mixer[mx],
			       cost_attn_step_mixer_s(c, s, mx), 0, BD_PRICED);
	if (c->p.pp > 1) /* activations handed between stages */
		bd_add(bd, "step", "pp_send", CP_COMM, (double)(c->p.pp - 1),
		       comm_send_s(&c->place, (double)tokens * (double)c->m->hidden * 2.0), 0, BD_PRICED);
	bd->gpu_s = bd->rows_s;
	t = bd->rows_s;
	/* an eager step waits for the host's launches */
	if (s->nchunks > 0 && t < c->eager_s) {
		bd_add(bd, "step", "eager launch floor", CP_HOST, 1, c->eager_s - t, 0, BD_PRICED);
		t = c->eager_s;
	}
	host = cost_overhead_s(c, (int64_t)nreq, pre);
	if (host > 0) { /* the terms that are not 0 (a tier-1 term may be negative) */
		const double term[4][2] = {{1, ov->step_us}, {(double)c->m->layers, ov->layer_us},
					   {nreq, ov->req_us}, {(double)pre, ov->prefill_token_us}};
		static const char *const name[4] = {"host per step", "host per layer", "host per request",
						     "host per prefill token"};
		for (mx = 0; mx < 4; mx++)
			if (term[mx][0] > 0 && term[mx][1] != 0)
				bd_add(bd, "step", name[mx], CP_HOST, term[mx][0], term[mx][1] * 1e-6, 0, BD_PRICED);
	}
	if (c->cfg.overlap_cpu && !(c->cfg.off & COST_H2)) {
		/* overlap scheduling: the CPU part runs under the GPU part */
		cpu = (ov->step_us + ov->req_us * nreq) * 1e-6;
		cpu = cpu < 0 ? 0 : cpu > host ? host : cpu;
		if (cpu > 0)
			bd_add(bd, "step", "host hidden (overlap)", CP_HOST, 1,
			       t + host - cpu > cpu ? -cpu : cpu - t - host, 0, BD_PRICED);
	}
	bd->step_s = cost_step_s(c, s);
	return 0;
}

void cost_breakdown_release(struct cost_breakdown *bd)
{
	free(bd->rows);
	memset(bd, 0, sizeof(*bd));
}
