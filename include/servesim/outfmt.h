/* outfmt.h - number formatting shared by the output module's reports. */
#ifndef SERVESIM_OUTFMT_H
#define SERVESIM_OUTFMT_H
#include <stddef.h>

/* v with an SI prefix and unit: "512 FLOP" (an integer below 1000),
 * "1.23 GFLOP" (three significant digits, prefixes k .. E). */
void out_fmt_si(char *buf, size_t n, double v, const char *unit);

#endif
