/* modtab.c - the columns the measured module tables share.  See modtab.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw/modtab.h"

int modtab_read(const char *path, const char *const *cols,
		int (*row)(void *ctx, const struct csv *c, const int *idx, struct err *e), void *ctx,
		struct err *e)
{
	struct csv *c;
	int idx[CSV_MAX_FIELDS], rc;

	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) == 0)
		while ((rc = csv_next(c, e)) > 0)
			if ((rc = row(ctx, c, idx, e)) < 0)
				break;
	csv_close(c);
	return rc < 0 ? rc : 0;
}

int modtab_bad_name(const struct csv *c, int col, const char *what, const char *const *names, int n,
		    struct err *e)
{
	char list[256];
	size_t len = 0;
	int i;

	list[0] = '\0';
	for (i = 0; i < n && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
					names[i]);
	return err_set(e, SS_EDATA, "%s:%zu: '%s' must be %s, got '%s'", csv_path(c), csv_lineno(c), what, list,
		       csv_field(c, col));
}

int modtab_bad_model(const struct csv *c, int col, size_t cap, struct err *e)
{
	return err_set(e, SS_EDATA, "%s:%zu: 'model' longer than %zu characters: '%s'", csv_path(c), csv_lineno(c),
		       cap - 1, csv_field(c, col));
}

int modtab_bad_num(const struct csv *c, const char *what, bool zero_ok, double v, struct err *e)
{
	return err_set(e, SS_EDATA, "%s:%zu: '%s' must be %s, got %g", csv_path(c), csv_lineno(c), what,
		       zero_ok ? ">= 0" : "> 0", v);
}

int modtab_count(const struct csv *c, int col, const char *what, int max, int *out, struct err *e)
{
	double v;
	int rc = csv_num(c, col, &v, e);

	if (rc < 0)
		return rc;
	if (!(v >= 1 && v <= (double)max && v == floor(v)))
		return err_set(e, SS_EDATA, "%s:%zu: '%s' must be a whole number in [1, %d], got %g", csv_path(c),
			       csv_lineno(c), what, max, v);
	*out = (int)v;
	return 0;
}
