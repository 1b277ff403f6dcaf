/* csv.h - streaming CSV reader (plain or .gz): a header row, '#' comment
 * lines skipped, comma-separated fields without quoting.  Errors name
 * file:line and the column. */
#ifndef SERVESIM_CSV_H
#define SERVESIM_CSV_H
#include <stddef.h>

#include "base/err.h"

#define CSV_MAX_FIELDS 64

struct csv; /* opaque */

int csv_open(const char *path, struct csv **out, struct err *e);
void csv_close(struct csv *c);
/* Column index of a header name, or -1. */
int csv_column(const struct csv *c, const char *name);
/* Require the columns of the NULL-terminated names (their indexes in idx);
 * SS_EDATA naming the first missing one. */
int csv_require(const struct csv *c, const char *const *names, int *idx, struct err *e);
/* The optional columns of the NULL-terminated names: their indexes in idx
 * (-1 where absent).  Other header columns are ignored, except one that is
 * a slip of an absent optional name (a case change, or one or two edits of
 * a long name) and not itself in known (every column the reader takes,
 * NULL-terminated): SS_EDATA naming it, as a misspelt optional column would
 * otherwise be dropped without a word. */
int csv_optional(const struct csv *c, const char *const *names, const char *const *known, int *idx,
		 struct err *e);
/* Advance to the next data row: returns 1 with a row, 0 at end, <0 on error. */
int csv_next(struct csv *c, struct err *e);
size_t csv_nfields(const struct csv *c);
const char *csv_field(const struct csv *c, int i);
/* Field i of the current row as a finite number. */
int csv_num(const struct csv *c, int i, double *out, struct err *e);
size_t csv_lineno(const struct csv *c);
const char *csv_path(const struct csv *c);

#endif
