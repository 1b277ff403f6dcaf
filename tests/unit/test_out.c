/* test_out.c - the output module and run's workload flags: std (exact and
 * from the histogram), the run status on hand-made request sets, empty
 * sets as null / empty / "-", one key style, vLLM benchmark keys, the SVG
 * plot, and flags overriding a workload file. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "plan/capacity.h"
#include "plan/wlflags.h"
#include "base/loghist.h"
#include "report/out.h"
#include "base/stats.h"

/* needle in a long output: the check line names the needle only */
#define HAS(hay, needle, what) CHECK(strstr((hay), (needle)) != NULL, "%s: contains '%s'", (what), (needle))

/* Run f into a string (open_memstream); caller frees. */
#define CAPTURE(buf, len, stmt) do { \
	FILE *f_ = open_memstream(&(buf), &(len)); \
	FILE *f = f_; \
	stmt; \
	fclose(f_); } while (0)

static void test_std(void)
{
	/* 2.385, 4.1, 7.25, 9.0: mean 5.68375, population variance
	 * (sum of squared deviations 27.7530... / 4), computed by hand:
	 * deviations -3.29875, -1.58375, 1.56625, 3.31625 */
	float x[4] = {9.0f, 2.385f, 7.25f, 4.1f};
	double dev[4] = {-3.29875, -1.58375, 1.56625, 3.31625}, ss = 0;
	struct dist_summary d;
	struct loghist h;
	int i;

	for (i = 0; i < 4; i++)
		ss += dev[i] * dev[i];
	stats_summarise(x, 4, &d);
	CHECK_REL(d.mean, 5.68375, 1e-6, "mean");
	CHECK_REL(d.std, sqrt(ss / 4), 1e-6, "population std");
	loghist_init(&h);
	for (i = 0; i < 4; i++)
		loghist_add(&h, (double)x[i]);
	loghist_summarise(&h, &d);
	CHECK_REL(d.std, sqrt(ss / 4), 1e-6, "std from the histogram's sums");
	loghist_release(&h);
	stats_summarise(x, 0, &d);
	CHECK(d.n == 0 && d.std == 0, "empty set: n 0");
}

/* n requests at rate lam (regular arrivals), each served in e2e seconds
 * when the engine keeps up; with a service rate mu < lam the k-th waits
 * for the backlog. */
static void fill(size_t n, double lam, double mu, double e2e, double *arr, float *ttft, float *e2es)
{
	size_t k;
	double done = 0;

	for (k = 0; k < n; k++) {
		double a = (double)k / lam, start = fmax(a, done);
		done = start + 1.0 / mu;
		arr[k] = a;
		ttft[k] = (float)((start - a) * 1e3 + 30);
		e2es[k] = (float)((start - a + e2e) * 1e3);
	}
}

static void test_status(void)
{
	enum { N = 2000 };
	static double arr[N];
	static float ttft[N], e2e[N];
	struct wl_spec wl;
	struct metric_set all;
	struct run_status st;
	char line[200];

	wl_spec_defaults(&wl);
	wl.rate = 20;
	wl.num_requests = N;
	memset(&all, 0, sizeof(all));
	all.completed = N;
	all.first_arrival_s = 0;
	all.last_done_s = 110;
	all.throughput_rps = 18;
	fill(N, 20, 30, 3, arr, ttft, e2e);
	run_status_eval(&wl, &all, arr, ttft, e2e, N, &st);
	run_status_line(&st, line, sizeof(line));
	CHECK(st.kind == RUN_OK, "served 30 req/s, offered 20: %s", line);
	fill(N, 20, 15, 3, arr, ttft, e2e);
	run_status_eval(&wl, &all, arr, ttft, e2e, N, &st);
	run_status_line(&st, line, sizeof(line));
	CHECK(st.kind == RUN_OVERLOADED, "served 15 req/s, offered 20: %s", line);
	HAS(line, "overloaded (offered ", "status line");
	HAS(line, "queue grew", "status line names the growth");
	CHECK(st.served_rps < 16 && st.served_rps > 14, "served rate in the window %.3f", st.served_rps);
	CHECK(st.queue_growth_s > 10, "queue grew %.1f s", st.queue_growth_s);
	fill(50, 20, 15, 3, arr, ttft, e2e);
	run_status_eval(&wl, &all, arr, ttft, e2e, 50, &st);
	CHECK(st.kind == RUN_OK, "50 requests are too few to judge");
	all.completed = 0;
	run_status_eval(&wl, &all, NULL, NULL, NULL, 0, &st);
	run_status_line(&st, line, sizeof(line));
	CHECK(st.kind == RUN_NO_COMPLETIONS && strcmp(line, "no completions") == 0, "%s", line);
	wl.process = WL_CONCURRENCY;
	all.completed = N;
	fill(N, 20, 15, 3, arr, ttft, e2e);
	run_status_eval(&wl, &all, arr, ttft, e2e, N, &st);
	CHECK(st.kind == RUN_OK, "a closed loop is not judged on an offered rate");
}

static void test_formats(void)
{
	struct metric_set m;
	struct run_status st;
	struct out_bench_info bi;
	struct jw w;
	char *buf = NULL;
	size_t len = 0;

	memset(&m, 0, sizeof(m));
	m.itl_pooled_mean_ms = NAN;
	CAPTURE(buf, len, { jw_init(&w, f, false); jw_obj(&w, NULL); out_metrics_json(&w, &m);
			    jw_end_obj(&w); jw_finish(&w); });
	HAS(buf, "\"ttft_p90_ms\":null", "empty set: null in JSON");
	HAS(buf, "\"throughput_rps\":null", "no throughput: null");
	CHECK(strstr(buf, "\"ttft_ms\"") == NULL && strstr(buf, "ttft_ms_p90") == NULL,
	      "one key style (METRIC_STAT_ms)");
	free(buf);
	CAPTURE(buf, len, out_metrics_csv_row(f, &m));
	CHECK(strncmp(buf, "0,,,,,", 6) == 0, "empty set: empty CSV cells (%.12s)", buf);
	free(buf);
	CAPTURE(buf, len, out_metrics_text(f, &m));
	HAS(buf, "TTFT           -", "empty set: '-' in text");
	free(buf);
	CAPTURE(buf, len, out_metrics_csv_header(f));
	HAS(buf, "ttft_mean_ms,ttft_std_ms,ttft_p50_ms", "CSV header names");
	HAS(buf, "total_tokens_per_s", "total token throughput column");
	free(buf);
	/* a filled set through the vLLM benchmark keys */
	m.completed = 4;
	m.first_arrival_s = 0;
	m.last_done_s = 2;
	m.throughput_rps = 2;
	m.input_tok_s = 100;
	m.output_tok_s = 50;
	m.ttft_ms = (struct dist_summary){4, 10, 9, 12, 13, 14, 15, 2.5};
	m.itl_ms = (struct dist_summary){4, 5, 5, 6, 6, 6, 6, 0.5};
	m.e2e_ms = (struct dist_summary){4, 500, 480, 600, 620, 640, 650, 60};
	m.itl_pooled_mean_ms = 5.2;
	memset(&st, 0, sizeof(st));
	memset(&bi, 0, sizeof(bi));
	bi.model_id = "m";
	bi.num_prompts = 4;
	bi.request_rate = NAN;
	bi.request_goodput = NAN;
	CAPTURE(buf, len, out_vllm_bench(f, &bi, &m, &st, NULL));
	HAS(buf, "\"mean_ttft_ms\": 10", "mean_ttft_ms");
	HAS(buf, "\"median_ttft_ms\": 9", "median_ttft_ms = p50");
	HAS(buf, "\"std_ttft_ms\": 2.5", "std_ttft_ms");
	HAS(buf, "\"p99_e2el_ms\": 640", "p99_e2el_ms");
	HAS(buf, "\"mean_tpot_ms\": 5", "vLLM's TPOT is the per-request ITL");
	HAS(buf, "\"mean_itl_ms\": 5.2", "vLLM's ITL is the pooled mean");
	HAS(buf, "\"total_token_throughput\": 150", "total token throughput");
	HAS(buf, "\"request_goodput\": null", "no goodput SLO: null, as vLLM");
	HAS(buf, "\"request_rate\": null", "closed loop: no request rate");
	free(buf);
}

static void test_svg(void)
{
	double x[3] = {1, 2, 4}, y[3] = {0.2, NAN, 1.4};
	struct out_svg_series s = {"a < b & c", x, y, 3, OUT_SVG_LINES, NULL};
	struct out_svg_vline v = {"cap", 3};
	struct out_svg_plot p;
	char *buf = NULL;
	size_t len = 0;

	memset(&p, 0, sizeof(p));
	p.title = "t";
	p.xlabel = "x";
	p.ylabel = "y";
	p.series = &s;
	p.nseries = 1;
	p.vlines = &v;
	p.nvlines = 1;
	p.hline_y = 1;
	p.hline_label = "limit";
	CAPTURE(buf, len, out_svg_plot(f, &p));
	CHECK(strncmp(buf, "<svg xmlns=", 11) == 0 && strstr(buf, "</svg>\n") != NULL, "an SVG document");
	HAS(buf, "a &lt; b &amp; c", "labels escaped");
	CHECK(strstr(buf, "nan") == NULL && strstr(buf, "inf") == NULL, "NAN points skipped");
	HAS(buf, ">cap</text>", "vertical marker labelled");
	free(buf);
}

/* Log axes over whole decades: x 0.5..50 spans 0.1..100, y 1..100 (x 1.05
 * headroom) spans 1..1000; a value <= 0 is left out; no limit line without
 * its label.  Point (0.5, 1): x = 80 + 520 x (log10 0.5 + 1) / 3 = 201.15,
 * y = the plot's bottom, 40 + 350. */
static void test_svg_log(void)
{
	double x[3] = {0.5, 5, 50}, y[3] = {1, 100, -3};
	struct out_svg_series s = {"s", x, y, 3, OUT_SVG_POINTS, NULL};
	struct out_svg_plot p;
	char *buf = NULL, *c;
	size_t len = 0, n = 0;

	memset(&p, 0, sizeof(p));
	p.series = &s;
	p.nseries = 1;
	p.logx = p.logy = true;
	CAPTURE(buf, len, out_svg_plot(f, &p));
	for (c = buf; (c = strstr(c, "<circle")); c++)
		n++;
	CHECK(n == 2, "two markers (the y <= 0 point left out), got %zu", n);
	HAS(buf, "<circle cx=\"201.2\" cy=\"390.0\"", "(0.5, 1) placed on the log axes");
	HAS(buf, ">0.1</text>", "x axis from the decade below 0.5");
	HAS(buf, ">1000</text>", "y axis to the decade above 105");
	CHECK(strstr(buf, "stroke-dasharray=\"6 4\"") == NULL, "no limit line without a label");
	free(buf);
}

/* One workload flag through the table's getopt entry, as run gives it. */
static int wl_flag(struct wl_source *f, const char *flag, const char *arg, struct err *e)
{
	struct option lo[32];
	char shorts[4] = "";
	size_t n = 0, i;
	int own = 0;

	argtab_options(&wl_flags_tab, lo, &n, 32, shorts, sizeof(shorts));
	for (i = 0; i < n; i++)
		if (strcmp(lo[i].name, flag + 2) == 0)
			return argtab_parse(&wl_flags_tab, lo[i].val, arg, f, &own, e);
	return 0;
}

/* f emptied, then the flags of list (flag, argument, ..., NULL) given in
 * order. */
static void wl_flags(struct wl_source *f, const char *const *list, struct err *e)
{
	memset(f, 0, sizeof(*f));
	for (; *list; list += 2)
		wl_flag(f, list[0], list[1], e);
}

static void test_wlflags(void)
{
	struct catalog cat;
	struct wl_source f;
	struct wl_spec wl;
	struct err e;
	char origin[400];

	catalog_init(&cat);
	memset(&f, 0, sizeof(f));
	CHECK(wl_flag(&f, "--rate", "30", &e) == 1 && !strcmp(f.given, "--rate"), "--rate 30, named");
	CHECK(wl_source_build(&f, &cat, &wl, origin, sizeof(origin), &e) == 0, "default workload");
	CHECK(wl.rate == 30 && wl.prompt.kind == WL_LOGNORMAL && wl.num_requests == 2000,
	      "--rate overrides the default chat workload's rate, lengths kept");
	CHECK_STR_CONTAINS(origin, "overridden by --rate", "origin");
	wl_spec_release(&wl);

	wl_flags(&f, (const char *const[]){"--rate-type", "synchronous", "--num-requests", "20", NULL}, &e);
	CHECK(wl_source_build(&f, &cat, &wl, origin, sizeof(origin), &e) == 0 &&
		      wl.process == WL_CONCURRENCY && wl.concurrency == 1 && wl.num_requests == 20,
	      "--rate-type synchronous: one client");
	wl_spec_release(&wl);

	wl_flags(&f, (const char *const[]){"--prompt-tokens", "600:300", "--dist", "lognormal", NULL}, &e);
	CHECK(wl_source_build(&f, &cat, &wl, origin, sizeof(origin), &e) == 0 &&
		      wl.prompt.kind == WL_LOGNORMAL && wl.prompt.a == 600 && wl.prompt.b == 300 &&
		      wl.output.kind == WL_FIXED && wl.rate == 10 && wl.num_requests == 1000,
	      "length flags replace the default workload (lognormal prompt)");
	CHECK_STR_CONTAINS(origin, "replace workloads/default.json", "origin says so");
	wl_spec_release(&wl);

	wl_flags(&f, (const char *const[]){"--prompt-tokens", "600", "--dist", "lognormal", NULL}, &e);
	CHECK(wl_source_build(&f, &cat, &wl, origin, sizeof(origin), &e) == -SS_EUSAGE, "lognormal without STD");
	CHECK_STR_CONTAINS(e.msg, "needs MEAN:STD", "message");
	wl_spec_release(&wl);

	memset(&f, 0, sizeof(f));
	CHECK(wl_flag(&f, "--rate-type", "sweep", &e) == 1 && f.ov.rate_type == WL_RT_SWEEP, "--rate-type sweep");
	wl_flag(&f, "--rate", "2.5", &e);
	CHECK(wl_source_build(&f, &cat, &wl, origin, sizeof(origin), &e) == -SS_EUSAGE,
	      "sweep: --rate counts benchmarks");
	CHECK_STR_CONTAINS(e.msg, "number of benchmarks", "message");
	wl_spec_release(&wl);
}

/* capacity's and search's SLO line: one writer for both reports */
static void test_cap_slo_text(void)
{
	struct cap_cfg c;
	char b[64], small[12];

	memset(&c, 0, sizeof(c));
	cap_slo_text(&c, b, sizeof(b));
	CHECK(b[0] == '\0', "no SLO: empty line");
	c.slo[0] = (struct cap_slo){CAP_TTFT, CAP_P90, 500};
	c.slo[1] = (struct cap_slo){CAP_ITL, CAP_MEAN, 25.5};
	c.nslo = 2;
	c.goodput_min = 0.9;
	cap_slo_text(&c, b, sizeof(b));
	CHECK(strstr(b, " <= 500, ") && strstr(b, " <= 25.5, goodput >= 0.9") && !strchr(b + strlen(b) - 1, ','),
	      "two SLOs and the goodput floor, comma-separated: '%s'", b);
	cap_slo_text(&c, small, sizeof(small));
	CHECK(strlen(small) == sizeof(small) - 1, "cut to the buffer: '%s'", small);
	c.nslo = 0;
	cap_slo_text(&c, b, sizeof(b));
	CHECK(strcmp(b, "goodput >= 0.9") == 0, "goodput alone, no leading comma: '%s'", b);
}

int main(void)
{
	test_std();
	test_cap_slo_text();
	test_status();
	test_formats();
	test_svg();
	test_svg_log();
	test_wlflags();
	return check_done();
}
