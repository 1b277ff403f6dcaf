/* grid.c - list and range flags parsed into axes; point numbering of their
 * product (mixed radix, last axis fastest, so that a sweep's rows come out
 * grouped by configuration with the rate inside). */
#include "base/argval.h"
#include "plan/grid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

void grid_init(struct grid *g)
{
	memset(g, 0, sizeof(*g));
}

void grid_release(struct grid *g)
{
	size_t a, i;

	for (a = 0; a < g->nax; a++) {
		free(g->ax[a].num);
		for (i = 0; g->ax[a].str && i < g->ax[a].n; i++)
			free(g->ax[a].str[i]);
		free(g->ax[a].str);
	}
	memset(g, 0, sizeof(*g));
}

static int new_axis(struct grid *g, const char *name, const char *flag, struct grid_axis **out,
		    struct err *e)
{
	size_t a;

	for (a = 0; a < g->nax; a++)
		if (strcmp(g->ax[a].name, name) == 0)
			return err_set(e, SS_EUSAGE, "%s given twice; give one list, e.g. %s 1,2,4", flag, flag);
	if (g->nax == GRID_MAX_AXES)
		return err_set(e, SS_EUSAGE, "%s: at most %d list flags", flag, GRID_MAX_AXES);
	*out = &g->ax[g->nax];
	memset(*out, 0, sizeof(**out));
	snprintf((*out)->name, sizeof((*out)->name), "%s", name);
	return 0;
}

static int parse_num(const char *flag, const char *item, const char *s, double *v, struct err *e)
{
	const char *end;

	if (!argval_lead_num(s, v, &end) || *end != '\0' || isnan(*v))
		return err_set(e, SS_EUSAGE, "%s: '%s' is not a number (items are N or START:STOP:STEP)",
			       flag, item);
	if (!isfinite(*v)) /* (strtod's overflow: 1e400) */
		return err_set(e, SS_EUSAGE, "%s: '%s' is %s number servesim computes with (%g)", flag, item,
			       *v > 0 ? "above the largest" : "below the smallest", *v > 0 ? DBL_MAX : -DBL_MAX);
	return 0;
}

static int push(struct grid_axis *x, double v, const char *flag, bool integer, double lo, double hi,
		struct err *e)
{
	if (integer && v != floor(v))
		return err_set(e, SS_EUSAGE, "%s: %g is not an integer", flag, v);
	if (v < lo || v > hi)
		return err_set(e, SS_EUSAGE, "%s: %g out of range, expected %g to %g", flag, v, lo, hi);
	if (x->n == GRID_MAX_VALUES)
		return err_set(e, SS_EUSAGE, "%s: more than %d values", flag, GRID_MAX_VALUES);
	x->num = xreallocarray(x->num, x->n + 1, sizeof(*x->num));
	x->num[x->n++] = v;
	return 0;
}

static int add_item(struct grid_axis *x, const char *flag, char *item, bool integer, double lo,
		    double hi, struct err *e)
{
	char *c1 = strchr(item, ':'), *c2, orig[128];
	double a, b, step, v;
	size_t k, steps;
	int rc;

	snprintf(orig, sizeof(orig), "%s", item);
	if (!c1) {
		if ((rc = parse_num(flag, orig, item, &v, e)) < 0)
			return rc;
		return push(x, v, flag, integer, lo, hi, e);
	}
	c2 = strchr(c1 + 1, ':');
	if (!c2 || strchr(c2 + 1, ':'))
		return err_set(e, SS_EUSAGE, "%s: range '%s' must be START:STOP:STEP, e.g. 10:40:2", flag, orig);
	*c1 = *c2 = '\0';
	if ((rc = parse_num(flag, orig, item, &a, e)) < 0 || (rc = parse_num(flag, orig, c1 + 1, &b, e)) < 0 ||
	    (rc = parse_num(flag, orig, c2 + 1, &step, e)) < 0)
		return rc;
	if (step <= 0)
		return err_set(e, SS_EUSAGE, "%s: range '%s' needs a STEP > 0", flag, orig);
	if (b < a)
		return err_set(e, SS_EUSAGE, "%s: range '%s' has STOP < START", flag, orig);
	if ((b - a) / step + 1 > GRID_MAX_VALUES)
		return err_set(e, SS_EUSAGE, "%s: range '%s' has more than %d values", flag, orig, GRID_MAX_VALUES);
	/* values start + k step, computed by multiplication (no drift); the
	 * stop is included when the last step lands on it up to rounding */
	steps = (size_t)floor((b - a) / step + 1e-9);
	for (k = 0; k <= steps; k++) {
		v = a + (double)k * step;
		/* 10:40:0.1 must give 10.1, not 10.100000000000001 */
		v = round(v * 1e9) / 1e9;
		if ((rc = push(x, v, flag, integer, lo, hi, e)) < 0)
			return rc;
	}
	return 0;
}

int grid_add_numbers(struct grid *g, const char *name, const char *flag, const char *arg, bool integer,
		     double lo, double hi, struct err *e)
{
	struct grid_axis *x;
	struct argval_items it;
	size_t i, j;
	int rc;

	if ((rc = new_axis(g, name, flag, &x, e)) < 0)
		return rc;
	if (!*arg)
		return err_set(e, SS_EUSAGE, "%s: empty list, expected e.g. %s 1,2,4 or START:STOP:STEP", flag, flag);
	argval_items_start(&it, flag, arg);
	while ((rc = argval_items_next(&it, e)) > 0 && (rc = add_item(x, flag, it.item, integer, lo, hi, e)) == 0)
		;
	if (rc == 0 && x->n == 0)
		rc = err_set(e, SS_EUSAGE, "%s: empty list, expected e.g. %s 1,2,4", flag, flag);
	for (i = 0; rc == 0 && i < x->n; i++)
		for (j = 0; j < i; j++)
			if (x->num[i] == x->num[j]) {
				rc = err_set(e, SS_EUSAGE, "%s: %g listed twice", flag, x->num[i]);
				break;
			}
	if (rc < 0) {
		free(x->num);
		memset(x, 0, sizeof(*x));
		return rc;
	}
	g->nax++;
	return 0;
}

int grid_add_words(struct grid *g, const char *name, const char *flag, const char *arg, struct err *e)
{
	struct grid_axis *x;
	struct argval_items it;
	size_t i;
	int rc;

	if ((rc = new_axis(g, name, flag, &x, e)) < 0)
		return rc;
	x->text = true;
	argval_items_start(&it, flag, arg);
	while ((rc = argval_items_next(&it, e)) > 0) {
		for (i = 0; i < x->n; i++)
			if (strcmp(x->str[i], it.item) == 0)
				rc = err_set(e, SS_EUSAGE, "%s: '%s' listed twice", flag, it.item);
		if (rc > 0 && x->n == GRID_MAX_VALUES)
			rc = err_set(e, SS_EUSAGE, "%s: more than %d values", flag, GRID_MAX_VALUES);
		if (rc < 0)
			break;
		x->str = xreallocarray(x->str, x->n + 1, sizeof(*x->str));
		x->str[x->n] = xmalloc(strlen(it.item) + 1);
		strcpy(x->str[x->n++], it.item);
	}
	if (rc == 0 && x->n == 0)
		rc = err_set(e, SS_EUSAGE, "%s: empty list, expected e.g. %s a,b", flag, flag);
	if (rc < 0) {
		for (i = 0; i < x->n; i++)
			free(x->str[i]);
		free(x->str);
		memset(x, 0, sizeof(*x));
		return rc;
	}
	g->nax++;
	return 0;
}

const struct grid_axis *grid_find(const struct grid *g, const char *name)
{
	size_t a;

	for (a = 0; a < g->nax; a++)
		if (strcmp(g->ax[a].name, name) == 0)
			return &g->ax[a];
	return NULL;
}

int grid_size(const struct grid *g, size_t *n, struct err *e)
{
	size_t a, p = 1;

	for (a = 0; a < g->nax; a++) {
		if (g->ax[a].n > GRID_MAX_POINTS / p)
			return err_set(e, SS_EUSAGE, "the grid has more than %d points; sweep fewer values",
				       GRID_MAX_POINTS);
		p *= g->ax[a].n;
	}
	*n = p;
	return 0;
}

void grid_point(const struct grid *g, size_t i, size_t *idx)
{
	size_t a = g->nax;

	while (a-- > 0) {
		idx[a] = i % g->ax[a].n;
		i /= g->ax[a].n;
	}
}

/* Does any numeric list flag have two or more values (what --svg needs)? */
bool grid_numeric_varies(const struct grid *g)
{
	size_t a;

	for (a = 0; a < g->nax; a++)
		if (!g->ax[a].text && g->ax[a].n > 1)
			return true;
	return false;
}
