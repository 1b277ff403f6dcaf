/* pareto.c - Pareto front (maximise both coordinates; O(n^2), n is the
 * number of deployments); its SVG chart is written by report/searchreport.c. */
#include "plan/pareto.h"

#include <math.h>

void pareto_front(const double *x, const double *y, size_t n, bool *on_front)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		on_front[i] = isfinite(x[i]) && isfinite(y[i]);
		for (j = 0; on_front[i] && j < n; j++) {
			if (j == i || !isfinite(x[j]) || !isfinite(y[j]))
				continue;
			if (x[j] >= x[i] && y[j] >= y[i] && (x[j] > x[i] || y[j] > y[i]))
				on_front[i] = false;
		}
	}
}
