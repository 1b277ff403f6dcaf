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
#include "hw/lgrid.h"

struct egrid {
	struct lgrid ex;     /* x batch, y len: the excess, seconds */
	struct dsa_grid src; /* what was cut (axes freed; names kept) */
};

struct dsa_module {
	struct egrid g[DSA_PHASE__COUNT];
	char src[96];
	double heads;
};

void dsa_module_free(struct dsa_module *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < DSA_PHASE__COUNT; i++)
		lgrid_release(&d->g[i].ex);
	free(d);
}

/* The excess grid of phase ph from its cut (g->src), holes filled.
 * A prefill module is no faster than the same prompts fewer (or shorter):
 * each measured latency is raised to the largest at a smaller batch of the
 * same length and at a shorter length of the same batch.  The collectors
 * run prefill modules without CUDA graphs and their floor is host time
 * with noise (vLLM 0.24, H200, DeepSeek-V3.2, 16 heads, fp8 KV: one
 * 128-token prompt 1578 us, two 1476 us), which would otherwise make a
 * step's chunks cheaper than one of them. */
static void build(const struct cost_model *c, dsa_parts_fn parts, struct egrid *g, enum dsa_phase ph)
{
	bool prefill = ph == DSA_PREFILL || ph == DSA_PREFILL_SHARED;
	bool own = ph == DSA_DECODE || ph == DSA_PREFILL;
	size_t i, j, nb = g->src.nb, nl = g->src.nl;
	bool *has = xcalloc(nb * nl, sizeof(bool));
	struct lgrid *e = &g->ex;

	e->nx = nb;
	e->ny = nl;
	e->lx = xmalloc(nb * sizeof(double));
	e->ly = xmalloc(nl * sizeof(double));
	e->v = xcalloc(nb * nl, sizeof(double));
	for (i = 0; i < nb; i++)
		e->lx[i] = log(g->src.batch[i]);
	for (j = 0; j < nl; j++)
		e->ly[j] = log(g->src.len[j]);
	for (i = 0; i < nb * nl; i++)
		has[i] = !isnan(g->src.us[i]);
	if (prefill)
		lgrid_monotone(g->src.us, nb, nl, has);
	for (i = 0; i < nb; i++)
		for (j = 0; j < nl; j++)
			if (has[i * nl + j])
				e->v[i * nl + j] = g->src.us[i * nl + j] * 1e-6 -
						   parts(c, prefill, own, g->src.batch[i], g->src.len[j]);
	lgrid_fill_holes(e, has);
	free(has);
	e->ok = true;
}

int dsa_module_init(const struct cost_model *c, dsa_parts_fn parts, const char *data_dir,
		    struct dsa_module **out, struct err *e)
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
	if (!mfu_find_file(data_dir, c->g, c->cfg.engine->name, c->cfg.engine->fallback, c->cfg.engine_version,
			   "dsa_module.csv.gz", path,
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
		build(c, parts, g, (enum dsa_phase)i);
		free(g->src.batch);
		free(g->src.len);
		free(g->src.us);
		g->src.batch = g->src.len = g->src.us = NULL;
	}
	dsatab_free(own);
	if (!d->g[DSA_DECODE].ex.ok && !d->g[DSA_PREFILL].ex.ok) {
		dsa_module_free(d);
		return 0;
	}
	*out = d;
	return 0;
}

double dsa_module_decode_s(const struct dsa_module *d, bool own, double n, double keys,
			   double shared_fallback)
{
	const struct egrid *g = &d->g[own ? DSA_DECODE : DSA_DECODE_SHARED];

	if (n <= 0)
		return 0;
	if (!g->ex.ok)
		return own ? 0 : shared_fallback;
	/* len held at the axis ends, batch held below the axis and in
	 * proportion to the batch above it */
	return lgrid_eval(&g->ex, n, keys, false);
}

double dsa_module_prefill_s(const struct dsa_module *d, bool own, double nchunks, double tokens,
			    double shared_fallback)
{
	const struct egrid *g = &d->g[own ? DSA_PREFILL : DSA_PREFILL_SHARED];
	double len, lmax, scale = 1;

	if (nchunks <= 0 || tokens <= 0)
		return 0;
	if (!g->ex.ok)
		return own ? 0 : shared_fallback;
	len = tokens / nchunks;
	lmax = exp(g->ex.ly[g->ex.ny - 1]);
	if (len > lmax) { /* past the longest prompt: in proportion to the tokens */
		scale = len / lmax;
		len = lmax;
	}
	return scale * lgrid_eval(&g->ex, nchunks, len, false);
}

bool dsa_module_has_shared(const struct dsa_module *d, bool prefill)
{
	return d->g[prefill ? DSA_PREFILL_SHARED : DSA_DECODE_SHARED].ex.ok;
}

void dsa_module_note(const struct dsa_module *d, bool prefill, char *out, size_t cap)
{
	const struct egrid *g = &d->g[prefill ? DSA_PREFILL : DSA_DECODE];
	const struct dsa_grid *s = &g->src;
	char heads[48];

	out[0] = '\0';
	if (!g->ex.ok)
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
