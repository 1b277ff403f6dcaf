/* grid.h - the axes of a parameter grid given as list and range flags
 * (`--tp 1,2,4`, `--rate 10:40:2`, `--gpu h100,h200`) and the points of
 * their Cartesian product, numbered so that the last axis varies fastest. */
#ifndef SERVESIM_GRID_H
#define SERVESIM_GRID_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define GRID_MAX_AXES 16
#define GRID_MAX_VALUES 10000  /* per axis */
#define GRID_MAX_POINTS 1000000

struct grid_axis {
	char name[32];      /* column name, e.g. "tp" */
	bool text;          /* values are words (gpu, dtype), not numbers */
	size_t n;
	double *num;        /* n numbers (text: NULL) */
	char **str;         /* n words (numbers: NULL) */
};

struct grid {
	struct grid_axis ax[GRID_MAX_AXES];
	size_t nax;
};

void grid_init(struct grid *g);
void grid_release(struct grid *g);
/* Append an axis of numbers from "A,B,C" items, each a number or an
 * inclusive range START:STOP:STEP (STEP > 0; STOP included when the steps
 * reach it within 1e-9 of STEP).  integer: every value must be integral.
 * Values in [lo, hi].  SS_EUSAGE naming flag, item and what was expected. */
int grid_add_numbers(struct grid *g, const char *name, const char *flag, const char *arg, bool integer,
		     double lo, double hi, struct err *e);
/* Append an axis of words "a,b,c" (non-empty, no duplicates). */
int grid_add_words(struct grid *g, const char *name, const char *flag, const char *arg, struct err *e);
/* The axis named name, or NULL. */
const struct grid_axis *grid_find(const struct grid *g, const char *name);
/* Points in the product (1 with no axes); SS_EUSAGE above GRID_MAX_POINTS. */
int grid_size(const struct grid *g, size_t *n, struct err *e);
/* Index of each axis' value at point i (idx has nax entries). */
void grid_point(const struct grid *g, size_t i, size_t *idx);

/* Whether a numeric axis has two or more values (what a chart needs). */
bool grid_numeric_varies(const struct grid *g);

#endif
