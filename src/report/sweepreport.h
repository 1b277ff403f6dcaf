/* sweepreport.h - a sweep's (or a search's) long-format rows: every
 * configuration field and every result a named column, written as CSV
 * (header + one line) or JSONL (one object per line); their JSON, the
 * chart axis and the SVG charts. */
#ifndef SERVESIM_REPORT_SWEEPREPORT_H
#define SERVESIM_REPORT_SWEEPREPORT_H
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/json.h"
#include "base/sbuf.h"
#include "engine/scenario.h"
#include "plan/sweep.h"
#include "workload/workload.h"

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

#endif
