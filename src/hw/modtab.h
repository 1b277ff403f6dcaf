/* modtab.h - reading the measured module tables (DSA's, hw/dsatab.c;
 * DeepSeek-V4's, hw/csatab.c): their CSV files row by row, and the columns
 * they share - a row's kind by name, its geometry's name, and its positive
 * numbers (hidden size, heads, batch, lengths, latency), each refused with
 * file:line, the column and the value.  Library-internal. */
#ifndef SERVESIM_MODTAB_H
#define SERVESIM_MODTAB_H
#include <stdbool.h>
#include <stddef.h>

#include "servesim/csv.h"
#include "servesim/err.h"

/* Read path's rows through row(ctx, c, idx, e), idx the indexes of the
 * NULL-terminated columns cols (all required): 0, or the first negative
 * status (of the file, its header or row()) with its message. */
int modtab_read(const char *path, const char *const *cols,
		int (*row)(void *ctx, const struct csv *c, const int *idx, struct err *e), void *ctx,
		struct err *e);

/* Field col of the row as one of names[0..n): its index in *out; else
 * SS_EDATA "FILE:LINE: 'what' must be a, b or c, got 'x'". */
int modtab_name(const struct csv *c, int col, const char *what, const char *const *names, int n, int *out,
		struct err *e);

/* Field col of the row (a geometry's name) copied into out[cap]; SS_EDATA
 * when it does not fit. */
int modtab_model(const struct csv *c, int col, char *out, size_t cap, struct err *e);

/* Field col of the row as a number > 0 (>= 0 with zero_ok); SS_EDATA naming
 * the column `what` and the value. */
int modtab_num(const struct csv *c, int col, const char *what, bool zero_ok, double *out, struct err *e);

#endif
