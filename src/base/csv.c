/* csv.c - streaming CSV over the gz reader. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/decnum.h"
#include "base/gzread.h"
#include "base/paths.h"

struct csv {
	struct gzr *g;
	char *path;
	char *row;            /* copy of the current line, split in place */
	size_t row_cap;
	char *hdr[CSV_MAX_FIELDS];
	char *hdr_buf;
	size_t nhdr;
	char *f[CSV_MAX_FIELDS];
	size_t nf;
};

/* Split a line in place.  A field may be quoted ("a,b" or "say ""hi"""):
 * the quotes go and doubled quotes become one (RFC 4180, no line breaks
 * inside fields). */
static size_t split(char *s, char **f)
{
	size_t n = 0;

	for (;;) {
		char *w = s;
		if (n == CSV_MAX_FIELDS)
			return n + 1; /* too many: caller reports */
		f[n++] = s;
		if (*s == '"') {
			for (s++; *s; s++) {
				if (*s == '"' && s[1] == '"')
					*w++ = *s++;
				else if (*s == '"')
					break;
				else
					*w++ = *s;
			}
			if (*s == '"')
				s++;
			while (*s && *s != ',') /* text after the closing quote */
				*w++ = *s++;
		} else {
			while (*s && *s != ',')
				w = ++s;
		}
		if (*s != ',') {
			*w = '\0';
			return n;
		}
		*w = '\0';
		s++;
	}
}

static int read_line(struct csv *c, const char **line, struct err *e)
{
	size_t len;
	int rc;

	for (;;) {
		if ((rc = gzr_getline(c->g, line, &len, e)) < 0)
			return rc;
		if (!*line)
			return 0;
		if ((*line)[0] == '#' || len == 0)
			continue;
		return 1;
	}
}

int csv_open(const char *path, struct csv **out, struct err *e)
{
	struct csv *c = xcalloc(1, sizeof(*c));
	const char *line;
	size_t i, j;
	int rc;

	c->path = xstrdup(path);
	if ((rc = gzr_open(path, &c->g, e)) < 0)
		goto fail;
	if ((rc = read_line(c, &line, e)) < 0)
		goto fail;
	if (rc == 0) {
		rc = err_set(e, SS_EDATA, "%s: empty file, expected a header row", path);
		goto fail;
	}
	/* a UTF-8 byte order mark (spreadsheet exports) is not part of the first name */
	if (strncmp(line, "\xEF\xBB\xBF", 3) == 0)
		line += 3;
	c->hdr_buf = xstrdup(line);
	c->nhdr = split(c->hdr_buf, c->hdr);
	if (c->nhdr > CSV_MAX_FIELDS) {
		rc = err_set(e, SS_EDATA, "%s:%zu: more than %d columns", path, gzr_lineno(c->g),
			     CSV_MAX_FIELDS);
		goto fail;
	}
	/* a name twice: a reader would take the first and drop the other
	 * column's values unseen (empty names, a spreadsheet's trailing
	 * columns, name nothing a reader asks for) */
	for (i = 1; i < c->nhdr; i++)
		for (j = 0; j < i; j++)
			if (c->hdr[i][0] && strcmp(c->hdr[i], c->hdr[j]) == 0) {
				rc = err_set(e, SS_EDATA, "%s:%zu: column '%s' appears twice in the header "
					     "(columns %zu and %zu); each column needs its own name", path,
					     gzr_lineno(c->g), c->hdr[i], j + 1, i + 1);
				goto fail;
			}
	*out = c;
	return 0;
fail:
	csv_close(c);
	return rc;
}

void csv_close(struct csv *c)
{
	if (!c)
		return;
	gzr_close(c->g);
	free(c->path);
	free(c->row);
	free(c->hdr_buf);
	free(c);
}

int csv_column(const struct csv *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nhdr; i++)
		if (strcmp(c->hdr[i], name) == 0)
			return (int)i;
	return -1;
}

/* A header column that is not name but a slip of it: a case change (of
 * any name: "Stage" is no other word), or at most two edits of a name long
 * enough that they do not make another word ("ttft" is not a slip of
 * "tpot"). */
static bool slip_of(const char *col, const char *name)
{
	size_t n = strlen(name);

	return strcmp(col, name) != 0 &&
	       (strcasecmp(col, name) == 0 || (n >= 6 && paths_edit_distance(col, name) <= (n >= 10 ? 2 : 1)));
}

/* The header column, not itself a name of names, that is a slip of name
 * (slip_of), or NULL. */
static const char *slip_in_header(const struct csv *c, const char *name, const char *const *names)
{
	size_t i, k;

	for (i = 0; i < c->nhdr; i++) {
		for (k = 0; names[k] && strcmp(names[k], c->hdr[i]) != 0; k++)
			;
		if (!names[k] && slip_of(c->hdr[i], name))
			return c->hdr[i];
	}
	return NULL;
}

int csv_require(const struct csv *c, const char *const *names, int *idx, struct err *e)
{
	size_t i;

	for (i = 0; names[i]; i++) {
		const char *near;
		idx[i] = csv_column(c, names[i]);
		if (idx[i] >= 0)
			continue;
		if ((near = slip_in_header(c, names[i], names)))
			return err_set(e, SS_EDATA, "%s: missing column '%s' in the header (the header has '%s': "
				       "rename it '%s')", c->path, names[i], near, names[i]);
		return err_set(e, SS_EDATA, "%s: missing column '%s' in the header", c->path, names[i]);
	}
	return 0;
}

int csv_optional(const struct csv *c, const char *const *names, const char *const *known, int *idx,
		 struct err *e)
{
	size_t i;

	for (i = 0; names[i]; i++) {
		const char *near;
		idx[i] = csv_column(c, names[i]);
		if (idx[i] < 0 && (near = slip_in_header(c, names[i], known)))
			return err_set(e, SS_EDATA, "%s: column '%s' is not one servesim reads: did you mean '%s'? "
				       "(other columns are ignored; rename it '%s' or give it another name)",
				       c->path, near, names[i], names[i]);
	}
	return 0;
}

int csv_next(struct csv *c, struct err *e)
{
	const char *line;
	size_t n;
	int rc = read_line(c, &line, e);

	if (rc <= 0)
		return rc;
	n = strlen(line);
	XGROW(c->row, c->row_cap, n + 1);
	memcpy(c->row, line, n + 1);
	c->nf = split(c->row, c->f);
	if (c->nf != c->nhdr)
		return err_set(e, SS_EDATA, "%s:%zu: %zu fields, the header has %zu", c->path,
			       gzr_lineno(c->g), c->nf, c->nhdr);
	return 1;
}

size_t csv_nfields(const struct csv *c)
{
	return c->nf;
}

const char *csv_field(const struct csv *c, int i)
{
	return (i >= 0 && (size_t)i < c->nf) ? c->f[i] : "";
}

int csv_num(const struct csv *c, int i, double *out, struct err *e)
{
	const char *s = csv_field(c, i);
	char *end;
	double v;

	if (decnum_parse(s, out)) /* the same double strtod gives, without its slow path */
		return 0;
	errno = 0;
	v = strtod(s, &end);
	/* decimal only: strtod would also read hex ("0x10"), inf and nan */
	if (errno || end == s || *end || !isfinite(v) || s[strspn(s, " 0123456789.eE+-")] != '\0')
		return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be a number, got '%s'", c->path,
			       gzr_lineno(c->g), (i >= 0 && (size_t)i < c->nhdr) ? c->hdr[i] : "?", s);
	*out = v;
	return 0;
}

size_t csv_lineno(const struct csv *c)
{
	return gzr_lineno(c->g);
}

const char *csv_path(const struct csv *c)
{
	return c->path;
}
