/* pareto.h - the Pareto front of points that want both coordinates high
 * (tokens/s/user, tokens/s/GPU) and its SVG chart. */
#ifndef SERVESIM_PARETO_H
#define SERVESIM_PARETO_H
#include <stdbool.h>
#include <stddef.h>

#include "base/sbuf.h"

/* on_front[i]: point i is valid and no valid point is >= in both
 * coordinates and > in one.  Non-finite coordinates are invalid. */
void pareto_front(const double *x, const double *y, size_t n, bool *on_front);

struct pareto_chart {
	const char *title, *xlabel, *ylabel;
	const double *x, *y;
	const bool *on_front;
	const char *const *label;       /* per point, shown for front points; may be NULL */
	size_t n;
};
/* A self-contained SVG (no scripts, no external fonts): every valid point,
 * the front joined by a line and labelled, axes from 0 with round ticks. */
void pareto_svg(const struct pareto_chart *c, struct sbuf *out);

#endif
