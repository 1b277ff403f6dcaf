/* wdist.h - a weighted distribution: values added with integer weights,
 * summarised exactly while it holds few distinct values, else within
 * LOGHIST_REL_ERR.
 *
 * Made for the pooled token-gap ITL (sim.h): a simulator step adds one
 * gap value with the number of requests that saw it, so a run of 10 M
 * requests and 10^9 gaps adds a few million (value, weight) pairs.  Up to
 * WDIST_EXACT_MAX distinct values the pairs are kept in a hash table (16 B
 * each) and the summary is exact: percentiles are those of the expanded
 * multiset, with the definition of stats.h (linear interpolation between
 * the order statistics at (n-1)p, numpy's default, which vLLM's benchmark
 * uses).  Past it every pair moves into buckets of relative width at most
 * 2^-WDIST_MANT_BITS (a double's exponent and first mantissa bits, the
 * HdrHistogram idea): a bucket stands for its middle, within
 * WDIST_REL_ERR of every value in it, so each order statistic and (for
 * values of one sign) each percentile is within WDIST_REL_ERR of the exact
 * one; count and max stay exact, mean and std up to summation order.
 * Memory: 8 B per bucket between the smallest and largest value, 1024 per
 * factor of 2 (24 K for 1 us .. 10 s). */
#ifndef SERVESIM_WDIST_H
#define SERVESIM_WDIST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/bucketstore.h"
#include "base/stats.h"

/* Distinct values kept exactly: 65,536 x 16 B = 1 MiB of table at most
 * (issue 13: a 10 M request run fits in 64 MB). */
#define WDIST_EXACT_MAX 65536u

/* Mantissa bits of a bucket: 10, relative width <= 2^-10. */
#define WDIST_MANT_BITS 10
/* Bound on a bucketed percentile's relative error: 2^-11 (0.049 %). */
#define WDIST_REL_ERR (1.0 / 2048)

struct wdist {
	double *val;       /* open addressing, cap slots (power of 2) */
	uint64_t *wt;      /* 0: empty slot */
	size_t cap, used;
	bool sketch;       /* past WDIST_EXACT_MAX distinct values: the buckets only */
	struct bucket_store pos, neg; /* buckets of x > 0 and of -x for x < 0 */
	uint64_t zeros;
	double sum, sumsq; /* of the bucketed values */
	uint64_t n;
	double max;
};

void wdist_init(struct wdist *d);
void wdist_release(struct wdist *d);
/* Adds x (finite, not NaN) with weight w (0: nothing). */
void wdist_add(struct wdist *d, double x, uint64_t w);
/* Adds every value of src to dst. */
void wdist_merge(struct wdist *dst, const struct wdist *src);
/* True while the summary is exact. */
bool wdist_exact(const struct wdist *d);
/* Count, mean, std (population), p50/p90/p95/p99 and max; all 0 when
 * empty (n 0).  Exact mode sums in ascending value order, so the result
 * does not depend on the order of the adds. */
void wdist_summarise(const struct wdist *d, struct dist_summary *out);

#endif
