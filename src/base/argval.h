/* argval.h - numbers from a flag's text ("--tp 4", "--gpu-memory-utilization
 * 0.85"), with messages that name the flag, the value and the range. */
#ifndef SERVESIM_BASE_ARGVAL_H
#define SERVESIM_BASE_ARGVAL_H
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

/* A decimal integer in [lo, hi] into *out; SS_EUSAGE otherwise ("FLAG
 * must be an integer, got 'x'", "FLAG must be in [lo, hi], got v"). */
int argval_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out, struct err *e);
/* A decimal number >= lo (> lo when lo_open) into *out; SS_EUSAGE
 * otherwise, past a double's range too. */
int argval_num(const char *flag, const char *arg, double lo, bool lo_open, double *out, struct err *e);
/* A comma-separated list's text ("--tp 1,2,4"): SS_EUSAGE when an item is
 * empty (two commas in a row, or one at either end), which the list's
 * tokenizer would otherwise skip without a word. */
int argval_list(const char *flag, const char *arg, struct err *e);

#endif
