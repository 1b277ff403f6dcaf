/* sweep.h - one simulated point of a sweep or a search and its long-format
 * row: every configuration field and every result a named column, written
 * as CSV (header + one line) or JSONL (one object per line).
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

enum sweep_fmt { SWEEP_CSV, SWEEP_JSONL };
int sweep_fmt_parse(const char *s, enum sweep_fmt *f, struct err *e);

#define SWEEP_MAX_COLS 96
struct sweep_col {
	char key[40];
	enum { SWC_NULL, SWC_INT, SWC_NUM, SWC_STR } kind;
	int64_t i;
	double x;
	char s[520];
};
struct sweep_row {
	struct sweep_col col[SWEEP_MAX_COLS];
	size_t n;
};

void sweep_row_init(struct sweep_row *r);
void sweep_row_str(struct sweep_row *r, const char *key, const char *v);
void sweep_row_int(struct sweep_row *r, const char *key, int64_t v);
/* NAN or infinite: null (CSV: empty field). */
void sweep_row_num(struct sweep_row *r, const char *key, double v);
void sweep_row_null(struct sweep_row *r, const char *key);
/* The resolved configuration: model, gpu, engine, layout, dtypes, engine
 * limits, memory, cost overheads, workload process, rate, lengths, seed. */
void sweep_row_scenario(struct sweep_row *r, const struct scenario *sc, const struct wl_spec *wl);
/* status, counts, throughputs and the latency statistics (null when empty). */
void sweep_row_result(struct sweep_row *r, const struct sweep_result *res);
/* Every key of a scenario + result row (values empty): the CSV header's source. */
void sweep_row_template(struct sweep_row *r);
/* CSV header line (keys) or nothing for JSONL. */
void sweep_row_header(const struct sweep_row *r, enum sweep_fmt f, struct sbuf *out);
/* One line. */
void sweep_row_render(const struct sweep_row *r, enum sweep_fmt f, struct sbuf *out);
/* A point's line: its resolved scenario and workload, then its result, as
 * f (what cmd/sweep.c hands the plan as its row function). */
void sweep_point_row(const struct scenario *sc, const struct wl_spec *wl, const struct sweep_result *res,
		     enum sweep_fmt f, struct sbuf *out);

/* The rows (rows[i]: point i rendered as f) as one JSON array of objects
 * (CSV fields typed: empty null, a number, else a string); free with
 * json_free. */
int sweep_rows_json(const struct sbuf *rows, size_t n, enum sweep_fmt f, struct json **out, struct err *e);
/* The axis the charts use: the last list axis (gpu, ..., rate, concurrency,
 * seed) whose numeric values vary over the rows (SS_EUSAGE when none). */
int sweep_chart_axis(const struct json *rows, const char **xkey, struct err *e);
/* One SVG of six charts (TTFT p90, ITL mean, E2E p90, queueing, output
 * tokens/s, served req/s) against xkey, one series per combination of the
 * other varying axes; a refused or empty point leaves a gap. */
void out_sweep_svg(FILE *out, const struct json *rows, const char *xkey, const char *title);

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
	 * nothing itself; sweep_point_row) */
	void (*row)(const struct scenario *sc, const struct wl_spec *wl, const struct sweep_result *res,
		    enum sweep_fmt f, struct sbuf *out);
};
/* The axes put in their order (points vary the last fastest, whatever the
 * flags' order) and the number of points (grid_size's errors). */
int sweep_plan_size(struct sweep_plan *p, size_t *n, struct err *e);
/* Before any point runs: a rate axis needs a workload with a rate, and
 * unknown model or GPU names fail the sweep (SS_EUSAGE / the catalog's). */
int sweep_plan_check(const struct sweep_plan *p, struct err *e);
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
