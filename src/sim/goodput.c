/* goodput.c - vLLM's goodput over a finished simulation (sim.h:
 * sim_goodput), as its benchmark_serving --goodput counts it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/argval.h"
#include "base/loghist.h"
#include "sim/sim.h"

int sim_goodput(struct sim *s, const double lim_ms[3], size_t *good, double *per_s, struct err *e)
{
	size_t n = (size_t)sim_totals(s)->arrived, i;
	double *ttft = xmalloc(xmul(n ? n : 1, sizeof(double)));
	double *e2e = xmalloc(xmul(n ? n : 1, sizeof(double)));
	double *itl = xmalloc(xmul(n ? n : 1, sizeof(double)));
	struct metric_set all;
	int rc = 0;

	sim_per_request(s, ttft, e2e, n);
	if (n > 0 && sim_totals(s)->completed > LOGHIST_EXACT_MAX && isnan(ttft[0])) {
		rc = err_set(e, SS_EUSAGE, "--goodput needs per-request values: past %u completed requests give --exact-percentiles",
			     (unsigned)LOGHIST_EXACT_MAX);
		goto out;
	}
	sim_per_request_itl(s, itl, n);
	sim_summary(s, -1, &all);
	*good = 0;
	for (i = 0; i < n; i++) {
		double tpot = isnan(itl[i]) ? 0 : itl[i];
		if (isnan(ttft[i]) || isnan(e2e[i]) || ttft[i] > lim_ms[0] || tpot > lim_ms[1] || e2e[i] > lim_ms[2])
			continue; /* NAN limits compare false: no limit */
		(*good)++;
	}
	*per_s = all.last_done_s > all.first_arrival_s ? (double)*good / (all.last_done_s - all.first_arrival_s) : 0;
out:
	free(ttft);
	free(e2e);
	free(itl);
	return rc;
}

int sim_goodput_parse(const char *arg, double lim[3], struct err *e)
{
	static const char *const keys[3] = {"ttft", "tpot", "e2el"};
	char buf[256], *save = NULL, *t;
	bool seen[3] = {false, false, false};
	int k, n = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (t = strtok_r(buf, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
		char *colon = strchr(t, ':');
		const char *end;
		double v;
		if (!colon)
			return err_set(e, SS_EUSAGE, "--goodput: '%s' must be KEY:MS with KEY ttft, tpot or e2el (vLLM's syntax), e.g. --goodput 'ttft:500 tpot:50'", t);
		*colon = '\0';
		for (k = 0; k < 3 && strcmp(t, keys[k]) != 0; k++)
			;
		if (k == 3)
			return err_set(e, SS_EUSAGE, "--goodput: unknown metric '%s', expected ttft, tpot or e2el", t);
		if (seen[k])
			return err_set(e, SS_EUSAGE, "--goodput: %s given twice in '%s' (one limit a metric)", t, arg);
		seen[k] = true;
		if (!argval_lead_num(colon + 1, &v, &end) || *end || !(v > 0) || !isfinite(v))
			return err_set(e, SS_EUSAGE, "--goodput: %s must be a number of ms > 0, got '%s'", t, colon + 1);
		lim[k] = v;
		n++;
	}
	return n ? 0 : err_set(e, SS_EUSAGE, "--goodput: empty, expected e.g. 'ttft:500 tpot:50'");
}
