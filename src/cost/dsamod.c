/* dsamod.c - the DSA module term.  See dsamod.h.
 *
 * Why an excess over the parts and not the module's latency in their place:
 * a step prices its GEMMs once over all its tokens (decode and prefill
 * together, as the engines run them) and its attention per phase; an
 * additive excess per phase keeps that composition and gives back the
 * measured module at every measured pure-decode or pure-prefill point.  It
 * also carries across GPUs better than a ratio: fitted on two of H100,
 * H200 and B200 and applied to the third, the median |log(predicted /
 * measured)| of the module is 0.03-0.09 (vLLM decode) and 0.04-0.23 (vLLM
 * prefill) against 0.06-0.20 and 0.11-0.44 for the ratio module / parts
 * (data/mfu/check_dsa_module.py): most of the excess is kernels whose time
 * does not scale with the GPU's peak (the indexer's small kernels, the
 * top-k, quantisation and cache writes, and at prefill the host time of a
 * module the engines run without CUDA graphs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/dsatab.h"
#include "servesim/mfu.h"
#include "servesim/mfucache.h"
#include "cost/dsamod.h"

struct egrid {
	bool ok;
	size_t nb, nl;
	double *lb, *ll;  /* log batch, log len: ascending */
	double *e;        /* [nb x nl] excess, seconds */
	struct dsa_grid src; /* what was cut (axes freed; names kept) */
};

struct dsa_module {
	struct egrid g[DSA_PHASE__COUNT];
	char src[96];
	double heads;
};

static void egrid_release(struct egrid *g)
{
	free(g->lb);
	free(g->ll);
	free(g->e);
	memset(g, 0, sizeof(*g));
}

void dsa_module_free(struct dsa_module *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < DSA_PHASE__COUNT; i++)
		egrid_release(&d->g[i]);
	free(d);
}

/* Fill the holes of e: along len between measured points (linear in log
 * len), then held at the row's ends; then rows past the last measured
 * batch of a column... (see dsamod.h).  has[k]: e[k] measured. */
static void fill_holes(struct egrid *g, const bool *has)
{
	size_t nb = g->nb, nl = g->nl, i, j;
	bool *set = xmalloc(nb * nl * sizeof(bool));

	memcpy(set, has, nb * nl * sizeof(bool));
	/* along batch first where a column has a measured point at a larger
	 * and a smaller batch: in between, linear in log batch */
	for (j = 0; j < nl; j++) {
		size_t last = nb;
		for (i = 0; i < nb; i++) {
			if (!has[i * nl + j])
				continue;
			if (last < nb && i > last + 1) {
				size_t k;
				for (k = last + 1; k < i; k++) {
					double w = (g->lb[k] - g->lb[last]) / (g->lb[i] - g->lb[last]);
					g->e[k * nl + j] = (1 - w) * g->e[last * nl + j] + w * g->e[i * nl + j];
					set[k * nl + j] = true;
				}
			}
			last = i;
		}
	}
	/* along len: between set points linear in log len */
	for (i = 0; i < nb; i++) {
		size_t last = nl;
		for (j = 0; j < nl; j++) {
			if (!set[i * nl + j])
				continue;
			if (last < nl && j > last + 1) {
				size_t k;
				for (k = last + 1; k < j; k++) {
					double w = (g->ll[k] - g->ll[last]) / (g->ll[j] - g->ll[last]);
					g->e[i * nl + k] = (1 - w) * g->e[i * nl + last] + w * g->e[i * nl + j];
					set[i * nl + k] = true;
				}
			}
			last = j;
		}
	}
	/* past the last set batch of a column: in proportion to the batch
	 * (the large-batch corner the collectors leave out: batch x len over
	 * their token budget) */
	for (j = 0; j < nl; j++) {
		size_t last = nb;
		for (i = 0; i < nb; i++) {
			if (set[i * nl + j])
				last = i;
			else if (last < nb) {
				g->e[i * nl + j] = g->e[last * nl + j] * exp(g->lb[i] - g->lb[last]);
				set[i * nl + j] = true;
			}
		}
	}
	/* what is left (before the first set point of a row or column): the
	 * nearest set point of the row, else of the column */
	for (i = 0; i < nb; i++)
		for (j = 0; j < nl; j++) {
			size_t k, best = nb * nl;
			if (set[i * nl + j])
				continue;
			for (k = 0; k < nl && best == nb * nl; k++) {
				if (j + k < nl && set[i * nl + j + k])
					best = i * nl + j + k;
				else if (k <= j && set[i * nl + j - k])
					best = i * nl + j - k;
			}
			for (k = 0; k < nb && best == nb * nl; k++) {
				if (i + k < nb && set[(i + k) * nl + j])
					best = (i + k) * nl + j;
				else if (k <= i && set[(i - k) * nl + j])
					best = (i - k) * nl + j;
			}
			g->e[i * nl + j] = best < nb * nl ? g->e[best] : 0.0;
		}
	free(set);
}

/* A prefill module is no faster than the same prompts fewer (or shorter):
 * each measured latency is raised to the largest at a smaller batch of the
 * same length and at a shorter length of the same batch.  The collectors
 * run prefill modules without CUDA graphs and their floor is host time
 * with noise (vLLM 0.24, H200, DeepSeek-V3.2, 16 heads, fp8 KV: one
 * 128-token prompt 1578 us, two 1476 us), which would otherwise make a
 * step's chunks cheaper than one of them. */
static void prefill_monotone(struct dsa_grid *s)
{
	size_t i, j, nl = s->nl;

	for (j = 0; j < nl; j++) {
		double run = NAN;
		for (i = 0; i < s->nb; i++) {
			double *v = &s->us[i * nl + j];
			if (isnan(*v))
				continue;
			if (!isnan(run) && *v < run)
				*v = run;
			run = *v;
		}
	}
	for (i = 0; i < s->nb; i++) {
		double run = NAN;
		for (j = 0; j < nl; j++) {
			double *v = &s->us[i * nl + j];
			if (isnan(*v))
				continue;
			if (!isnan(run) && *v < run)
				*v = run;
			run = *v;
		}
	}
}

static void build(const struct cost_model *c, struct egrid *g, enum dsa_phase ph)
{
	bool prefill = ph == DSA_PREFILL || ph == DSA_PREFILL_SHARED;
	bool own = ph == DSA_DECODE || ph == DSA_PREFILL;
	size_t i, j, nb = g->src.nb, nl = g->src.nl;
	bool *has = xcalloc(nb * nl, sizeof(bool));

	g->nb = nb;
	g->nl = nl;
	g->lb = xmalloc(nb * sizeof(double));
	g->ll = xmalloc(nl * sizeof(double));
	g->e = xcalloc(nb * nl, sizeof(double));
	for (i = 0; i < nb; i++)
		g->lb[i] = log(g->src.batch[i]);
	for (j = 0; j < nl; j++)
		g->ll[j] = log(g->src.len[j]);
	if (prefill)
		prefill_monotone(&g->src);
	for (i = 0; i < nb; i++)
		for (j = 0; j < nl; j++) {
			double us = g->src.us[i * nl + j];
			if (isnan(us))
				continue;
			g->e[i * nl + j] = us * 1e-6 - cost_dsa_parts_s(c, prefill, own, g->src.batch[i],
								       g->src.len[j]);
			has[i * nl + j] = true;
		}
	fill_holes(g, has);
	free(has);
	g->ok = true;
}

int dsa_module_init(const struct cost_model *c, const char *data_dir, struct dsa_module **out,
		    struct err *e)
{
	const struct model_cfg *m = c->m;
	char path[1000];
	const struct dsatab *t;
	struct dsatab *own = NULL;
	struct dsa_module *d;
	enum dtype gemm = dtype_compute(c->cfg.wdt) == DT_FP8 ? DT_FP8 : DT_BF16;
	int rc, i;

	*out = NULL;
	if (m->attn != ATTN_MLA || m->index_topk <= 0 || c->g->measured[0])
		return 0;
	d = xcalloc(1, sizeof(*d));
	if (!mfu_find_file(data_dir, c->g, c->cfg.engine, c->cfg.engine_version, "dsa_module.csv.gz", path,
			   sizeof(path), d->src, sizeof(d->src))) {
		free(d);
		return 0;
	}
	if (c->cfg.cache)
		rc = mfu_cache_dsatab(c->cfg.cache, path, &t, e);
	else
		rc = dsatab_load(path, &own, e), t = own;
	if (rc < 0) {
		free(d);
		return rc;
	}
	d->heads = (double)c->heads;
	for (i = 0; i < DSA_PHASE__COUNT; i++) {
		struct egrid *g = &d->g[i];
		if (dsatab_grid(t, (enum dsa_phase)i, (int)m->hidden, d->heads, c->cfg.kvdt, gemm, &g->src) != 0)
			continue;
		build(c, g, (enum dsa_phase)i);
		free(g->src.batch);
		free(g->src.len);
		free(g->src.us);
		g->src.batch = g->src.len = g->src.us = NULL;
	}
	dsatab_free(own);
	if (!d->g[DSA_DECODE].ok && !d->g[DSA_PREFILL].ok) {
		dsa_module_free(d);
		return 0;
	}
	*out = d;
	return 0;
}

/* Bilinear in (log batch, log len), len held at the axis ends, batch held
 * below the axis and in proportion to the batch above it. */
static double eval(const struct egrid *g, double b, double len)
{
	double lb, ll, wb = 0, wl = 0, scale = 1, v0, v1;
	size_t i = 0, j = 0, nl = g->nl;

	if (b > exp(g->lb[g->nb - 1])) {
		scale = b / exp(g->lb[g->nb - 1]);
		b = exp(g->lb[g->nb - 1]);
	}
	lb = log(b < 1 ? 1 : b);
	ll = log(len < 1 ? 1 : len);
	if (g->nb > 1) {
		if (lb <= g->lb[0])
			lb = g->lb[0];
		while (i + 2 < g->nb && g->lb[i + 1] <= lb)
			i++;
		wb = (lb - g->lb[i]) / (g->lb[i + 1] - g->lb[i]);
		if (wb > 1)
			wb = 1;
	}
	if (nl > 1) {
		if (ll <= g->ll[0])
			ll = g->ll[0];
		while (j + 2 < nl && g->ll[j + 1] <= ll)
			j++;
		wl = (ll - g->ll[j]) / (g->ll[j + 1] - g->ll[j]);
		if (wl > 1)
			wl = 1;
	}
#define AT(x, y) g->e[(x) * nl + (y)]
	v0 = (1 - wl) * AT(i, j) + (nl > 1 ? wl * AT(i, j + 1) : 0);
	v1 = g->nb > 1 ? (1 - wl) * AT(i + 1, j) + (nl > 1 ? wl * AT(i + 1, j + 1) : 0) : v0;
#undef AT
	return scale * ((1 - wb) * v0 + wb * v1);
}

double dsa_module_decode_s(const struct dsa_module *d, bool own, double n, double keys,
			   double shared_fallback)
{
	const struct egrid *g = &d->g[own ? DSA_DECODE : DSA_DECODE_SHARED];

	if (n <= 0)
		return 0;
	if (!g->ok)
		return own ? 0 : shared_fallback;
	return eval(g, n, keys);
}

double dsa_module_prefill_s(const struct dsa_module *d, bool own, double nchunks, double tokens,
			    double shared_fallback)
{
	const struct egrid *g = &d->g[own ? DSA_PREFILL : DSA_PREFILL_SHARED];
	double len, lmax, scale = 1;

	if (nchunks <= 0 || tokens <= 0)
		return 0;
	if (!g->ok)
		return own ? 0 : shared_fallback;
	len = tokens / nchunks;
	lmax = exp(g->ll[g->nl - 1]);
	if (len > lmax) { /* past the longest prompt: in proportion to the tokens */
		scale = len / lmax;
		len = lmax;
	}
	return scale * eval(g, nchunks, len);
}

bool dsa_module_has_shared(const struct dsa_module *d, bool prefill)
{
	return d->g[prefill ? DSA_PREFILL_SHARED : DSA_DECODE_SHARED].ok;
}

void dsa_module_note(const struct dsa_module *d, bool prefill, char *out, size_t cap)
{
	const struct egrid *g = &d->g[prefill ? DSA_PREFILL : DSA_DECODE];
	const struct dsa_grid *s = &g->src;
	char heads[48];

	out[0] = '\0';
	if (!g->ok)
		return;
	if (s->heads_lo == s->heads_hi && s->heads_lo == (int)d->heads)
		snprintf(heads, sizeof(heads), "%d heads", s->heads_lo);
	else if (s->heads_lo == s->heads_hi)
		snprintf(heads, sizeof(heads), "%d heads (nearest measured to %g)", s->heads_lo, d->heads);
	else
		snprintf(heads, sizeof(heads), "%g heads (between %d and %d)", d->heads, s->heads_lo,
			 s->heads_hi);
	if (prefill)
		snprintf(out, cap, "%s (%s, %s, %s KV, %s projections): module - parts %+.0f us for one 1k-token "
			 "prompt, %+.0f us for one 8k-token prompt",
			 d->src, s->model, heads, dtype_name(s->kv), dtype_name(s->gemm),
			 dsa_module_prefill_s(d, true, 1, 1024, 0) * 1e6,
			 dsa_module_prefill_s(d, true, 1, 8192, 0) * 1e6);
	else
		snprintf(out, cap, "%s (%s, %s, %s KV, %s projections): module - parts %+.0f us at batch 1 x "
			 "4k keys, %+.0f us at batch 64 x 4k",
			 d->src, s->model, heads, dtype_name(s->kv), dtype_name(s->gemm),
			 dsa_module_decode_s(d, true, 1, 4096, 0) * 1e6,
			 dsa_module_decode_s(d, true, 64, 4096, 0) * 1e6);
}
