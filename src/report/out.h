/* out.h - the output module: every format servesim writes results in.
 *
 * Summaries of a simulated run (text table, JSON members, CSV columns,
 * vLLM benchmark result keys), the run's status (ok / overloaded / no
 * completions), the resolved configuration (JSON object and CSV columns)
 * and SVG line plots.  Commands gather what to write and call these; none
 * prints results itself.
 *
 * One key style everywhere (JSON keys, CSV columns, --slo names):
 * METRIC_STAT_UNIT, e.g. ttft_p90_ms, itl_mean_ms, e2e_std_ms, with
 * throughput_rps and input/output/total_tokens_per_s.  A statistic of an
 * empty set is null in JSON, an empty CSV cell and "-" in text, never 0.
 * Writers do not check stdio errors; the caller checks ferror/fclose (or
 * writes through afile). */
#ifndef SERVESIM_OUT_H
#define SERVESIM_OUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/json.h"
#include "engine/scenario.h"
#include "engine/scenflags.h"
#include "sim/sim.h"
#include "sim/status.h"
#include "workload/workload.h"

struct acc_confidence; /* accuracy.h */

/* The pooled ITL (sim.h's itl_pooled_ms), as result files state it. */
#define OUT_ITL_POOLED_DEFINITION \
	"vLLM bench serve's ITL: every gap between consecutive streamed chunks of a request, pooled over " \
	"all completed requests (a chunk is one engine step's tokens: one token, or with speculative " \
	"decoding the accepted drafts and the bonus token); mean = sum(e2e - ttft) / sum(chunks - 1)"

/* --- metric summaries ---------------------------------------------------- */

/* The latency table (ms; rows TTFT, ITL, TPOT, E2E, queue; columns mean,
 * std, p50, p90, p95, p99, max) and the pooled ITL line, indented by two. */
void out_metrics_text(FILE *f, const struct metric_set *m);
/* completed, throughput and every METRIC_STAT_ms member into the open
 * object of w. */
void out_metrics_json(struct jw *w, const struct metric_set *m);
/* CSV: the column names (no leading or trailing comma) and one row's
 * cells in the same order. */
void out_metrics_csv_header(FILE *f);
void out_metrics_csv_row(FILE *f, const struct metric_set *m);

/* vLLM's benchmark result keys (vllm bench serve --save-result):
 * duration, completed, failed, total_input_tokens, total_output_tokens,
 * request_throughput, request_goodput (null: no goodput SLO, as vLLM),
 * output_throughput, total_token_throughput, and mean/median/std/p99 of
 * ttft, tpot, itl and e2el in ms.  vLLM's TPOT is servesim's per-request
 * ITL, (E2E - TTFT)/(output - 1); vLLM's ITL pools every token gap: its
 * mean is exact (sum(E2E - TTFT) / sum(output - 1)), its median, std and
 * p99 need per-token timestamps servesim does not keep and are null. */
struct out_bench_info {
	const char *model_id;
	int64_t num_prompts;
	double request_rate;     /* NAN: closed loop or trace ("inf" in vLLM's sense is not used) */
	int64_t max_concurrency; /* 0: none */
	int64_t failed;          /* rejected requests */
	double request_goodput;  /* good requests per s (NAN: no goodput SLO given) */
};
struct out_config;
/* The whole document; servesim's own members (status, status_line,
 * config when cfg is not NULL) under "servesim". */
void out_vllm_bench(FILE *f, const struct out_bench_info *bi, const struct metric_set *m,
		    const struct run_status *st, const struct out_config *cfg);

/* --- configuration ------------------------------------------------------- */

/* The resolved configuration of a run: what produced its numbers. */
struct out_config {
	const struct scenario *sc;     /* model, GPU, layout, engine limits, overheads */
	const struct wl_spec *wl;      /* the workload after every flag was applied */
	const char *workload_origin;   /* how the workload came about (header text), or NULL */
	int64_t total_kv_blocks;       /* resolved, per replica */
	bool kv_from_memory;
	const char *kernel_tables;     /* "vllm 0.24.0" */
	const char *tier0_off;         /* as given, or NULL */
	const char *calibration;       /* tier-1 file applied, or NULL */
	const char *tier2;             /* tier-2 file applied, or NULL */
	/* SGLang (sc->engine "sglang"): the resolved memory fraction, batch
	 * limit, waiting-queue policy and overlap scheduling */
	double mem_fraction_static;
	int64_t max_running_requests;
	bool sglang_lpm, overlap_schedule;
};
/* "config": {...} into the open object of w (servesim_version, model,
 * layout, engine, cost, calibration, workload{...}). */
/* The resolved configuration of a prepared scenario, as its flags gave it
 * (cfg points into f, x, sc, st, wl and tables, which must outlive it;
 * tables, ntables >= 64 bytes, receives the kernel tables' name). */
void out_config_of(const struct scenflags *f, const struct scenflags_ctx *x, const struct scenario *sc,
		   const struct scenario_state *st, const struct wl_spec *wl, char *tables, size_t ntables,
		   struct out_config *cfg);
void out_config_json(struct jw *w, const struct out_config *c);
/* The configuration as CSV columns (names; one row's cells). */
void out_config_csv_header(FILE *f);
void out_config_csv_row(FILE *f, const struct out_config *c);
/* One line describing a length distribution: "lognormal(mean 600, sd 300)". */
const char *out_dist_desc(const struct wl_dist *d, char *buf, size_t n);
/* A router as result files name it: "rr", "lo" (the first spellings,
 * kept), "kv-aware". */
const char *out_router_key(enum router_kind k);

/* --- the report of `servesim run` ----------------------------------------- */

struct out_run {
	struct out_config cfg;          /* cfg.sc: the scenario as given */
	const struct cost_model *cost;  /* as prepared (kernel tables, placement, tier 2) */
	const struct sim_cfg *simcfg;   /* resolved engine settings */
	const struct memplan *mp;
	const struct parallel *prefill_par; /* P/D: the prefill workers' layout */
	const struct cost_model *prefill_cost; /* P/D: the prefill workers' cost model (NULL: none) */
	bool pd_nvlink;
	const char *notes;              /* warnings, newline-separated */
	const char *spec_method;        /* as given (draft:MODEL), or NULL */
	bool mbt_given, mns_given, mml_given; /* else the header names the defaults */
	bool mem_frac_given, sg_policy_given; /* SGLang: else its rules */
	bool kv_dtype_given;            /* SGLang: else --kv-cache-dtype auto */
	const struct sglang_mem *sg_mem; /* SGLang: its memory rule's terms */
	const char *offload_words;      /* KV offload: the engine's words on its host tier, or NULL / "" */
	const char *lora_words;         /* LoRA: the engine's settings and servesim's terms, or NULL / "" */
	const char *eplb_words;         /* EPLB: the engine's settings and servesim's terms, or NULL / "" */
	const char *mm_words;           /* images: the token rule and the encoder, or NULL / "" */
	const char *epd_words;          /* E/P/D: the encoder pool, or NULL / "" */
	/* vLLM's --goodput: per-request limits (ms; NAN: none) and the result */
	double goodput_ttft_ms, goodput_tpot_ms, goodput_e2el_ms;
	size_t good;                    /* requests meeting every limit */
	double request_goodput;         /* good / duration; NAN: no --goodput */
	struct sim *sim;                /* finished */
	struct run_status status;
	const struct acc_confidence *conf; /* the run's stated confidence (accuracy.h), or NULL */
	/* --autoscale (NULL: a fixed pool): the policy and its replay */
	const struct autoscale_cfg *as_cfg;
	const struct autoscale_result *as;
};
/* A simulated run's report as its flags (f, the speculative method as
 * given or NULL) gave it: the configuration (out_config_of, workload from
 * origin) and what was prepared and simulated (pointing into the
 * arguments, which must outlive it); status, goodput, confidence and
 * autoscaling are the caller's to fill. */
void out_run_of(const struct scenflags *f, const char *spec_method, const struct scenflags_ctx *x,
		const struct scenario *sc, const struct scenario_state *st, const struct wl_spec *wl,
		const char *origin, char *tables, size_t ntables, struct out_run *rep);
/* rep's status (run_status_sim) and, where goodput_ms gives limits (ttft,
 * tpot, e2el; NAN: none), vLLM's goodput of the finished simulation s. */
int out_run_status(struct out_run *rep, const struct wl_spec *wl, struct sim *s, const double goodput_ms[3],
		   struct err *e);
/* Header, status and results (per stage when there are stages). */
void out_run_text(FILE *f, const struct out_run *c);
/* servesim_version, status, config, summary{...}, stages[...]. */
void out_run_json(FILE *f, const struct out_run *c);
/* One row per stage and one "all" row: configuration columns, stage,
 * status, metric columns. */
void out_run_csv(FILE *f, const struct out_run *c);
void out_run_vllm_bench(FILE *f, const struct out_run *c);
/* GuideLLM's sweep (gsweep.h): run's header and one row (text), object
 * (JSON, under "benchmarks") or CSV row per benchmark; c->sim unused. */
struct gsweep_point;
void out_gsweep_text(FILE *f, const struct out_run *c, const struct gsweep_point *p, int k);
void out_gsweep_json(FILE *f, const struct out_run *c, const struct gsweep_point *p, int k);
void out_gsweep_csv(FILE *f, const struct out_run *c, const struct gsweep_point *p, int k);

/* --- autoscaling (plan/autoscale.h) --------------------------------------- */

struct autoscale_cfg;
struct autoscale_result;
/* The run's autoscaling lines (text report), its summary keys (gpu_hours,
 * slo_attainment, cost, ...) and its top-level "autoscale" array of
 * {time_s, replicas, provisioned} with "autoscale_intervals" (JSON). */
void out_autoscale_text(FILE *f, const struct autoscale_cfg *c, const struct autoscale_result *r);
void out_autoscale_summary_json(struct jw *w, const struct autoscale_cfg *c, const struct autoscale_result *r);
void out_autoscale_json(struct jw *w, const struct autoscale_cfg *c, const struct autoscale_result *r);
/* Serving and provisioned replicas over time above the p90 TTFT per
 * interval (the TTFT SLO as a line). */
void out_autoscale_svg(FILE *f, const struct autoscale_cfg *c, const struct autoscale_result *r);

/* --- the report of `servesim capacity` ------------------------------------ */

struct cap_cfg;
struct cap_result;
/* Header, answer, binding metric, saturation, the confidence at the answer
 * (conf, NULL when nothing was found) and the first seed's probes. */
void out_cap_text(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		  const struct cap_result *r, const struct acc_confidence *conf, const char *notes);
/* max_rate, band, per_seed, binding_metric, saturation_rate, reason,
 * summary{confidence...} at the answer (null members when not found),
 * config, search_settings (null where not found). */
void out_cap_json(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		  const struct cap_result *r, const struct acc_confidence *conf);
/* Every probe: the configuration columns (rate or clients and seed of the
 * probe), offered, served, each SLO metric, goodput, verdict. */
void out_cap_curve_csv(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		       const struct cap_result *r);
/* The first seed's probes as a plot: each SLO metric over its limit
 * (clipped at 2), goodput and served/offered; capacity and saturation
 * marked. */
void out_cap_svg(FILE *f, const struct cap_cfg *c, const struct out_config *cfg,
		 const struct cap_result *r);
/* The files of --curve, --svg and --html (the page of out_cap_json, as
 * `servesim report` builds it): afile_job writers, ctx a struct
 * out_cap_files. */
struct out_cap_files {
	const struct cap_cfg *c;
	const struct out_config *cfg;
	const struct cap_result *r;
	const struct acc_confidence *conf;
};
int out_cap_curve_file(FILE *f, const void *ctx, struct err *e);
int out_cap_svg_file(FILE *f, const void *ctx, struct err *e);
int out_cap_html_file(FILE *f, const void *ctx, struct err *e);

/* --- SVG ----------------------------------------------------------------- */

/* A chart: series of (x, y) points on shared axes, each drawn as a
 * polyline with markers (OUT_SVG_LINES), markers only (POINTS, HOLLOW) or a
 * line only (CURVE), with optional per-point labels; optional vertical
 * marker lines (e.g. a capacity) and a horizontal limit line.  Linear axes
 * start at 0 (or xmin/ymin when a range is given) and end at a round value
 * above the data; log axes (logx, logy) span whole decades, and values <= 0
 * are left out.  NAN points are skipped.  width x height (0: 720 x 450),
 * white background, labels as given (escaped). */
enum out_svg_style { OUT_SVG_LINES = 0, OUT_SVG_POINTS, OUT_SVG_HOLLOW, OUT_SVG_CURVE };
struct out_svg_series {
	const char *name;
	const double *x, *y;
	size_t n;
	enum out_svg_style style;
	const char *const *labels;  /* n labels (NULL entries: none), or NULL */
};
struct out_svg_vline {
	const char *label;
	double x;
};
struct out_svg_plot {
	const char *title, *xlabel, *ylabel;
	const struct out_svg_series *series;
	size_t nseries;
	const struct out_svg_vline *vlines;
	size_t nvlines;
	double hline_y;          /* a horizontal limit line, drawn when hline_label is set */
	const char *hline_label;
	bool logx, logy;
	double xmin, xmax, ymin, ymax; /* a fixed range when max > min */
	double width, height;
};
/* One chart as a whole SVG document. */
void out_svg_plot(FILE *f, const struct out_svg_plot *p);
/* Several charts in one document: begin, a panel per chart at (ox, oy),
 * end. */
void out_svg_begin(FILE *f, double width, double height);
void out_svg_panel(FILE *f, const struct out_svg_plot *p, double ox, double oy);
void out_svg_end(FILE *f);
/* Predicted against measured on log axes (a shared decade range): steady
 * rows as filled markers, overloaded ones as open markers, the y = x line. */
void out_svg_pred_meas(FILE *f, const char *title, const double *sx, const double *sy, size_t ns,
		       const double *ox, const double *oy, size_t no, double width, double height);
/* Text escaped for XML; the tick step (1, 2 or 5 x 10^k) for about five
 * ticks up to v. */
void out_svg_esc(FILE *f, const char *s);
double out_svg_tick_step(double v);

#endif
