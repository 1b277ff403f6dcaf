/* status.c - whether a simulated run kept up with its arrivals (status.h):
 * plan/capacity.c's sustainability test on the finished run, stage by
 * stage. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/status.h"
#include "base/alloc.h"
#include "base/tline.h"
#include "workload/curve.h"

/* rates are 0 when nothing completed or the span is empty: NAN then */
static double rate_or_nan(const struct metric_set *m, double v)
{
	return m->completed > 0 && m->last_done_s > m->first_arrival_s ? v : NAN;
}

/* Thresholds of plan/capacity.c's sustainability test: served >= 0.95 x
 * the arrival rate in the window, queue delay growing by at most 0.05 s
 * per s of arrivals. */
#define RUN_SERVED_MIN 0.95
#define RUN_QUEUE_GROWTH_MAX 0.05
/* the least completions judged: at 100 the Poisson noise of a count is 10 %
 * (1/sqrt(100)), twice the 5 % served-rate margin; fewer are not judged */
#define RUN_MIN_JUDGED 100

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
	/* fewer completions than RUN_MIN_JUDGED give rates too noisy to judge */
	if (j->m < RUN_MIN_JUDGED || !(j->last > j->first))
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
static void verdict(const struct judged *j, double arr_in, double done_in, struct run_status *r, bool *over)
{
	double den, slope, served, arrived;

	*over = false;
	den = j->m * j->sxx - j->sx * j->sx;
	slope = den > 0 ? (j->m * j->sxy - j->sx * j->sy) / den : 0;
	served = done_in / (j->last - j->t1);
	arrived = j->a1 > j->a0 ? arr_in / (j->a1 - j->a0) : NAN;
	r->queue_growth_s = slope * (j->last - j->first);
	if (slope > RUN_QUEUE_GROWTH_MAX)
		*over = true;
	/* the served-rate test needs a warm-up that covers an E2E (arrivals
	 * lasting four mean E2Es): in a shorter run the pipeline has not
	 * filled when the window opens */
	if (j->last - j->first >= 4 * j->e2e_mean && !isnan(arrived)) {
		r->served_rps = served;
		r->offered_rps = arrived;
		if (served < RUN_SERVED_MIN * arrived)
			*over = true;
	}
}

/* The sums of the test on requests lo .. hi-1 (arrival order) and the
 * counts in their window; false when too few to judge. */
static bool judge_sums(const double *arrival_s, const float *ttft_ms, const float *e2e_ms, size_t lo, size_t hi,
		       struct judged *jo, double *arr_in_o, double *done_in_o)
{
	struct judged j = {INFINITY, -INFINITY, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	size_t i, m = 0, done_in = 0, arr_in = 0;

	for (i = lo; i < hi; i++) {
		/* fmin and fmax (NAN ignored, and no -0 among the times), as
		 * comparisons: calls to them kept the sums below in memory */
		if (arrival_s[i] < j.first)
			j.first = arrival_s[i];
		if (arrival_s[i] > j.last)
			j.last = arrival_s[i];
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
	*jo = j;
	*arr_in_o = (double)arr_in;
	*done_in_o = (double)done_in;
	return true;
}

/* Each stage's sums and counts (status_judged_stages): the stages are
 * judged one by one (their rates differ). */
struct stage_sums {
	struct judged j;
	double arr_in, done_in;
	bool judged;
};

static size_t stage_count(const struct wl_spec *wl)
{
	return wl->nstages ? wl->nstages : 1;
}

/* sums[stage_count(wl)]: every stage's, over the n requests by arrival
 * order (a stage whose requests ran out judged as none). */
static void judge_stages(const struct wl_spec *wl, const double *arrival_s, const float *ttft_ms,
			 const float *e2e_ms, size_t n, struct stage_sums *sums)
{
	size_t k, lo = 0, hi, nst = stage_count(wl);
	double end = 0;

	for (k = 0; k < nst; k++, lo = hi) {
		sums[k].judged = false;
		hi = lo;
		if (lo >= n)
			continue;
		end += wl->nstages ? wl->stages[k].duration_s : INFINITY;
		for (; hi < n && arrival_s[hi] < end; hi++)
			;
		sums[k].judged = judge_sums(arrival_s, ttft_ms, e2e_ms, lo, hi, &sums[k].j, &sums[k].arr_in,
					    &sums[k].done_in);
	}
}

/* The status from the stages' sums: the first overloaded stage, else the
 * last judged. */
static void status_of_stages(const struct wl_spec *wl, const struct stage_sums *sums, struct run_status *st);

/* The test on a stage's sketch (sim.h sim_flow): the counts in the
 * windows from its tlines, within their boundary buckets. */
static bool judge_sketch(const struct sim_flow *f, struct run_status *r, bool *over)
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
static bool status_start(const struct wl_spec *wl, const struct metric_set *all, struct run_status *st)
{
	memset(st, 0, sizeof(*st));
	st->offered_rps = offered_rate(wl);
	st->served_rps = rate_or_nan(all, all->throughput_rps);
	st->queue_growth_s = NAN;
	st->stage = -1;
	if (all->completed == 0) {
		st->kind = RUN_NO_COMPLETIONS;
		return false;
	}
	st->kind = RUN_OK;
	return !isnan(st->offered_rps);
}

/* Stage k's result r (judged, overloaded or not) into st; true when the
 * stages after it need no test. */
static bool status_stage(const struct wl_spec *wl, size_t k, struct run_status *r, bool over,
			 struct run_status *st)
{
	r->stage = wl->nstages ? (int)k : -1;
	r->kind = over ? RUN_OVERLOADED : RUN_OK;
	*st = *r;
	return over;
}

static void status_of_stages(const struct wl_spec *wl, const struct stage_sums *sums, struct run_status *st)
{
	size_t k, nst = stage_count(wl);

	for (k = 0; k < nst; k++) {
		struct run_status r = *st;
		bool over;
		if (!sums[k].judged)
			continue;
		verdict(&sums[k].j, sums[k].arr_in, sums[k].done_in, &r, &over);
		if (status_stage(wl, k, &r, over, st))
			return;
	}
}

void run_status_eval(const struct wl_spec *wl, const struct metric_set *all, const double *arrival_s,
		     const float *ttft_ms, const float *e2e_ms, size_t n, struct run_status *st)
{
	struct stage_sums sums[WL_MAX_STAGES];

	if (!status_start(wl, all, st) || !arrival_s || n < 2)
		return;
	judge_stages(wl, arrival_s, ttft_ms, e2e_ms, n, sums);
	status_of_stages(wl, sums, st);
}

void run_status_eval_sketch(const struct wl_spec *wl, const struct metric_set *all, const struct sim *s,
			    struct run_status *st)
{
	size_t k, nst = wl->nstages ? wl->nstages : 1;

	if (!status_start(wl, all, st))
		return;
	for (k = 0; k < nst; k++) {
		const struct sim_flow *f = sim_flow(s, (int)k);
		struct run_status r = *st;
		bool over;
		if (f && judge_sketch(f, &r, &over) && status_stage(wl, k, &r, over, st))
			return;
	}
}

/* The exact test's sums, computed beside the summary (sim_summary_beside):
 * the values by id as the run kept them (then dropped), else gathered from
 * the records here. */
struct status_job {
	const struct wl_spec *wl;
	struct sim *s;
	const double *arr;
	size_t n;
	struct stage_sums sums[WL_MAX_STAGES];
};

static void status_job_run(void *ctx)
{
	struct status_job *jb = ctx;
	const float *kt, *ke;
	float *ttft, *e2e;

	if (sim_flow_values(jb->s, &kt, &ke)) {
		judge_stages(jb->wl, jb->arr, kt, ke, jb->n, jb->sums);
		/* (read once: freed here, beside the summary, not on the
		 * caller's thread when the simulation is released) */
		sim_flow_values_drop(jb->s);
		return;
	}
	ttft = xmalloc(xmul(jb->n, sizeof(float)));
	e2e = xmalloc(xmul(jb->n, sizeof(float)));
	sim_per_request_f(jb->s, ttft, e2e, jb->n);
	judge_stages(jb->wl, jb->arr, ttft, e2e, jb->n, jb->sums);
	free(ttft);
	free(e2e);
}

int run_status_sim(const struct wl_spec *wl, struct sim *s, struct run_status *st, struct err *e)
{
	size_t n = (size_t)sim_totals(s)->arrived, narr;
	const double *arr = sim_arrivals(s, &narr);
	enum sim_flow_kind kind = sim_flow_kind(s);
	struct status_job *jb = NULL;
	struct metric_set all;

	(void)e;
	if (kind == SIM_FLOW_EXACT && arr && narr == n && n >= 2) { /* (every arrival kept) */
		jb = xcalloc(1, sizeof(*jb));
		jb->wl = wl;
		jb->s = s;
		jb->arr = arr;
		jb->n = n;
		sim_summary_beside(s, -1, &all, status_job_run, jb);
	} else {
		sim_summary(s, -1, &all);
	}
	switch (kind) {
	case SIM_FLOW_SKETCH:
		run_status_eval_sketch(wl, &all, s, st);
		break;
	case SIM_FLOW_NONE:
		run_status_eval(wl, &all, NULL, NULL, NULL, n, st);
		break;
	case SIM_FLOW_EXACT:
		if (status_start(wl, &all, st) && jb)
			status_of_stages(wl, jb->sums, st);
		break;
	}
	free(jb);
	return 0;
}

const char *run_status_name(enum run_status_kind k)
{
	switch (k) {
	case RUN_OK: return "ok";
	case RUN_OVERLOADED: return "overloaded";
	case RUN_NO_COMPLETIONS: return "no completions";
	}
	return "?";
}

void run_status_line(const struct run_status *st, char *buf, size_t n)
{
	if (st->kind != RUN_OVERLOADED) {
		snprintf(buf, n, "%s", run_status_name(st->kind));
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
