/* attn.c - the attention kernel family: GQA (and MHA, MQA) prefill and
 * decode from the measured attention tables, sliding-window layers with the
 * windowed tables' penalty, the vision encoder's attention, and the run
 * header's attention lines.  MLA (mla.c), DSA (dsa.c), DeepSeek-V4's blocks
 * (csa.c) and linear attention (linattn.c) are families of their own;
 * mixer.c sums a step's attention over the layer groups. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "cost/costmodel.h"
#include "cost/kern.h"
#include "cost/memo.h"

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
static void window_note(const struct cost_model *c, char *out, size_t cap)
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
		cost_note_line(out, cap, "window %lld: dense rows at the capped keys x the windowed kernel's cost over them: "
			    "%.112s (%.150s); decode: the dense rows at the capped keys (TensorRT-LLM's windowed "
			    "decode rows not used)", (long long)c->m->window.size,
			    t->src[MFU_P_ATTN_PREFILL_WIN][0] ? t->src[MFU_P_ATTN_PREFILL_WIN] : "prefill -", p);
		return;
	}
	cost_note_line(out, cap, "window %lld: dense rows at the capped keys x the windowed kernel's cost over them: %.112s (%.150s), %.112s (%.150s)",
		    (long long)c->m->window.size, t->src[MFU_P_ATTN_PREFILL_WIN][0] ? t->src[MFU_P_ATTN_PREFILL_WIN] : "prefill -",
		    p, t->src[MFU_P_ATTN_DECODE_WIN][0] ? t->src[MFU_P_ATTN_DECODE_WIN] : "decode -", d);
}

struct attn_group cost_attn_window_group(const struct cost_model *c)
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

struct attn_group cost_attn_full_group(const struct cost_model *c)
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
double cost_attn_prefill_call_s(const struct cost_model *c, double n, double pairs, double flops, double bytes,
				double flops_pair, const struct mfu_window *win, double log_wlen)
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
		return cost_roofline(c, flops, c->attn_peak, mfu * f1, bytes);
	}
	isl_eq = sqrt(2.0 * pairs / n);
	ll = isl_eq < 1 ? 0.0 : log(isl_eq);
	/* one chunk of the equivalent length, on the batch-1 row */
	t1 = cost_roofline(c, flops / n, c->attn_peak, mfu_row_eval(&c->prefill_row, ll) * f1, bytes / n);
	if (prefill_batched(c)) {
		mfu = mfu_attn_eval_log(c->tabs, c->attn_prefill_cfg, true, log(n), ll);
		t = cost_roofline(c, flops, c->attn_peak, mfu * fn, bytes);
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
double cost_gqa_prefill_s(const struct cost_model *c, const struct attn_group *g, double n, double pairs,
			  double keys, double len, const struct mfu_window *win, double log_wlen)
{
	double fp = 2.0 * g->heads * (g->dqk + g->dv);
	double flops = 2.0 * pairs * g->heads * (g->dqk + g->dv);
	double bytes = keys * g->kv_tok + 2.0 * len * g->heads * g->dqk * 2.0;

	return cost_attn_prefill_call_s(c, n, pairs, flops, bytes, fp, win, log_wlen);
}

double cost_attn_vision_pairs_s(const struct cost_model *c, double n, double tokens, double pairs, int64_t heads,
				int64_t head_dim)
{
	/* q, k and v of every patch in bf16, each sequence's keys read once */
	struct attn_group g = {(double)heads, (double)head_dim, (double)head_dim,
			       2.0 * (double)heads * (double)head_dim * 2.0};

	return cost_gqa_prefill_s(c, &g, n, pairs, tokens, tokens, NULL, 0.0);
}

double cost_attn_vision_s(const struct cost_model *c, int64_t n, int64_t len, int64_t heads, int64_t head_dim)
{
	return cost_attn_vision_pairs_s(c, (double)n, (double)n * (double)len, (double)n * (double)len * (double)len,
					heads, head_dim);
}

/* AITER's paged-attention decode at a negligible load: the time under
 * which a call does not go, where the roofline (no AMD decode table) has
 * no latency at all.  ROCm/aiter issue 2495 (2026-03-27), paged_attention_v1
 * on MI355X, Llama-3-8B's layout (32 query heads, 8 KV heads, head dim 128,
 * page size 16), 4,096 keys: 0.023 ms at batch 1 and at batch 4 (0.044 at
 * 16, 0.204 at 64); facebookexperimental/triton PR 2040 (2026-07-15), the
 * aiter column of its gfx950 table (64 / 8 heads, head dim 128, page 64,
 * bf16 KV): 23.4 us at batch 1 x 1,024 keys.  A call costs the larger of
 * the floor and its roofline: batch 4 takes batch 1's time in both, so
 * the floor hides that much work (checked in docs/hardware.md).  gfx950
 * (tables "mi355x"; MI350X too); no public gfx942 (MI300X, MI325X) figure
 * was found. */
static const struct kernel_floor aiter_pa_floors[] = {
	{"mi355x", 23.0e-6, "MI355X"},
};

static const struct kernel_floor *aiter_pa_floor(const struct gpu_spec *g)
{
	return kernel_floor_find(aiter_pa_floors, sizeof(aiter_pa_floors) / sizeof(aiter_pa_floors[0]), g);
}

/* The floor applies to the GQA decode of a GPU without a decode table
 * (MLA has its own, mla.c; DeepSeek-V4's blocks are measured whole). */
static void gqa_dec_floor_init(struct cost_model *c)
{
	const struct kernel_floor *f = aiter_pa_floor(c->g);

	c->gqa_dec_floor_s = 0;
	if (f && c->m->attn != ATTN_MLA && c->m->attn != ATTN_CSA && !c->attn_decode_cfg)
		c->gqa_dec_floor_s = f->floor_s;
}

struct mfu_attn_col *cost_decode_wide_col(const struct cost_model *c, int64_t n)
{
	struct cost_lazy *z = c->lazy;
	size_t i = (size_t)(n - c->cfg.max_seqs - 1);

	if (!z->wide) {
		size_t m = (size_t)(c->max_m - c->cfg.max_seqs);
		z->wide = xmalloc(xmul(m, sizeof(*z->wide))); /* read once set */
		z->wide_done = xcalloc(m, 1);
	}
	if (!z->wide_done[i]) {
		mfu_attn_col_init(c->tabs, c->attn_decode_cfg, false, log((double)n), &z->wide[i]);
		z->wide_done[i] = 1;
	}
	return &z->wide[i];
}

/* GQA decode of one layer: n requests attending ctx_sum keys in all.  win
 * (sliding-window layers; NULL otherwise): times the windowed tables'
 * penalty at n requests of log_len tokens each (their whole context).
 * lm: the log of a mean already taken (mixer.c: a step's full and sliding
 * layers see the same mean), used where this layer's mean is that very
 * double (NULL: none). */
static inline __attribute__((always_inline)) double gqa_decode_x(const struct cost_model *c,
								 const struct attn_group *g, int64_t n,
								 double ctx_sum, const struct mfu_window *win,
								 double log_len, const struct cost_log_mean *lm)
{
	double mean = ctx_sum / (double)n, mfu, t, lmean;
	double flops = 2.0 * ctx_sum * g->heads * (g->dqk + g->dv), bytes = ctx_sum * g->kv_tok;

	/* (the same expression as the caller's: the same bits) */
	lmean = lm && mean == lm->mean ? lm->log_mean : lm && mean == lm->alt ? lm->log_alt : mean < 1 ? 0.0 : log(mean);
	if (n <= c->cfg.max_seqs)
		mfu = mfu_row_eval_hint(cost_decode_row(c, n), lmean, &c->lazy->decode_hint[n]);
	else if (n <= c->max_m)
		mfu = mfu_attn_col_eval(cost_decode_wide_col(c, n), lmean);
	else
		mfu = mfu_attn_eval_log(c->tabs, c->attn_decode_cfg, false, log((double)n), lmean);
	if (win && win->cfg[0]) /* (log_n[n]: log((double)n), kept) */
		mfu *= exp(mfu_window_off(c->tabs, win, n >= 1 && n <= c->cfg.max_seqs ? c->log_n[n] : log((double)n), log_len));
	t = cost_roofline_bw(c, flops, c->attn_peak, mfu, bytes, c->bw_kv);
	return t < c->gqa_dec_floor_s ? c->gqa_dec_floor_s : t;
}

double cost_gqa_decode_s(const struct cost_model *c, const struct attn_group *g, int64_t n, double ctx_sum,
			 const struct mfu_window *win, double log_len, const struct cost_log_mean *lm)
{
	return gqa_decode_x(c, g, n, ctx_sum, win, log_len, lm);
}

double cost_gqa_decode_full_s(const struct cost_model *c, int64_t n, double ctx_sum, const struct cost_log_mean *lm)
{
	struct attn_group g = cost_attn_full_group(c);

	return gqa_decode_x(c, &g, n, ctx_sum, NULL, 0.0, lm);
}

void cost_attn_init(struct cost_model *c, const struct cost_cfg *cfg)
{
	const struct model_cfg *m = c->m;
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
	gqa_dec_floor_init(c);
	c->log_window = m->window.size < 1 ? 0.0 : log((double)m->window.size);
	if (m->n_mixer[LM_SLIDING] > 0 && m->attn != ATTN_CSA) {
		/* the sliding layers' own layout in the windowed tables
		 * (DeepSeek-V4's window layers are priced as measured blocks) */
		int wh = (int)(m->window.heads / c->p.tp), wkv = (int)(m->window.kv_heads / c->p.tp);
		mfu_window_resolve(c->tabs, true, wh, wkv > 0 ? wkv : 1, (int)m->window.head_dim, cfg->kvdt,
				   (int)m->window.size, &c->win_prefill);
		/* an engine's windowed decode rows may be set aside
		 * (cost_engine.dense_window_decode: TensorRT-LLM's) */
		if (!cfg->engine->dense_window_decode)
			mfu_window_resolve(c->tabs, false, wh, wkv > 0 ? wkv : 1, (int)m->window.head_dim,
					   cfg->kvdt, (int)m->window.size, &c->win_decode);
	}
}

void cost_attn_note(struct cost_model *c)
{
	const struct mfu_tables *t = c->tabs;
	char note[160] = "", pa[160] = "", da[160] = "";
	bool mla = c->m->attn == ATTN_MLA;
	enum mfu_part pp = mla && t->nmla_prefill ? MFU_P_MLA_PREFILL : MFU_P_ATTN_PREFILL;
	enum mfu_part dp = mla && t->nmla_decode ? MFU_P_MLA_DECODE : MFU_P_ATTN_DECODE;
	const struct mfu_attn_cfg *pc = c->attn_prefill_cfg, *dc = c->attn_decode_cfg;
	bool po = pc && (pc->own || pc->anchored), dn = dc && (dc->own || dc->anchored);
	const char *ps = po ? t->src_own[pp] : t->src[pp], *ds = dn ? t->src_own[dp] : t->src[dp];

	anchor_note(c, pc, t->src_own[pp], t->src[pp], pa, sizeof(pa));
	anchor_note(c, dc, t->src_own[dp], t->src[dp], da, sizeof(da));
	cost_part_note(c, po, note, sizeof(note));
	snprintf(c->src[COST_SRC_ATTN_PREFILL], sizeof(c->src[0]), "%s%s%s%s",
		 ps[0] ? ps : "roofline, default MFU 0.45", pa, ps[0] ? note : "",
		 mla && pp == MFU_P_ATTN_PREFILL && ps[0] ? "; MLA on the nearest dense table" : "");
	cost_part_note(c, dn, note, sizeof(note));
	snprintf(c->src[COST_SRC_ATTN_DECODE], sizeof(c->src[0]), "%s%s%s%s",
		 ds[0] ? ds : "roofline, default MFU 0.30", da, ds[0] ? note : "",
		 mla && dp == MFU_P_ATTN_DECODE && ds[0] ? "; MLA on the nearest dense table" : "");
	if (c->gqa_dec_floor_s > 0) {
		cost_src_add(c, COST_SRC_ATTN_DECODE,
			     ", at least AITER's measured paged-attention floor %.1f us per call (%s, ROCm/aiter "
			     "issue 2495; docs/hardware.md)", c->gqa_dec_floor_s * 1e6, aiter_pa_floor(c->g)->measured);
	}
	if (c->m->n_mixer[LM_SLIDING] > 0 && c->m->attn != ATTN_CSA) /* V4: its window layers are blocks too */
		window_note(c, c->src[COST_SRC_WINDOW], sizeof(c->src[0]));
}
