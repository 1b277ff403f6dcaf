/* stats.h - summary statistics of a sample: mean, percentiles by linear
 * interpolation between order statistics (position (n-1)p), max. */
#ifndef SERVESIM_STATS_H
#define SERVESIM_STATS_H
#include <stddef.h>
#include <stdint.h>

struct dist_summary {
	size_t n;
	double mean, p50, p90, p95, p99, max;
	double std;     /* population standard deviation (numpy's np.std, ddof 0, as vLLM's benchmark) */
};

/* Sorts x in place. */
void stats_summarise(float *x, size_t n, struct dist_summary *out);
/* The same with the sort's scratch (room for n) the caller's, e.g. memory
 * already mapped; NULL: its own. */
void stats_summarise_scratch(float *x, size_t n, uint32_t *scratch, struct dist_summary *out);
/* The summary of the values x[i] whose sel[i] is want (sel NULL: every
 * one), NaNs left out: the same as gathering them into buf and
 * stats_summarise_scratch on buf, but the gather is the sort's first pass
 * (one pass over the values fewer).  buf: room for n, left sorted;
 * scratch as above. */
void stats_summarise_where(const float *x, size_t n, const uint8_t *sel, int want, float *buf, uint32_t *scratch,
			   struct dist_summary *out);
/* Percentile p in [0,1] of a sorted array. */
double stats_percentile_sorted(const float *x, size_t n, double p);
/* Percentile p in [0,1] of n values known through their k-th smallest
 * (order_stat(ctx, k), k 0-based), interpolated as above; `last` for a
 * position at or past the largest.  n > 0. */
double stats_percentile_order(uint64_t n, double p, double last,
			      double (*order_stat)(const void *ctx, uint64_t k), const void *ctx);

#endif
