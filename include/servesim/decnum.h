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

#endif
