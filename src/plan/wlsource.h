/* wlsource.h - where the workload a run simulates comes from: a workload
 * spec file (JSON or YAML; "-" standard input), a Mooncake trace (with its
 * speed-up), the catalog's default workload, or, without a file, lengths
 * given alone (a flag-defined workload: Poisson 10 req/s, 1000 requests,
 * 512/128 tokens unless given); the overrides (workload/overrides.h) go
 * over it.  plan/wlflags.c fills it from run's flags. */
#ifndef SERVESIM_PLAN_WLSOURCE_H
#define SERVESIM_PLAN_WLSOURCE_H
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "deploy/catalog.h"
#include "workload/overrides.h"
#include "workload/workload.h"

struct wl_source {
	const char *workload;  /* the file (NULL: the catalog's default) */
	struct wl_overrides ov;
	double trace_speedup;  /* a Mooncake trace's speed-up (0: not given) */
	int64_t max_requests;  /* the most requests it may generate (--max-requests; 0:
				* WL_DEFAULT_MAX_REQUESTS), set before the overrides are checked */
	char given[160];       /* the flags given, in order, for the header */
};

/* Load the workload (the catalog's default without a file), apply the
 * overrides and validate; origin (>= 200 bytes) says where the workload
 * came from: "" when nothing was overridden.  SS_EUSAGE for a speed-up
 * without a Mooncake trace. */
int wl_source_build(const struct wl_source *f, const struct catalog *cat, struct wl_spec *wl, char *origin,
		    size_t norigin, struct err *e);

#endif
