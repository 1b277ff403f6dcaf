/* stats.c - percentiles with linear interpolation (numpy's default). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/stats.h"

/* Order-preserving map of a float to an unsigned key. */
static uint32_t fkey(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

/* The float of a key (fkey's inverse). */
static float funkey(uint32_t k)
{
	uint32_t u = (k & 0x80000000u) ? k & 0x7fffffffu : ~k;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* LSD radix sort on the keys, 3 passes of 11, 11 and 10 bits: O(n), same
 * order as a comparison sort.  The keys are made once, in place (the
 * count's read), and the last pass writes the floats back; a pass whose
 * digit is the same for every value (the sign and top exponent bits of
 * one metric usually are) would move nothing and is skipped.  Was 4
 * passes of 8 bits on the floats, each making its keys again: 84 -> 63
 * instructions per value (callgrind, `bench chat 100000`'s summaries). */
/* Key i of an array that may be the caller's floats (memcpy: no access
 * through a type the memory does not have). */
static inline uint32_t key_at(const uint32_t *a, size_t i)
{
	uint32_t k;

	memcpy(&k, &a[i], sizeof(k));
	return k;
}

#define SORT_BITS 11
#define SORT_BINS (1u << SORT_BITS)
/* key k's three radix digits counted */
static inline void count_digits(size_t count[3][SORT_BINS], uint32_t k)
{
	count[0][k & (SORT_BINS - 1)]++;
	count[1][(k >> SORT_BITS) & (SORT_BINS - 1)]++;
	count[2][k >> (2 * SORT_BITS)]++;
}

/* The radix passes over keys[0..n) (n >= 64) whose digits are counted in
 * count; the floats sorted in keys' memory at the end.  scratch: room for
 * n (NULL: its own). */
static void sort_keys(uint32_t *keys, size_t n, size_t count[3][SORT_BINS], uint32_t *scratch)
{
	uint32_t *tmp, *src, *dst;
	size_t i;
	int pass, todo[3], ntodo = 0, t;
	uint32_t b;

	for (pass = 0; pass < 3; pass++) {
		size_t sum = 0, *c = count[pass];
		if (c[(key_at(keys, 0) >> (SORT_BITS * pass)) & (SORT_BINS - 1)] == n)
			continue; /* one digit for all: the order stands */
		for (b = 0; b < SORT_BINS; b++) {
			size_t cb = c[b];
			c[b] = sum;
			sum += cb;
		}
		todo[ntodo++] = pass;
	}
	tmp = scratch ? scratch : xmalloc(xmul(n, sizeof(uint32_t)));
	src = keys;
	dst = tmp;
	for (t = 0; t < ntodo; t++) {
		int sh = SORT_BITS * todo[t];
		size_t *c = count[todo[t]];
		if (t == ntodo - 1) { /* the last pass writes the floats' bits */
			for (i = 0; i < n; i++) {
				uint32_t k = key_at(src, i);
				float f = funkey(k);
				memcpy(&dst[c[(k >> sh) & (SORT_BINS - 1)]++], &f, sizeof(f));
			}
		} else {
			for (i = 0; i < n; i++) {
				uint32_t k = key_at(src, i);
				memcpy(&dst[c[(k >> sh) & (SORT_BINS - 1)]++], &k, sizeof(k));
			}
		}
		src = dst;
		dst = src == tmp ? keys : tmp;
	}
	if (ntodo == 0) { /* every key the same: the floats back in place */
		for (i = 0; i < n; i++) {
			float f = funkey(key_at(keys, i));
			memcpy(&keys[i], &f, sizeof(f));
		}
	} else if (src == tmp) {
		memcpy(keys, tmp, n * sizeof(float));
	}
	if (tmp != scratch)
		free(tmp);
}

static void sort_floats(float *x, size_t n, uint32_t *scratch)
{
	uint32_t *keys = (uint32_t *)(void *)x;
	size_t count[3][SORT_BINS], i;

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
	/* the keys overwrite the floats: x is read and written through
	 * uint32_t from here on (memcpy keeps the accesses defined), and the
	 * last pass writes floats again */
	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
		float f;
		uint32_t k;
		memcpy(&f, &x[i], sizeof(f));
		k = fkey(f);
		memcpy(&keys[i], &k, sizeof(k));
		count_digits(count, k);
	}
	sort_keys(keys, n, count, scratch);
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
	stats_summarise_scratch(x, n, NULL, o);
}

/* o's figures from the sorted x[0..n), n > 0. */
static void summarise_sorted(const float *x, size_t n, struct dist_summary *o)
{
	double s = 0;
	size_t i;

	o->n = n;
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

void stats_summarise_scratch(float *x, size_t n, uint32_t *scratch, struct dist_summary *o)
{
	memset(o, 0, sizeof(*o));
	if (n == 0)
		return;
	sort_floats(x, n, scratch);
	summarise_sorted(x, n, o);
}

void stats_summarise_where(const float *x, size_t n, const uint8_t *sel, int want, float *buf, uint32_t *scratch,
			   struct dist_summary *o)
{
	uint32_t *keys = (uint32_t *)(void *)buf;
	size_t count[3][SORT_BINS], i, m = 0;

	memset(o, 0, sizeof(*o));
	memset(count, 0, sizeof(count));
	/* the gather is the sort's first pass: each value kept goes into
	 * buf as its key, its digits counted */
	for (i = 0; i < n; i++) {
		float f = x[i];
		uint32_t k;
		if ((sel && sel[i] != want) || isnan(f))
			continue;
		k = fkey(f);
		memcpy(&keys[m++], &k, sizeof(k));
		count_digits(count, k);
	}
	if (m == 0)
		return;
	if (m < 64) { /* (the floats back, sorted by insertion) */
		for (i = 0; i < m; i++) {
			float f = funkey(key_at(keys, i));
			memcpy(&keys[i], &f, sizeof(f));
		}
		sort_floats(buf, m, scratch);
	} else {
		sort_keys(keys, m, count, scratch);
	}
	summarise_sorted(buf, m, o);
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
