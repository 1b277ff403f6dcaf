/* stats.c - percentiles with linear interpolation (numpy's default). */
#include <stdlib.h>
#include <string.h>

#include "servesim/stats.h"

static int cmp_f(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

double stats_percentile_sorted(const float *x, size_t n, double p)
{
	double pos, w;
	size_t lo;

	if (n == 0)
		return 0;
	pos = p * (double)(n - 1);
	lo = (size_t)pos;
	if (lo + 1 >= n)
		return x[n - 1];
	w = pos - (double)lo;
	return (double)x[lo] + w * ((double)x[lo + 1] - (double)x[lo]);
}

void stats_summarise(float *x, size_t n, struct dist_summary *o)
{
	double s = 0;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->n = n;
	if (n == 0)
		return;
	qsort(x, n, sizeof(float), cmp_f);
	for (i = 0; i < n; i++)
		s += x[i];
	o->mean = s / (double)n;
	o->p50 = stats_percentile_sorted(x, n, 0.50);
	o->p90 = stats_percentile_sorted(x, n, 0.90);
	o->p95 = stats_percentile_sorted(x, n, 0.95);
	o->p99 = stats_percentile_sorted(x, n, 0.99);
	o->max = x[n - 1];
}
