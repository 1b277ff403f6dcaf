/* runjob.h - what `servesim run` simulates, built in one call: the
 * workload (plan/wlsource.h), the deployment with its P/D and speculative
 * settings (engine/scenflags.h), the per-request CSV and step log opened
 * (written atomically, both or neither: run_job_commit), the scenario
 * prepared and its start-up checks passed.  The command then steps the
 * simulation, or prices one step, or runs GuideLLM's sweep or the
 * autoscaler on it, and reports. */
#ifndef SERVESIM_PLAN_RUNJOB_H
#define SERVESIM_PLAN_RUNJOB_H
#include <stdbool.h>
#include <stdint.h>

#include "base/afile.h"
#include "base/err.h"
#include "engine/scenflags.h"
#include "plan/wlsource.h"

/* The run asked for (flags' values; sf and ex are resolved in place). */
struct run_spec {
	struct scenflags *sf;
	const struct wl_source *wf;
	struct scenflags_run *ex;       /* P/D and speculative decoding */
	const char *requests_out, *step_log, *svg;  /* output files (NULL: none) */
	bool check_invariants, exact_percentiles, no_segments;
	bool no_arrival_thread;         /* the arrivals drawn on the simulation's thread (tests) */
	int autoscale_max;              /* > 0: replicas the autoscaler may run */
};

/* Caller storage; run_job_release whatever the status. */
struct run_job {
	struct scenflags_ctx x;         /* x.notes: the start-up checks' warnings */
	struct wl_spec wl;
	char origin[400];               /* where the workload came from (wl_source_build) */
	struct scenario sc;
	struct scenario_state st;
	struct model_cfg *draft;        /* speculative decoding's draft model, or NULL */
	struct afile requests, steps;
	bool requests_open, steps_open;
	bool prepared;                  /* prepared, the start-up checks passed (the notes apply) */
};

int run_job_prepare(const struct run_spec *s, struct run_job *j, struct err *e);
/* Step the simulation to its end, tick(ctx, sim) every 65,536 events
 * (a progress line). */
int run_job_simulate(struct run_job *j, void (*tick)(void *ctx, const struct sim *s), void *ctx, struct err *e);
/* The per-request CSV and the step log, both or neither. */
int run_job_commit(struct run_job *j, struct err *e);
void run_job_release(struct run_job *j);

#endif
