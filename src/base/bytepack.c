/* bytepack.c - native-order byte encoding of counts and doubles for build
 * outputs read back on the same machine (the compact kernel tables). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/bytepack.h"

void bytes_put(struct sbuf *sb, const void *p, size_t n)
{
	if (n)
		sb_put(sb, p, n);
}

void bytes_put_u64(struct sbuf *sb, size_t v)
{
	uint64_t u = v;
	bytes_put(sb, &u, sizeof(u));
}

void bytes_get(struct bytes_rd *r, void *dst, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->p, n);
	r->p += n;
}

size_t bytes_get_u64(struct bytes_rd *r)
{
	uint64_t u;
	bytes_get(r, &u, sizeof(u));
	if (u > SIZE_MAX / 16) {
		r->bad = true;
		return 0;
	}
	return (size_t)u;
}

double *bytes_get_f64s(struct bytes_rd *r, size_t n)
{
	double *a;

	if (r->bad || n == 0)
		return NULL;
	if ((size_t)(r->end - r->p) / sizeof(double) < n) {
		r->bad = true;
		return NULL;
	}
	a = xmalloc(n * sizeof(double));
	memcpy(a, r->p, n * sizeof(double));
	r->p += n * sizeof(double);
	return a;
}

const double *bytes_view_f64s(struct bytes_rd *r, size_t n, bool *aligned)
{
	const double *a;

	*aligned = ((uintptr_t)r->p & (_Alignof(double) - 1)) == 0;
	if (r->bad || n == 0 || !*aligned)
		return NULL;
	if ((size_t)(r->end - r->p) / sizeof(double) < n) {
		r->bad = true;
		return NULL;
	}
	a = (const double *)(const void *)r->p;
	r->p += n * sizeof(double);
	return a;
}

bool bytes_ascending(const double *a, size_t n, bool strict)
{
	size_t i;

	if (n > 0 && isnan(a[0]))
		return false;
	for (i = 1; i < n; i++)
		if (strict ? !(a[i] > a[i - 1]) : !(a[i] >= a[i - 1]))
			return false;
	return true;
}
