/* wdist.c - weighted distribution, exact then bucketed (see wdist.h).
 *
 * The buckets are a double's sign, exponent and first WDIST_MANT_BITS
 * mantissa bits: a shift gives a value's bucket (no log() per value, which
 * cost about 15 ns of a simulator step's 60 ns when this used loghist), the
 * order of the buckets is the order of the values, and every bucket spans
 * at most a relative width of 2^-WDIST_MANT_BITS. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/stats.h"
#include "base/wdist.h"

#define WDIST_SHIFT (52 - WDIST_MANT_BITS)

void wdist_init(struct wdist *d)
{
	memset(d, 0, sizeof(*d));
	d->max = -INFINITY;
}

void wdist_release(struct wdist *d)
{
	free(d->val);
	free(d->wt);
	bucket_store_release(&d->pos);
	bucket_store_release(&d->neg);
	memset(d, 0, sizeof(*d));
}

/* --- buckets --- */

static int64_t bucket_of(double a) /* a > 0 */
{
	uint64_t b;

	memcpy(&b, &a, sizeof(b));
	return (int64_t)(b >> WDIST_SHIFT);
}

/* The middle of bucket i: within 2^-(WDIST_MANT_BITS+1) of its values. */
static double bucket_mid(int64_t i)
{
	uint64_t b = (uint64_t)i << WDIST_SHIFT, c = (uint64_t)(i + 1) << WDIST_SHIFT;
	double lo, hi;

	memcpy(&lo, &b, sizeof(lo));
	memcpy(&hi, &c, sizeof(hi));
	return isfinite(hi) ? lo + (hi - lo) / 2 : lo;
}

static void bucket_add(struct wdist *d, double x, uint64_t w)
{
	d->sum += x * (double)w;
	d->sumsq += x * x * (double)w;
	if (x > 0)
		bucket_store_add(&d->pos, bucket_of(x), w);
	else if (x < 0)
		bucket_store_add(&d->neg, bucket_of(-x), w);
	else
		d->zeros += w;
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

/* Every pair into the buckets; the table goes. */
static void to_sketch(struct wdist *d)
{
	size_t i;

	for (i = 0; i < d->cap; i++)
		if (d->wt[i])
			bucket_add(d, d->val[i], d->wt[i]);
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
		bucket_add(d, x, w);
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
			bucket_add(d, x, w);
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
		bucket_store_merge(&dst->pos, &src->pos);
		bucket_store_merge(&dst->neg, &src->neg);
		dst->zeros += src->zeros;
		dst->sum += src->sum;
		dst->sumsq += src->sumsq;
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

/* A double's bits as an unsigned key in the same order as the values. */
static uint64_t order_key(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return (u >> 63) ? ~u : u | (1ull << 63);
}

/* Sort p[0, np) by value: LSD radix over the order keys, 8 passes of 8
 * bits, a pass skipped when every key has the same digit there (gaps share
 * their sign and exponent bytes); qsort below 64 pairs.  Same order as
 * cmp_pair up to equal values (-0 before +0), which the summaries cannot
 * tell apart. */
static void sort_pairs(struct pair *p, size_t np)
{
	struct pair *tmp, *src = p, *dst;
	uint64_t *key, *ktmp, *ks, *kd;
	size_t cnt[256], i, pass;

	if (np < 64) {
		qsort(p, np, sizeof(*p), cmp_pair);
		return;
	}
	tmp = xmalloc(xmul(np, sizeof(*tmp)));
	key = xmalloc(xmul(np, sizeof(*key)));
	ktmp = xmalloc(xmul(np, sizeof(*ktmp)));
	for (i = 0; i < np; i++)
		key[i] = order_key(p[i].v);
	dst = tmp;
	ks = key;
	kd = ktmp;
	for (pass = 0; pass < 8; pass++) {
		unsigned sh = (unsigned)(8 * pass);
		size_t sum = 0, c;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < np; i++)
			cnt[(ks[i] >> sh) & 0xff]++;
		if (cnt[(ks[0] >> sh) & 0xff] == np)
			continue; /* one digit for all: the order stands */
		for (i = 0; i < 256; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < np; i++) {
			size_t at = cnt[(ks[i] >> sh) & 0xff]++;
			dst[at] = src[i];
			kd[at] = ks[i];
		}
		{
			struct pair *t = src;
			uint64_t *tk = ks;
			src = dst;
			dst = t;
			ks = kd;
			kd = tk;
		}
	}
	if (src != p)
		memcpy(p, src, np * sizeof(*p));
	free(tmp);
	free(key);
	free(ktmp);
}

/* The sorted pairs of an exact summary. */
struct pairs {
	const struct pair *p;
	size_t np;
};

/* The k-th smallest value (0-based) of the expanded multiset. */
static double order_stat(const void *ctx, uint64_t k)
{
	const struct pairs *ps = ctx;
	uint64_t seen = 0;
	size_t i;

	for (i = 0; i < ps->np; i++) {
		seen += ps->p[i].w;
		if (k < seen)
			return ps->p[i].v;
	}
	return ps->p[ps->np - 1].v;
}

static double percentile(const struct pair *p, size_t np, uint64_t n, double q)
{
	struct pairs ps = {p, np};

	return stats_percentile_order(n, q, p[np - 1].v, order_stat, &ps);
}

/* The k-th smallest value (0-based), to its bucket's middle. */
static double sketch_order_stat(const void *ctx, uint64_t k)
{
	const struct wdist *d = ctx;
	uint64_t seen = 0;
	size_t i;

	for (i = d->neg.len; i-- > 0;) { /* negatives: largest magnitude first */
		seen += d->neg.cnt[i];
		if (k < seen)
			return -bucket_mid(d->neg.off + (int64_t)i);
	}
	seen += d->zeros;
	if (k < seen)
		return 0;
	for (i = 0; i < d->pos.len; i++) {
		seen += d->pos.cnt[i];
		if (k < seen)
			return bucket_mid(d->pos.off + (int64_t)i);
	}
	return d->max;
}

static double sketch_percentile(const struct wdist *d, double q)
{
	return stats_percentile_order(d->n, q, d->max, sketch_order_stat, d);
}

static void sketch_summarise(const struct wdist *d, struct dist_summary *o)
{
	o->n = (size_t)d->n;
	o->mean = d->sum / (double)d->n;
	o->std = sqrt(fmax(0.0, d->sumsq / (double)d->n - o->mean * o->mean));
	o->p50 = sketch_percentile(d, 0.50);
	o->p90 = sketch_percentile(d, 0.90);
	o->p95 = sketch_percentile(d, 0.95);
	o->p99 = sketch_percentile(d, 0.99);
	o->max = d->max;
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
		sketch_summarise(d, o);
		return;
	}
	p = xmalloc(xmul(d->used, sizeof(*p)));
	for (i = 0; i < d->cap; i++)
		if (d->wt[i]) {
			p[np].v = d->val[i];
			p[np++].w = d->wt[i];
		}
	sort_pairs(p, np);
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
