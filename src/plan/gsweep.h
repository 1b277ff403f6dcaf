/* gsweep.h - GuideLLM's sweep profile on one prepared scenario: a
 * synchronous benchmark (one client), a throughput benchmark (every request
 * at once), then constant-rate benchmarks evenly spaced strictly between the
 * two measured request rates, k benchmarks in all (GuideLLM's --rate for
 * sweep).  Each benchmark is a fresh simulation of the workload's requests
 * (same seed); results are a pure function of the inputs. */
#ifndef SERVESIM_GSWEEP_H
#define SERVESIM_GSWEEP_H
#include <stddef.h>

#include "base/err.h"
#include "sim/status.h"
#include "engine/scenario.h"
#include "workload/workload.h"

#define GSWEEP_MAX 64

enum gsweep_kind { GSWEEP_SYNC, GSWEEP_THROUGHPUT, GSWEEP_CONSTANT };

struct gsweep_point {
	enum gsweep_kind kind;
	struct wl_spec wl;        /* the workload this benchmark ran (no owned memory: a copy of
				   * the base spec with the process changed) */
	struct metric_set m;
	struct run_status status;
	size_t arrived, rejected;
};

/* Run k (3 .. GSWEEP_MAX) benchmarks of wl (which needs num_requests) on
 * the scenario prepared in st; out holds k points. */
int gsweep_run(const struct scenario_state *st, const struct wl_spec *wl, int k,
	       struct gsweep_point *out, struct err *e);
const char *gsweep_kind_name(enum gsweep_kind k);

#endif
