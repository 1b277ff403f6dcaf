/* loghist.h - mergeable log-bucketed histogram for percentiles in bounded
 * memory.
 *
 * Exact percentiles keep every value (4 B per request per metric); above
 * LOGHIST_EXACT_MAX values a summary may come from this histogram instead.
 * Positive values fall into buckets (g^(i-1), g^i] with
 * g = (1 + a) / (1 - a); a bucket stands for 2 g^i / (g + 1), within a
 * relative error a of every value in it (the DDSketch construction:
 * Masson, Rim and Lee, "DDSketch: a fast and fully-mergeable quantile
 * sketch with relative-error guarantees", VLDB 2019).  Negative values
 * are kept in a mirrored set of buckets and zeros counted apart.
 *
 * Percentiles use the same definition as stats.h (linear interpolation
 * between the order statistics at position (n-1)p); each of the two order
 * statistics is within LOGHIST_REL_ERR of the exact one, so for values of
 * one sign the interpolated percentile is too.  Count, mean (up to
 * summation order) and max are exact.  Memory: one 8-byte counter per
 * bucket between the smallest and largest value, about
 * ln(max/min) / (2 a) buckets (about 11,500 for 1 us .. 10^4 s). */
#ifndef SERVESIM_LOGHIST_H
#define SERVESIM_LOGHIST_H
#include <stddef.h>
#include <stdint.h>

#include "base/bucketstore.h"

#include "base/stats.h"

/* Documented bound on the relative error of a percentile (0.1 %). */
#define LOGHIST_REL_ERR 1e-3
/* Above this many values a run may summarise from the histogram; at or
 * below it percentiles are exact (issue 13: 1 M requests). */
#define LOGHIST_EXACT_MAX 1000000u

struct loghist {
	double gamma, log_gamma;
	struct bucket_store pos, neg; /* neg holds -x for x < 0 */
	uint64_t zeros, n;
	double sum, sumsq, max; /* sumsq: for the standard deviation */
};

/* An empty histogram with relative error LOGHIST_REL_ERR. */
void loghist_init(struct loghist *h);
void loghist_release(struct loghist *h);
/* Adds x (finite; NaN is ignored). */
void loghist_add(struct loghist *h, double x);
/* Adds every value of src to dst (both from loghist_init). */
void loghist_merge(struct loghist *dst, const struct loghist *src);
/* Percentile p in [0,1]; 0 when empty. */
double loghist_percentile(const struct loghist *h, double p);
/* Count, mean, p50/p90/p95/p99 and max, as stats_summarise gives them. */
void loghist_summarise(const struct loghist *h, struct dist_summary *out);

#endif
