/* curve.h - the arithmetic of a workload's rate curve (wl_spec's
 * curve_t / curve_rate, piecewise linear in time): a segment's area, the
 * integral from 0 (requests expected by a time) and its inverse within a
 * segment.  The spec's checks and the generator both use it. */
#ifndef SERVESIM_WORKLOAD_CURVE_H
#define SERVESIM_WORKLOAD_CURVE_H
#include <stddef.h>

#include "workload/workload.h"

/* The integral from 0 to t_s (requests expected by then). */
double wl_curve_integral(const struct wl_spec *s, double t_s);
/* Segment i (i + 1 < ncurve): its start t0, length dt and rates r0, r1 at
 * both ends; returns its area (requests). */
double wl_curve_seg(const struct wl_spec *s, size_t i, double *t0, double *dt, double *r0, double *r1);
/* The time into a segment of length dt, from rate r0 to r1, at which its
 * integral reaches rem (>= 0), at most dt. */
double wl_curve_seg_time(double r0, double r1, double dt, double rem);

#endif
