/* caprun.h - `servesim capacity`'s one library call: the capacity of one
 * deployment given as flags (engine/scenflags.h) on a workload file (the
 * catalog's default without one), built and checked as `run` builds it,
 * then the rate or concurrency search (plan/capacity.h) and the accuracy
 * band at its answer (eval/accuracy.h). */
#ifndef SERVESIM_PLAN_CAPRUN_H
#define SERVESIM_PLAN_CAPRUN_H
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/scenflags.h"
#include "eval/accuracy.h"
#include "plan/capacity.h"

/* What the search ran on and found; caller storage, cap_job_release. */
struct cap_job {
	struct scenflags_ctx x;       /* x.notes: the start-up checks' warnings */
	struct wl_spec wl;
	struct scenario sc;
	struct scenario_state st;
	struct cap_result res;
	const struct cap_point *pt;   /* the answer's point (NULL: none) */
	struct acc_confidence conf;   /* its accuracy band, where pt */
	bool prepared;                /* prepared, the start-up checks passed (the notes apply) */
	bool have_res;
};

/* Load workload (NULL: the catalog's default), take nreq requests when
 * above 0 (1000 for a concurrency search of a spec that gives no count),
 * the seed (seed_given: seed, else the workload's) into cc, build and check
 * sf's deployment and search its capacity into j.  j is released by
 * cap_job_release whatever the status. */
int cap_job_run(struct scenflags *sf, const char *workload, int64_t nreq, bool seed_given, int64_t seed,
		struct cap_cfg *cc, struct cap_job *j, struct err *e);
void cap_job_release(struct cap_job *j);

#endif
