/* wlsource.c - the workload a run simulates (wlsource.h): a spec or a
 * Mooncake trace file, the catalog's default or flags alone, then the
 * overrides applied and checked. */
#include "plan/wlsource.h"

#include <stdio.h>
#include <string.h>

#include "readers/mooncake.h"
#include "readers/readers.h"

int wl_source_build(const struct wl_source *f, const struct catalog *cat, struct wl_spec *wl, char *origin,
		    size_t norigin, struct err *e)
{
	const char *src;
	bool replace = !f->workload && f->ov.len_given;
	int rc;

	origin[0] = '\0';
	if (f->workload) {
		/* (standard input is read once: a spec) */
		const struct reader *r = strcmp(f->workload, "-") ? reader_of_file(f->workload, NULL, 0) : NULL;
		bool mc = r && r->id == RD_MOONCAKE;
		if (f->trace_speedup > 0 && !mc)
			return err_set(e, SS_EUSAGE, "--trace-speedup applies to a Mooncake trace given as --workload, "
				       "not to %s", f->workload);
		if ((rc = mc ? mooncake_read(f->workload, wl, e) : wl_spec_load(f->workload, wl, e)) < 0 ||
		    (f->trace_speedup > 0 && (rc = mooncake_slice(wl, 0, f->trace_speedup, "--trace-speedup", e)) < 0))
			return rc;
	} else if (f->trace_speedup > 0) {
		return err_set(e, SS_EUSAGE, "--trace-speedup applies to a Mooncake trace given as --workload");
	} else if (replace) {
		wl_overrides_base(wl);
		snprintf(origin, norigin, "flags (%s) replace workloads/default.json", f->given);
	} else if ((rc = catalog_load_workload(cat, NULL, wl, e)) < 0) {
		return rc;
	}
	/* the limit is the caller's before the overrides' checks draw from the
	 * workload (wl_spec_check_nonempty checks its size) */
	wl->max_requests = f->max_requests;
	src = f->workload ? f->workload : wl->source;
	if (!replace && f->given[0])
		snprintf(origin, norigin, "%s overridden by %s", src, f->given);
	return wl_overrides_apply(&f->ov, src, f->ov.dur_given ? "--duration" : src, wl, e);
}
