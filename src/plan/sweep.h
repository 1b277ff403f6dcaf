/* sweep.h - one simulated point of a sweep or a search, and the sweep
 * plan: its axes, points and their rows (rendered by the caller's row
 * function: report/sweepreport.h).
 *
 * A point is a pure function of its configuration and seed: the same row
 * bytes on any thread or MPI rank. */
#ifndef SERVESIM_SWEEP_H
#define SERVESIM_SWEEP_H
#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>

#include "base/err.h"
#include "base/json.h"
#include "base/sbuf.h"
#include "engine/scenario.h"
#include "engine/scenflags.h"
#include "plan/grid.h"
#include "sim/sim.h"
#include "workload/workload.h"

struct sweep_result {
	struct metric_set m;
	uint64_t arrived, completed, rejected, preemptions;
	double offered_rps;         /* the workload's rate (NAN: closed loop or trace) */
	double duration_s;
	double served_rps;          /* run_status.served_rps: departures per s in the judged window */
	char status[192];           /* `run`'s status line (run_status_line): "ok", "overloaded
				     * (offered X req/s, served Y req/s, queue grew Z s)", "no completions" */
};

/* Simulate the prepared scenario with wl (its own rate and seed). */
int sweep_simulate(const struct scenario_state *st, const struct wl_spec *wl, struct sweep_result *r,
		   struct err *e);

/* The rows' format (report/sweepreport.h renders them). */
enum sweep_fmt { SWEEP_CSV, SWEEP_JSONL };

/* A sweep: the settings of every point (sf), the axes whose values vary
 * over the points (g: gpu, engine, dtype, tp, pp, dp, ep, max_num_seqs,
 * max_num_batched_tokens, rate, concurrency, seed), the workload and the
 * format of the rows. */
struct sweep_plan {
	struct scenflags sf;
	struct grid g;
	enum sweep_fmt fmt;
	const struct wl_spec *wl;
	/* renders a point's row as fmt (the caller's: the plan formats
	 * nothing itself; report/sweepreport.h sweep_point_row) */
	void (*row)(const struct scenario *sc, const struct wl_spec *wl, const struct sweep_result *res,
		    enum sweep_fmt f, struct sbuf *out);
};
/* The axes put in their order (points vary the last fastest, whatever the
 * flags' order) and the number of points (grid_size's errors). */
int sweep_plan_size(struct sweep_plan *p, size_t *n, struct err *e);
/* The axes as the flags gave them: a rate or a concurrency axis, not both,
 * and every engine and dtype named known (SS_EUSAGE). */
int sweep_plan_axes_check(const struct sweep_plan *p, struct err *e);
/* Before any point runs: a rate axis needs a workload with a rate, and
 * unknown model or GPU names fail the sweep (SS_EUSAGE / the catalog's). */
int sweep_plan_check(const struct sweep_plan *p, struct err *e);
/* Every one of the n points (sweep_plan_point) on jobs threads per rank
 * of rk (parmap.h: rows, progress), rows[i] point i's row on rank 0. */
struct ranks;
int sweep_plan_run(struct sweep_plan *p, const struct ranks *rk, int jobs, size_t n,
		   void (*progress)(void *pctx, size_t done, size_t mine), void *pctx, struct sbuf *rows,
		   struct err *e);
/* Point i (plan/parmap.h's run: vplan is the plan): its settings built and
 * simulated, its row rendered into out; a configuration servesim refuses
 * is a row ("refused: why"); <0 only for settings that do not combine at
 * all (the whole sweep's error). */
/* A sweep axis of row row of the deployment field table t: the list or
 * range flag (as spelled) in the row's range, named by the row. */
int sweep_axis_add(struct grid *g, const struct deploy_table *t, size_t row, const char *flag, const char *arg,
		   struct err *e);
/* Every axis of g naming a row of t set to point i's value on base (the
 * knobs, deploy_set). */
void sweep_point_fields(const struct grid *g, size_t i, const struct deploy_table *t, void *base);
int sweep_plan_point(void *vplan, size_t i, struct sbuf *out, struct err *e);

#endif
