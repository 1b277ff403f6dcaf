/* simtime: simulated time is integer nanoseconds; simtime_round turns a
 * double count of nanoseconds into one. */
#ifndef SERVESIM_SIMTIME_H
#define SERVESIM_SIMTIME_H

#include <stdint.h>

/* llround(x) (halves away from zero) for |x| < 2^63, without the libm call
 * (it runs per arrival and several times per step).  The truncation is
 * exact, and so is x minus it (the fraction of a double is a double), so
 * the comparisons with 0.5 decide as llround does. */
static inline int64_t simtime_round(double x)
{
	int64_t i = (int64_t)x;
	double f = x - (double)i;

	if (f >= 0.5)
		i++;
	else if (f <= -0.5)
		i--;
	return i;
}

#endif
