/* tline.c - time counts with doubling buckets (see tline.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/tline.h"

void tline_init(struct tline *t, double origin, double width)
{
	t->origin = origin;
	t->width = width;
	t->cnt = xcalloc(TLINE_BUCKETS, sizeof(uint64_t));
	t->n = 0;
}

void tline_release(struct tline *t)
{
	free(t->cnt);
	memset(t, 0, sizeof(*t));
}

/* Twice as wide: bucket i takes buckets 2i and 2i + 1. */
static void widen(struct tline *t)
{
	size_t i;

	for (i = 0; i < TLINE_BUCKETS / 2; i++)
		t->cnt[i] = t->cnt[2 * i] + t->cnt[2 * i + 1];
	memset(t->cnt + TLINE_BUCKETS / 2, 0, TLINE_BUCKETS / 2 * sizeof(uint64_t));
	t->width *= 2;
}

void tline_add(struct tline *t, double x)
{
	double b;

	if (isnan(x))
		return;
	while ((b = (x - t->origin) / t->width) >= TLINE_BUCKETS)
		widen(t);
	t->cnt[b > 0 ? (size_t)b : 0]++;
	t->n++;
}

double tline_count(const struct tline *t, double lo, double hi)
{
	double a, b, c = 0;
	size_t i, i0, i1;

	if (!(hi >= lo) || t->n == 0)
		return 0;
	/* in bucket units, clamped to the buckets */
	a = fmin(fmax((lo - t->origin) / t->width, 0), TLINE_BUCKETS);
	b = fmin(fmax((hi - t->origin) / t->width, 0), TLINE_BUCKETS);
	i0 = (size_t)a;
	i1 = (size_t)b;
	if (i0 == i1)
		return i0 < TLINE_BUCKETS ? (double)t->cnt[i0] * (b - a) : 0;
	c = (double)t->cnt[i0] * ((double)(i0 + 1) - a);
	for (i = i0 + 1; i < i1; i++)
		c += (double)t->cnt[i];
	if (i1 < TLINE_BUCKETS)
		c += (double)t->cnt[i1] * (b - (double)i1);
	return c;
}
