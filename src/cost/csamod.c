/* csamod.c - DeepSeek-V4 attention from the engines' measured blocks.  See
 * csamod.h.
 *
 * Why the module's latency in place of a sum of parts (as DSA's module term
 * is an excess over its parts): servesim has no kernel tables for V4's
 * pieces (the compressors, the indexer over compressed keys, FlashMLA's
 * sparse kernel over window + compressed entries, the grouped o_a), so the
 * measured block is the best evidence of the whole; the step keeps pricing
 * the rest of the layer (norms, hyper-connections, all-reduce, MoE) as
 * before.  The block's share of a step's tokens is therefore left out of the
 * token-linear part (cost.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/csatab.h"
#include "hw/mfu.h"
#include "hw/mfucache.h"
#include "model/opgraph.h"
#include "cost/csamod.h"
#include "hw/axis.h"
#include "hw/lgrid.h"

/* Grids of one kind sliced by a third axis (key ascending): the prefill
 * blocks by cached prefix, the kernels by log prompt length. */
struct gset {
	size_t n;
	double *key;
	struct lgrid *g;
};

enum { K_CSA, K_HCA, K__N, K_SWA = K__N };


struct csa_module {
	bool table;                /* grids from a measured table (else the fit alone) */
	/* per mixer (CSA, HCA, window-only): the block's GEMM FLOPs per token at
	 * the weights' dtype and at bf16, its activation bytes per token and
	 * its weight bytes (read once a step), from the one-token graph */
	double tf_lp[3], tf_hp[3], tact[3], w[3];
	double nh_pad, hd, ih, ihd, topk, ent, ient;
	/* the GPU's peaks and bandwidth, and those of the table's GPU */
	double peak_lp, peak16, bw, t_peak_lp, t_peak16, t_bw;
	bool borrowed;
	const struct cost_csa_fit *fit[2][3]; /* [prefill][mixer]: the engine's parts model (engterms.h) */
	struct lgrid dec[K__N];
	double dec_kmax[K__N];     /* the largest measured keys of the decode grid */
	struct gset pre[K__N];
	struct gset ker[K__N];     /* CSA: indexer logits, HCA: sparse attention; n = 0: none */
	double ker_scale[K__N];    /* x max(heads, 64) / 64 for HCA's kernel (timed at 64 heads) */
	double window;
	char src[96];
	char model[16];
	int heads_lo, heads_hi;
	double heads;
};

static void gset_release(struct gset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		lgrid_release(&s->g[i]);
	free(s->g);
	free(s->key);
	memset(s, 0, sizeof(*s));
}

void csa_module_free(struct csa_module *d)
{
	int k;

	if (!d)
		return;
	for (k = 0; k < K__N; k++) {
		lgrid_release(&d->dec[k]);
		gset_release(&d->pre[k]);
		gset_release(&d->ker[k]);
	}
	free(d);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A grid of seconds from the n points (x[i], y[i], us[i]) with sel[i]
 * set.  Measured latencies are first made non-decreasing along x and along
 * y (a block is no faster for more requests or more tokens; it smooths the
 * collectors' timing noise where the curves are flat). */
static void grid2_build(struct lgrid *g, const double *x, const double *y, const double *us,
			const bool *sel, size_t n)
{
	double *xs = xmalloc(xmul(n ? n : 1, sizeof(double))), *ys = xmalloc(xmul(n ? n : 1, sizeof(double)));
	size_t m = 0, i, j;
	bool *set;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < n; i++)
		if (sel[i]) {
			xs[m] = x[i];
			ys[m++] = y[i];
		}
	g->nx = axis_uniq(xs, m);
	g->ny = axis_uniq(ys, m);
	if (g->nx < 1 || g->ny < 1) {
		free(xs);
		free(ys);
		return;
	}
	g->lx = xs;
	g->ly = ys;
	g->v = xcalloc(g->nx * g->ny, sizeof(double));
	set = xcalloc(g->nx * g->ny, sizeof(bool));
	for (i = 0; i < n; i++)
		if (sel[i]) {
			size_t a = axis_find(xs, g->nx, x[i]), b = axis_find(ys, g->ny, y[i]);
			g->v[a * g->ny + b] = us[i] * 1e-6;
			set[a * g->ny + b] = true;
		}
	lgrid_monotone(g->v, g->nx, g->ny, set);
	for (i = 0; i < g->nx; i++)
		g->lx[i] = log(g->lx[i]);
	for (j = 0; j < g->ny; j++)
		g->ly[j] = log(g->ly[j]);
	lgrid_fill_holes(g, set);
	free(set);
	g->ok = true;
}

/* Slices of the cut by its third axis (z: the prefix, or the length): one
 * grid over (x, y) per value of z measured at two or more x and two or more
 * y.  The points past the last such slice whose z values each hold fewer
 * (vLLM's long-prefix rows: 2k-16k new tokens after 48k-64k cached, the
 * total fixed at 64k) form one more slice at their median z, if they span
 * two x and two y: vLLM runs long prefixes on another path (a 2k-token chunk
 * after 63k cached takes 1.40 ms on H200, after 4k 1.71 ms), which the
 * prefix-timed kernels alone would miss (+15 % on CSA layers, measured
 * below). */
static void gset_build(struct gset *s, const double *x, const double *y, const double *z, const double *us,
		       size_t n, bool zlog)
{
	double *zs = xmalloc(xmul(n ? n : 1, sizeof(double))), *rest;
	size_t nz, a, i, nr = 0;
	bool *sel = xmalloc(xmul(n ? n : 1, sizeof(bool)));

	memset(s, 0, sizeof(*s));
	memcpy(zs, z, n * sizeof(double));
	nz = axis_uniq(zs, n);
	s->key = xmalloc(xmul(nz + 1, sizeof(double)));
	s->g = xcalloc(nz + 1, sizeof(struct lgrid));
	for (a = 0; a < nz; a++) {
		struct lgrid g;
		for (i = 0; i < n; i++)
			sel[i] = z[i] == zs[a];
		grid2_build(&g, x, y, us, sel, n);
		if (!g.ok || g.nx < 2 || g.ny < 2) {
			lgrid_release(&g);
			continue;
		}
		s->key[s->n] = zs[a];
		s->g[s->n++] = g;
	}
	rest = xmalloc(xmul(n ? n : 1, sizeof(double)));
	for (i = 0; i < n; i++) {
		sel[i] = s->n > 0 && z[i] > s->key[s->n - 1];
		if (sel[i])
			rest[nr++] = z[i];
	}
	if (nr > 0) {
		struct lgrid g;
		qsort(rest, nr, sizeof(double), dbl_cmp);
		grid2_build(&g, x, y, us, sel, n);
		if (g.ok && g.nx >= 2 && g.ny >= 2) {
			s->key[s->n] = rest[nr / 2];
			s->g[s->n++] = g;
		} else {
			lgrid_release(&g);
		}
	}
	for (a = 0; zlog && a < s->n; a++)
		s->key[a] = log(s->key[a]);
	free(rest);
	free(sel);
	free(zs);
}

/* Linear in the key between the slices around it, held at the ends; *edge
 * set when the key lies past the last slice (its key in *last). */
static double gset_eval(const struct gset *s, double key, double x, double y, bool yprop, bool *edge,
			double *last)
{
	size_t i = 0;
	double w;

	if (edge)
		*edge = s->n > 0 && key > s->key[s->n - 1];
	if (last)
		*last = s->n > 0 ? s->key[s->n - 1] : 0;
	if (s->n == 0)
		return 0;
	if (s->n == 1 || key <= s->key[0])
		return lgrid_eval(&s->g[0], x, y, yprop);
	while (i + 2 < s->n && s->key[i + 1] <= key)
		i++;
	w = (key - s->key[i]) / (s->key[i + 1] - s->key[i]);
	if (w > 1)
		w = 1;
	return (1 - w) * lgrid_eval(&s->g[i], x, y, yprop) + w * lgrid_eval(&s->g[i + 1], x, y, yprop);
}

/* The prefix-dependent kernel of kind k for n requests of isl new tokens
 * after prefix cached ones, seconds. */
static double kernel_s(const struct csa_module *d, int k, double n, double isl, double prefix)
{
	return d->ker_scale[k] * gset_eval(&d->ker[k], log(isl < 1 ? 1 : isl), n, prefix + 1, true, NULL, NULL);
}

static int mixer_index(int mix)
{
	return mix == LM_CSA ? K_CSA : mix == LM_HCA ? K_HCA : K_SWA;
}

void csa_module_parts(const struct csa_module *d, int mix, double n, double isl, double prefix,
		      struct csa_parts *p)
{
	int x = mixer_index(mix);
	int64_t s = (int64_t)llround(isl), c = (int64_t)llround(prefix), r = x == K_CSA ? 4 : x == K_HCA ? 128 : 0;
	double T = n * isl, W = d->window, pairs, kv, entries;

	if (s < 1)
		s = 1;
	pairs = attn_capped_pairs(s, c, (int64_t)W);
	kv = ((double)c < W - 1 ? (double)c : W - 1) + (double)s; /* window keys */
	kv *= d->ent;
	p->f_attn = 0;
	if (r > 0) {
		entries = (double)((c + s) / r);
		pairs += attn_compressed_pairs(s, c, r, x == K_CSA ? (int64_t)d->topk : -1);
		kv += (x == K_CSA && entries > d->topk * (double)s ? d->topk * (double)s : entries) * d->ent;
		if (x == K_CSA) {
			p->f_attn += 2.0 * n * attn_compressed_pairs(s, c, 4, -1) * d->ih * d->ihd;
			kv += entries * d->ient;
		}
	}
	p->f_attn += 2.0 * n * pairs * d->nh_pad * 2.0 * d->hd;
	p->f_lp = T * d->tf_lp[x];
	p->f_hp = T * d->tf_hp[x];
	p->bytes = d->w[x] + T * d->tact[x] + n * kv + T * d->ent;
}

/* The fitted parts model at the GPU's figures, or the table GPU's (lender). */
static double fit_s(const struct csa_module *d, const struct cost_csa_fit *f, const struct csa_parts *p, bool lender)
{
	double plp = lender ? d->t_peak_lp : d->peak_lp, p16 = lender ? d->t_peak16 : d->peak16;
	double bw = lender ? d->t_bw : d->bw;

	return f->c0 + f->c_gemm * (p->f_lp / plp + p->f_hp / p16) + f->c_attn * p->f_attn / p16 +
	       f->c_bytes * p->bytes / bw;
}

/* A measured latency of the table's GPU carried to this GPU: x the fitted
 * model's ratio between the two at the same point (1 on the table's own
 * GPU). */
static double carried(const struct csa_module *d, int mix, bool prefill, double t, double n, double isl,
		      double prefix)
{
	struct csa_parts p;
	const struct cost_csa_fit *f = d->fit[prefill][mixer_index(mix)];

	if (!d->borrowed)
		return t;
	csa_module_parts(d, mix, n, isl, prefix, &p);
	return t * fit_s(d, f, &p, false) / fit_s(d, f, &p, true);
}

double csa_module_decode_s(const struct csa_module *d, int mix, double n, double keys)
{
	int k = mix == LM_CSA ? K_CSA : K_HCA;
	double t, kmax = d->dec_kmax[k];

	if (n <= 0)
		return 0;
	if (keys < 1)
		keys = 1;
	if (mix == LM_SLIDING && keys > d->window)
		keys = d->window;
	if (!d->table) {
		struct csa_parts p;
		csa_module_parts(d, mix, n, 1, keys - 1, &p);
		return fit_s(d, d->fit[0][mixer_index(mix)], &p, false);
	}
	if (keys <= kmax || d->ker[k].n == 0) {
		t = lgrid_eval(&d->dec[k], n, keys, false);
	} else {
		/* past the measured contexts: the prefix-dependent kernel's growth */
		t = lgrid_eval(&d->dec[k], n, kmax, false);
		t += kernel_s(d, k, n, 1, keys - 1) - kernel_s(d, k, n, 1, kmax - 1);
	}
	return carried(d, mix, false, t, n, 1, keys - 1);
}

double csa_module_prefill_s(const struct csa_module *d, int mix, double nchunks, double tokens, double prefix)
{
	int k = mix == LM_CSA ? K_CSA : K_HCA;
	double isl, t, last;
	bool edge;

	if (nchunks <= 0 || tokens <= 0)
		return 0;
	isl = tokens / nchunks;
	if (mix == LM_SLIDING && prefix > d->window - 1)
		prefix = d->window - 1;
	if (!d->table) {
		struct csa_parts p;
		csa_module_parts(d, mix, nchunks, isl, prefix, &p);
		return fit_s(d, d->fit[1][mixer_index(mix)], &p, false);
	}
	t = gset_eval(&d->pre[k], prefix, nchunks, isl, true, &edge, &last);
	if (edge && d->ker[k].n > 0)
		t += kernel_s(d, k, nchunks, isl, prefix) - kernel_s(d, k, nchunks, isl, last);
	return carried(d, mix, true, t, nchunks, isl, prefix);
}

bool csa_module_has_table(const struct csa_module *d)
{
	return d->table;
}

bool csa_block_range(const struct model_cfg *m, const struct layer_kind *lk, size_t *first, size_t *last)
{
	size_t j, a = 0, b = 0;
	bool in = false, out = false;

	if (m->attn != ATTN_CSA || (lk->mixer != LM_CSA && lk->mixer != LM_HCA && lk->mixer != LM_SLIDING))
		return false;
	for (j = 0; j < lk->nops; j++) {
		if (!in && strcmp(lk->ops[j].name, "input_norm") == 0) {
			in = true;
			a = j + 1;
		} else if (in && strcmp(lk->ops[j].name, "wo_b") == 0) {
			out = true;
			b = j;
			break;
		}
	}
	if (!in || !out)
		return false;
	*first = a;
	*last = b;
	return true;
}

static int kind_of(int k, bool prefill)
{
	if (k == K_CSA)
		return prefill ? CSAK_CSA_PREFILL : CSAK_CSA_DECODE;
	return prefill ? CSAK_HCA_PREFILL : CSAK_HCA_DECODE;
}

/* Decode points: keys = the cached prefix + the new token. */
static void build_decode(struct csa_module *d, int k, const struct csa_cut *c)
{
	double *keys = xmalloc(xmul(c->n ? c->n : 1, sizeof(double)));
	bool *sel = xmalloc(xmul(c->n ? c->n : 1, sizeof(bool)));
	size_t i;

	d->dec_kmax[k] = 0;
	for (i = 0; i < c->n; i++) {
		keys[i] = c->prefix[i] + 1;
		sel[i] = true;
		if (keys[i] > d->dec_kmax[k])
			d->dec_kmax[k] = keys[i];
	}
	grid2_build(&d->dec[k], c->batch, keys, c->us, sel, c->n);
	free(keys);
	free(sel);
}

/* The block's per-token GEMM FLOPs and activation bytes and its weight
 * bytes for each mixer, from the one-token graph. */
static void token_parts(struct csa_module *d, const struct model_cfg *m, const struct opgraph *gr)
{
	size_t k, j, a, b;

	for (k = 0; k < gr->nkinds; k++) {
		const struct layer_kind *lk = &gr->kinds[k];
		int x;
		if (!csa_block_range(m, lk, &a, &b))
			continue;
		x = mixer_index((int)lk->mixer);
		d->tf_lp[x] = d->tf_hp[x] = d->tact[x] = d->w[x] = 0;
		for (j = a; j <= b; j++) {
			const struct op *o = &lk->ops[j];
			if (o->kind == OPK_ATTN || strcmp(o->name, "indexer_topk") == 0)
				continue; /* the cores: csa_module_parts */
			if (o->kind == OPK_GEMM) {
				if (o->low_precision)
					d->tf_lp[x] += o->flops;
				else
					d->tf_hp[x] += o->flops;
				d->w[x] += o->weight_bytes;
			}
			d->tact[x] += o->act_bytes;
		}
	}
}

int csa_module_init(const struct cost_mod_in *c, const struct opgraph *gr, const char *data_dir,
		    struct csa_module **out, struct err *e)
{
	const struct model_cfg *m = c->m;
	const struct gpu_spec *g = c->g;
	char path[1000];
	struct csatab *own = NULL;
	const struct csatab *t;
	struct csa_module *d;
	int rc, k, x;

	*out = NULL;
	if (m->attn != ATTN_CSA)
		return 0;
	d = xcalloc(1, sizeof(*d));
	d->heads = (double)c->heads;
	d->window = (double)m->window.size;
	d->nh_pad = d->heads > 64 ? d->heads : 64;
	d->hd = (double)m->head_dim;
	d->ih = (double)m->index_heads;
	d->ihd = (double)m->index_head_dim;
	d->topk = (double)m->index_topk;
	d->ent = model_csa_entry_bytes(m, dtype_bytes(c->kvdt));
	d->ient = model_csa_index_entry_bytes(m, dtype_bytes(c->kvdt));
	d->peak_lp = c->peak;
	d->peak16 = c->attn_peak;
	d->bw = g->hbm_bw;
	d->t_peak_lp = g->table_peak[c->wdt] > 0 ? g->table_peak[c->wdt] : d->peak_lp;
	d->t_peak16 = g->table_peak[DT_BF16] > 0 ? g->table_peak[DT_BF16] : d->peak16;
	d->t_bw = g->table_hbm_bw > 0 ? g->table_hbm_bw : d->bw;
	d->borrowed = g->tables_of[0] != '\0';
	token_parts(d, m, gr);
	for (k = 0; k < 2; k++)
		for (x = 0; x < 3; x++)
			d->fit[k][x] = &c->engine->csa[k == 1][x == K_CSA ? 0 : 1];
	if (!mfu_find_file(data_dir, g, cost_engine_tables(c->engine, g), c->engine->fallback, c->engine_version,
			   "dsv4_module.csv.gz", path,
			   sizeof(path), d->src, sizeof(d->src))) {
		*out = d;
		return 0;
	}
	if (c->cache)
		rc = mfu_cache_csatab(c->cache, path, &t, e);
	else
		rc = csatab_load(path, &own, e), t = own;
	if (rc < 0) {
		free(d);
		return rc;
	}
	for (k = 0; k < K__N; k++) {
		struct csa_cut cut;
		if (csatab_cut(t, (enum csa_kind)kind_of(k, false), (int)m->hidden, d->heads, &cut) == 0) {
			build_decode(d, k, &cut);
			if (k == K_CSA) {
				snprintf(d->model, sizeof(d->model), "%s", cut.model);
				d->heads_lo = cut.heads_lo;
				d->heads_hi = cut.heads_hi;
			}
			csa_cut_release(&cut);
		}
		if (csatab_cut(t, (enum csa_kind)kind_of(k, true), (int)m->hidden, d->heads, &cut) == 0) {
			gset_build(&d->pre[k], cut.batch, cut.isl, cut.prefix, cut.us, cut.n, false);
			csa_cut_release(&cut);
		}
		if (csatab_cut(t, k == K_CSA ? CSAK_CSA_LOGITS : CSAK_HCA_ATTN, (int)m->hidden, d->heads, &cut) == 0) {
			double *pre1 = xmalloc(xmul(cut.n ? cut.n : 1, sizeof(double)));
			size_t i;
			for (i = 0; i < cut.n; i++)
				pre1[i] = cut.prefix[i] + 1;
			/* sliced by prompt length, each over batch x (prefix + 1) */
			gset_build(&d->ker[k], cut.batch, pre1, cut.isl, cut.us, cut.n, true);
			free(pre1);
			d->ker_scale[k] = k == K_HCA ? (d->heads > 64 ? d->heads : 64) / (double)cut.heads_lo : 1.0;
			csa_cut_release(&cut);
		}
	}
	csatab_free(own);
	d->table = d->dec[K_CSA].ok && d->dec[K_HCA].ok && d->pre[K_CSA].n > 0 && d->pre[K_HCA].n > 0;
	if (!d->table) /* an incomplete table: the fit alone */
		d->src[0] = '\0';
	*out = d;
	return 0;
}

void csa_module_note(const struct csa_module *d, bool prefill, char *out, size_t cap)
{
	char heads[64], past[160] = "";
	const struct gset *p = &d->pre[K_CSA];

	if (d->heads_lo == d->heads_hi && d->heads_lo == (int)d->heads)
		snprintf(heads, sizeof(heads), "%d heads", d->heads_lo);
	else if (d->heads_lo == d->heads_hi)
		snprintf(heads, sizeof(heads), "%d heads (nearest measured to %g)", d->heads_lo, d->heads);
	else
		snprintf(heads, sizeof(heads), "%g heads (between %d and %d)", d->heads, d->heads_lo, d->heads_hi);
	if (d->ker[K_CSA].n > 0) /* where the prefix-timed kernels take over */
		snprintf(past, sizeof(past), "; past %.0fk cached (%.0fk keys in decode) + the growth of the timed "
			 "indexer-logits%s kernels", p->n ? p->key[p->n - 1] / 1024 : 0, d->dec_kmax[K_CSA] / 1024,
			 d->ker[K_HCA].n ? " and HCA-attention" : "");
	if (prefill)
		snprintf(out, cap, "%s (%s, %s, fp8 KV, fp8 projections): CSA / HCA layer %.0f / %.0f us for one "
			 "1k-token prompt, %.0f / %.0f us for 1k tokens after 16k cached%s",
			 d->src, d->model, heads, csa_module_prefill_s(d, LM_CSA, 1, 1024, 0) * 1e6,
			 csa_module_prefill_s(d, LM_HCA, 1, 1024, 0) * 1e6,
			 csa_module_prefill_s(d, LM_CSA, 1, 1024, 16384) * 1e6,
			 csa_module_prefill_s(d, LM_HCA, 1, 1024, 16384) * 1e6, past);
	else
		snprintf(out, cap, "%s (%s, %s, fp8 KV, fp8 projections): CSA / HCA layer %.0f / %.0f us at batch 1 x "
			 "4k keys, %.0f / %.0f us at batch 64 x 4k",
			 d->src, d->model, heads, csa_module_decode_s(d, LM_CSA, 1, 4096) * 1e6,
			 csa_module_decode_s(d, LM_HCA, 1, 4096) * 1e6, csa_module_decode_s(d, LM_CSA, 64, 4096) * 1e6,
			 csa_module_decode_s(d, LM_HCA, 64, 4096) * 1e6);
}
