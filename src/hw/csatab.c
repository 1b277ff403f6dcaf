/* csatab.c - measured DeepSeek-V4 attention tables.  See csatab.h.
 *
 * Rows are kept as parsed (some 50,000 for SGLang's collections, read once
 * per cost model) and each cut is a scan. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/csatab.h"
#include "servesim/csv.h"

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

int csatab_load(const char *path, struct csatab **out, struct err *e)
{
	static const char *const cols[] = {"kind", "model", "hidden", "heads", "batch", "isl", "prefix",
					   "latency_us", NULL};
	struct csatab *t = xcalloc(1, sizeof(*t));
	struct csv *c;
	int idx[8], rc;

	*out = NULL;
	if ((rc = csv_open(path, &c, e)) < 0) {
		free(t);
		return rc;
	}
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	while ((rc = csv_next(c, e)) > 0) {
		struct row r;
		double v[8];
		int j;
		memset(&r, 0, sizeof(r));
		for (j = 0; j < CSAK__COUNT; j++)
			if (strcmp(csv_field(c, idx[0]), kind_names[j]) == 0)
				break;
		if (j == CSAK__COUNT) {
			rc = err_set(e, SS_EDATA, "%s:%zu: 'kind' must be csa_decode, hca_decode, csa_prefill, "
				     "hca_prefill, csa_logits or hca_attn, got '%s'", path, csv_lineno(c),
				     csv_field(c, idx[0]));
			goto out;
		}
		r.k = (enum csa_kind)j;
		if (strlen(csv_field(c, idx[1])) >= sizeof(r.model)) {
			rc = err_set(e, SS_EDATA, "%s:%zu: 'model' longer than %zu characters: '%s'", path,
				     csv_lineno(c), sizeof(r.model) - 1, csv_field(c, idx[1]));
			goto out;
		}
		snprintf(r.model, sizeof(r.model), "%s", csv_field(c, idx[1]));
		for (j = 2; j < 8; j++) {
			if ((rc = csv_num(c, idx[j], &v[j], e)) < 0)
				goto out;
			if (j == 6 ? !(v[j] >= 0) : !(v[j] > 0)) {
				rc = err_set(e, SS_EDATA, "%s:%zu: '%s' must be %s, got %g", path, csv_lineno(c),
					     cols[j], j == 6 ? ">= 0" : "> 0", v[j]);
				goto out;
			}
		}
		r.hidden = (int)v[2];
		r.heads = (int)v[3];
		r.batch = v[4];
		r.isl = v[5];
		r.prefix = v[6];
		r.us = v[7];
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 4096;
			t->r = xreallocarray(t->r, t->cap, sizeof(*t->r));
		}
		t->r[t->n++] = r;
	}
out:
	csv_close(c);
	if (rc < 0) {
		csatab_free(t);
		return rc;
	}
	*out = t;
	return 0;
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
	int lo = 0, hi = 0;
	size_t i, nhi = 0, cap = 0;

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
	for (i = 0; i < t->n; i++) {
		const struct row *r = &t->r[i];
		if (r->k != k || r->hidden != geo->hidden)
			continue;
		if ((double)r->heads <= heads && (lo == 0 || r->heads > lo))
			lo = r->heads;
		if ((double)r->heads >= heads && (hi == 0 || r->heads < hi))
			hi = r->heads;
	}
	if (lo == 0)
		lo = hi;
	if (hi == 0)
		hi = lo;
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
			w = (log(heads) - log((double)lo)) / (log((double)hi) - log((double)lo));
			us = exp((1 - w) * log(r->us) + w * log((*q)->us));
		}
		push(c, &cap, r->batch, r->isl, r->prefix, us);
	}
	free(his);
	return 0;
}
