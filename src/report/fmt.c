/* fmt.c - number formatting shared by the reports (see outfmt.h). */
#include <math.h>
#include <stdio.h>

#include "report/outfmt.h"

void out_fmt_si(char *buf, size_t n, double v, const char *unit)
{
	static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
	double a = fabs(v);
	int i = 0;

	while (a >= 1000.0 && i < 6) {
		a /= 1000.0;
		v /= 1000.0;
		i++;
	}
	if (i == 0 && v == floor(v))
		snprintf(buf, n, "%.0f %s", v, unit);
	else
		snprintf(buf, n, "%.3g %s%s", v, pre[i], unit);
}

void out_fmt_count(char *buf, size_t n, double v)
{
	if (v >= 1e9)
		snprintf(buf, n, "%.2f B", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.1f M", v / 1e6);
	else
		snprintf(buf, n, "%.0f", v);
}
