/* curve.c - the rate curve's arithmetic (curve.h). */
#include <math.h>

#include "workload/curve.h"

double wl_curve_seg(const struct wl_spec *s, size_t i, double *t0, double *dt, double *r0, double *r1)
{
	*t0 = s->curve_t[i];
	*dt = s->curve_t[i + 1] - *t0;
	*r0 = s->curve_rate[i];
	*r1 = s->curve_rate[i + 1];
	return (*r0 + *r1) / 2 * *dt;
}

double wl_curve_integral(const struct wl_spec *s, double t_s)
{
	double acc = 0, t0, dt, r0, r1;
	size_t i;

	for (i = 0; i + 1 < s->ncurve; i++) {
		double area = wl_curve_seg(s, i, &t0, &dt, &r0, &r1), x;
		if (t_s >= t0 + dt) {
			acc += area;
			continue;
		}
		x = t_s > t0 ? t_s - t0 : 0;
		return acc + r0 * x + (r1 - r0) / dt * x * x / 2;
	}
	return acc;
}

/* The root x of r0 x + a x^2 / 2 = rem (a the slope), taken as
 * 2 rem / (r0 + sqrt(r0^2 + 2 a rem)): no cancellation, and right for a = 0
 * and for r0 = 0. */
double wl_curve_seg_time(double r0, double r1, double dt, double rem)
{
	double disc = r0 * r0 + 2 * (r1 - r0) / dt * rem;
	double x = rem > 0 ? 2 * rem / (r0 + sqrt(disc > 0 ? disc : 0)) : 0;

	return x < dt ? x : dt;
}
