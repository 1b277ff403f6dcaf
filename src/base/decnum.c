/* decnum.c - exact fast path for plain decimal numbers (see decnum.h). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/decnum.h"

/* 10^0 .. 10^22: the powers of ten a double holds exactly (5^22 < 2^53). */
static const double pow10_exact[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

bool decnum_parse(const char *s, double *out)
{
	const uint64_t max_exact = (uint64_t)1 << 53; /* integers a double holds exactly */
	uint64_t m = 0;
	const char *p = s, *d0;
	size_t nint, nfrac = 0;
	int scale, ex = 0;
	bool neg = false;
	double v;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	/* all digits into m; more than 19 (zeros included) may have wrapped
	 * m and are left to strtod below */
	for (d0 = p; (unsigned)(*p - '0') < 10u; p++)
		m = m * 10 + (uint64_t)(*p - '0');
	nint = (size_t)(p - d0);
	if (*p == '.') {
		for (d0 = ++p; (unsigned)(*p - '0') < 10u; p++)
			m = m * 10 + (uint64_t)(*p - '0');
		nfrac = (size_t)(p - d0);
	}
	if (nint + nfrac == 0 || nint + nfrac > 19)
		return false;
	scale = -(int)nfrac;
	if (*p == 'e' || *p == 'E') {
		bool eneg = false;
		size_t nd;
		p++;
		if (*p == '-' || *p == '+')
			eneg = *p++ == '-';
		for (d0 = p; (unsigned)(*p - '0') < 10u && p - d0 < 5; p++)
			ex = ex * 10 + (*p - '0');
		nd = (size_t)(p - d0);
		if (nd == 0 || nd > 4)
			return false;
		scale += eneg ? -ex : ex;
	}
	if (*p != '\0' || m > max_exact)
		return false;
	if (m == 0)
		v = 0.0;
	else if (scale >= 0 && scale <= 22)
		v = (double)m * pow10_exact[scale];
	else if (scale < 0 && scale >= -22)
		v = (double)m / pow10_exact[-scale];
	else
		return false;
	*out = neg ? -v : v;
	return true;
}

__extension__ typedef unsigned __int128 u128;

/* printf then strtod, the reference decnum_round agrees with. */
static double round_by_text(double x, int digits)
{
	char buf[400];

	snprintf(buf, sizeof(buf), "%.*f", digits, x);
	return strtod(buf, NULL);
}

static const uint64_t pow10_u64[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
					 1000000000};

double decnum_round(double x, int digits)
{
	const uint64_t max_exact = (uint64_t)1 << 53;
	double mag = fabs(x);
	uint64_t m, bits, p10 = 1;
	u128 p, q, r, half;
	int e;

	if (digits < 0 || digits > 9 || !isfinite(x) || mag >= (double)max_exact)
		return round_by_text(x, digits);
	p10 = pow10_u64[digits];
	if (mag == 0)
		return x; /* "0.0000" or "-0.0000": the same signed zero */
	/* Most values are not on a decimal tie: y = mag x 10^digits rounded
	 * once (p10 is exact) to the nearest double.  Below 2^52 every
	 * half-integer k + 1/2 is a double, and rounding to nearest is
	 * monotone and keeps doubles: when y is on none, the exact product P
	 * lies strictly between the same two half-integers as y, so it rounds
	 * to the integer nearest y (exact), and that integer's division by
	 * 10^digits is the slow path's own last step.  (y on one: P may be
	 * a tie or just off one, which the slow path tells apart.) */
	{
		double y = mag * (double)p10, f, frac, qd;
		if (y < 0x1p52) {
			f = (double)(int64_t)y; /* floor: y >= 0 */
			frac = y - f;           /* exact */
			if (frac != 0.5) {
				qd = frac > 0.5 ? f + 1 : f;
				return x < 0 ? -(qd / (double)p10) : qd / (double)p10;
			}
		}
	}
	/* mag = m 2^e exactly, m < 2^53, from the IEEE fields (a subnormal's
	 * exponent is that of the smallest normal) */
	memcpy(&bits, &mag, sizeof(bits));
	e = (int)(bits >> 52);
	m = bits & (((uint64_t)1 << 52) - 1);
	if (e == 0) {
		e = -1074;
	} else {
		m |= (uint64_t)1 << 52;
		e -= 1075;
	}
	p = (u128)m * p10; /* < 2^83: mag x 10^digits = p 2^e exactly */
	if (e >= 0) {
		q = p; /* mag in [2^52, 2^53): e is 0 */
	} else if (-e >= 100) {
		q = 0; /* p 2^e < 2^-17: rounds to 0 */
	} else {
		int s = -e;
		q = p >> s;
		r = p - (q << s);
		half = (u128)1 << (s - 1);
		if (r > half || (r == half && (q & 1)))
			q++;
	}
	if (q >= (u128)max_exact)
		return round_by_text(x, digits);
	return x < 0 ? -((double)(uint64_t)q / (double)p10) : (double)(uint64_t)q / (double)p10;
}
