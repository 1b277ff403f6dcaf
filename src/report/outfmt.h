/* outfmt.h - number formatting shared by the output module's reports. */
#ifndef SERVESIM_OUTFMT_H
#define SERVESIM_OUTFMT_H
#include <stddef.h>

/* v with an SI prefix and unit: "512 FLOP" (an integer below 1000),
 * "1.23 GFLOP" (three significant digits, prefixes k .. E). */
void out_fmt_si(char *buf, size_t n, double v, const char *unit);
/* A count: "1.23 B" (1e9), "4.5 M" (1e6), else the integer. */
void out_fmt_count(char *buf, size_t n, double v);
/* "s" after a count other than 1 ("1 request", "2 requests"). */
static inline const char *out_plural(long long n)
{
	return n == 1 ? "" : "s";
}

#endif
