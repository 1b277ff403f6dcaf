/* decnum.h - exact fast path for plain decimal numbers.
 *
 * The kernel tables hold a few million short decimal fields; strtod's
 * general (multi-precision) path dominated their loading.  decnum_parse
 * reads the common shape [+-]digits[.digits][(e|E)[+-]digits] when the
 * digits fit in 2^53 and the power of ten is within 1e22 (Clinger's fast
 * path: both operands are exact doubles, so one IEEE division or
 * multiplication rounds once, correctly).  It then gives the identical
 * double to strtod in round-to-nearest mode; anything else is left to the
 * caller (returns false), so strtod still decides every other case and
 * every error message. */
#ifndef SERVESIM_DECNUM_H
#define SERVESIM_DECNUM_H
#include <stdbool.h>

/* True and *out set when s is wholly a number of the shape above that the
 * fast path can give exactly; false (out untouched) otherwise. */
bool decnum_parse(const char *s, double *out);

/* The double that strtod gives back for x printed with printf's "%.*f" and
 * `digits` decimals (0..9), computed without the text: the decimal rounding
 * of x's exact binary value (ties to even, as glibc's printf in
 * round-to-nearest mode), then one correctly rounded division by 10^digits
 * (Clinger).  Code that used to print numbers and read them back (the
 * capacity search's per-request rows) gets the same values; NaN, infinities
 * and magnitudes past 2^53 / 10^digits go through snprintf and strtod. */
double decnum_round(double x, int digits);

#endif
