/* csatab.c - measured DeepSeek-V4 attention tables.  See csatab.h.
 *
 * Rows are kept as parsed (some 50,000 for SGLang's collections, read once
 * per cost model) and each cut is a scan. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/csatab.h"
#include "base/csv.h"
#include "hw/axis.h"
#include "hw/modtab.h"

struct row {
	enum csa_kind k;
	char model[16];
	int hidden, heads;
	double batch, isl, prefix, us;
};

struct csatab {
	struct row *r;
	size_t n, cap;
};

static const char *const kind_names[CSAK__COUNT] = {"csa_decode", "hca_decode", "csa_prefill",
						     "hca_prefill", "csa_logits", "hca_attn"};

const char *csa_kind_name(enum csa_kind k)
{
	return (unsigned)k < CSAK__COUNT ? kind_names[k] : "?";
}

static const char *const cols[] = {"kind", "model", "hidden", "heads", "batch", "isl", "prefix", "latency_us",
				   NULL};

static int load_row(void *ctx, const struct csv *c, const int *idx, struct err *e)
{
	struct csatab *t = ctx;
	struct row r;
	double v[8];
	int j, k = 0, rc;

	memset(&r, 0, sizeof(r));
	if ((rc = modtab_name(c, idx[0], "kind", kind_names, CSAK__COUNT, &k, e)) < 0 ||
	    (rc = modtab_model(c, idx[1], r.model, sizeof(r.model), e)) < 0)
		return rc;
	r.k = (enum csa_kind)k;
	if ((rc = modtab_count(c, idx[2], cols[2], MODTAB_MAX_COUNT, &r.hidden, e)) < 0 ||
	    (rc = modtab_count(c, idx[3], cols[3], MODTAB_MAX_COUNT, &r.heads, e)) < 0)
		return rc;
	for (j = 4; j < 8; j++)
		if ((rc = modtab_num(c, idx[j], cols[j], j == 6, &v[j], e)) < 0)
			return rc;
	r.batch = v[4];
	r.isl = v[5];
	r.prefix = v[6];
	r.us = v[7];
	XGROW(t->r, t->cap, t->n + 1);
	t->r[t->n++] = r;
	return 0;
}

int csatab_load(const char *path, struct csatab **out, struct err *e)
{
	struct csatab *t = xcalloc(1, sizeof(*t));
	int rc = modtab_read(path, cols, load_row, t, e);

	if (rc < 0) {
		csatab_free(t);
		t = NULL;
	}
	*out = t;
	return rc;
}

void csatab_free(struct csatab *t)
{
	if (!t)
		return;
	free(t->r);
	free(t);
}

void csa_cut_release(struct csa_cut *c)
{
	free(c->batch);
	free(c->isl);
	free(c->prefix);
	free(c->us);
	memset(c, 0, sizeof(*c));
}

static void push(struct csa_cut *c, size_t *cap, double b, double isl, double pre, double us)
{
	if (c->n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		c->batch = xreallocarray(c->batch, *cap, sizeof(double));
		c->isl = xreallocarray(c->isl, *cap, sizeof(double));
		c->prefix = xreallocarray(c->prefix, *cap, sizeof(double));
		c->us = xreallocarray(c->us, *cap, sizeof(double));
	}
	c->batch[c->n] = b;
	c->isl[c->n] = isl;
	c->prefix[c->n] = pre;
	c->us[c->n++] = us;
}

static int key_cmp(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;

	if (x->batch != y->batch)
		return x->batch < y->batch ? -1 : 1;
	if (x->isl != y->isl)
		return x->isl < y->isl ? -1 : 1;
	if (x->prefix != y->prefix)
		return x->prefix < y->prefix ? -1 : 1;
	return 0;
}

int csatab_cut(const struct csatab *t, enum csa_kind k, int hidden, double heads, struct csa_cut *c)
{
	const struct row *geo = NULL, **his = NULL;
	double *hs, hlo, hhi;
	int lo, hi;
	size_t i, nh = 0, nhi = 0, cap = 0;

	memset(c, 0, sizeof(*c));
	/* the geometry: nearest hidden among those measured at these heads,
	 * else nearest hidden */
	for (i = 0; i < t->n; i++) {
		const struct row *r = &t->r[i];
		bool exact = fabs((double)r->heads - heads) < 1e-9;
		bool gexact = geo && fabs((double)geo->heads - heads) < 1e-9;
		if (r->k != k)
			continue;
		if (!geo || (exact && !gexact) ||
		    (exact == gexact && abs(r->hidden - hidden) < abs(geo->hidden - hidden)))
			geo = r;
	}
	if (!geo)
		return 1;
	snprintf(c->model, sizeof(c->model), "%s", geo->model);
	c->hidden = geo->hidden;
	/* the measured head counts around heads (clamped) */
	hs = xmalloc(xmul(t->n, sizeof(*hs)));
	for (i = 0; i < t->n; i++)
		if (t->r[i].k == k && t->r[i].hidden == geo->hidden)
			hs[nh++] = t->r[i].heads;
	axis_around(hs, nh, heads, &hlo, &hhi);
	free(hs);
	lo = (int)hlo;
	hi = (int)hhi;
	c->heads_lo = lo;
	c->heads_hi = hi;
	if (hi != lo) { /* the rows at hi, sorted for lookups */
		his = xmalloc(xmul(t->n, sizeof(*his)));
		for (i = 0; i < t->n; i++)
			if (t->r[i].k == k && t->r[i].hidden == geo->hidden && t->r[i].heads == hi)
				his[nhi++] = &t->r[i];
		qsort(his, nhi, sizeof(*his), key_cmp);
	}
	for (i = 0; i < t->n; i++) {
		const struct row *r = &t->r[i];
		double us = r->us;
		if (r->k != k || r->hidden != geo->hidden || r->heads != lo)
			continue;
		if (hi != lo) {
			const struct row **q = bsearch(&r, his, nhi, sizeof(*his), key_cmp);
			double w;
			if (!q)
				continue;
			/* log-log in the heads as in dsatab_grid, which weights lo
			 * where this weights hi: the same line rounded differently in
			 * the last bit; each left as its table was checked with
			 * (scripts/mfu/check_dsa_module.py, check_dsv4_module.py) */
			w = (log(heads) - log((double)lo)) / (log((double)hi) - log((double)lo));
			us = exp((1 - w) * log(r->us) + w * log((*q)->us));
		}
		push(c, &cap, r->batch, r->isl, r->prefix, us);
	}
	free(his);
	return 0;
}
