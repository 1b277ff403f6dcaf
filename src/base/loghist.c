/* loghist.c - mergeable log-bucketed histogram (see loghist.h).
 *
 * Buckets are sized for a relative error a little below the documented
 * bound (LOGHIST_REL_ERR), so that a value on a bucket boundary that log()
 * rounds into the neighbouring bucket is still within the bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/loghist.h"

#define LOGHIST_BUCKET_ERR (0.9 * LOGHIST_REL_ERR)

void loghist_init(struct loghist *h)
{
	memset(h, 0, sizeof(*h));
	h->gamma = (1 + LOGHIST_BUCKET_ERR) / (1 - LOGHIST_BUCKET_ERR);
	h->log_gamma = log(h->gamma);
	h->max = -INFINITY;
}

void loghist_release(struct loghist *h)
{
	bucket_store_release(&h->pos);
	bucket_store_release(&h->neg);
	memset(h, 0, sizeof(*h));
}

static int64_t bucket_of(const struct loghist *h, double x)
{
	return (int64_t)ceil(log(x) / h->log_gamma);
}

static double bucket_value(const struct loghist *h, int64_t i)
{
	return 2.0 * exp((double)i * h->log_gamma) / (h->gamma + 1.0);
}

void loghist_add(struct loghist *h, double x)
{
	if (isnan(x))
		return;
	h->n++;
	h->sum += x;
	h->sumsq += x * x;
	if (x > h->max)
		h->max = x;
	if (x > 0)
		bucket_store_add(&h->pos, bucket_of(h, x), 1);
	else if (x < 0)
		bucket_store_add(&h->neg, bucket_of(h, -x), 1);
	else
		h->zeros++;
}

void loghist_merge(struct loghist *dst, const struct loghist *src)
{
	bucket_store_merge(&dst->pos, &src->pos);
	bucket_store_merge(&dst->neg, &src->neg);
	dst->zeros += src->zeros;
	dst->n += src->n;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* The k-th smallest value (0-based), to the bucket. */
static double order_stat(const void *ctx, uint64_t k)
{
	const struct loghist *h = ctx;
	uint64_t seen = 0;
	size_t i;

	/* negatives: largest magnitude first */
	for (i = h->neg.len; i-- > 0;) {
		seen += h->neg.cnt[i];
		if (k < seen)
			return -bucket_value(h, h->neg.off + (int64_t)i);
	}
	seen += h->zeros;
	if (k < seen)
		return 0;
	for (i = 0; i < h->pos.len; i++) {
		seen += h->pos.cnt[i];
		if (k < seen)
			return bucket_value(h, h->pos.off + (int64_t)i);
	}
	return h->max; /* not reached: k < n */
}

double loghist_percentile(const struct loghist *h, double p)
{
	return h->n == 0 ? 0 : stats_percentile_order(h->n, p, h->max, order_stat, h);
}

void loghist_summarise(const struct loghist *h, struct dist_summary *o)
{
	memset(o, 0, sizeof(*o));
	o->n = (size_t)h->n;
	if (h->n == 0)
		return;
	o->mean = h->sum / (double)h->n;
	o->std = sqrt(fmax(0.0, h->sumsq / (double)h->n - o->mean * o->mean));
	o->p50 = loghist_percentile(h, 0.50);
	o->p90 = loghist_percentile(h, 0.90);
	o->p95 = loghist_percentile(h, 0.95);
	o->p99 = loghist_percentile(h, 0.99);
	o->max = h->max;
}
