/* axis.c - sorted axes of measured values.  See axis.h. */
#include <stdbool.h>
#include <stdlib.h>

#include "hw/axis.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

size_t axis_uniq(double *v, size_t n)
{
	size_t i, k = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		if (k == 0 || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

void axis_around(const double *v, size_t n, double x, double *lo, double *hi)
{
	bool has_lo = false, has_hi = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] <= x && (!has_lo || v[i] > *lo)) {
			*lo = v[i];
			has_lo = true;
		}
		if (v[i] >= x && (!has_hi || v[i] < *hi)) {
			*hi = v[i];
			has_hi = true;
		}
	}
	if (!has_lo)
		*lo = *hi;
	if (!has_hi)
		*hi = *lo;
}
