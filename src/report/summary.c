/* summary.c - a run's metric summary in every format (text, JSON, CSV,
 * vLLM benchmark keys) and its status.  Key names: out.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/loghist.h"
#include "base/tline.h"
#include "workload/curve.h"
#include "report/out.h"

/* The five latency sets, their names in keys and in the text table. */
enum { NDIST = 5 };
static const char *const dist_key[NDIST] = {"ttft", "itl", "tpot", "e2e", "queue"};
static const char *const dist_label[NDIST] = {"TTFT", "ITL", "TPOT", "E2E", "queue"};

static void dists(const struct metric_set *m, const struct dist_summary *d[NDIST])
{
	d[0] = &m->ttft_ms;
	d[1] = &m->itl_ms;
	d[2] = &m->tpot_ms;
	d[3] = &m->e2e_ms;
	d[4] = &m->queue_ms;
}

/* statistics in key order; "std" beside "mean" as vLLM prints them */
enum { NSTAT = 7 };
static const char *const stat_key[NSTAT] = {"mean", "std", "p50", "p90", "p95", "p99", "max"};

static double stat_of(const struct dist_summary *d, int k)
{
	if (d->n == 0)
		return NAN;
	switch (k) {
	case 0: return d->mean;
	case 1: return d->std;
	case 2: return d->p50;
	case 3: return d->p90;
	case 4: return d->p95;
	case 5: return d->p99;
	default: return d->max;
	}
}

/* rates are 0 when nothing completed or the span is empty: null then */
static double rate_or_nan(const struct metric_set *m, double v)
{
	return m->completed > 0 && m->last_done_s > m->first_arrival_s ? v : NAN;
}

static double total_tok_s(const struct metric_set *m)
{
	return m->input_tok_s + m->output_tok_s;
}

/* --- status --- */

/* Thresholds of plan/capacity.c's sustainability test: served >= 0.95 x
 * the arrival rate in the window, queue delay growing by at most 0.05 s
 * per s of arrivals. */
#define OUT_SERVED_MIN 0.95
#define OUT_QUEUE_GROWTH_MAX 0.05
/* the least completions judged: at 100 the Poisson noise of a count is 10 %
 * (1/sqrt(100)), twice the 5 % served-rate margin; fewer are not judged */
#define OUT_MIN_JUDGED 100

static double offered_rate(const struct wl_spec *wl)
{
	double n = 0, t = 0;
	size_t i;

	if (wl->process == WL_CONCURRENCY || wl->process == WL_TRACE)
		return NAN;
	if (wl->ncurve) { /* the mean over the curve (or duration_s) */
		t = wl->curve_t[wl->ncurve - 1];
		if (wl->duration_s > 0 && wl->duration_s < t)
			t = wl->duration_s;
		return wl_curve_integral(wl, t) / t;
	}
	if (wl->nstages == 0)
		return wl->rate;
	for (i = 0; i < wl->nstages; i++) {
		n += wl->stages[i].rate * wl->stages[i].duration_s;
		t += wl->stages[i].duration_s;
	}
	return t > 0 ? n / t : NAN;
}

/* One stage's sustainability test: its arrivals' span [first, last] and
 * sums over its m completions (E2E and the least-squares terms of TTFT
 * on arrival, seconds), then the window they set (t1, a0, a1). */
struct judged {
	double first, last, m, e2e_mean, sx, sy, sxx, sxy;
	double t1, a0, a1;
};

/* The window of j's sums; false when there are too few completions to
 * judge (or no span). */
static bool window(struct judged *j)
{
	/* fewer completions than OUT_MIN_JUDGED give rates too noisy to judge */
	if (j->m < OUT_MIN_JUDGED || !(j->last > j->first))
		return false;
	j->e2e_mean /= j->m;
	/* the window of plan/capacity.c: after a warm-up of a quarter of the
	 * arrivals' span, or two mean E2Es when longer (at most half) */
	j->t1 = j->first + fmax(0.25 * (j->last - j->first), fmin(0.5 * (j->last - j->first), 2 * j->e2e_mean));
	/* departures in [t1, last] answer the arrivals about one E2E earlier:
	 * the arrival rate is taken over that window */
	j->a0 = fmax(j->first, j->t1 - j->e2e_mean);
	j->a1 = j->last - j->e2e_mean;
	return true;
}

/* The verdict on j with arr_in arrivals in [a0, a1] and done_in
 * completions in [t1, last]: *over set when they overloaded the engine. */
static void verdict(const struct judged *j, double arr_in, double done_in, struct out_status *r, bool *over)
{
	double den, slope, served, arrived;

	*over = false;
	den = j->m * j->sxx - j->sx * j->sx;
	slope = den > 0 ? (j->m * j->sxy - j->sx * j->sy) / den : 0;
	served = done_in / (j->last - j->t1);
	arrived = j->a1 > j->a0 ? arr_in / (j->a1 - j->a0) : NAN;
	r->queue_growth_s = slope * (j->last - j->first);
	if (slope > OUT_QUEUE_GROWTH_MAX)
		*over = true;
	/* the served-rate test needs a warm-up that covers an E2E (arrivals
	 * lasting four mean E2Es): in a shorter run the pipeline has not
	 * filled when the window opens */
	if (j->last - j->first >= 4 * j->e2e_mean && !isnan(arrived)) {
		r->served_rps = served;
		r->offered_rps = arrived;
		if (served < OUT_SERVED_MIN * arrived)
			*over = true;
	}
}

/* The test on requests lo .. hi-1 (arrival order); true when judged. */
static bool judge(const double *arrival_s, const float *ttft_ms, const float *e2e_ms, size_t lo,
		  size_t hi, struct out_status *r, bool *over)
{
	struct judged j = {INFINITY, -INFINITY, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	size_t i, m = 0, done_in = 0, arr_in = 0;

	for (i = lo; i < hi; i++) {
		j.first = fmin(j.first, arrival_s[i]);
		j.last = fmax(j.last, arrival_s[i]);
		if (isnan(ttft_ms[i]) || isnan(e2e_ms[i]))
			continue;
		m++;
		j.e2e_mean += e2e_ms[i] * 1e-3;
		j.sx += arrival_s[i];
		j.sy += ttft_ms[i] * 1e-3;
		j.sxx += arrival_s[i] * arrival_s[i];
		j.sxy += arrival_s[i] * ttft_ms[i] * 1e-3;
	}
	j.m = (double)m;
	if (!window(&j))
		return false;
	for (i = lo; i < hi; i++) {
		if (arrival_s[i] >= j.a0 && arrival_s[i] <= j.a1)
			arr_in++;
		if (!isnan(e2e_ms[i]) && arrival_s[i] + e2e_ms[i] * 1e-3 >= j.t1 &&
		    arrival_s[i] + e2e_ms[i] * 1e-3 <= j.last)
			done_in++;
	}
	verdict(&j, (double)arr_in, (double)done_in, r, over);
	return true;
}

/* The test on a stage's sketch (sim.h sim_flow): the counts in the
 * windows from its tlines, within their boundary buckets. */
static bool judge_sketch(const struct sim_flow *f, struct out_status *r, bool *over)
{
	struct judged j = {f->first_s, f->last_s, (double)f->completed, f->e2e_s, f->sx, f->sy, f->sxx, f->sxy,
			   0, 0, 0};

	if (!window(&j))
		return false;
	/* (the sums' x is measured from the first arrival: the slope is the
	 * same) */
	verdict(&j, tline_count(&f->arr, j.a0, j.a1), tline_count(&f->done, j.t1, j.last), r, over);
	return true;
}

/* The status every test starts from: no completions, or ok. */
static bool status_start(const struct wl_spec *wl, const struct metric_set *all, struct out_status *st)
{
	memset(st, 0, sizeof(*st));
	st->offered_rps = offered_rate(wl);
	st->served_rps = rate_or_nan(all, all->throughput_rps);
	st->queue_growth_s = NAN;
	st->stage = -1;
	if (all->completed == 0) {
		st->kind = OUT_NO_COMPLETIONS;
		return false;
	}
	st->kind = OUT_OK;
	return !isnan(st->offered_rps);
}

/* Stage k's result r (judged, overloaded or not) into st; true when the
 * stages after it need no test. */
static bool status_stage(const struct wl_spec *wl, size_t k, struct out_status *r, bool over,
			 struct out_status *st)
{
	r->stage = wl->nstages ? (int)k : -1;
	r->kind = over ? OUT_OVERLOADED : OUT_OK;
	*st = *r;
	return over;
}

void out_status_eval(const struct wl_spec *wl, const struct metric_set *all, const double *arrival_s,
		     const float *ttft_ms, const float *e2e_ms, size_t n, struct out_status *st)
{
	size_t k, lo = 0, hi, nst = wl->nstages ? wl->nstages : 1;
	double end = 0;

	if (!status_start(wl, all, st) || !arrival_s || n < 2)
		return;
	/* stages are judged one by one (their rates differ); the first
	 * overloaded one is reported, else the last judged */
	for (k = 0; k < nst && lo < n; k++, lo = hi) {
		struct out_status r = *st;
		bool over;
		end += wl->nstages ? wl->stages[k].duration_s : INFINITY;
		for (hi = lo; hi < n && arrival_s[hi] < end; hi++)
			;
		if (judge(arrival_s, ttft_ms, e2e_ms, lo, hi, &r, &over) && status_stage(wl, k, &r, over, st))
			return;
	}
}

void out_status_eval_sketch(const struct wl_spec *wl, const struct metric_set *all, const struct sim *s,
			    struct out_status *st)
{
	size_t k, nst = wl->nstages ? wl->nstages : 1;

	if (!status_start(wl, all, st))
		return;
	for (k = 0; k < nst; k++) {
		const struct sim_flow *f = sim_flow(s, (int)k);
		struct out_status r = *st;
		bool over;
		if (f && judge_sketch(f, &r, &over) && status_stage(wl, k, &r, over, st))
			return;
	}
}

int out_status_sim(const struct wl_spec *wl, struct sim *s, struct out_status *st, struct err *e)
{
	size_t n = (size_t)sim_totals(s)->arrived, narr;
	const double *arr = sim_arrivals(s, &narr);
	float *ttft, *e2e;
	struct metric_set all;

	(void)e;
	sim_summary(s, -1, &all);
	switch (sim_flow_kind(s)) {
	case SIM_FLOW_SKETCH:
		out_status_eval_sketch(wl, &all, s, st);
		return 0;
	case SIM_FLOW_NONE:
		out_status_eval(wl, &all, NULL, NULL, NULL, n, st);
		return 0;
	case SIM_FLOW_EXACT:
		break;
	}
	if (narr != n) /* (every arrival is kept under SIM_FLOW_EXACT) */
		arr = NULL;
	ttft = xmalloc(xmul(n ? n : 1, sizeof(float)));
	e2e = xmalloc(xmul(n ? n : 1, sizeof(float)));
	sim_per_request_f(s, ttft, e2e, n);
	out_status_eval(wl, &all, arr, ttft, e2e, n, st);
	free(ttft);
	free(e2e);
	return 0;
}

const char *out_status_name(enum out_status_kind k)
{
	switch (k) {
	case OUT_OK: return "ok";
	case OUT_OVERLOADED: return "overloaded";
	case OUT_NO_COMPLETIONS: return "no completions";
	}
	return "?";
}

void out_status_line(const struct out_status *st, char *buf, size_t n)
{
	if (st->kind != OUT_OVERLOADED) {
		snprintf(buf, n, "%s", out_status_name(st->kind));
		return;
	}
	char where[32] = "";

	if (st->stage >= 0)
		snprintf(where, sizeof(where), " in stage %d", st->stage);
	if (isnan(st->queue_growth_s))
		snprintf(buf, n, "overloaded%s (offered %.4g req/s, served %.4g req/s)", where,
			 st->offered_rps, st->served_rps);
	else
		snprintf(buf, n, "overloaded%s (offered %.4g req/s, served %.4g req/s, queue grew %.1f s)",
			 where, st->offered_rps, st->served_rps, st->queue_growth_s);
}

/* --- text --- */

static void cell(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, " %9s", "-");
	else
		fprintf(f, " %9.2f", v);
}

void out_metrics_text(FILE *f, const struct metric_set *m)
{
	const struct dist_summary *d[NDIST];
	int i, k;

	dists(m, d);
	fprintf(f, "  %-6s", "ms");
	for (k = 0; k < NSTAT; k++)
		fprintf(f, " %9s", stat_key[k]);
	fputc('\n', f);
	for (i = 0; i < NDIST; i++) {
		fprintf(f, "  %-6s", dist_label[i]);
		for (k = 0; k < NSTAT; k++)
			cell(f, stat_of(d[i], k));
		fputc('\n', f);
	}
	fprintf(f, "  ITL pooled over all %zu gaps between chunks (vLLM's ITL):", m->token_gaps);
	if (isnan(m->itl_pooled_mean_ms) || m->itl_pooled_ms.n == 0) {
		fprintf(f, " -\n");
	} else {
		fprintf(f, " mean %.2f", m->itl_pooled_mean_ms);
		for (k = 1; k < NSTAT; k++)
			fprintf(f, " %s %.2f", stat_key[k], stat_of(&m->itl_pooled_ms, k));
		fprintf(f, " ms%s\n", m->itl_pooled_exact ? "" : " (percentiles within 0.05 %)");
	}
	if (m->completed == 0)
		fprintf(f, "  throughput - (no request completed)\n");
	else
		fprintf(f, "  throughput %.2f req/s, %.0f input tok/s, %.0f output tok/s, %.0f total tok/s\n",
			m->throughput_rps, m->input_tok_s, m->output_tok_s, total_tok_s(m));
	if (!isnan(m->energy_j))
		fprintf(f, "  energy %.4g J per output token, %.0f W per GPU on average (%.4g kJ; model: docs/energy.md)\n",
			m->energy_j_per_output_token, m->avg_power_w_per_gpu, m->energy_j * 1e-3);
}

/* --- JSON --- */

static void jnum(struct jw *w, const char *k, double v)
{
	if (isnan(v))
		jw_null(w, k);
	else
		jw_num(w, k, v);
}

void out_metrics_json(struct jw *w, const struct metric_set *m)
{
	const struct dist_summary *d[NDIST];
	char key[48];
	int i, k;

	dists(m, d);
	jw_int(w, "completed", (int64_t)m->completed);
	jnum(w, "throughput_rps", rate_or_nan(m, m->throughput_rps));
	jnum(w, "input_tokens_per_s", rate_or_nan(m, m->input_tok_s));
	jnum(w, "output_tokens_per_s", rate_or_nan(m, m->output_tok_s));
	jnum(w, "total_tokens_per_s", rate_or_nan(m, total_tok_s(m)));
	for (i = 0; i < NDIST; i++)
		for (k = 0; k < NSTAT; k++) {
			snprintf(key, sizeof(key), "%s_%s_ms", dist_key[i], stat_key[k]);
			jnum(w, key, stat_of(d[i], k));
		}
	jnum(w, "itl_pooled_mean_ms", m->itl_pooled_mean_ms);
	for (k = 1; k < NSTAT; k++) {
		snprintf(key, sizeof(key), "itl_pooled_%s_ms", stat_key[k]);
		jnum(w, key, stat_of(&m->itl_pooled_ms, k));
	}
	jw_int(w, "token_gaps", (int64_t)m->token_gaps);
	jw_bool(w, "itl_pooled_exact", m->itl_pooled_exact);
	jnum(w, "energy_j", m->energy_j);
	jnum(w, "avg_power_w_per_gpu", m->avg_power_w_per_gpu);
	jnum(w, "energy_j_per_output_token", m->energy_j_per_output_token);
}

/* --- CSV --- */

void out_metrics_csv_header(FILE *f)
{
	int i, k;

	fprintf(f, "completed,throughput_rps,input_tokens_per_s,output_tokens_per_s,total_tokens_per_s");
	for (i = 0; i < NDIST; i++)
		for (k = 0; k < NSTAT; k++)
			fprintf(f, ",%s_%s_ms", dist_key[i], stat_key[k]);
	fprintf(f, ",itl_pooled_mean_ms");
	for (k = 1; k < NSTAT; k++)
		fprintf(f, ",itl_pooled_%s_ms", stat_key[k]);
}

static void ccell(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.6g", v);
}

void out_metrics_csv_row(FILE *f, const struct metric_set *m)
{
	const struct dist_summary *d[NDIST];
	int i, k;

	dists(m, d);
	fprintf(f, "%zu", m->completed);
	ccell(f, rate_or_nan(m, m->throughput_rps));
	ccell(f, rate_or_nan(m, m->input_tok_s));
	ccell(f, rate_or_nan(m, m->output_tok_s));
	ccell(f, rate_or_nan(m, total_tok_s(m)));
	for (i = 0; i < NDIST; i++)
		for (k = 0; k < NSTAT; k++)
			ccell(f, stat_of(d[i], k));
	ccell(f, m->itl_pooled_mean_ms);
	for (k = 1; k < NSTAT; k++)
		ccell(f, stat_of(&m->itl_pooled_ms, k));
}

/* --- vLLM benchmark result --- */

static void bench_metric(struct jw *w, const char *name, const struct dist_summary *d)
{
	char key[48];

	snprintf(key, sizeof(key), "mean_%s_ms", name);
	jnum(w, key, stat_of(d, 0));
	snprintf(key, sizeof(key), "median_%s_ms", name);
	jnum(w, key, stat_of(d, 2));
	snprintf(key, sizeof(key), "std_%s_ms", name);
	jnum(w, key, stat_of(d, 1));
	snprintf(key, sizeof(key), "p99_%s_ms", name);
	jnum(w, key, stat_of(d, 5));
}

void out_vllm_bench(FILE *f, const struct out_bench_info *bi, const struct metric_set *m,
		    const struct out_status *st, const struct out_config *cfg)
{
	struct jw w;
	char line[160];
	double dur = m->completed > 0 ? m->last_done_s - m->first_arrival_s : NAN;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "backend", "servesim");
	jw_str(&w, "model_id", bi->model_id);
	jw_int(&w, "num_prompts", bi->num_prompts);
	jnum(&w, "request_rate", bi->request_rate);
	if (bi->max_concurrency > 0)
		jw_int(&w, "max_concurrency", bi->max_concurrency);
	else
		jw_null(&w, "max_concurrency");
	jnum(&w, "duration", dur);
	jw_int(&w, "completed", (int64_t)m->completed);
	jw_int(&w, "failed", bi->failed);
	jw_num(&w, "total_input_tokens", m->input_tokens);
	jw_num(&w, "total_output_tokens", m->output_tokens);
	jnum(&w, "request_throughput", rate_or_nan(m, m->throughput_rps));
	jnum(&w, "request_goodput", bi->request_goodput);
	jnum(&w, "output_throughput", rate_or_nan(m, m->output_tok_s));
	jnum(&w, "total_token_throughput", rate_or_nan(m, total_tok_s(m)));
	bench_metric(&w, "ttft", &m->ttft_ms);
	bench_metric(&w, "tpot", &m->itl_ms); /* vLLM's TPOT = servesim's per-request ITL */
	jnum(&w, "mean_itl_ms", m->itl_pooled_mean_ms);
	jnum(&w, "median_itl_ms", stat_of(&m->itl_pooled_ms, 2));
	jnum(&w, "std_itl_ms", stat_of(&m->itl_pooled_ms, 1));
	jnum(&w, "p99_itl_ms", stat_of(&m->itl_pooled_ms, 5));
	bench_metric(&w, "e2el", &m->e2e_ms);
	jw_obj(&w, "servesim");
	jw_str(&w, "status", out_status_name(st->kind));
	out_status_line(st, line, sizeof(line));
	jw_str(&w, "status_line", line);
	jw_str(&w, "itl_definition", OUT_ITL_POOLED_DEFINITION);
	jw_bool(&w, "itl_exact", m->itl_pooled_exact);
	if (cfg)
		out_config_json(&w, cfg);
	jw_end_obj(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}
