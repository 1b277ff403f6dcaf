/* modtab.h - reading the measured module tables (DSA's, hw/dsatab.c;
 * DeepSeek-V4's, hw/csatab.c): their CSV files row by row, and the columns
 * they share - a row's kind by name, its geometry's name, and its positive
 * numbers (hidden size, heads, batch, lengths, latency), each refused with
 * file:line, the column and the value.  Library-internal. */
#ifndef SERVESIM_MODTAB_H
#define SERVESIM_MODTAB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/csv.h"
#include "base/err.h"

/* Read path's rows through row(ctx, c, idx, e), idx the indexes of the
 * NULL-terminated columns cols (all required): 0, or the first negative
 * status (of the file, its header or row()) with its message. */
int modtab_read(const char *path, const char *const *cols,
		int (*row)(void *ctx, const struct csv *c, const int *idx, struct err *e), void *ctx,
		struct err *e);

/* The errors of the three below (out of line: the rows are many and the
 * lookups inline). */
int modtab_bad_name(const struct csv *c, int col, const char *what, const char *const *names, int n,
		    struct err *e);
int modtab_bad_model(const struct csv *c, int col, size_t cap, struct err *e);
int modtab_bad_num(const struct csv *c, const char *what, bool zero_ok, double v, struct err *e);

/* Field col of the row as one of names[0..n): its index in *out; else
 * SS_EDATA "FILE:LINE: 'what' must be a, b or c, got 'x'". */
static inline int modtab_name(const struct csv *c, int col, const char *what, const char *const *names, int n,
			      int *out, struct err *e)
{
	const char *s = csv_field(c, col);
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	return modtab_bad_name(c, col, what, names, n, e);
}

/* Field col of the row (a geometry's name) copied into out[cap]; SS_EDATA
 * when it does not fit. */
static inline int modtab_model(const struct csv *c, int col, char *out, size_t cap, struct err *e)
{
	const char *s = csv_field(c, col);

	if (strlen(s) >= cap)
		return modtab_bad_model(c, col, cap, e);
	snprintf(out, cap, "%s", s);
	return 0;
}

/* Field col of the row as a number > 0 (>= 0 with zero_ok); SS_EDATA naming
 * the column `what` and the value. */
static inline int modtab_num(const struct csv *c, int col, const char *what, bool zero_ok, double *out,
			     struct err *e)
{
	int rc = csv_num(c, col, out, e);

	if (rc < 0)
		return rc;
	if (zero_ok ? !(*out >= 0) : !(*out > 0))
		return modtab_bad_num(c, what, zero_ok, *out, e);
	return 0;
}

/* The largest hidden size or head count a module table may give. */
#define MODTAB_MAX_COUNT 1000000

/* Field col of the row as a whole number in [1, max] (a hidden size, a
 * head count): SS_EDATA naming the column `what` and the value. */
int modtab_count(const struct csv *c, int col, const char *what, int max, int *out, struct err *e);

#endif
