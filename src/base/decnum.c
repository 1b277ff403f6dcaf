/* decnum.c - exact fast path for plain decimal numbers (see decnum.h). */
#include <stdint.h>

#include "servesim/decnum.h"

/* 10^0 .. 10^22: the powers of ten a double holds exactly (5^22 < 2^53). */
static const double pow10_exact[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

bool decnum_parse(const char *s, double *out)
{
	const uint64_t max_exact = (uint64_t)1 << 53; /* integers a double holds exactly */
	uint64_t m = 0;
	int ndig = 0, scale = 0, ex = 0;
	bool neg = false, any = false;
	double v;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	/* leading zeros carry no precision */
	while (*s == '0') {
		s++;
		any = true;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		if (++ndig > 19)
			return false;
		m = m * 10 + (uint64_t)(*s - '0');
		any = true;
	}
	if (*s == '.') {
		s++;
		for (; *s >= '0' && *s <= '9'; s++) {
			if (m == 0 && *s == '0') {
				scale--; /* 0.000x: zeros after the point before any digit */
				any = true;
				continue;
			}
			if (++ndig > 19)
				return false;
			m = m * 10 + (uint64_t)(*s - '0');
			scale--;
			any = true;
		}
	}
	if (!any)
		return false;
	if (*s == 'e' || *s == 'E') {
		bool eneg = false;
		int nd = 0;
		s++;
		if (*s == '-' || *s == '+')
			eneg = *s++ == '-';
		for (; *s >= '0' && *s <= '9'; s++) {
			if (++nd > 4)
				return false;
			ex = ex * 10 + (*s - '0');
		}
		if (nd == 0)
			return false;
		scale += eneg ? -ex : ex;
	}
	if (*s != '\0' || m > max_exact)
		return false;
	if (m == 0) {
		v = 0.0;
	} else if (scale >= 0 && scale <= 22) {
		v = (double)m * pow10_exact[scale];
	} else if (scale < 0 && scale >= -22) {
		v = (double)m / pow10_exact[-scale];
	} else {
		return false;
	}
	*out = neg ? -v : v;
	return true;
}
