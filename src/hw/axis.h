/* axis.h - sorted axes of measured values: the distinct values of a set,
 * the first value at or above x, x bracketed between two neighbours, and
 * the measured values around x.  Shared by the kernel tables (mfu.c), the
 * module tables (dsatab.c, csatab.c) and the log-log grids (lgrid.c).
 * Library-internal.
 *
 * axis_find and axis_bracket are inline: the start-up prices every token
 * count of every GEMM through them (mfu.c), where a call per lookup costs. */
#ifndef SERVESIM_AXIS_H
#define SERVESIM_AXIS_H
#include <stddef.h>

/* Sort v[0..n) ascending and drop repeats in place; the new count. */
size_t axis_uniq(double *v, size_t n);

/* The measured values around x among v[0..n) (any order, repeats allowed,
 * n >= 1): *lo the largest <= x, *hi the smallest >= x; past either end
 * both are the nearest end (equal: x measured, or clamped). */
void axis_around(const double *v, size_t n, double x, double *lo, double *hi);

/* The first index of ascending a[0..n) whose value is >= x (n if none): a
 * lower bound whose halving step is a conditional move, not a branch (its
 * comparisons are unpredictable). */
static inline size_t axis_find(const double *a, size_t n, double x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bracket x in ascending a[0..n) (distinct values): index lo and weight w
 * of the upper neighbour a[lo + 1], clamped at the ends (w 0 at or below
 * a[0], lo n - 2 and w 1 at or above a[n - 1]; lo 0, w 0 when n is 1). */
static inline void axis_bracket(const double *a, size_t n, double x, size_t *lo, double *w)
{
	size_t i;

	if (n == 1 || x <= a[0]) {
		*lo = 0;
		*w = 0;
		return;
	}
	if (x >= a[n - 1]) {
		*lo = n - 2;
		*w = 1;
		return;
	}
	i = axis_find(a, n, x);
	if (a[i] == x) {
		*lo = i < n - 1 ? i : i - 1;
		*w = i < n - 1 ? 0 : 1;
		return;
	}
	*lo = i - 1;
	*w = (x - a[i - 1]) / (a[i] - a[i - 1]);
}

/* axis_bracket looked up first at *hint (an index, 0 at first), which it
 * updates: the same *lo and *w, without the search when the hint's
 * neighbours enclose x (a caller whose x moves slowly). */
static inline void axis_bracket_hint(const double *a, size_t n, double x, size_t *lo, double *w, size_t *hint)
{
	size_t i = *hint;

	if (n == 1 || x <= a[0] || x >= a[n - 1]) {
		axis_bracket(a, n, x, lo, w);
		return;
	}
	/* axis_find's answer: the first a[i] >= x, a[0] < x < a[n - 1] */
	if (!(i >= 1 && i < n && a[i - 1] < x && x <= a[i]))
		*hint = i = axis_find(a, n, x);
	if (a[i] == x) { /* (i < n - 1 here) */
		*lo = i;
		*w = 0;
		return;
	}
	*lo = i - 1;
	*w = (x - a[i - 1]) / (a[i] - a[i - 1]);
}

#endif
