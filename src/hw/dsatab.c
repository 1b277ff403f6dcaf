/* dsatab.c - measured DSA attention module tables.  See dsatab.h.
 *
 * The tables are small (a few thousand rows per collection) and read once
 * per cost model, so rows are kept as parsed and each grid is cut out by a
 * scan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "hw/dsatab.h"
#include "hw/axis.h"
#include "hw/modtab.h"

struct row {
	enum dsa_phase ph;
	char model[16];
	int hidden, heads;
	enum dtype kv, gemm;
	double batch, len, us;
};

struct dsatab {
	struct row *r;
	size_t n, cap;
};

static const char *const phase_names[DSA_PHASE__COUNT] = {"decode", "prefill", "decode_shared",
							  "prefill_shared"};

const char *dsa_phase_name(enum dsa_phase p)
{
	return (unsigned)p < DSA_PHASE__COUNT ? phase_names[p] : "?";
}

/* dtype_parse with the table's two spellings first (it runs per row) */
static int fast_dtype(const char *s, enum dtype *out, struct err *e)
{
	if (strcmp(s, "bf16") == 0) {
		*out = DT_BF16;
		return 0;
	}
	if (strcmp(s, "fp8") == 0) {
		*out = DT_FP8;
		return 0;
	}
	return dtype_parse(s, out, e);
}

static const char *const cols[] = {"phase", "model", "hidden", "kv_dtype", "gemm", "heads", "batch", "len",
				   "latency_us", NULL};

static int load_row(void *ctx, const struct csv *c, const int *idx, struct err *e)
{
	struct dsatab *t = ctx;
	struct row r;
	double v[9];
	int j, ph = 0, rc;

	memset(&r, 0, sizeof(r));
	if ((rc = modtab_name(c, idx[0], "phase", phase_names, DSA_PHASE__COUNT, &ph, e)) < 0 ||
	    (rc = modtab_model(c, idx[1], r.model, sizeof(r.model), e)) < 0)
		return rc;
	r.ph = (enum dsa_phase)ph;
	for (j = 3; j <= 4; j++)
		if (fast_dtype(csv_field(c, idx[j]), j == 3 ? &r.kv : &r.gemm, e) < 0) {
			char why[sizeof(e->msg)];
			snprintf(why, sizeof(why), "%s", e->msg); /* e->msg cannot be its own source */
			return err_set(e, SS_EDATA, "%s:%zu: '%s': %s", csv_path(c), csv_lineno(c), cols[j], why);
		}
	if ((rc = modtab_count(c, idx[2], cols[2], MODTAB_MAX_COUNT, &r.hidden, e)) < 0 ||
	    (rc = modtab_count(c, idx[5], cols[5], MODTAB_MAX_COUNT, &r.heads, e)) < 0)
		return rc;
	for (j = 6; j < 9; j++)
		if ((rc = modtab_num(c, idx[j], cols[j], false, &v[j], e)) < 0)
			return rc;
	r.batch = v[6];
	r.len = v[7];
	r.us = v[8];
	XGROW(t->r, t->cap, t->n + 1);
	t->r[t->n++] = r;
	return 0;
}

int dsatab_load(const char *path, struct dsatab **out, struct err *e)
{
	struct dsatab *t = xcalloc(1, sizeof(*t));
	int rc = modtab_read(path, cols, load_row, t, e);

	if (rc < 0) {
		dsatab_free(t);
		t = NULL;
	}
	*out = t;
	return rc;
}

void dsatab_free(struct dsatab *t)
{
	if (!t)
		return;
	free(t->r);
	free(t);
}

void dsa_grid_release(struct dsa_grid *g)
{
	free(g->batch);
	free(g->len);
	free(g->us);
	memset(g, 0, sizeof(*g));
}

/* The value of key among the candidates (wanted if any row has it, else
 * the first one seen). */
static enum dtype pick_dtype(const struct dsatab *t, const bool *cand, bool kv, enum dtype want)
{
	enum dtype first = want;
	bool seen = false;
	size_t i;

	for (i = 0; i < t->n; i++) {
		enum dtype d = kv ? t->r[i].kv : t->r[i].gemm;
		if (!cand[i])
			continue;
		if (d == want)
			return want;
		if (!seen) {
			first = d;
			seen = true;
		}
	}
	return first;
}

int dsatab_grid(const struct dsatab *t, enum dsa_phase ph, int hidden, double heads, enum dtype kv,
		enum dtype gemm, struct dsa_grid *g)
{
	bool *cand = xcalloc(t->n ? t->n : 1, sizeof(bool));
	double *hs = xmalloc((t->n ? t->n : 1) * sizeof(double)), *b, *l, wlo = 1, hlo, hhi;
	int best = -1, lo, hi;
	size_t i, nh = 0, nb = 0, nl = 0;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < t->n; i++)
		if (t->r[i].ph == ph && (best < 0 || abs(t->r[i].hidden - hidden) < abs(best - hidden)))
			best = t->r[i].hidden;
	if (best < 0) {
		free(cand);
		free(hs);
		return 1;
	}
	for (i = 0; i < t->n; i++)
		cand[i] = t->r[i].ph == ph && t->r[i].hidden == best;
	kv = pick_dtype(t, cand, true, kv);
	for (i = 0; i < t->n; i++)
		cand[i] = cand[i] && t->r[i].kv == kv;
	gemm = pick_dtype(t, cand, false, gemm);
	for (i = 0; i < t->n; i++) {
		cand[i] = cand[i] && t->r[i].gemm == gemm;
		if (cand[i])
			hs[nh++] = t->r[i].heads;
	}
	/* the measured head counts around heads (clamped at the ends) */
	axis_around(hs, nh, heads, &hlo, &hhi);
	lo = (int)hlo;
	hi = (int)hhi;
	if (hi != lo) /* the weight of lo (csatab_cut: of hi, see there) */
		wlo = (log((double)hi) - log(heads)) / (log((double)hi) - log((double)lo));
	b = xmalloc(t->n * sizeof(double));
	l = xmalloc(t->n * sizeof(double));
	for (i = 0; i < t->n; i++)
		if (cand[i] && (t->r[i].heads == lo || t->r[i].heads == hi)) {
			b[nb++] = t->r[i].batch;
			l[nl++] = t->r[i].len;
		}
	nb = axis_uniq(b, nb);
	nl = axis_uniq(l, nl);
	g->nb = nb;
	g->nl = nl;
	g->batch = b;
	g->len = l;
	g->us = xmalloc(nb * nl * sizeof(double));
	{
		/* log latency at lo and at hi, then combined */
		double *ulo = xmalloc(nb * nl * sizeof(double)), *uhi = xmalloc(nb * nl * sizeof(double));
		for (i = 0; i < nb * nl; i++)
			ulo[i] = uhi[i] = NAN;
		for (i = 0; i < t->n; i++) {
			size_t k;
			if (!cand[i] || (t->r[i].heads != lo && t->r[i].heads != hi))
				continue;
			k = axis_find(b, nb, t->r[i].batch) * nl + axis_find(l, nl, t->r[i].len);
			if (t->r[i].heads == lo)
				ulo[k] = log(t->r[i].us);
			if (t->r[i].heads == hi)
				uhi[k] = log(t->r[i].us);
		}
		for (i = 0; i < nb * nl; i++)
			g->us[i] = isnan(ulo[i]) || isnan(uhi[i]) ? NAN : exp(wlo * ulo[i] + (1 - wlo) * uhi[i]);
		free(ulo);
		free(uhi);
	}
	for (i = 0; i < t->n; i++)
		if (cand[i]) {
			snprintf(g->model, sizeof(g->model), "%s", t->r[i].model);
			break;
		}
	g->hidden = best;
	g->kv = kv;
	g->gemm = gemm;
	g->heads_lo = lo;
	g->heads_hi = hi;
	free(cand);
	free(hs);
	return 0;
}
