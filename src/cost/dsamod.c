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
 * (scripts/mfu/check_dsa_module.py): most of the excess is kernels whose time
 * does not scale with the GPU's peak (the indexer's small kernels, the
 * top-k, quantisation and cache writes, and at prefill the host time of a
 * module the engines run without CUDA graphs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/dsatab.h"
#include "hw/mfu.h"
#include "hw/mfucache.h"
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
	double host_us[DSA_PHASE__COUNT]; /* a prefill phase's host floor taken out (strip_host), or 0 */
};

/* vLLM's prefill module rows carry the host time of one isolated eager
 * call: aiconfigurator's vLLM collector times DSA context without CUDA
 * graphs, to spare memory (collector/vllm/collect_mla_module.py, "the bias
 * is <0.5% ... because per-forward latency is tens of ms"), while vLLM
 * serves it compiled, its host launches overlapping the GPU work of the
 * layers before.  On H100, H200 and B200 the vLLM 0.24 rows sit at 1.2-1.7
 * ms from 1 to 2,048 tokens at every batch and rise only past ~3k tokens,
 * then in proportion to the tokens (0.77 us a token on H200, batch 1); the
 * same module's decode rows, under CUDA graphs, take 150-180 us at batch 1,
 * and TensorRT-LLM's prefill rows, timed under graphs, start where its
 * decode rows do (245 us).  Such a call lasts max(host, GPU), and a step
 * sums GPU kernels (every other table is GPU time; host time is the
 * engine's per-step terms), so the floor is taken out.  SGLang's rows
 * (0.75-1.3 ms flat to 2,048 tokens, decode 60-80 us) are kept: its
 * collector times SGLang's own eager prefill path, which it serves, and
 * without that floor GLM-5.2 on SGLang at 1 req/s (eval/public) came out
 * further too fast (TTFT 188 -> 146 ms, measured 374; ITL 41.0 -> 39.4 ms,
 * measured 46.4), while vLLM's rate-1 row moved toward its measurement (ITL
 * 53.7 -> 49.4 ms, measured 42.0).  A vLLM prefill table carries host time
 * when its smallest latency is over DSA_HOST_RATIO x its decode table's; a
 * point is host-bound within DSA_HOST_TOL of its batch's floor (strip_host
 * estimates its GPU time).  Until 2026-11-28 the floor was priced as GPU
 * time: every step with a prefill chunk paid ~1.4 ms per DSA layer (61 x
 * 1.4 = 88 ms on DeepSeek-V3.2), and on B200 a step of 16 decodes at 600
 * keys and one 600-token prompt cost DeepSeek-V3.2 3.8x DeepSeek-V3's
 * (issue 26). */
#define DSA_HOST_RATIO 2.0
#define DSA_HOST_TOL 0.25

/* The smallest measured latency of batch row i of s (NAN: none). */
static double row_floor(const struct dsa_grid *s, size_t i)
{
	double f = NAN;
	size_t j;

	for (j = 0; j < s->nl; j++)
		if (!isnan(s->us[i * s->nl + j]) && !(s->us[i * s->nl + j] >= f))
			f = s->us[i * s->nl + j];
	return f;
}

/* Take an eagerly timed prefill grid's host floor out of its host-bound
 * points (see above).  pus: servesim's parts at every point, us; dfloor:
 * the decode grid's batch-1 floor, us.  The GPU time of a host-bound point
 * is its parts times the grid's lowest module / parts ratio at the first
 * GPU-bound point of a batch (the parts carry the shape in batch and
 * length; one ratio keeps a call of n prompts no dearer than n calls of
 * one), at least dfloor + b / b' x (G' - dfloor) for any larger batch b' of
 * the same length with GPU time G' (the calls share a fixed part, dfloor at
 * most: a call of b' prompts costs no more than b' / b calls of b), and at
 * most the measured latency.  Returns the
 * floor taken out (the smallest batch's), 0 when the grid is GPU time. */
static double strip_host(struct dsa_grid *s, const double *pus, double dfloor)
{
	size_t i, j, nb = s->nb, nl = s->nl;
	double ratio = NAN, pfloor = row_floor(s, 0);

	if (nb == 0 || isnan(dfloor) || isnan(pfloor) || !(pfloor > DSA_HOST_RATIO * dfloor))
		return 0;
	for (i = 0; i < nb; i++) {
		double f = row_floor(s, i);
		for (j = 0; j < nl && !isnan(f); j++) {
			double v = s->us[i * nl + j];
			if (isnan(v) || v <= f * (1 + DSA_HOST_TOL))
				continue;
			if (pus[i * nl + j] > 0 && !(v / pus[i * nl + j] >= ratio))
				ratio = v / pus[i * nl + j];
			break;
		}
	}
	if (isnan(ratio))
		return 0;
	/* from the largest batch down, so that a larger batch's point is
	 * final (measured or already estimated) when a smaller one needs it */
	for (i = nb; i-- > 0;) {
		double f = row_floor(s, i);
		for (j = 0; j < nl; j++) {
			double *v = &s->us[i * nl + j], gpu = ratio * pus[i * nl + j];
			size_t k;
			if (isnan(*v) || *v > f * (1 + DSA_HOST_TOL))
				continue;
			/* b prompts cost at least the fixed part (dfloor) and b / b'
			 * of the rest of b' > b prompts */
			for (k = i + 1; k < nb; k++) {
				double w = dfloor + (s->us[k * nl + j] - dfloor) * s->batch[i] / s->batch[k];
				if (!isnan(w) && w > gpu)
					gpu = w;
			}
			if (gpu < dfloor)
				gpu = dfloor;
			if (gpu < *v)
				*v = gpu;
		}
	}
	return pfloor;
}

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
static void build(dsa_parts_fn parts, const void *ctx, struct egrid *g, enum dsa_phase ph,
		  double dfloor, double *host_us)
{
	bool prefill = ph == DSA_PREFILL || ph == DSA_PREFILL_SHARED;
	bool own = ph == DSA_DECODE || ph == DSA_PREFILL;
	size_t i, j, nb = g->src.nb, nl = g->src.nl;
	bool *has = xcalloc(nb * nl, sizeof(bool));
	double *pus = xmalloc(nb * nl * sizeof(double)); /* the parts at each point, us */
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
	for (i = 0; i < nb; i++)
		for (j = 0; j < nl; j++) {
			has[i * nl + j] = !isnan(g->src.us[i * nl + j]);
			pus[i * nl + j] = parts(ctx, prefill, own, g->src.batch[i], g->src.len[j]) * 1e6;
		}
	if (prefill) {
		lgrid_monotone(g->src.us, nb, nl, has);
		if ((*host_us = strip_host(&g->src, pus, dfloor)) > 0)
			lgrid_monotone(g->src.us, nb, nl, has);
	}
	for (i = 0; i < nb * nl; i++)
		if (has[i])
			e->v[i] = (g->src.us[i] - pus[i]) * 1e-6;
	lgrid_fill_holes(e, has);
	free(has);
	free(pus);
	e->ok = true;
}

int dsa_module_init(const struct cost_mod_in *c, dsa_parts_fn parts, const void *ctx, const char *data_dir,
		    struct dsa_module **out, struct err *e)
{
	const struct model_cfg *m = c->m;
	char path[1000];
	const struct dsatab *t;
	struct dsatab *own = NULL;
	struct dsa_module *d;
	/* the module's projections: bf16 where the checkpoint stores its
	 * attention unquantised (model_attn_stored_bf16: GLM-5.1-NVFP4) */
	enum dtype gemm = dtype_compute(c->wdt) == DT_FP8 && !model_attn_stored_bf16(m, false) ? DT_FP8 : DT_BF16;
	double dfloor[2] = {NAN, NAN}; /* decode, decode_shared: batch-1 floor, us */
	int rc, i;

	*out = NULL;
	if (m->attn != ATTN_MLA || m->index_topk <= 0 || c->g->measured[0])
		return 0;
	d = xcalloc(1, sizeof(*d));
	if (!mfu_find_file(data_dir, c->g, cost_engine_tables(c->engine, c->g),
			   c->engine->dsa_fallback ? c->engine->dsa_fallback : c->engine->fallback, c->engine_version,
			   "dsa_module.csv.gz", path,
			   sizeof(path), d->src, sizeof(d->src))) {
		free(d);
		return 0;
	}
	if (c->cache)
		rc = mfu_cache_dsatab(c->cache, path, &t, e);
	else
		rc = dsatab_load(path, &own, e), t = own;
	if (rc < 0) {
		free(d);
		return rc;
	}
	d->heads = (double)c->heads;
	for (i = 0; i < DSA_PHASE__COUNT; i++) {
		struct egrid *g = &d->g[i];
		if (dsatab_grid(t, (enum dsa_phase)i, (int)m->hidden, d->heads, c->kvdt, gemm, &g->src) != 0)
			continue;
		/* a decode phase comes before its prefill phase: its batch-1
		 * floor, the same module's GPU time under a graph */
		if ((i == DSA_DECODE || i == DSA_DECODE_SHARED) && strstr(d->src, "/vllm-"))
			dfloor[i == DSA_DECODE_SHARED] = row_floor(&g->src, 0);
		build(parts, ctx, g, (enum dsa_phase)i,
		      i == DSA_PREFILL_SHARED && !isnan(dfloor[1]) ? dfloor[1] : dfloor[0], &d->host_us[i]);
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
	char heads[48], host[64] = "";

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
	if (prefill && d->host_us[DSA_PREFILL] > 0)
		snprintf(host, sizeof(host), "; timed eagerly: its %.0f-us host floor taken out",
			 d->host_us[DSA_PREFILL]);
	if (prefill)
		snprintf(out, cap, "%s (%s, %s, %s KV, %s projections%s): module - parts %+.0f us for one "
			 "1k-token prompt, %+.0f us for one 8k-token prompt",
			 d->src, s->model, heads, dtype_name(s->kv), dtype_name(s->gemm), host,
			 dsa_module_prefill_s(d, true, 1, 1024, 0) * 1e6,
			 dsa_module_prefill_s(d, true, 1, 8192, 0) * 1e6);
	else
		snprintf(out, cap, "%s (%s, %s, %s KV, %s projections): module - parts %+.0f us at batch 1 x "
			 "4k keys, %+.0f us at batch 64 x 4k",
			 d->src, s->model, heads, dtype_name(s->kv), dtype_name(s->gemm),
			 dsa_module_decode_s(d, true, 1, 4096, 0) * 1e6,
			 dsa_module_decode_s(d, true, 64, 4096, 0) * 1e6);
}
