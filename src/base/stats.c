/* stats.c - percentiles with linear interpolation (numpy's default). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/stats.h"

/* Order-preserving map of a float to an unsigned key. */
static uint32_t fkey(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

/* LSD radix sort, 4 passes of 8 bits: O(n), same order as a comparison sort.
 * One read counts all four digits; a pass whose digit is the same for
 * every value (the sign and top exponent bits of one metric usually are)
 * would move nothing and is skipped. */
static void sort_floats(float *x, size_t n)
{
	float *tmp, *src = x, *dst;
	size_t count[4][256], i;
	int pass, b;

	if (n < 64) {
		for (i = 1; i < n; i++) { /* insertion sort */
			float v = x[i];
			size_t j = i;
			while (j > 0 && x[j - 1] > v) {
				x[j] = x[j - 1];
				j--;
			}
			x[j] = v;
		}
		return;
	}
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		uint32_t k = fkey(x[i]);
		count[0][k & 0xffu]++;
		count[1][(k >> 8) & 0xffu]++;
		count[2][(k >> 16) & 0xffu]++;
		count[3][k >> 24]++;
	}
	tmp = xmalloc(xmul(n, sizeof(float)));
	dst = tmp;
	for (pass = 0; pass < 4; pass++) {
		size_t sum = 0, *c = count[pass];
		if (c[(fkey(x[0]) >> (8 * pass)) & 0xffu] == n)
			continue; /* one digit for all: the order stands */
		for (b = 0; b < 256; b++) {
			size_t cb = c[b];
			c[b] = sum;
			sum += cb;
		}
		for (i = 0; i < n; i++)
			dst[c[(fkey(src[i]) >> (8 * pass)) & 0xffu]++] = src[i];
		src = dst;
		dst = src == tmp ? x : tmp;
	}
	if (src != x)
		memcpy(x, src, n * sizeof(float));
	free(tmp);
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
	sort_floats(x, n);
	for (i = 0; i < n; i++)
		s += x[i];
	o->mean = s / (double)n;
	s = 0; /* two passes: no cancellation */
	for (i = 0; i < n; i++)
		s += ((double)x[i] - o->mean) * ((double)x[i] - o->mean);
	o->std = sqrt(s / (double)n);
	o->p50 = stats_percentile_sorted(x, n, 0.50);
	o->p90 = stats_percentile_sorted(x, n, 0.90);
	o->p95 = stats_percentile_sorted(x, n, 0.95);
	o->p99 = stats_percentile_sorted(x, n, 0.99);
	o->max = x[n - 1];
}

double stats_percentile_order(uint64_t n, double p, double last,
			      double (*order_stat)(const void *ctx, uint64_t k), const void *ctx)
{
	double pos = p * (double)(n - 1), w, a;
	uint64_t lo = (uint64_t)pos;

	if (lo + 1 >= n)
		return last;
	w = pos - (double)lo;
	a = order_stat(ctx, lo);
	if (w == 0)
		return a;
	return a + w * (order_stat(ctx, lo + 1) - a);
}
