/* wdist.h - a weighted distribution: values added with integer weights,
 * summarised exactly while it holds few distinct values, else within
 * LOGHIST_REL_ERR.
 *
 * Made for the pooled token-gap ITL (sim.h): a simulator step adds one
 * gap value with the number of requests that saw it, so a run of 10 M
 * requests and 10^9 gaps adds a few million (value, weight) pairs, most
 * of them repeats.  Up to WDIST_EXACT_MAX distinct values the pairs are
 * kept in a hash table (16 B each) and the summary is exact: percentiles
 * are those of the expanded multiset, with the definition of stats.h
 * (linear interpolation between the order statistics at (n-1)p, numpy's
 * default, which vLLM's benchmark uses).  Past it every pair moves into
 * a loghist (loghist.h: count, mean and max exact, percentiles within
 * LOGHIST_REL_ERR) and memory stays bounded by the histogram's buckets. */
#ifndef SERVESIM_WDIST_H
#define SERVESIM_WDIST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "servesim/loghist.h"
#include "servesim/stats.h"

/* Distinct values kept exactly: 65,536 x 16 B = 1 MiB of table at most
 * (issue 13: a 10 M request run fits in 64 MB). */
#define WDIST_EXACT_MAX 65536u

struct wdist {
	double *val;       /* open addressing, cap slots (power of 2) */
	uint64_t *wt;      /* 0: empty slot */
	size_t cap, used;
	bool sketch;       /* past WDIST_EXACT_MAX distinct values: h only */
	struct loghist h;
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
