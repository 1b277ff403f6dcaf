/* wdist.c - weighted distribution, exact then log-bucketed (see wdist.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/wdist.h"

void wdist_init(struct wdist *d)
{
	memset(d, 0, sizeof(*d));
	loghist_init(&d->h);
	d->max = -INFINITY;
}

void wdist_release(struct wdist *d)
{
	free(d->val);
	free(d->wt);
	loghist_release(&d->h);
	memset(d, 0, sizeof(*d));
}

static size_t slot_of(const struct wdist *d, double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	b ^= b >> 33; /* the murmur3 finaliser's mix (Appleby, public domain) */
	b *= 0xff51afd7ed558ccdULL;
	b ^= b >> 33;
	return (size_t)b & (d->cap - 1);
}

static void table_put(struct wdist *d, double x, uint64_t w)
{
	size_t i = slot_of(d, x);

	while (d->wt[i] && d->val[i] != x)
		i = (i + 1) & (d->cap - 1);
	if (!d->wt[i]) {
		d->val[i] = x;
		d->used++;
	}
	d->wt[i] += w;
}

/* Every pair into the histogram; the table goes. */
static void to_sketch(struct wdist *d)
{
	size_t i;

	for (i = 0; i < d->cap; i++)
		if (d->wt[i])
			loghist_add_n(&d->h, d->val[i], d->wt[i]);
	free(d->val);
	free(d->wt);
	d->val = NULL;
	d->wt = NULL;
	d->cap = d->used = 0;
	d->sketch = true;
}

static void table_grow(struct wdist *d)
{
	double *ov = d->val;
	uint64_t *ow = d->wt;
	size_t i, oc = d->cap;

	d->cap = oc ? oc * 2 : 64;
	d->val = xmalloc(xmul(d->cap, sizeof(double)));
	d->wt = xcalloc(d->cap, sizeof(uint64_t));
	d->used = 0;
	for (i = 0; i < oc; i++)
		if (ow[i])
			table_put(d, ov[i], ow[i]);
	free(ov);
	free(ow);
}

void wdist_add(struct wdist *d, double x, uint64_t w)
{
	if (w == 0 || isnan(x))
		return;
	if (x == 0)
		x = 0; /* -0 and +0: one value */
	d->n += w;
	if (x > d->max)
		d->max = x;
	if (d->sketch) {
		loghist_add_n(&d->h, x, w);
		return;
	}
	if (d->cap > 0) { /* a value seen before: its weight grows */
		size_t i = slot_of(d, x);
		while (d->wt[i] && d->val[i] != x)
			i = (i + 1) & (d->cap - 1);
		if (d->wt[i]) {
			d->wt[i] += w;
			return;
		}
	}
	/* a new value; load at most 1/2 */
	if (2 * (d->used + 1) > d->cap) {
		if (d->used + 1 > WDIST_EXACT_MAX) {
			to_sketch(d);
			loghist_add_n(&d->h, x, w);
			return;
		}
		table_grow(d);
	}
	table_put(d, x, w);
}

void wdist_merge(struct wdist *dst, const struct wdist *src)
{
	size_t i;

	if (src->sketch) {
		if (!dst->sketch)
			to_sketch(dst);
		loghist_merge(&dst->h, &src->h);
		dst->n += src->n;
		if (src->max > dst->max)
			dst->max = src->max;
		return;
	}
	for (i = 0; i < src->cap; i++)
		if (src->wt[i])
			wdist_add(dst, src->val[i], src->wt[i]);
}

bool wdist_exact(const struct wdist *d)
{
	return !d->sketch;
}

struct pair {
	double v;
	uint64_t w;
};

static int cmp_pair(const void *a, const void *b)
{
	double x = ((const struct pair *)a)->v, y = ((const struct pair *)b)->v;
	return x < y ? -1 : x > y;
}

/* The k-th smallest value (0-based) of the expanded multiset. */
static double order_stat(const struct pair *p, size_t np, uint64_t k)
{
	uint64_t seen = 0;
	size_t i;

	for (i = 0; i < np; i++) {
		seen += p[i].w;
		if (k < seen)
			return p[i].v;
	}
	return p[np - 1].v;
}

static double percentile(const struct pair *p, size_t np, uint64_t n, double q)
{
	double pos = q * (double)(n - 1), w, a, b;
	uint64_t lo = (uint64_t)pos;

	if (lo + 1 >= n)
		return p[np - 1].v;
	w = pos - (double)lo;
	a = order_stat(p, np, lo);
	if (w == 0)
		return a;
	b = order_stat(p, np, lo + 1);
	return a + w * (b - a);
}

void wdist_summarise(const struct wdist *d, struct dist_summary *o)
{
	struct pair *p;
	size_t i, np = 0;
	double sum = 0, ss = 0;

	memset(o, 0, sizeof(*o));
	if (d->n == 0)
		return;
	if (d->sketch) {
		loghist_summarise(&d->h, o);
		return;
	}
	p = xmalloc(xmul(d->used, sizeof(*p)));
	for (i = 0; i < d->cap; i++)
		if (d->wt[i]) {
			p[np].v = d->val[i];
			p[np++].w = d->wt[i];
		}
	qsort(p, np, sizeof(*p), cmp_pair);
	for (i = 0; i < np; i++)
		sum += p[i].v * (double)p[i].w;
	o->n = (size_t)d->n;
	o->mean = sum / (double)d->n;
	for (i = 0; i < np; i++)
		ss += (p[i].v - o->mean) * (p[i].v - o->mean) * (double)p[i].w;
	o->std = sqrt(ss / (double)d->n);
	o->p50 = percentile(p, np, d->n, 0.50);
	o->p90 = percentile(p, np, d->n, 0.90);
	o->p95 = percentile(p, np, d->n, 0.95);
	o->p99 = percentile(p, np, d->n, 0.99);
	o->max = p[np - 1].v;
	free(p);
}
