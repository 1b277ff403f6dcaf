/* lgrid.h - a measured latency grid over two log axes (x: requests or
 * chunks, y: keys or tokens): the form in which the measured attention
 * blocks are priced (cost/dsamod.c: DSA's module - parts excess;
 * cost/csamod.c: DeepSeek-V4's blocks).  The caller places the measured
 * points; lgrid makes them non-decreasing where asked, fills the holes
 * and interpolates.  Library-internal.
 *
 * Holes are filled once, so lookups never meet one: along x between
 * measured points of a column, then along y between set points of a row
 * (linear in the logs); past a column's last set point in proportion to x
 * (the large-batch corner the collectors leave out: batch x length over
 * their token budget); what is left from the nearest set point of the row,
 * else of the column. */
#ifndef SERVESIM_LGRID_H
#define SERVESIM_LGRID_H
#include <stdbool.h>
#include <stddef.h>

struct lgrid {
	bool ok;          /* built: axes and values set */
	size_t nx, ny;
	double *lx, *ly;  /* log of the axis values, ascending */
	double *v;        /* [nx x ny] by x then y */
};

/* Free the axes and values and zero *g. */
void lgrid_release(struct lgrid *g);

/* Raise each set value of v ([nx x ny] by x then y) to the largest set
 * value before it along x, then along y (a block is no faster for more
 * requests or more tokens); unset values are left alone. */
void lgrid_monotone(double *v, size_t nx, size_t ny, const bool *set);

/* Fill the values of g not measured (has[k] false; has is [nx x ny]) as
 * above. */
void lgrid_fill_holes(struct lgrid *g, const bool *has);

/* Bilinear in (log x, log y): x held below the axis and in proportion to x
 * above it; y held outside the axis (yprop false) or in proportion to y
 * (yprop true).  x and y below 1 count as 1. */
double lgrid_eval(const struct lgrid *g, double x, double y, bool yprop);

#endif
