/* cost.c - tier-0 step pricing.  See cost.h for the model; the choices that
 * are ours are explained where they are made. */
#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "cost/cost.h"
#include "base/dmemo.h"
#include "model/opgraph.h"
#include "base/paths.h"
#include "cost/csamod.h"
#include "cost/dsamod.h"
#include "cost/kern.h"

int cost_parse_off(const char *s, unsigned *bits, struct err *e)
{
	char buf[128], *tok, *save = NULL;

	*bits = 0;
	if (!s || !*s)
		return 0;
	if (strlen(s) >= sizeof(buf))
		return err_set(e, SS_EUSAGE, "--tier0-off: too long");
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if ((tok[0] == 'H' || tok[0] == 'h') && tok[1] >= '1' && tok[1] <= '6' && !tok[2])
			*bits |= 1u << (tok[1] - '1');
		else if (strcasecmp(tok, "none") == 0)
			continue;
		else
			return err_set(e, SS_EUSAGE,
				       "--tier0-off: unknown correction '%s' (expected a list of H1..H6)", tok);
	}
	return 0;
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

static double roofline(const struct cost_model *c, double flops, double peak, double mfu,
		       double bytes)
{
	return cost_roofline_bw(c, flops, peak, mfu, bytes, c->bw);
}

/* Price one per-token operator at m step tokens (m_in tokens enter the
 * experts on this rank with EP). */
static double op_at(const struct cost_model *c, const struct op *o, const struct mfu_gemm_col *col,
		    double m, double *flops, double *bytes)
{
	const struct model_cfg *md = c->m;
	double t = 0, f = 0, b = 0;
	enum dtype dt = o->low_precision ? c->cfg.wdt : DT_BF16;

	switch (o->kind) {
	case OPK_GEMM:
		if (strcmp(o->name, "experts_gate_up") == 0) {
			/* the routed experts run as one fused kernel (gate_up,
			 * activation and down together): priced once, here */
			bool ep = c->p.ep > 1;
			double tin = ep ? m * c->p.dp : m;
			/* physical expert slots (redundant copies included) */
			double slots = (double)md->n_experts + (ep ? c->p.ep_redundant : 0);
			t = cost_moe_s(c, tin);
			f = 2.0 * 3.0 * tin * (double)md->top_k * c->moe_shape.hidden *
			    (double)c->moe_shape.inter / c->moe_shape.tp / c->moe_shape.ep;
			b = moe_expected_experts(slots / c->moe_shape.ep, slots, tin * (double)md->top_k) *
			    3.0 * c->moe_shape.hidden * c->moe_shape.inter / c->moe_shape.tp *
			    dtype_bytes(c->moe_wdt);
		} else if (strcmp(o->name, "experts_down") == 0) {
			t = 0; /* inside the fused kernel above */
		} else if ((c->cfg.off & COST_H3) && (strcmp(o->name, "qkv_proj") == 0 ||
						      strstr(o->name, "gate_up_proj"))) {
			/* unfused: q, k, v (or gate, up) as separate GEMMs */
			if (o->name[0] == 'q') {
				double q = (double)(md->heads / c->p.tp * md->head_dim);
				double kv = ((double)o->n - q) / 2;
				t = cost_gemm_s(c, dt, m, q, (double)o->k, 1) +
				    2 * cost_gemm_s(c, dt, m, kv, (double)o->k, 1);
			} else {
				t = 2 * cost_gemm_s(c, dt, m, (double)o->n / 2, (double)o->k, 1);
			}
			f = 2.0 * m * (double)o->n * (double)o->k;
			b = (double)o->n * (double)o->k * dtype_bytes(dt);
		} else {
			t = cost_gemm_col_s(c, col, dt, m, (double)o->n, (double)o->k, (double)o->batch);
			f = 2.0 * m * (double)o->n * (double)o->k * (double)o->batch;
			b = (double)o->n * (double)o->k * (double)o->batch * dtype_bytes(dt);
		}
		break;
	case OPK_ELEMENTWISE:
	case OPK_OTHER:
		if (strcmp(o->name, "experts_act_mul") == 0)
			break; /* inside the fused MoE kernel */
		/* built at one token: scale linearly */
		f = o->flops * m;
		b = (o->act_bytes + o->weight_bytes) * m;
		t = b / c->bw;
		break;
	case OPK_COMM:
		if (strncmp(o->name, "allreduce", 9) == 0) {
			t = cost_allreduce_s(c, m * (double)md->hidden);
		} else if (c->p.ep > 1 && (c->dp_attn || c->place.ep_cross)) {
			/* wide EP over DP ranks or nodes runs DeepEP (comm.c);
			 * act_bytes holds the (ep-1)/ep share leaving the GPU */
			double share = (double)(c->p.ep - 1) / c->p.ep;
			t = comm_a2a_s(&c->comm, c->g, &c->place, cost_ep_mode(c, m),
				       strcmp(o->name, "ep_combine") == 0, c->p.ep,
				       o->act_bytes * m / share);
		} else {
			t = 10e-6 + o->act_bytes * m / (c->g->link_bw * 0.7);
		}
		break;
	case OPK_ATTN:
		break;
	}
	*flops += f;
	*bytes += b;
	return t;
}

/* Whose collection times the kernel of vLLM's fused all-reduce
 * (cost_cfg.ar_fused_bytes): vLLM's pass calls FlashInfer's
 * trtllm_allreduce_fusion (vllm-project/vllm
 * vllm/compilation/passes/fusion/allreduce_rms_fusion.py @ 0052812d,
 * call_trtllm_fused_allreduce_norm; flashinfer-ai/flashinfer
 * flashinfer/comm/trtllm_ar.py), TensorRT-LLM's all-reduce fusion kernel. */
#define AR_FUSED_TABLES "trtllm"

double cost_allreduce_s(const struct cost_model *c, double elems)
{
	double t;

	if (c->place.tp_cross) /* a TP group over several nodes */
		t = comm_allreduce_cross_s(&c->place, c->p.tp, elems * 2.0);
	else if (c->ar_tabs && elems * 2.0 <= c->cfg.ar_fused_bytes &&
		 (t = mfu_allreduce_s(c->ar_tabs, c->p.tp, elems)) >= 0)
		; /* vLLM's fused all-reduce (cost_cfg.ar_fused_bytes) */
	else
		t = mfu_allreduce_s(c->tabs, c->p.tp, elems);
	if (t < 0) /* ring model over the GPU's link */
		t = 10e-6 + 2.0 * (c->p.tp - 1) / c->p.tp * elems * 2.0 / (c->g->link_bw * 0.7);
	return t;
}

/* Ops of an MoE layer that attention-DP ranks share: the routed experts
 * and the EP all-to-all around them (router, shared experts, attention and
 * norms stay with each rank's own batch). */
static bool moe_shared_op(const struct op *o)
{
	return strncmp(o->name, "experts_", 8) == 0 || strcmp(o->name, "ep_dispatch") == 0 ||
	       strcmp(o->name, "ep_combine") == 0;
}

/* Shared MoE part at g tokens summed over the DP ranks.  op_at's expert
 * GEMMs take the rank's tokens and scale them by dp with EP, by 1 without;
 * the per-token ops were built at one token per rank: each is called with
 * the m that makes it see g tokens in all. */
/* The ops moe_shared_at prices, in graph order: (kind, op), op -1 for a
 * kind's DP gather (found once: the table has up to 65,536 entries, and
 * matching every op's name at each was most of a DeepSeek run's
 * start-up). */
struct shared_ops {
	size_t n;
	struct shared_op_ref {
		size_t k;
		ptrdiff_t j;
	} *e;
};

static void shared_ops_find(const struct cost_model *c, const struct opgraph *gr, struct shared_ops *so)
{
	size_t k, j;

	so->n = 0;
	so->e = NULL;
	for (k = 0; k < gr->nkinds; k++) {
		const struct layer_kind *lk = &gr->kinds[k];
		for (j = 0; j < lk->nops; j++)
			if (moe_shared_op(&lk->ops[j])) {
				so->e = xreallocarray(so->e, so->n + 1, sizeof(*so->e));
				so->e[so->n++] = (struct shared_op_ref){k, (ptrdiff_t)j};
			}
		/* without EP every GPU needs every rank's tokens (comm.c) */
		if (c->p.ep <= 1 && strcmp(lk->name, "moe") == 0) {
			so->e = xreallocarray(so->e, so->n + 1, sizeof(*so->e));
			so->e[so->n++] = (struct shared_op_ref){k, -1};
		}
	}
}

static double moe_shared_at(const struct cost_model *c, const struct opgraph *gr, const struct shared_ops *so,
			    double g)
{
	double t = 0, f = 0, b = 0, dp = (double)c->p.dp;
	size_t i;

	for (i = 0; i < so->n; i++) {
		const struct layer_kind *lk = &gr->kinds[so->e[i].k];
		if (so->e[i].j < 0) {
			t += (double)lk->count *
			     comm_dp_gather_s(&c->place, c->p.tp * c->p.dp, g * (double)c->m->hidden * 2.0);
		} else {
			const struct op *o = &lk->ops[so->e[i].j];
			bool gemm = o->kind == OPK_GEMM;
			t += (double)lk->count *
			     op_at(c, o, NULL, gemm && c->p.ep <= 1 ? g : g / dp, &f, &b);
		}
	}
	return t;
}

static bool per_step_attention_op(const struct op *o)
{
	return o->kind == OPK_ATTN || strcmp(o->name, "kv_b_proj") == 0 ||
	       strcmp(o->name, "q_absorb_uk") == 0 || strcmp(o->name, "out_absorb_uv") == 0 ||
	       strcmp(o->name, "indexer_topk") == 0;
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

/* Linear attention (Gated DeltaNet and the like), fitted per engine on
 * aiconfigurator's measured GDN kernels (conv + chunked delta rule for a
 * prefill, conv update + recurrent kernel for a decode step) by
 * scripts/mfu/fit_gdn.py: the form is cost.h's struct cost_lin_terms, each
 * engine's terms its cost_engine.lin (src/engine/<name>.c).  The chunk
 * chain of a sequence is not the tensor peak: the H20's 4096-token prefill
 * runs at the H100's speed. */
#define LIN_CHUNK 64.0 /* FLA's and FlashInfer's chunk length */

/* KDA (Kimi Delta Attention: a gated delta rule with a per-channel forget
 * gate over the same head_k_dim x head_v_dim state per head) in the GDN form
 * above, fitted by scripts/mfu/fit_kda.py on aiconfigurator's measured KDA
 * kernels (aic <gpu>/kda/vllm-0.1.dev19262/kda_perf.csv, a vLLM Kimi-K3
 * preview build; H100/H200/B200 fitted, L40S predicted): a prefill is
 * causal_conv1d_fn_qkv3 + flashkda_fwd, less the conv's constant 0.42-0.44 ms
 * host floor at one token (on every GPU and head count alike; one 2.1 us
 * launch kept), a decode step causal_conv1d_update + the packed recurrent
 * decode.  Median |log error| before (vLLM's GDN terms) -> after, and the
 * hold-outs: README "Linear attention" and fit_kda.py's output.  Measured on
 * vLLM only: every engine is priced with these. */
#define LIN_KDA_VLLM 2.034e-05, 3.108e-06, 1.284e-11, 0.07478, 41.4, 6.38e-06, 0.7819

/* Mamba2 (Nemotron-H): the measured tables hold only its causal conv
 * (aic-engines <gpu>/linear_attention/trtllm/1.3.0rc20/mamba2_perf.csv,
 * TensorRT-LLM 1.3 on H100/H200/B200); scripts/mfu/fit_mamba2.py fits it as
 *   prefill  launch + per_seq x b + b s C x tok_bytes / HBM
 *   decode   gen_launch + b C x gen_bytes / HBM
 * with C = mamba heads x head dim + 2 groups x state size channels per GPU,
 * and prices the scan with the GDN form fitted on TensorRT-LLM's GDN
 * recurrence kernels alone (chunk_gated_delta_rule, fused_recurrent_gated_
 * delta_rule: no SSD scan is measured in the data we hold; E = heads x head
 * dim x state size).  Every engine is priced with these (TensorRT-LLM's is the
 * only measured Mamba2 kernel). */
struct conv_terms {
	double launch, per_seq, tok_bytes, gen_launch, gen_bytes;
};
#define LIN_MAMBA2_CONV 5.198e-06, 5.896e-06, 5.678, 3.808e-06, 23.54
#define LIN_MAMBA2_SCAN 1.639e-05, 1.274e-06, 1.277e-11, 6.995e-14, 14.7, 4.489e-06, 0.9956

static const struct conv_terms mamba2_conv = {LIN_MAMBA2_CONV};

/* The linear-attention terms of the model's kind: KDA's and Mamba2's
 * measured fits, the engine's GDN terms otherwise. */
static const struct cost_lin_terms *lin_terms_for(const struct model_cfg *m, const struct cost_engine *en)
{
	static const struct cost_lin_terms kda = {LIN_KDA_VLLM}, mamba2 = {LIN_MAMBA2_SCAN};

	if (m->lin.kind == LIN_KDA)
		return &kda;
	if (m->lin.kind == LIN_MAMBA2)
		return &mamba2;
	return &en->lin;
}

/* The opgraph's causal_conv1d op is priced inside cost_linear_attn_s for
 * the kinds whose fits include the conv (KDA, Mamba2), not per token. */
static bool lin_conv_in_terms(const struct cost_model *c, const struct op *o)
{
	return (c->m->lin.kind == LIN_KDA || c->m->lin.kind == LIN_MAMBA2) &&
	       strcmp(o->name, "causal_conv1d") == 0;
}

/* Mamba2's measured conv of one layer (see above). */
static double mamba2_conv_s(const struct cost_model *c, double tokens, double seqs, bool decode)
{
	const struct model_cfg *m = c->m;
	const struct conv_terms *k = &mamba2_conv;
	double kh = (double)m->lin.k_heads / c->p.tp;
	double ch = (double)m->lin.v_heads / c->p.tp * (double)m->lin.v_dim +
		    2.0 * (kh < 1 ? 1.0 : kh) * (double)m->lin.k_dim;
	double bw = c->g->hbm_bw;

	if (decode)
		return k->gen_launch + seqs * ch * k->gen_bytes / bw;
	return k->launch + k->per_seq * seqs + tokens * ch * k->tok_bytes / bw;
}

/* The linear-attention terms' part of the run header. */
static void lin_terms_note(const struct cost_model *c, const struct cost_lin_terms *k, char *out, size_t cap)
{
	if (c->m->lin.kind == LIN_KDA)
		snprintf(out, cap,
			 "KDA fitted on measured vLLM 0.1.dev19262 KDA kernels (mfu/<gpu>/kda, data/mfu/fit_kda.py; "
			 "every engine): prefill %.0f us + %.2f us a 64-token chunk + SM and HBM terms (%d SMs), "
			 "decode state pass at %.2f of HBM + %.1f us",
			 k->launch * 1e6, k->per_chunk * 1e6, c->g->sm_count, k->gen_eta, k->gen_launch * 1e6);
	else if (c->m->lin.kind == LIN_MAMBA2)
		snprintf(out, cap,
			 "Mamba2: conv fitted on measured TensorRT-LLM 1.3 mamba2 conv kernels (data/mfu/fit_mamba2.py; "
			 "every engine): prefill %.1f us + %.2f us a sequence + HBM term, decode %.1f us + HBM term; "
			 "scan in the GDN form fitted on TensorRT-LLM's GDN recurrence kernels (no SSD scan measured): "
			 "prefill %.0f us + %.2f us a 64-token chunk + SM and HBM terms, decode state pass at %.2f of HBM",
			 mamba2_conv.launch * 1e6, mamba2_conv.per_seq * 1e6, mamba2_conv.gen_launch * 1e6,
			 k->launch * 1e6, k->per_chunk * 1e6, k->gen_eta);
	else
		snprintf(out, cap,
			 "fitted on measured GDN kernels of %s (data/mfu/fit_gdn.py): prefill %.0f us + %.2f us a "
			 "64-token chunk + SM and HBM terms (%d SMs), decode state pass at %.2f of HBM + %.1f us",
			 c->cfg.engine->name, k->launch * 1e6, k->per_chunk * 1e6,
			 c->g->sm_count, k->gen_eta, k->gen_launch * 1e6);
}

/* The run header's line for the linear-attention layers (and Kimi Linear's
 * attention residuals, which have no measured kernel). */
static void lin_source_note(const struct cost_model *c, char *out, size_t cap)
{
	const struct cost_lin_terms *k = c->lin;
	size_t n;

	lin_terms_note(c, k, out, cap);
	n = strlen(out);
	if (c->m->attn_res_block > 0 && n < cap)
		snprintf(out + n, cap - n,
			 "; attention residuals (blocks of %lld layers): an elementwise roofline op per sublayer, "
			 "no measured kernel",
			 (long long)c->m->attn_res_block);
}

/* The provenance note of a priced component: measured on the GPU itself
 * (own), or borrowed from the GPU whose tables g uses. */
/* A run-header line, cut at cap like snprintf: through vsnprintf because
 * the MoE line's parts can in principle exceed the buffer, which gcc's
 * -Wformat-truncation flags at -O1 (the ASan build); the cut is harmless. */
static void header_line(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void header_line(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
}

static void part_note(const struct cost_model *c, bool own, char *note, size_t cap)
{
	const struct gpu_spec *g = c->g;

	note[0] = '\0';
	if (own)
		snprintf(note, cap, " (measured on %.40s%s%.40s%s)", g->measured,
			 g->meas_hbm_bw != g->hbm_bw ? "; memory-bound parts at " : "",
			 g->meas_hbm_bw != g->hbm_bw ? g->id : "",
			 g->meas_hbm_bw != g->hbm_bw ? "'s bandwidth" : "");
	else if (g->tables_of[0])
		snprintf(note, cap, " (%.40s's roofline efficiency on %.40s%s)", g->tables_of, g->id,
			 g->compute_eff_scale > 1 ? ", compute-bound x compute_eff_scale" : "");
}

/* The rebasing of an attention configuration on the GPU's own nearest
 * measured layout (mfu_attn_anchor_own), for the run header; "" when
 * there is none. */
static void anchor_note(const struct cost_model *c, const struct mfu_attn_cfg *a, const char *own,
			const char *lender, char *out, size_t cap)
{
	out[0] = '\0';
	if (a && a->anchored)
		snprintf(out, cap, ": nearest measured layout %d-%d-%d %s KV, x this layout's ratio to it in %.90s",
			 a->anchor_heads, a->anchor_kv_heads, a->anchor_head_dim,
			 dtype_name(a->anchor_kv_dtype), lender);
	else if (a && !a->own && own[0])
		snprintf(out, cap, ", %d-%d-%d %s KV: no %.40s-measured layout within reach", a->heads,
			 a->kv_heads, a->head_dim, dtype_name(a->kv_dtype), c->g->measured);
}

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
static double mla_module_engine_s(const struct gpu_spec *g, const struct cost_cfg *cfg)
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
	return mla_module_engine_s(g, cfg);
}

/* The context (prefill) term for the engine and GPU, whatever the model:
 * per prefill token per MLA layer. */
static double mla_ctx_engine_s(const struct gpu_spec *g, const struct cost_cfg *cfg, int heads)
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
	return mla_ctx_engine_s(g, cfg, heads);
}

/* DSA (DeepSeek-V3.2, GLM-5) kernel terms, fitted on InferSim's H800 kernel
 * timings (alibaba/InferSim f2293da, bench_data/dsa/{decode,prefill}/h800/;
 * ../shared/data/mfu/infersim), nothing per model:
 * - the lightning indexer's fp8 MQA logits over every cached key (DeepGEMM,
 *   logits-64-128.csv).  Decode (next_n 1, batch 64, 1k..128k keys): a
 *   launch plus each key's index entry (index_head_dim fp8 bytes + an fp32
 *   scale) streamed at a fraction of HBM: 6.6 us and 0.78 of 3.35 TB/s
 *   (minimax fit over the 8 rows: largest |log error| 0.090).  Prefill
 *   (4096 or 2048 queries x 4k..128k keys): its FLOPs at 0.617 of the fp8
 *   peak (median over the 10 rows with >= 8k keys).
 * - the sparse attention itself runs the absorbed (MQA, latent) form over
 *   the top-k keys (FlashMLA sparse, attn-128-576-2048.csv): in a prefill at
 *   0.615 of the bf16 peak (median of the 6 rows, 4096 queries x top-2048),
 *   QK over kv_lora + rope dims and PV over kv_lora; the latent is not
 *   up-projected for the context, only the new tokens' queries and outputs
 *   are absorbed (the kv_b GEMM over the chunk).  In a decode the dense MLA
 *   decode table at the capped length (InferSim's H800 sparse decode at
 *   batch 64: 91-97 us for any context; the MLA table at 2048 keys: within
 *   15 %, checked by test_kernels.c); both walk all top-k entries per query. */
#define DSA_IDX_DECODE_LAUNCH_S 6.6e-6
#define DSA_IDX_DECODE_BW_EFF 0.78
#define DSA_IDX_PREFILL_MFU 0.617
#define DSA_PREFILL_MFU 0.615

/* Bytes of one key's index entry (fp8 key + fp32 scale). */
static double dsa_key_bytes(const struct model_cfg *m)
{
	return (double)m->index_head_dim + 4.0;
}

/* The run header's DSA lines: the parts' terms and the module term on top
 * (dsamod.h), or why there is none. */
static void dsa_sources(struct cost_model *c)
{
	const struct model_cfg *m = c->m;
	int64_t shared = m->n_mixer[LM_FULL] - m->index_layers;
	char mod[2][360], sh[2][120];
	int i;

	if (m->attn != ATTN_MLA || m->index_topk <= 0)
		return;
	for (i = 0; i < 2; i++) {
		bool pre = i == 0;
		sh[i][0] = '\0';
		if (c->dsa) {
			char note[320];
			dsa_module_note(c->dsa, pre, note, sizeof(note));
			snprintf(mod[i], sizeof(mod[i]), " + module - parts of %s", note);
		} else if (c->g->measured[0]) {
			snprintf(mod[i], sizeof(mod[i]), "; no module term (%.40s prices from InferSim's own measurements)",
				 c->g->measured);
		} else {
			snprintf(mod[i], sizeof(mod[i]), "; no measured DSA module for %.16s on %.31s: sum of parts",
				 c->cfg.engine->name, c->g->tables[0] ? c->g->tables : c->g->id);
		}
		if (shared > 0 && c->dsa && dsa_module_has_shared(c->dsa, pre))
			snprintf(sh[i], sizeof(sh[i]), "; %lld of %lld layers reuse an earlier top-k: their own "
				 "measured module", (long long)shared, (long long)m->n_mixer[LM_FULL]);
		else if (shared > 0 && c->dsa)
			snprintf(sh[i], sizeof(sh[i]), "; %lld of %lld layers reuse an earlier top-k: MLA module "
				 "term %+.1f us%s", (long long)shared, (long long)m->n_mixer[LM_FULL],
				 (pre ? c->dsa_shared_tok_s * 1e9 : c->dsa_shared_dec_s * 1e6),
				 pre ? " per 1k tokens" : "");
	}
	header_line(c->src[COST_SRC_DSA_PREFILL], sizeof(c->src[0]),
		    "parts: indexer logits at %.3f of the fp8 peak, sparse MLA over top-%lld keys a query at "
		    "%.3f of the attention peak (InferSim H800 fit)%s%s",
		    DSA_IDX_PREFILL_MFU, (long long)m->index_topk, DSA_PREFILL_MFU, mod[0], sh[0]);
	header_line(c->src[COST_SRC_DSA_DECODE], sizeof(c->src[0]),
		    "parts: indexer %.1f us + %.0f B a key at %.2f of HBM (InferSim H800 fit), sparse MLA on the "
		    "decode attention table at %lld keys%s%s",
		    DSA_IDX_DECODE_LAUNCH_S * 1e6, dsa_key_bytes(m), DSA_IDX_DECODE_BW_EFF, (long long)m->index_topk,
		    mod[1], sh[1]);
}

/* One windowed lookup (mfu_window) in words: the measured window(s) and
 * layout(s) it reads. */
static void window_desc(const struct mfu_window *w, char *out, size_t cap)
{
	const struct mfu_attn_cfg *a = w->cfg[0], *b = w->cfg[1];

	if (!a) {
		snprintf(out, cap, "none");
		return;
	}
	if (!b || b == a || w->mix == 0.0 || w->mix == 1.0) {
		const struct mfu_attn_cfg *x = b && w->mix == 1.0 ? b : a;
		snprintf(out, cap, "%s window %d, %d-%d-%d %s KV", x->window == w->window ? "measured" : "held at measured",
			 x->window, x->heads, x->kv_heads, x->head_dim, dtype_name(x->kv_dtype));
		return;
	}
	snprintf(out, cap, "windows %d (%d-%d-%d %s KV) and %d (%d-%d-%d %s KV) mixed %.2f / %.2f in 1/window",
		 a->window, a->heads, a->kv_heads, a->head_dim, dtype_name(a->kv_dtype), b->window, b->heads,
		 b->kv_heads, b->head_dim, dtype_name(b->kv_dtype), 1 - w->mix, w->mix);
}

/* The sliding-window layers' source line. */
static void window_source_note(const struct cost_model *c, char *out, size_t cap)
{
	const struct mfu_tables *t = c->tabs;
	char p[160], d[160];

	if (!c->win_prefill.cfg[0] && !c->win_decode.cfg[0]) {
		snprintf(out, cap, "window %lld: no windowed kernel tables for %s: the dense tables with the keys capped at the window",
			 (long long)c->m->window.size, c->g->id);
		return;
	}
	window_desc(&c->win_prefill, p, sizeof(p));
	window_desc(&c->win_decode, d, sizeof(d));
	if (strcmp(p, d) == 0)
		snprintf(d, sizeof(d), "the same");
	if (!c->win_decode.cfg[0] && c->cfg.engine->dense_window_decode) {
		header_line(out, cap, "window %lld: dense rows at the capped keys x the windowed kernel's cost over them: "
			    "%.112s (%.150s); decode: the dense rows at the capped keys (TensorRT-LLM's windowed "
			    "decode rows not used)", (long long)c->m->window.size,
			    t->src[MFU_P_ATTN_PREFILL_WIN][0] ? t->src[MFU_P_ATTN_PREFILL_WIN] : "prefill -", p);
		return;
	}
	header_line(out, cap, "window %lld: dense rows at the capped keys x the windowed kernel's cost over them: %.112s (%.150s), %.112s (%.150s)",
		    (long long)c->m->window.size, t->src[MFU_P_ATTN_PREFILL_WIN][0] ? t->src[MFU_P_ATTN_PREFILL_WIN] : "prefill -",
		    p, t->src[MFU_P_ATTN_DECODE_WIN][0] ? t->src[MFU_P_ATTN_DECODE_WIN] : "decode -", d);
}

/* The run header's attention lines for DeepSeek-V4: the engine's measured
 * blocks (csamod.h), borrowed from another GPU's table, or the fitted parts
 * model. */
static void csa_sources(struct cost_model *c)
{
	int i;

	if (!c->csa)
		return;
	for (i = 0; i < 2; i++) {
		bool pre = i == 0;
		char *dst = c->src[pre ? COST_SRC_ATTN_PREFILL : COST_SRC_ATTN_DECODE];
		char note[400];
		if (csa_module_has_table(c->csa)) {
			csa_module_note(c->csa, pre, note, sizeof(note));
			if (c->g->tables_of[0])
				header_line(dst, sizeof(c->src[0]), "DeepSeek-V4 blocks measured on %.40s, x the fitted "
					    "parts model's %.40s / %.40s ratio: %s", c->g->tables_of, c->g->id,
					    c->g->tables_of, note);
			else
				header_line(dst, sizeof(c->src[0]), "DeepSeek-V4 blocks measured: %s", note);
		} else {
			header_line(dst, sizeof(c->src[0]),
				    "DeepSeek-V4 blocks: no measured %s table on %.31s: parts (GEMMs, attention, bytes) "
				    "at the efficiencies fitted on the H100/H200/B200 blocks (data/mfu/"
				    "check_dsv4_module.py): CSA / HCA layer %.0f / %.0f us %s",
				    c->cfg.engine->name, c->g->tables[0] ? c->g->tables : c->g->id,
				    (pre ? cost_csa_block_s(c, LM_CSA, true, 1, 1024, 0)
					 : cost_csa_block_s(c, LM_CSA, false, 1, 1, 4095)) * 1e6,
				    (pre ? cost_csa_block_s(c, LM_HCA, true, 1, 1024, 0)
					 : cost_csa_block_s(c, LM_HCA, false, 1, 1, 4095)) * 1e6,
				    pre ? "for one 1k-token prompt" : "at batch 1 x 4k keys");
		}
	}
}

/* Fill c->src: which table (and version) or fallback prices each component. */

/* AMD GPUs: no public measured attention or all-reduce timings were found
 * (issue 29; docs/hardware.md), so a part priced by the roofline or the
 * ring model says that it is a fallback. */
#define AMD_AR_MEASURED "mi300x"

static void amd_fallback_note(struct cost_model *c)
{
	static const enum cost_src parts[] = {COST_SRC_ATTN_PREFILL, COST_SRC_ATTN_DECODE, COST_SRC_ALLREDUCE};
	size_t i, n;

	if (strcmp(c->g->vendor, "amd") != 0)
		return;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *s = c->src[parts[i]];
		if (strncmp(s, "roofline", 8) != 0 && strncmp(s, "ring model", 10) != 0)
			continue;
		n = strlen(s);
		snprintf(s + n, sizeof(c->src[0]) - n, " (fallback: no public AMD timings, docs/hardware.md)");
	}
	/* the one measured AMD all-reduce table is MI300X's: another GPU's
	 * (MI355X) is derived from it (scripts/mfu/derive_amd.py) */
	if (c->src[COST_SRC_ALLREDUCE][0] == 'm' && !strstr(c->src[COST_SRC_ALLREDUCE], "/" AMD_AR_MEASURED "/")) {
		n = strlen(c->src[COST_SRC_ALLREDUCE]);
		snprintf(c->src[COST_SRC_ALLREDUCE] + n, sizeof(c->src[0]) - n,
			 " (derived: %s's measured all-reduce carried to this GPU's xGMI links, docs/hardware.md)",
			 AMD_AR_MEASURED);
	}
}

static void describe_sources(struct cost_model *c)
{
	const struct mfu_tables *t = c->tabs;
	enum dtype gd = dtype_compute(c->cfg.wdt);
	enum mfu_part gp = gd == DT_FP8 ? MFU_P_GEMM_FP8 : gd == DT_FP4 ? MFU_P_GEMM_FP4 : MFU_P_GEMM_BF16;
	char note[160] = "";
	int k;

	part_note(c, t->src_own[gp][0] && strcmp(t->src[gp], t->src_own[gp]) == 0, note, sizeof(note));
	if (t->src[gp][0])
		snprintf(c->src[COST_SRC_GEMM], sizeof(c->src[0]), "%s %s%s%s", dtype_name(gd), t->src[gp],
			 c->cfg.wdt == DT_INT4 ? ", int4 weight bytes (W4A16)" : "", note);
	else if (t->src[MFU_P_GEMM_BF16][0])
		snprintf(c->src[COST_SRC_GEMM], sizeof(c->src[0]),
			 "%s: no %s table, bf16 utilisation %s at the %s peak%s", dtype_name(gd),
			 dtype_name(gd), t->src[MFU_P_GEMM_BF16], dtype_name(gd), note);
	else
		snprintf(c->src[COST_SRC_GEMM], sizeof(c->src[0]), "roofline, default MFU %.2f",
			 MFU_DEFAULT_GEMM);
	{
		bool mla = c->m->attn == ATTN_MLA;
		enum mfu_part pp = mla && t->nmla_prefill ? MFU_P_MLA_PREFILL : MFU_P_ATTN_PREFILL;
		enum mfu_part dp = mla && t->nmla_decode ? MFU_P_MLA_DECODE : MFU_P_ATTN_DECODE;
		const struct mfu_attn_cfg *pc = c->attn_prefill_cfg, *dc = c->attn_decode_cfg;
		bool po = pc && (pc->own || pc->anchored), dn = dc && (dc->own || dc->anchored);
		const char *ps = po ? t->src_own[pp] : t->src[pp], *ds = dn ? t->src_own[dp] : t->src[dp];
		char pa[160] = "", da[160] = "";
		anchor_note(c, pc, t->src_own[pp], t->src[pp], pa, sizeof(pa));
		anchor_note(c, dc, t->src_own[dp], t->src[dp], da, sizeof(da));
		part_note(c, po, note, sizeof(note));
		snprintf(c->src[COST_SRC_ATTN_PREFILL], sizeof(c->src[0]), "%s%s%s%s",
			 ps[0] ? ps : "roofline, default MFU 0.45", pa, ps[0] ? note : "",
			 mla && pp == MFU_P_ATTN_PREFILL && ps[0] ? "; MLA on the nearest dense table" : "");
		part_note(c, dn, note, sizeof(note));
		snprintf(c->src[COST_SRC_ATTN_DECODE], sizeof(c->src[0]), "%s%s%s%s",
			 ds[0] ? ds : "roofline, default MFU 0.30", da, ds[0] ? note : "",
			 mla && dp == MFU_P_ATTN_DECODE && ds[0] ? "; MLA on the nearest dense table" : "");
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
	dsa_sources(c);
	if (c->m->n_mixer[LM_SLIDING] > 0 && c->m->attn != ATTN_CSA) /* V4: its window layers are blocks too */
		window_source_note(c, c->src[COST_SRC_WINDOW], sizeof(c->src[0]));
	csa_sources(c);
	part_note(c, c->moe_own, note, sizeof(note));
	if (!c->moe_own && c->g->tables_of[0] && c->moe_pick.curve) /* moetab_time_s on another GPU */
		snprintf(note, sizeof(note), " (%.40s's fixed %.0f us kept, the rest at its roofline efficiency on %.40s)",
			 c->g->tables_of, c->moe_pick.fixed_s * 1e6, c->g->id);
	if (c->m->n_experts > 0) {
		char fixed[48] = "", why[200] = "", alt[240];
		const char *fmt = moe_fmt_name(c->moe_fmt);
		const char *alts = c->moe_alt[0].curve && c->moe_alt[1].curve ? "its bf16 and fp8_block curves"
				   : c->moe_alt[0].curve ? "its bf16 curve"
				   : c->moe_alt[1].curve ? "its fp8_block curve" : NULL;
		if (c->moe_pick.distance > 0)
			snprintf(fixed, sizeof(fixed), ", its fixed %.0f us kept", c->moe_pick.fixed_s * 1e6);
		if (c->moe_fallback_of > 0 && !c->moe_as_bf16)
			snprintf(why, sizeof(why), " (%.60s's %s rows of this shape run slower than its bf16 kernel: a fallback path)",
				 c->moe_fallback_of == 1 ? t->src[MFU_P_MOE] : t->moe_more_src[c->moe_fallback_of - 2], fmt);
		else if (c->moe_more)
			snprintf(why, sizeof(why), " (%.60s has no rows of this format)", t->src[MFU_P_MOE]);
		alt[0] = '\0';
		if (c->moe_as_bf16)
			snprintf(alt, sizeof(alt), "; priced as the faster of %s: these %s rows run slower than bf16 (a fallback path) and no other collection measures a faster %s kernel of this shape",
				 alts, fmt, fmt);
		else if (alts)
			snprintf(alt, sizeof(alt), "; no slower than %s", alts);
		if (c->moe_pick.curve)
			header_line(c->src[COST_SRC_MOE], sizeof(c->src[0]), "fused kernel, %.60s%s: %s%.100s%s%s%s%s%s%s",
				 c->moe_own ? t->src_own[MFU_P_MOE]
				 : c->moe_more ? t->moe_more_src[c->moe_more - 1] : t->src[MFU_P_MOE],
				 why, c->moe_pick.distance == 0 ? "measured " : "nearest shape ",
				 c->moe_pick.desc, fixed, c->moe_pick.bound ? ", capped by the measured " : "",
				 c->moe_pick.bound ? c->moe_pick.bound_desc : "", c->moe_pick.bound ? " of this shape" : "",
				 alt, note);
		else
			snprintf(c->src[COST_SRC_MOE], sizeof(c->src[0]),
				 "fused kernel, roofline (no %s MoE table): default MFU %.2f + one launch",
				 moe_fmt_name(c->moe_fmt), MFU_DEFAULT_GEMM);
		if (c->moe_unseen_s > 0) {
			size_t n = strlen(c->src[COST_SRC_MOE]);
			snprintf(c->src[COST_SRC_MOE] + n, sizeof(c->src[0]) - n,
				 "; + %.1f us of moe_sorting per call, which aiter's tuned times leave out (measured on MI350X, ROCm/FlyDSL PR 540)",
				 c->moe_unseen_s * 1e6);
		}
		for (k = 0; k < 2; k++) {
			const struct moe_pick *w = &c->wideep_pick[k];
			size_t n = strlen(c->src[COST_SRC_MOE]);
			if (!w->curve)
				continue;
			if (k == 0)
				snprintf(c->src[COST_SRC_MOE] + n, sizeof(c->src[0]) - n,
					 "; decode steps (<= %lld tokens per rank)",
					 (long long)(c->cfg.max_seqs > 128 ? c->cfg.max_seqs : 128));
			else
				snprintf(c->src[COST_SRC_MOE] + n, sizeof(c->src[0]) - n, "; prefill steps");
			n = strlen(c->src[COST_SRC_MOE]);
			snprintf(c->src[COST_SRC_MOE] + n, sizeof(c->src[0]) - n,
				 ": SGLang DeepEP kernel, mfu/wideep/sglang-0.5.10/%.32s-%s: %s%.80s", c->g->id,
				 k ? "prefill" : "decode", w->distance == 0 ? "measured " : "nearest shape ", w->desc);
			n = strlen(c->src[COST_SRC_MOE]);
			if (w->fmt != c->moe_fmt)
				snprintf(c->src[COST_SRC_MOE] + n, sizeof(c->src[0]) - n,
					 " (derived: its fixed %.0f us kept, the rest on this format's roofline)",
					 w->fixed_s * 1e6);
			else if (w->distance > 0)
				snprintf(c->src[COST_SRC_MOE] + n, sizeof(c->src[0]) - n, ", its fixed %.0f us kept",
					 w->fixed_s * 1e6);
		}
	}
	if (c->m->n_mixer[LM_LINEAR] > 0)
		lin_source_note(c, c->src[COST_SRC_LINEAR], sizeof(c->src[0]));
	if (c->p.tp > 1)
		snprintf(c->src[COST_SRC_ALLREDUCE], sizeof(c->src[0]), "%s",
			 t->src[MFU_P_ALLREDUCE][0] && c->p.tp <= 8 ? t->src[MFU_P_ALLREDUCE]
								      : "ring model over the GPU link");
	if (c->ar_tabs) {
		size_t n = strlen(c->src[COST_SRC_ALLREDUCE]);
		snprintf(c->src[COST_SRC_ALLREDUCE] + n, sizeof(c->src[0]) - n,
			 "; up to %.4g MiB fused with RMSNorm (FlashInfer's port of TensorRT-LLM's kernel): %s",
			 c->cfg.ar_fused_bytes / (1024.0 * 1024.0), c->ar_tabs->src[MFU_P_ALLREDUCE]);
	}
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

/* What the per-token-count tables are filled from, kept from cost_init:
 * each entry is priced on its first use (a run touches a few of the max_m
 * token counts; pricing all of them was most of the start-up), by the same
 * code and from the same inputs as an eager fill, so to the same bits. */
struct cost_lazy {
	struct opgraph gr;
	bool *use;                   /* ops priced per token, in kind order */
	struct mfu_gemm_col *cols;   /* each GEMM's table column */
	double *kcnt;                /* each kind's layer count */
	uint8_t *tok_done;           /* [max_m + 1] */
	uint8_t *seq_done;           /* [max_seqs + 1]: head_s, absorb_s, decode_rows */
	/* mfu_row_eval_hint's axis positions: the prefill row's and each
	 * decode row's last (a decode batch's mean context moves slowly) */
	size_t prefill_hint;
	size_t *decode_hint;         /* [max_seqs + 1] */
	/* every attention layer full GQA (no MLA, windows, chunks or linear
	 * mixers), one pipeline stage, no attention-DP: a decode-only step is
	 * priced by decode_step_s */
	bool plain;
	/* cost_attn_prefill_s(len, 0) for 1 <= len <= max_m, priced on first
	 * use (pre0_done[len]; both allocated at the first): a chunk without
	 * a cached prefix depends on its length only, and prompt lengths
	 * repeat */
	double *pre0_s;
	uint8_t *pre0_done;
	/* cost_attn_prefill_s(len, prefix) of recent chunks after a cached
	 * prefix (base/dmemo.h; made at the first): with prefix caching a
	 * chunk usually starts at a whole number of cached blocks, and with
	 * fixed prompt lengths the pairs recur (inference-perf's ground truth:
	 * 9 chunks in 10 repeat one of the same run) */
	struct dmemo pre;
	/* attention-DP: moe_s[g] priced on first use (moe_done[g]) over the
	 * shared ops found once (up to 65,536 entries, most never read) */
	struct shared_ops moe_ops;
	uint8_t *moe_done;
	/* a decode-only step's table terms, which depend on its decoder
	 * count n only (decode_step_s with nlogits == n), read on first use:
	 * dec_done[n] 1 when filled, 2 when n pads past max_m (the overhead
	 * terms are computed at each step: cfg.ov may be changed, tests do) */
	struct dec_terms *dec;       /* [max_seqs + 1] */
	uint8_t *dec_done;           /* [max_seqs + 1] */
};

struct dec_terms {
	double tok, head;
};

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
				tk += op_at(c, &lk->ops[j], &z->cols[u], (double)mm, &fk, &bk);
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

/* head_s, absorb_s and decode_rows at i sequences (1 <= i <= max_seqs). */
static void seq_fill(const struct cost_model *c, int64_t i)
{
	const struct cost_lazy *z = c->lazy;
	const struct opgraph *gr = &z->gr;
	size_t k, j;

	mfu_attn_row(c->tabs, c->attn_decode_cfg, false, c->log_n[i], &c->decode_rows[i]);
	c->head_s[i] = cost_gemm_s(c, DT_BF16, (double)i, (double)(c->m->vocab / c->p.tp),
				   (double)c->m->hidden, 1);
	for (k = 0; k < gr->nkinds; k++)
		for (j = 0; j < gr->kinds[k].nops; j++) {
			const struct op *o = &gr->kinds[k].ops[j];
			if (strcmp(o->name, "q_absorb_uk") == 0 || strcmp(o->name, "out_absorb_uv") == 0)
				c->absorb_s[i] += (double)gr->kinds[k].count *
						  cost_gemm_s(c, c->cfg.wdt, (double)i, (double)o->n,
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

/* What the measured attention modules take of c (engterms.h). */
static const struct cost_mod_in *mod_in(const struct cost_model *c, struct cost_mod_in *in)
{
	*in = (struct cost_mod_in){c->m, c->g, c->heads, c->cfg.wdt, c->cfg.kvdt, c->peak, c->attn_peak,
				   c->cfg.engine, c->cfg.engine_version, c->cfg.cache};
	return in;
}

/* cost_dsa_parts_s as dsamod.h's callback (ctx: the cost model). */
static double dsa_parts(const void *ctx, bool prefill, bool own, double batch, double len)
{
	return cost_dsa_parts_s(ctx, prefill, own, batch, len);
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
	c->lin = lin_terms_for(m, cfg->engine);
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
	if (m->q.attn == m->q.mlp && m->q.attn != Q_NONE) {
		c->cfg.wdt = stored_dtype(m->q.attn, g, cfg->wdt);
		cfg = &c->cfg;
	}
	if (m->n_experts > 0)
		cost_moe_init(c, cfg);
	comm_place(g, p, &c->place);
	if ((rc = comm_table_load(data_dir, &c->comm, e)) < 0 ||
	    (rc = cost_moe_wideep_load(c, data_dir, e)) < 0) {
		moetab_free(c->wideep_tab[0]);
		moetab_free(c->wideep_tab[1]);
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
		int hd = m->attn == ATTN_MLA ? 128 : c->head_dim_qk;
		c->attn_prefill_cfg = mfu_attn_resolve(c->tabs, true, c->heads, c->kv_heads, hd, cfg->kvdt);
		c->attn_decode_cfg = mfu_attn_resolve(c->tabs, false, c->heads, c->kv_heads, hd, cfg->kvdt);
		if (m->attn == ATTN_MLA) {
			/* MLA kernel tables where measured (their FLOPs convention
			 * matches the MLA formulas below); the dense ones otherwise */
			const struct mfu_attn_cfg *pc = mfu_mla_resolve(c->tabs, true, c->heads, cfg->kvdt);
			const struct mfu_attn_cfg *dc = mfu_mla_resolve(c->tabs, false, c->heads, cfg->kvdt);
			if (pc)
				c->attn_prefill_cfg = pc;
			if (dc)
				c->attn_decode_cfg = dc;
		}
	}
	if (m->n_mixer[LM_SLIDING] > 0 && m->attn != ATTN_CSA) {
		/* the sliding layers' own layout in the windowed tables
		 * (DeepSeek-V4's window layers are priced as measured blocks) */
		int wh = (int)(m->window.heads / p->tp), wkv = (int)(m->window.kv_heads / p->tp);
		mfu_window_resolve(c->tabs, true, wh, wkv > 0 ? wkv : 1, (int)m->window.head_dim, cfg->kvdt,
				   (int)m->window.size, &c->win_prefill);
		/* an engine's windowed decode rows may be set aside
		 * (cost_engine.dense_window_decode: TensorRT-LLM's) */
		if (!cfg->engine->dense_window_decode)
			mfu_window_resolve(c->tabs, false, wh, wkv > 0 ? wkv : 1, (int)m->window.head_dim,
					   cfg->kvdt, (int)m->window.size, &c->win_decode);
	}
	c->mla_module_s = mla_module_term_s(m, g, cfg);
	c->mla_ctx_tok_s = mla_ctx_term_s(m, g, cfg, c->heads);
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
	if (c->dp_attn) {
		/* a table up to every rank at max_m tokens, linear beyond 64 Ki */
		c->moe_max = c->max_m * p->dp < 65536 ? c->max_m * p->dp : 65536;
		c->moe_s = xcalloc((size_t)c->moe_max + 1, sizeof(double));
		c->lazy->moe_done = xcalloc((size_t)c->moe_max + 1, 1);
		shared_ops_find(c, &gr, &c->lazy->moe_ops);
	}
	/* DeepSeek-V4: the attention blocks from the engine's measured blocks
	 * (csamod.h), priced per step, not per token */
	if (m->attn == ATTN_CSA && (rc = csa_module_init(mod_in(c, &mi), &gr, data_dir, &c->csa, e)) < 0) {
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
					cost_gemm_col(c, o->low_precision ? c->cfg.wdt : DT_BF16, (double)o->n,
						 (double)o->k, (double)o->batch, &cols[nuse]);
				use[nuse++] = !(per_step_attention_op(o) || lin_conv_in_terms(c, o) ||
						(j >= b0 && j <= b1) || o->cat == OPC_LM_HEAD ||
						strcmp(o->name, "final_norm") == 0 ||
						(c->dp_attn && moe_shared_op(o)));
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
	if (m->attn == ATTN_MLA && m->index_topk > 0) {
		c->dsa_shared_dec_s = mla_module_engine_s(g, cfg);
		c->dsa_shared_tok_s = mla_ctx_engine_s(g, cfg, c->heads);
		if ((rc = dsa_module_init(mod_in(c, &mi), dsa_parts, c, data_dir, &c->dsa, e)) < 0) {
			cost_release(c);
			return rc;
		}
	}
	/* vLLM's FlashInfer all-reduce fusion: TensorRT-LLM's all-reduce
	 * kernel, timed in that engine's collection for this GPU */
	if (cfg->ar_fused_bytes > 0 && p->tp > 1 && !c->place.tp_cross) {
		if (cfg->cache) {
			rc = mfu_cache_get(cfg->cache, data_dir, g, AR_FUSED_TABLES, NULL, "", (cfg->off & COST_H6) != 0,
					   false, cfg->moe_dist, &c->ar_tabs, e);
		} else {
			rc = mfu_load(&c->own_ar_tabs, data_dir, g, AR_FUSED_TABLES, NULL, "", e);
			c->ar_tabs = &c->own_ar_tabs;
		}
		if (rc < 0) {
			cost_release(c);
			return rc;
		}
		if (strcmp(c->ar_tabs->engine, AR_FUSED_TABLES) != 0 || !c->ar_tabs->src[MFU_P_ALLREDUCE][0])
			c->ar_tabs = NULL; /* none measured on this GPU: the engine's own path */
	}
	describe_sources(c);
	return 0;
}

void cost_release(struct cost_model *c)
{
	int64_t i;

	dsa_module_free(c->dsa);
	csa_module_free(c->csa);
	free(c->eplb);

	mfu_release(&c->own_tabs);
	mfu_release(&c->own_ar_tabs);
	moetab_free(c->wideep_tab[0]);
	moetab_free(c->wideep_tab[1]);
	free(c->tok_s);
	free(c->tok_flops);
	free(c->tok_bytes);
	free(c->moe_s);
	free(c->head_s);
	free(c->absorb_s);
	free(c->log_n);
	if (c->decode_rows)
		for (i = 0; i <= c->cfg.max_seqs; i++)
			mfu_row_release(&c->decode_rows[i]);
	free(c->decode_rows);
	mfu_row_release(&c->prefill_row);
	if (c->lazy) {
		opgraph_release(&c->lazy->gr);
		free(c->lazy->use);
		free(c->lazy->cols);
		free(c->lazy->kcnt);
		free(c->lazy->tok_done);
		free(c->lazy->seq_done);
		free(c->lazy->decode_hint);
		free(c->lazy->dec);
		free(c->lazy->dec_done);
		free(c->lazy->moe_ops.e);
		free(c->lazy->moe_done);
		free(c->lazy->pre0_s);
		free(c->lazy->pre0_done);
		if (c->lazy->pre.e)
			dmemo_release(&c->lazy->pre);
		free(c->lazy);
	}
	memset(c, 0, sizeof(*c));
}

/* --- attention, summed over layer groups ---
 * A model's layers fall in groups priced differently: full attention (all
 * earlier keys; MLA and DSA included), sliding-window (keys capped at the
 * window, with the sliding layers' own head layout), chunked-local (keys of
 * the query's own chunk) and linear attention (a recurrent update over a
 * fixed-size state, priced as one launch: a roofline of its FLOPs and the
 * state read and written once per sequence).  cost_attn_prefill_s and
 * cost_attn_decode_s return the sum over groups divided by the number of
 * layers, i.e. the mean per layer, so that callers multiply by layers. */

/* Head layout of one GQA layer group on one GPU. */
struct attn_group {
	double heads, dqk, dv, kv_tok; /* kv_tok: KV bytes per token of one layer */
};

static struct attn_group window_group(const struct cost_model *c)
{
	const struct model_cfg *m = c->m;
	struct attn_group g;
	double kvh = (double)m->window.kv_heads / c->p.tp;

	g.heads = (double)(m->window.heads / c->p.tp);
	g.dqk = (double)m->window.head_dim;
	g.dv = (double)m->window.v_head_dim;
	g.kv_tok = (kvh < 1 ? 1 : kvh) * (g.dqk + g.dv) * dtype_bytes(c->cfg.kvdt);
	return g;
}

static struct attn_group full_group(const struct cost_model *c)
{
	struct attn_group g = {(double)c->heads, (double)c->head_dim_qk, (double)c->head_dim_v,
			       c->kv_tok_layer_bytes};
	return g;
}

/* --- a step's prefill chunks as one attention call per layer ---
 * The engines run one varlen attention kernel per layer over all of a
 * step's prefill sequences (vLLM's FlashAttention/FlashInfer and MLA
 * prefill, SGLang's, TensorRT-LLM's context FMHA), so the kernel's fixed
 * latency is paid once per step, not once per chunk.  A step's n chunks are
 * priced as one call: their summed FLOPs and bytes at the MFU of the
 * prefill table at batch n and the per-sequence length with the same
 * query-key pairs, sqrt(2 x pairs / n) (n prefix-free chunks of L tokens:
 * about L, the measured row).  One chunk is looked up on the batch-1 row,
 * as before.
 * The batch axis was checked on every prefill table in data/mfu before
 * trusting it (batch 1..256 x isl 1..8192, cells where doubling the batch
 * lowers the latency by more than 20 %): GQA tables of H100/H200/B200 vLLM
 * 0.19/0.24, SGLang 0.5.14 and TensorRT-LLM 1.3: 0-9 of 12,666-31,111;
 * vLLM 0.14.0: A100 1 of 4,301, H200 0 and H100 17 of 8,602; L40S 87 of
 * 8,602 and 156 of 22,389; MLA tables of SGLang and TensorRT-LLM 0-6 of
 * 1,472, vLLM 0.14.0's 32-63 of 736-1,408, mostly at the call's floor
 * (H200, 16 heads, fp8 KV: batch 1 x 64 tokens 212 us, batch 32 x 64
 * 305 us, batch 1 x 4096 255 us).  A batched call of n sequences costs a
 * median 0.12-0.49 of n single calls (128-1,024 tokens, batch 8-32), so the
 * axis is used for every table that has one; the noise is bounded below.
 * H100 vLLM 0.24.0, 32/8 heads bf16: 32 x 128 tokens 82 us, one
 * 128-token sequence 15 us.
 * InferSim's own H20/H800 layouts hold batch 1 only: there the chunks are
 * each priced on the batch-1 row and the floor (the row's one-token call)
 * is paid once: n x t1 - (n - 1) x floor.  Either way the call costs
 * between t1 and n x t1, t1 one chunk of the equivalent length on the
 * batch-1 row.  The other per-call parts follow: MLA's kv_b up-projection
 * is one GEMM over the step's context tokens, DSA's sparse kernel and
 * indexer one roofline over the step's pairs, linear attention
 * cost_linear_attn_s over the step's tokens and sequences. */

/* Whether the prefill table has a batch axis (InferSim's batch-1 rows do
 * not). */
static bool prefill_batched(const struct cost_model *c)
{
	const struct mfu_attn_cfg *a = c->attn_prefill_cfg;

	return !a || (a->g.dims == 2 && a->g.len[0] >= 2);
}

/* One prefill attention call over n chunks with `pairs` query-key pairs,
 * flops and bytes in all; flops_pair: FLOPs per pair (the floor's call).
 * win (sliding-window layers; NULL otherwise): the dense utilisation times
 * the windowed tables' penalty at n sequences of the prefix-free windowed
 * length log_wlen (mfu_window_off; 1 without windowed tables). */
static double prefill_call_s(const struct cost_model *c, double n, double pairs, double flops,
			     double bytes, double flops_pair, const struct mfu_window *win,
			     double log_wlen)
{
	double isl_eq, ll, mfu, t1, floor_s, t, f1 = 1.0, fn = 1.0;

	if (win && win->cfg[0]) {
		f1 = exp(mfu_window_off(c->tabs, win, 0.0, log_wlen));
		fn = n == 1 ? f1 : exp(mfu_window_off(c->tabs, win, log(n), log_wlen));
	}
	if (n == 1) {
		/* the tables hold prefix-free causal prefills: look the chunk
		 * up at the sequence length with the same number of pairs */
		isl_eq = sqrt(2.0 * pairs);
		mfu = mfu_row_eval_hint(&c->prefill_row, isl_eq < 1 ? 0.0 : log(isl_eq),
					&c->lazy->prefill_hint);
		return roofline(c, flops, c->attn_peak, mfu * f1, bytes);
	}
	isl_eq = sqrt(2.0 * pairs / n);
	ll = isl_eq < 1 ? 0.0 : log(isl_eq);
	/* one chunk of the equivalent length, on the batch-1 row */
	t1 = roofline(c, flops / n, c->attn_peak, mfu_row_eval(&c->prefill_row, ll) * f1, bytes / n);
	if (prefill_batched(c)) {
		mfu = mfu_attn_eval_log(c->tabs, c->attn_prefill_cfg, true, log(n), ll);
		t = roofline(c, flops, c->attn_peak, mfu * fn, bytes);
	} else {
		floor_s = flops_pair / (c->attn_peak * mfu_row_eval(&c->prefill_row, 0.0));
		t = n * t1 - (n - 1) * floor_s;
	}
	/* a batched call is no slower than its chunks one by one and no
	 * faster than one of them (the tables' floor noise, e.g. vLLM 0.14.0
	 * MLA on H200: batch 2 x 32 tokens 143 us, batch 1 210 us) */
	return t < t1 ? t1 : t > n * t1 ? n * t1 : t;
}

/* GQA prefill of one layer: n chunks of len tokens in all with pairs
 * query-key pairs, keys read from the cache; win and log_wlen as
 * prefill_call_s. */
static double gqa_prefill_s(const struct cost_model *c, const struct attn_group *g, double n,
			    double pairs, double keys, double len, const struct mfu_window *win,
			    double log_wlen)
{
	double fp = 2.0 * g->heads * (g->dqk + g->dv);
	double flops = 2.0 * pairs * g->heads * (g->dqk + g->dv);
	double bytes = keys * g->kv_tok + 2.0 * len * g->heads * g->dqk * 2.0;

	return prefill_call_s(c, n, pairs, flops, bytes, fp, win, log_wlen);
}

double cost_attn_vision_pairs_s(const struct cost_model *c, double n, double tokens, double pairs, int64_t heads,
				int64_t head_dim)
{
	/* q, k and v of every patch in bf16, each sequence's keys read once */
	struct attn_group g = {(double)heads, (double)head_dim, (double)head_dim,
			       2.0 * (double)heads * (double)head_dim * 2.0};

	return gqa_prefill_s(c, &g, n, pairs, tokens, tokens, NULL, 0.0);
}

double cost_attn_vision_s(const struct cost_model *c, int64_t n, int64_t len, int64_t heads, int64_t head_dim)
{
	return cost_attn_vision_pairs_s(c, (double)n, (double)n * (double)len, (double)n * (double)len * (double)len,
					heads, head_dim);
}

/* GQA decode of one layer: n requests attending ctx_sum keys in all.  win
 * (sliding-window layers; NULL otherwise): times the windowed tables'
 * penalty at n requests of log_len tokens each (their whole context). */
static double gqa_decode_s(const struct cost_model *c, const struct attn_group *g, int64_t n,
			   double ctx_sum, const struct mfu_window *win, double log_len)
{
	double mean = ctx_sum / (double)n, mfu;
	double flops = 2.0 * ctx_sum * g->heads * (g->dqk + g->dv), bytes = ctx_sum * g->kv_tok;

	if (n <= c->cfg.max_seqs) {
		seq_need(c, n);
		mfu = mfu_row_eval_hint(&c->decode_rows[n], mean < 1 ? 0.0 : log(mean),
					&c->lazy->decode_hint[n]);
	}
	else
		mfu = mfu_attn_eval_log(c->tabs, c->attn_decode_cfg, false, log((double)n),
					mean < 1 ? 0.0 : log(mean));
	if (win && win->cfg[0])
		mfu *= exp(mfu_window_off(c->tabs, win, log((double)n), log_len));
	return cost_roofline_bw(c, flops, c->attn_peak, mfu, bytes, c->bw_kv);
}

/* The prefix-free prefill length whose queries, each seeing at most w keys,
 * make `pairs` query-key pairs (attn_capped_pairs inverted): a chunk after
 * a cached prefix is looked up in the windowed tables as the prefill with
 * its pairs. */
static double window_isl(double pairs, double w)
{
	double tri = w * (w + 1) / 2;

	if (pairs <= tri)
		return (sqrt(8.0 * pairs + 1) - 1) / 2;
	return w + (pairs - tri) / w;
}

/* Linear attention of one layer: `tokens` new tokens over `seqs` sequences
 * (a prefill chunk: one sequence; a decode step: one token each). */
double cost_linear_attn_s(const struct cost_model *c, double tokens, double seqs, bool decode)
{
	const struct model_cfg *m = c->m;
	const struct cost_lin_terms *k = c->lin;
	double vh = (double)m->lin.v_heads / c->p.tp;
	double elems = vh * (double)(m->lin.v_dim * m->lin.k_dim);
	double bw = c->g->hbm_bw, per_seq, conv;

	if (tokens <= 0 || seqs <= 0)
		return 0;
	conv = m->lin.kind == LIN_MAMBA2 ? mamba2_conv_s(c, tokens, seqs, decode) : 0.0;
	if (decode)
		return conv + k->gen_launch + 2.0 * seqs * elems * m->lin.state_elem_bytes / (bw * k->gen_eta);
	per_seq = tokens / seqs;
	return conv + k->launch + k->per_chunk * ceil(per_seq / LIN_CHUNK) +
	       tokens * elems * (k->sm_s / (double)c->g->sm_count + k->tok_bytes / bw) +
	       seqs * elems * k->seq_bytes / bw;
}

/* Share of the full-attention layers that run their own DSA indexer (the
 * others reuse an earlier layer's top-k: GLM-5.2 'indexer_types'). */
static double own_index_share(const struct model_cfg *m)
{
	return m->n_mixer[LM_FULL] > 0 ? (double)m->index_layers / (double)m->n_mixer[LM_FULL] : 1.0;
}

/* A step's prefill chunks, summed: their count, new tokens, context
 * (new + cached) tokens and causal query-key pairs. */
struct chunk_sums {
	double n, tok, ctx, pairs;
};

/* DSA attention of one layer for a step's prefill chunks, the parts as
 * servesim prices them: absorbed sparse attention over the top-k keys, the
 * new tokens' absorption and, in own_share of the layers, the indexer over
 * every key. */
static double dsa_prefill_attn_s(const struct cost_model *c, const struct chunk_sums *k, double own_share)
{
	const struct model_cfg *m = c->m;
	double ip = k->pairs, pairs, flops, bytes, t;
	double ipk = c->g->peak_flops[DT_FP8] > 0 ? c->g->peak_flops[DT_FP8] : c->attn_peak;

	/* the sparse kernel walks its whole top-k index list for every
	 * query, valid or padded (InferSim: 4096 queries take 3.69 ms
	 * over 4k keys and 3.60 ms over 16k) */
	pairs = k->tok * (double)m->index_topk;
	flops = 2.0 * pairs * c->heads * (double)(2 * m->kv_lora_rank + m->qk_rope_dim);
	bytes = k->ctx * c->kv_tok_layer_bytes + 2.0 * k->tok * c->heads * (double)c->head_dim_qk * 2.0;
	t = roofline(c, flops, c->attn_peak, DSA_PREFILL_MFU, bytes);
	t += cost_gemm_s(c, c->cfg.wdt, k->tok, (double)(c->heads * (m->qk_nope_dim + m->v_head_dim)),
			 (double)m->kv_lora_rank, 1);
	t += own_share * roofline(c, 2.0 * ip * (double)(m->index_heads * m->index_head_dim), ipk,
				  DSA_IDX_PREFILL_MFU, k->ctx * dsa_key_bytes(m));
	return t;
}

/* DSA attention of one layer for n decode requests attending ctx_sum keys
 * in all, the parts: in own_share of the layers the indexer scores every
 * cached key; the sparse kernel walks its whole top-k index list whatever
 * the context (InferSim H800, batch 64: 91 us at 1k keys, 93 us at 2k, 97
 * us at 128k). */
static double dsa_decode_attn_s(const struct cost_model *c, int64_t n, double ctx_sum, double own_share)
{
	const struct model_cfg *m = c->m;
	struct attn_group g = full_group(c);
	double t = own_share * (DSA_IDX_DECODE_LAUNCH_S +
				ctx_sum * dsa_key_bytes(m) / (c->g->hbm_bw * DSA_IDX_DECODE_BW_EFF));

	return t + gqa_decode_s(c, &g, n, (double)n * (double)m->index_topk, NULL, 0.0);
}

/* Full-attention layer (GQA, MLA, DSA) for a step's prefill chunks. */
static double full_prefill_s(const struct cost_model *c, const struct chunk_sums *k)
{
	const struct model_cfg *m = c->m;
	double flops, bytes, t;
	struct attn_group g;

	if (m->attn != ATTN_MLA) {
		g = full_group(c);
		return gqa_prefill_s(c, &g, k->n, k->pairs, k->ctx, k->tok, NULL, 0.0);
	}
	if (m->index_topk > 0) {
		double own = own_index_share(m);
		t = dsa_prefill_attn_s(c, k, own);
		/* the engine's measured DSA module over the parts (dsamod.h) */
		if (c->dsa)
			t += own * dsa_module_prefill_s(c->dsa, true, k->n, k->tok, 0) +
			     (1 - own) * dsa_module_prefill_s(c->dsa, false, k->n, k->tok,
							      c->dsa_shared_tok_s * k->tok);
		return t > 0 ? t : 0;
	}
	/* expanded form: q/k dims nope+rope, v dims v */
	flops = 2.0 * k->pairs * c->heads * (double)(m->qk_nope_dim + m->qk_rope_dim + m->v_head_dim);
	bytes = k->ctx * c->kv_tok_layer_bytes + 2.0 * k->tok * c->heads * (double)c->head_dim_qk * 2.0;
	t = prefill_call_s(c, k->n, k->pairs, flops, bytes,
			   2.0 * c->heads * (double)(m->qk_nope_dim + m->qk_rope_dim + m->v_head_dim), NULL, 0.0);
	/* kv_b up-projects the latent of every context token: one GEMM over
	 * the step's chunks */
	t += cost_gemm_s(c, c->cfg.wdt, k->ctx, (double)(c->heads * (m->qk_nope_dim + m->v_head_dim)),
			 (double)m->kv_lora_rank, 1);
	/* the engine's MLA context module term over the new tokens */
	return t + c->mla_ctx_tok_s * k->tok;
}

/* Full-attention layer (GQA, MLA, DSA) for n decode requests. */
static double full_decode_s(const struct cost_model *c, int64_t n, double ctx_sum)
{
	const struct model_cfg *m = c->m;
	struct attn_group g = full_group(c);

	if (m->attn == ATTN_MLA && m->index_topk > 0) {
		double own = own_index_share(m), t = dsa_decode_attn_s(c, n, ctx_sum, own);
		if (c->dsa) {
			double keys = ctx_sum / (double)n;
			t += own * dsa_module_decode_s(c->dsa, true, (double)n, keys, 0) +
			     (1 - own) * dsa_module_decode_s(c->dsa, false, (double)n, keys, c->dsa_shared_dec_s);
		}
		/* the term may be negative (parts over the module: GEMMs at
		 * large batches); it never takes the layer's attention below 0 */
		return t > 0 ? t : 0;
	}
	return gqa_decode_s(c, &g, n, ctx_sum, NULL, 0.0);
}

/* One DSA layer's parts (dsamod.h): see cost.h. */
double cost_dsa_parts_s(const struct cost_model *c, bool prefill, bool own, double batch, double len)
{
	const struct model_cfg *m = c->m;
	double h = (double)c->heads;

	if (m->attn != ATTN_MLA || m->index_topk <= 0 || batch <= 0 || len <= 0)
		return 0;
	if (prefill) {
		struct chunk_sums k = {batch, batch * len, batch * len, 0};
		k.pairs = batch * attn_causal_pairs((int64_t)len, 0);
		return cost_mla_block_tok_s(c, k.tok, own) + dsa_prefill_attn_s(c, &k, own ? 1.0 : 0.0);
	}
	return cost_mla_block_tok_s(c, batch, own) +
	       cost_gemm_s(c, c->cfg.wdt, batch, (double)m->kv_lora_rank, (double)m->qk_nope_dim, h) +
	       cost_gemm_s(c, c->cfg.wdt, batch, (double)m->v_head_dim, (double)m->kv_lora_rank, h) +
	       dsa_decode_attn_s(c, (int64_t)batch, batch * len, own ? 1.0 : 0.0);
}

/* The engine's measured DSA module over cost_dsa_parts_s (0 without one). */
double cost_dsa_module_s(const struct cost_model *c, bool prefill, bool own, double batch, double len)
{
	if (!c->dsa)
		return 0;
	if (prefill)
		return dsa_module_prefill_s(c->dsa, own, batch, batch * len, c->dsa_shared_tok_s * batch * len);
	return dsa_module_decode_s(c->dsa, own, batch, len, c->dsa_shared_dec_s);
}

/* DeepSeek-V4: the attention blocks of every layer (csamod.h) for n
 * decode requests with `prefix` cached tokens each on average (prefill
 * false), or n chunks of tok new tokens in all after `prefix` cached ones
 * each on average.  Layers of each mixer priced once and multiplied. */
static double csa_attn_s(const struct cost_model *c, bool prefill, double n, double tok, double prefix)
{
	const int64_t *nk = c->m->n_mixer;
	static const int mixers[] = {LM_CSA, LM_HCA, LM_SLIDING};
	double t = 0;
	size_t i;

	for (i = 0; i < sizeof(mixers) / sizeof(mixers[0]); i++) {
		if (nk[mixers[i]] == 0)
			continue;
		t += (double)nk[mixers[i]] * (prefill ? csa_module_prefill_s(c->csa, mixers[i], n, tok, prefix)
					       : csa_module_decode_s(c->csa, mixers[i], n, prefix + 1));
	}
	return t;
}

double cost_csa_block_s(const struct cost_model *c, int mix, bool prefill, double n, double isl, double prefix)
{
	if (!c->csa || n <= 0)
		return 0;
	return prefill ? csa_module_prefill_s(c->csa, mix, n, n * isl, prefix)
		       : csa_module_decode_s(c->csa, mix, n, prefix + 1);
}

void cost_csa_parts(const struct cost_model *c, int mix, double n, double isl, double prefix, double out[4])
{
	struct csa_parts p = {0, 0, 0, 0};

	if (c->csa)
		csa_module_parts(c->csa, mix, n, isl, prefix, &p);
	out[0] = p.f_lp;
	out[1] = p.f_hp;
	out[2] = p.f_attn;
	out[3] = p.bytes;
}

/* One layer of mixer mix for a step's n >= 1 prefill chunks (len[i] tokens
 * after prefix[i]; k: their count, new and context tokens, pairs 0) run as
 * one call, seconds; 0 for a mixer without attention. */
static double prefill_mixer_s(const struct cost_model *c, int mix, const struct chunk_sums *k0, int64_t n,
			      const int64_t *len, const int64_t *prefix)
{
	const struct model_cfg *m = c->m;
	struct chunk_sums k = *k0;
	int64_t i;

	if (c->csa) /* DeepSeek-V4: the chunks as that many prompts of their mean length and prefix */
		return csa_module_prefill_s(c->csa, mix, k.n, k.tok, (k.ctx - k.tok) / k.n);
	switch (mix) {
	case LM_FULL:
		for (i = 0; i < n; i++)
			k.pairs += attn_causal_pairs(len[i], prefix[i]);
		return full_prefill_s(c, &k);
	case LM_SLIDING: {
		struct attn_group g = window_group(c);
		int64_t w = m->window.size;
		double pairs = 0, keys = 0, wl;
		for (i = 0; i < n; i++) {
			pairs += attn_capped_pairs(len[i], prefix[i], w);
			keys += (double)(prefix[i] < w - 1 ? prefix[i] : w - 1) + (double)len[i];
		}
		wl = window_isl(pairs / k.n, (double)w);
		return gqa_prefill_s(c, &g, k.n, pairs, keys, k.tok, &c->win_prefill, wl < 1 ? 0.0 : log(wl));
	}
	case LM_CHUNKED: {
		struct attn_group g = full_group(c);
		double pairs = 0, keys = 0;
		for (i = 0; i < n; i++) {
			pairs += attn_chunked_pairs(len[i], prefix[i], m->chunk);
			keys += (double)(prefix[i] % m->chunk) + (double)len[i];
		}
		return gqa_prefill_s(c, &g, k.n, pairs, keys, k.tok, NULL, 0.0);
	}
	case LM_LINEAR:
		return cost_linear_attn_s(c, k.tok, k.n, false);
	default:
		return 0;
	}
}

/* A step's n prefill chunks summed (pairs left 0: each mixer counts its own). */
static struct chunk_sums chunks_of(int64_t n, const int64_t *len, const int64_t *prefix)
{
	struct chunk_sums k = {(double)n, 0, 0, 0};
	int64_t i;

	for (i = 0; i < n; i++) {
		k.tok += (double)len[i];
		k.ctx += (double)(len[i] + prefix[i]);
	}
	return k;
}

/* Mean per layer of the attention for a step's n >= 1 prefill chunks
 * (len[i] tokens after prefix[i]) run as one call per layer. */
static double attn_prefill_n_s(const struct cost_model *c, int64_t n, const int64_t *len,
			       const int64_t *prefix)
{
	const struct model_cfg *m = c->m;
	const int64_t *nk = m->n_mixer;
	struct chunk_sums k = chunks_of(n, len, prefix);
	double t = 0;

	if (c->csa) /* DeepSeek-V4: the chunks as that many prompts of their mean length and prefix */
		return csa_attn_s(c, true, k.n, k.tok, (k.ctx - k.tok) / k.n) / (double)m->layers;
	if (nk[LM_FULL] > 0)
		t += (double)nk[LM_FULL] * prefill_mixer_s(c, LM_FULL, &k, n, len, prefix);
	if (nk[LM_SLIDING] > 0)
		t += (double)nk[LM_SLIDING] * prefill_mixer_s(c, LM_SLIDING, &k, n, len, prefix);
	if (nk[LM_CHUNKED] > 0)
		t += (double)nk[LM_CHUNKED] * prefill_mixer_s(c, LM_CHUNKED, &k, n, len, prefix);
	if (nk[LM_LINEAR] > 0)
		t += (double)nk[LM_LINEAR] * prefill_mixer_s(c, LM_LINEAR, &k, n, len, prefix);
	return t / (double)m->layers;
}

/* Mean per layer of the attention for a prefill chunk of len tokens after prefix. */
double cost_attn_prefill_s(const struct cost_model *c, int64_t len, int64_t prefix)
{
	return attn_prefill_n_s(c, 1, &len, &prefix);
}

/* Mean per layer of the attention for a step's prefill chunks. */
double cost_attn_prefill_step_s(const struct cost_model *c, int64_t n, const int64_t *len,
				const int64_t *prefix)
{
	return n > 0 ? attn_prefill_n_s(c, n, len, prefix) : 0.0;
}

/* Mean per layer of the attention for n decode requests attending ctx_sum
 * keys in all (per full-attention layer). */
/* One layer of mixer mix for n >= 1 decode requests attending ctx_sum keys
 * in all, seconds; 0 for a mixer without attention. */
static double decode_mixer_s(const struct cost_model *c, int mix, int64_t n, double ctx_sum)
{
	const struct model_cfg *m = c->m;
	double mean = ctx_sum / (double)n;

	if (c->csa) {
		double prefix = mean - 1; /* csa_attn_s's prefix, as it takes it */
		return csa_module_decode_s(c->csa, mix, (double)n, prefix + 1);
	}
	switch (mix) {
	case LM_FULL:
		return full_decode_s(c, n, ctx_sum);
	case LM_SLIDING: {
		/* each request's keys capped at the window (the mean as proxy) */
		struct attn_group g = window_group(c);
		double w = (double)m->window.size;
		return gqa_decode_s(c, &g, n, (double)n * (mean < w ? mean : w), &c->win_decode,
				    mean < 1 ? 0.0 : log(mean));
	}
	case LM_CHUNKED: {
		/* past the first chunk a request sees chunk/2 keys on average */
		struct attn_group g = full_group(c);
		double ch = (double)m->chunk;
		return gqa_decode_s(c, &g, n, (double)n * (mean <= ch ? mean : ch / 2), NULL, 0.0);
	}
	case LM_LINEAR:
		return cost_linear_attn_s(c, (double)n, (double)n, true);
	default:
		return 0;
	}
}

double cost_attn_decode_s(const struct cost_model *c, int64_t n, double ctx_sum)
{
	const struct model_cfg *m = c->m;
	const int64_t *nk = m->n_mixer;
	double t = 0, mean;

	if (n <= 0)
		return 0;
	mean = ctx_sum / (double)n;
	if (c->csa)
		return csa_attn_s(c, false, (double)n, (double)n, mean - 1) / (double)m->layers;
	if (nk[LM_FULL] > 0)
		t += (double)nk[LM_FULL] * decode_mixer_s(c, LM_FULL, n, ctx_sum);
	if (nk[LM_SLIDING] > 0)
		t += (double)nk[LM_SLIDING] * decode_mixer_s(c, LM_SLIDING, n, ctx_sum);
	if (nk[LM_CHUNKED] > 0)
		t += (double)nk[LM_CHUNKED] * decode_mixer_s(c, LM_CHUNKED, n, ctx_sum);
	if (nk[LM_LINEAR] > 0)
		t += (double)nk[LM_LINEAR] * decode_mixer_s(c, LM_LINEAR, n, ctx_sum);
	return t / (double)m->layers;
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

/* cost_attn_decode_s of a plain model (cost_lazy.plain), 0 < n <=
 * max_seqs: the same operations in the same order, without the general
 * path's branches and calls (it runs at every step). */
static inline double plain_attn_decode_s(const struct cost_model *c, int64_t n, double ctx_sum)
{
	/* gqa_decode_s of full_group at n <= max_seqs, written out (its
	 * operations in their order: the same bits) */
	double heads = (double)c->heads, dqk = (double)c->head_dim_qk, dv = (double)c->head_dim_v;
	double mean = ctx_sum / (double)n, mfu, tc, tb;
	double flops = 2.0 * ctx_sum * heads * (dqk + dv), bytes = ctx_sum * c->kv_tok_layer_bytes;
	double t = 0, full = 0;

	seq_need(c, n);
	mfu = mfu_row_eval_hint(&c->decode_rows[n], mean < 1 ? 0.0 : log(mean), &c->lazy->decode_hint[n]);
	tc = flops / (c->attn_peak * mfu); /* roofline_bw */
	tb = bytes / c->bw_kv;
	full = full + ((c->cfg.off & COST_H1) || tc > tb ? tc : tb); /* full_decode_s */
	t += (double)c->m->n_mixer[LM_FULL] * full;
	return t / (double)c->m->layers;
}

double cost_overhead_s(const struct cost_model *c, int64_t nreq, int64_t prefill_tokens)
{
	const struct overheads *ov = &c->cfg.ov;
	double t;

	if (c->cfg.off & COST_H2)
		return 0;
	t = (ov->step_us + ov->layer_us * (double)c->m->layers + ov->req_us * (double)nreq +
	     ov->prefill_token_us * (double)prefill_tokens) * 1e-6;
	return t > 0 ? t : 0; /* tier-1 terms may be negative; a step never is */
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
			if (in && !per_step_attention_op(o))
				t += op_at(c, o, NULL, m, &f, &b);
			if (strcmp(o->name, "o_proj") == 0)
				break;
		}
		return t;
	}
	return 0;
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
	if (!c->lazy->moe_done[g]) {
		c->moe_s[g] = moe_shared_at(c, &c->lazy->gr, &c->lazy->moe_ops, (double)g);
		c->lazy->moe_done[g] = 1;
	}
	return c->moe_s[g];
}

/* Shared MoE part of an attention-DP step (0 otherwise). */
static double moe_part(const struct cost_model *c, int64_t g)
{
	if (!c->dp_attn || g <= 0)
		return 0;
	if (g > c->moe_max)
		return moe_at(c, c->moe_max) * (double)g / (double)c->moe_max;
	return moe_at(c, g);
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
		attn += attn_prefill_n_s(c, s->nchunks, s->chunk_len, s->chunk_prefix);
	if (c->lazy->plain && s->ndecode > 0 && s->ndecode <= c->cfg.max_seqs)
		attn += plain_attn_decode_s(c, s->ndecode, s->decode_ctx_sum);
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
	return moe_part(c, s->moe_tokens > 0 ? s->moe_tokens : mtok * c->p.dp);
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

int64_t cost_step_work(const struct cost_model *c, const struct step_desc *s, double *flops, double *bytes)
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

/* H4 off: one roofline over the whole step's FLOPs and bytes. */
static double aggregate(const struct cost_model *c, const struct step_desc *s)
{
	double f, b, mfu;
	int64_t tokens = cost_step_work(c, s, &f, &b);

	if (tokens <= 0)
		return 0;
	mfu = mfu_gemm(c->tabs, c->cfg.wdt, (double)tokens, (double)c->m->hidden,
		       (double)c->m->hidden);
	return roofline(c, f, c->peak, mfu, b) + head_part(c, s->nlogits);
}

/* cost_step_s of a decode-only step of a plain model (cost_lazy.plain,
 * no H4, 0 < ndecode, nlogits <= max_seqs, the graph-padded token count
 * within max_m): components' and cost_step_s's operations in their order,
 * the terms that are zero for such a step added as the zeros they are. */
static inline double decode_total_s(const struct cost_model *c, const struct step_desc *s, double tok, double head)
{
	double attn = 0, t, ov, cpu;

	attn += plain_attn_decode_s(c, s->ndecode, s->decode_ctx_sum);
	t = tok + (double)c->m->layers * attn + head + 0.0 + 0.0;
	ov = cost_overhead_s(c, s->ndecode, 0);
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

/* cost_step_s's host part: a step of t seconds of components with its
 * overheads (its requests and prefill tokens, not its sampled sequences). */
static double step_host(const struct cost_model *c, const struct step_desc *s, double t)
{
	int64_t pre = 0, i;
	double ov, cpu;

	for (i = 0; i < s->nchunks; i++)
		pre += s->chunk_len[i];
	ov = cost_overhead_s(c, s->ndecode + s->nchunks, pre);
	/* an eager step: the GPU waits for the host's launches (the
	 * overlap scheduler hides the host's other work, not these) */
	if (s->nchunks > 0 && t < c->eager_s)
		t = c->eager_s;
	if (!c->cfg.overlap_cpu || (c->cfg.off & COST_H2))
		return t + ov;
	/* overlap scheduling: the CPU part hides under the GPU part */
	cpu = (c->cfg.ov.step_us + c->cfg.ov.req_us * (double)(s->ndecode + s->nchunks)) * 1e-6;
	cpu = cpu < 0 ? 0 : cpu > ov ? ov : cpu;
	t += ov - cpu;
	return t > cpu ? t : cpu;
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

bool cost_step_splits(const struct cost_model *c, const struct step_desc *s)
{
	/* cost_step_s's path through components() for a step of moe_tokens:
	 * neither the plain decode path nor H4's aggregate (H5 takes mixed
	 * steps only) */
	return s->nchunks == 0 && s->moe_tokens > 0 && !c->lazy->plain && !(c->cfg.off & COST_H4);
}

double cost_step_local_s(const struct cost_model *c, const struct step_desc *s)
{
	int64_t mtok;

	return components_local_x(c, s, 0, NULL, &mtok);
}

double cost_step_join_s(const struct cost_model *c, const struct step_desc *s, double local_s)
{
	return step_host(c, s, local_s + moe_part(c, s->moe_tokens));
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
	t = components_x(c, s, nl2, t2);
	*t2 = step_host(c, s, *t2);
	return step_host(c, s, t);
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
	return c->m->attn == ATTN_MLA && c->m->index_topk <= 0 && !c->csa ? "attn_prefill+kv_b_proj" : "attn_prefill";
}

/* One layer of mixer mix for the step's chunks and decodes, seconds. */
static double step_mixer_s(const struct cost_model *c, const struct step_desc *s, int mix)
{
	double t = 0;

	if (s->nchunks > 0) {
		struct chunk_sums k = chunks_of(s->nchunks, s->chunk_len, s->chunk_prefix);
		t += prefill_mixer_s(c, mix, &k, s->nchunks, s->chunk_len, s->chunk_prefix);
	}
	if (s->ndecode > 0)
		t += decode_mixer_s(c, mix, s->ndecode, s->decode_ctx_sum);
	return t;
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
			t = op_at(c, o, &z->cols[*u], (double)mtok, &f, &b) * tok_scale;
			bd_add(bd, lk->name, o->name, op_part(o), z->kcnt[k], t, f * tok_scale,
			       t == 0 ? BD_INSIDE : BD_PRICED);
		} else if (c->dp_attn && moe_shared_op(o)) {
			bool gemm = o->kind == OPK_GEMM;
			t = op_at(c, o, NULL, gemm && c->p.ep <= 1 ? g : g / (double)c->p.dp, &f, &b) * moe_scale;
			bd_add(bd, lk->name, o->name, op_part(o), (double)lk->count, t, f * moe_scale,
			       t == 0 ? BD_INSIDE : BD_PRICED);
		} else if (mla && (!strcmp(o->name, "q_absorb_uk") || !strcmp(o->name, "out_absorb_uv"))) {
			if (nabs <= 0) /* decode only: a prefill runs the expanded form */
				continue;
			t = cost_gemm_s(c, c->cfg.wdt, (double)nabs, (double)o->n, (double)o->k, (double)o->batch);
			bd_add(bd, lk->name, o->name, CP_GEMM, (double)lk->count, t,
			       2.0 * (double)nabs * (double)o->n * (double)o->k * (double)o->batch, BD_PRICED);
		} else if (o->kind == OPK_ATTN && !attn_done) {
			bd_add(bd, lk->name, attn_row_name(c, s, o->name), CP_ATTN, att_count,
			       step_mixer_s(c, s, lk->mixer), 0, BD_PRICED);
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
	if (!attn_done && step_mixer_s(c, s, lk->mixer) > 0)
		bd_add(bd, lk->name, attn_row_name(c, s, "attention"), CP_ATTN, att_count,
		       step_mixer_s(c, s, lk->mixer), 0, BD_PRICED);
	if (mla && s->ndecode > 0 && c->mla_module_s != 0 && lk->mixer == LM_FULL && att_count > 0)
		bd_add(bd, lk->name, "mla module term", CP_ATTN, att_count, c->mla_module_s, 0, BD_PRICED);
	if (c->dp_attn) /* without EP: the DP gather of the MoE layer's tokens */
		for (i = 0; i < z->moe_ops.n; i++)
			if (z->moe_ops.e[i].k == k && z->moe_ops.e[i].j < 0)
				bd_add(bd, lk->name, "dp_gather", CP_COMM, (double)lk->count,
				       comm_dp_gather_s(&c->place, c->p.tp * c->p.dp, g * (double)c->m->hidden * 2.0) *
					       moe_scale,
				       0, BD_PRICED);
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
		if (c->m->n_mixer[mx] > 0 && mix_layers[mx] == 0 && step_mixer_s(c, s, mx) > 0)
			bd_add(bd, "step", attn_row_name(c, s, "attention"), CP_ATTN, (double)c->m->n_mixer[mx],
			       step_mixer_s(c, s, mx), 0, BD_PRICED);
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
