/* status.h - whether a simulated run kept up with its arrivals: ok,
 * overloaded (with the offered and served rates and the queue's growth)
 * or no completions.  A judgement on the simulation's own results, below
 * the planners that ask it (plan/gsweep.c, plan/sweep.c) and the reports
 * that print it. */
#ifndef SERVESIM_SIM_STATUS_H
#define SERVESIM_SIM_STATUS_H
#include <stddef.h>

#include "base/err.h"
#include "sim/sim.h"
#include "workload/workload.h"

enum run_status_kind { RUN_OK, RUN_OVERLOADED, RUN_NO_COMPLETIONS };

struct run_status {
	enum run_status_kind kind;
	double offered_rps;     /* arrivals per s in the judged window (the workload's mean
				 * open-loop rate when not judged; NAN: closed loop, trace) */
	double served_rps;      /* departures per s in that window (when not judged:
				 * completed / (last completion - first arrival)) */
	double queue_growth_s;  /* least-squares growth of TTFT over the arrivals' span, s
				 * (NAN: not judged) */
	int stage;              /* the stage judged (staged workloads; -1: the whole run) */
};

/* Classify a run.  Overloaded: an open-loop run that fails the
 * sustainability test of plan/capacity.c (departures in the arrival window
 * after a warm-up below 0.95 x the arrivals in it, or queueing -- here
 * TTFT -- growing by more than 0.05 s per s of arrivals).  Per request by
 * arrival order: arrival_s, and ttft_ms and e2e_ms (NAN: not completed);
 * arrival_s NULL (closed loop, trace, session turns) or fewer than 100
 * completions leave ok / no
 * completions only; arrivals lasting less than four mean E2Es (no steady
 * window after the warm-up) are judged on the queue growth alone.  Staged
 * workloads are judged stage by stage; the first overloaded stage is
 * reported. */
void run_status_eval(const struct wl_spec *wl, const struct metric_set *all, const double *arrival_s,
		     const float *ttft_ms, const float *e2e_ms, size_t n, struct run_status *st);
/* The same from a stage-by-stage sketch of a run (sim.h sim_flow: past
 * the per-request values), its counts in the windows within a tline's
 * boundary buckets. */
void run_status_eval_sketch(const struct wl_spec *wl, const struct metric_set *all, const struct sim *s,
			    struct run_status *st);
/* The same for a finished simulation of wl, by what it kept (sim.h
 * sim_flow_kind): its arrival times and per-request values, its sketch,
 * or nothing to judge.  Returns 0 (e unused). */
int run_status_sim(const struct wl_spec *wl, struct sim *s, struct run_status *st, struct err *e);
/* "ok", "overloaded (offered 10 req/s, served 6.99 req/s, queue grew 41.2 s)",
 * "no completions". */
void run_status_line(const struct run_status *st, char *buf, size_t n);
const char *run_status_name(enum run_status_kind k);

#endif
