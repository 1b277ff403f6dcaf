/* lgrid.c - measured latency grids over two log axes.  See lgrid.h.
 *
 * Why over log axes: the measured batches and lengths are spaced by powers
 * of two over three to six decades, and a block's latency is flat in the
 * launch-bound corner and grows with the work beyond it; linear in the
 * logs between measured points follows both without the steps of a
 * nearest point. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/axis.h"
#include "hw/lgrid.h"

void lgrid_release(struct lgrid *g)
{
	free(g->lx);
	free(g->ly);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

/* One line of v (n cells v[base + i x stride]): each set value raised to
 * the largest set value before it. */
static void monotone_line(double *v, size_t n, size_t base, size_t stride, const bool *set)
{
	bool have = false;
	double run = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double *x = &v[base + i * stride];
		if (!set[base + i * stride])
			continue;
		if (have && *x < run)
			*x = run;
		run = *x;
		have = true;
	}
}

void lgrid_monotone(double *v, size_t nx, size_t ny, const bool *set)
{
	size_t i, j;

	for (j = 0; j < ny; j++)
		monotone_line(v, nx, j, ny, set);
	for (i = 0; i < nx; i++)
		monotone_line(v, ny, i * ny, 1, set);
}

/* One line of g (n cells v[base + i x stride] over the log axis ax): the
 * cells between two points of meas filled linear in the log axis, and set. */
static void fill_line(struct lgrid *g, const double *ax, size_t n, size_t base, size_t stride, const bool *meas,
		      bool *set)
{
	size_t last = n, i, k;

	for (i = 0; i < n; i++) {
		if (!meas[base + i * stride])
			continue;
		for (k = last + 1; last < n && k < i; k++) {
			double w = (ax[k] - ax[last]) / (ax[i] - ax[last]);
			g->v[base + k * stride] = (1 - w) * g->v[base + last * stride] + w * g->v[base + i * stride];
			set[base + k * stride] = true;
		}
		last = i;
	}
}

void lgrid_fill_holes(struct lgrid *g, const bool *has)
{
	size_t nx = g->nx, ny = g->ny, i, j, k;
	bool *set = xmalloc(xmul(nx * ny, sizeof(bool)));

	memcpy(set, has, nx * ny * sizeof(bool));
	for (j = 0; j < ny; j++) /* along x between measured points of a column */
		fill_line(g, g->lx, nx, j, ny, has, set);
	for (i = 0; i < nx; i++) /* along y between set points of a row */
		fill_line(g, g->ly, ny, i * ny, 1, set, set);
	/* past the last set point of a column: in proportion to x */
	for (j = 0; j < ny; j++) {
		size_t last = nx;
		for (i = 0; i < nx; i++) {
			if (set[i * ny + j])
				last = i;
			else if (last < nx) {
				g->v[i * ny + j] = g->v[last * ny + j] * exp(g->lx[i] - g->lx[last]);
				set[i * ny + j] = true;
			}
		}
	}
	/* what is left (before the first set point of a row or column): the
	 * nearest set point of the row, else of the column */
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++) {
			size_t best = nx * ny;
			if (set[i * ny + j])
				continue;
			for (k = 0; k < ny && best == nx * ny; k++) {
				if (j + k < ny && set[i * ny + j + k])
					best = i * ny + j + k;
				else if (k <= j && set[i * ny + j - k])
					best = i * ny + j - k;
			}
			for (k = 0; k < nx && best == nx * ny; k++) {
				if (i + k < nx && set[(i + k) * ny + j])
					best = (i + k) * ny + j;
				else if (k <= i && set[(i - k) * ny + j])
					best = (i - k) * ny + j;
			}
			g->v[i * ny + j] = best < nx * ny ? g->v[best] : 0.0;
		}
	free(set);
}

double lgrid_eval(const struct lgrid *g, double x, double y, bool yprop)
{
	double lx, ly, wx, wy, scale = 1, v0, v1;
	size_t i, j, ny = g->ny;

	if (x > exp(g->lx[g->nx - 1])) {
		scale = x / exp(g->lx[g->nx - 1]);
		x = exp(g->lx[g->nx - 1]);
	}
	if (yprop && y > exp(g->ly[ny - 1])) {
		scale *= y / exp(g->ly[ny - 1]);
		y = exp(g->ly[ny - 1]);
	} else if (yprop && y < exp(g->ly[0])) {
		scale *= y / exp(g->ly[0]);
		y = exp(g->ly[0]);
	}
	lx = log(x < 1 ? 1 : x);
	ly = log(y < 1 ? 1 : y);
	axis_bracket(g->lx, g->nx, lx, &i, &wx);
	axis_bracket(g->ly, ny, ly, &j, &wy);
#define AT(a, b) g->v[(a) * ny + (b)]
	v0 = (1 - wy) * AT(i, j) + (ny > 1 ? wy * AT(i, j + 1) : 0);
	v1 = g->nx > 1 ? (1 - wy) * AT(i + 1, j) + (ny > 1 ? wy * AT(i + 1, j + 1) : 0) : v0;
#undef AT
	return scale * ((1 - wx) * v0 + wx * v1);
}
