/* summary.c - the run's summaries: the metric set of a stage or of all from
 * the records, histograms and pooled token gaps, energy, the per-request
 * arrays, and the API overheads re-priced on kept client times. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/loghist.h"
#include "core.h"
#include "sim/records.h"

/* The five summaries from the histograms of one stage, or all merged. */
static void summary_hist(const struct sim *s, int stage, struct metric_set *o)
{
	struct dist_summary *d[5] = {&o->ttft_ms, &o->itl_ms, &o->tpot_ms, &o->e2e_ms, &o->queue_ms};
	size_t k, st;

	for (k = 0; k < 5; k++) {
		struct loghist h;
		loghist_init(&h);
		for (st = 0; st < 256; st++)
			if (stage < 0 || (size_t)stage == st)
				loghist_merge(&h, &s->hist[st * 5 + k]);
		loghist_summarise(&h, d[k]);
		loghist_release(&h);
	}
}


static void summary_compute(struct sim *s, int stage, bool all, struct metric_set *o, void (*job)(void *ctx),
			    void *ctx);

/* The pooled token gaps of one stage or all (sim.h).  Its mean sums the
 * gaps themselves: within rounding of itl_pooled_mean_ms, which the
 * reports print (the tests hold them together). */
static void pooled_gaps(const struct sim *s, int stage, struct metric_set *o)
{
	struct wdist all;
	const struct wdist *d = &all;
	int st;

	if (stage >= 0) {
		d = &s->gapd[stage > 255 ? 255 : stage];
	} else {
		wdist_init(&all);
		for (st = 0; st < 256; st++)
			if (s->gapd[st].n > 0)
				wdist_merge(&all, &s->gapd[st]);
	}
	wdist_summarise(d, &o->itl_pooled_ms);
	o->itl_pooled_exact = wdist_exact(d);
	if (d == &all)
		wdist_release(&all);
}

/* One summary per stage (and overall) per state of the run: the callers
 * print the same stage several times (text, JSON and CSV reports), and
 * with one stage its summary is the overall one (the same values in the
 * same order). */
void sim_summary(struct sim *s, int stage, struct metric_set *o)
{
	sim_summary_beside(s, stage, o, NULL, NULL);
}

void sim_summary_beside(struct sim *s, int stage, struct metric_set *o, void (*job)(void *ctx), void *ctx)
{
	size_t k;

	if (stage == 0 && s->nstages == 1)
		stage = -1;
	if (stage < -1 || stage >= 255) {
		summary_compute(s, stage, true, o, job, ctx);
		return;
	}
	k = (size_t)(stage + 1);
	if (s->sum_events != s->tot.events || k >= s->nsum) {
		size_t n = k + 1 > (size_t)s->nstages + 1 ? k + 1 : (size_t)s->nstages + 1;
		if (n > s->nsum) {
			s->sum = xreallocarray(s->sum, n, sizeof(*s->sum));
			s->sum_ok = xreallocarray(s->sum_ok, n, sizeof(*s->sum_ok));
			s->nsum = n;
		}
		if (s->sum_events != s->tot.events || s->nsum == n)
			memset(s->sum_ok, 0, s->nsum * sizeof(*s->sum_ok));
		s->sum_events = s->tot.events;
	}
	if (!s->sum_ok[k]) {
		summary_compute(s, stage, true, &s->sum[k], job, ctx);
		s->sum_ok[k] = true;
	} else if (job) {
		job(ctx);
	}
	*o = s->sum[k];
}

void sim_summary_core(struct sim *s, int stage, struct metric_set *o)
{
	if (stage == 0 && s->nstages == 1)
		stage = -1;
	if (stage >= -1 && stage < 255 && s->sum_events == s->tot.events && (size_t)(stage + 1) < s->nsum &&
	    s->sum_ok[stage + 1]) {
		*o = s->sum[stage + 1]; /* (a whole one kept already) */
		return;
	}
	summary_compute(s, stage, false, o, NULL, NULL);
}

/* all false: the TPOT and queue-time distributions are left zero. */
/* o's energy figures (sim.h metric_set), from its span and the steps'. */
static void summary_energy(const struct sim *s, int stage, struct metric_set *o)
{
	double idle_w = 0, gpus = 0, span = o->last_done_s - o->first_arrival_s;
	int i;

	o->energy_j = o->avg_power_w_per_gpu = o->energy_j_per_output_token = NAN;
	if ((stage >= 0 && s->nstages > 1) || o->completed == 0 || !(span > 0) || isnan(s->tot.energy_dyn_j))
		return;
	for (i = 0; i < s->nrep; i++) {
		idle_w += s->reps[i].power.idle_w * s->reps[i].gpus;
		gpus += s->reps[i].gpus;
	}
	if (s->provisioned_share > 0) { /* autoscaling: the GPUs held part of the time */
		idle_w *= s->provisioned_share;
		gpus *= s->provisioned_share;
	}
	o->energy_j = idle_w * span + s->tot.energy_dyn_j;
	o->avg_power_w_per_gpu = o->energy_j / span / gpus;
	if (o->output_tokens > 0)
		o->energy_j_per_output_token = o->energy_j / o->output_tokens;
}

/* One distribution's summary from the kept records: src's values of
 * stage (-1: all) gathered into buf (room for nrec) and summarised. */
struct sum_job {
	const struct sim *s;
	const float *src;
	int stage;
	struct dist_summary *out;
	float *buf;
	uint32_t *scratch; /* the sort's (room for nrec; NULL: its own) */
};

static void sum_one(const struct sum_job *j)
{
	/* src's values of the stage, NaNs left out, gathered as the sort
	 * reads them */
	stats_summarise_where(j->src, j->s->nrec, j->stage < 0 ? NULL : j->s->stage, j->stage, j->buf, j->scratch,
			      j->out);
}

/* The second thread's work: the first thread's buffers mapped (prefault,
 * its bytes), the caller's job (sim_summary_beside), its distributions. */
struct side_work {
	struct sum_job jobs[3]; /* (up to one without src) */
	void *prefault[2]; /* the first thread's gather buffer and scratch */
	size_t bytes;
	void (*job)(void *ctx);
	void *ctx;
};

static void *side_run(void *arg)
{
	struct side_work *w = arg;
	const struct sum_job *j;

	/* (their page faults taken here: the first thread goes on at once
	 * and is the longer; populating leaves what it writes meanwhile):
	 * the sort's scratch first, which it reaches after its first gather,
	 * then the gather buffer from its end, chunk by chunk, towards the
	 * first thread filling it from the start */
	size_t off = w->bytes, step = (size_t)1 << 18;

	xprefault(w->prefault[1], w->bytes);
	while (off > 0) {
		size_t len = off < step ? off : step;
		off -= len;
		xprefault((char *)w->prefault[0] + off, len);
	}
	/* the caller's job before this thread's distributions: what it
	 * frees (the status check's values by id) goes before their sorts
	 * take their scratch */
	if (w->job)
		w->job(w->ctx);
	for (j = w->jobs; j->src; j++)
		sum_one(j);
	return NULL;
}

/* The five summaries of jobs (all false: TPOT and queue time left zero),
 * in jobs[0]'s buffer.  Where the run was one simulation in the process
 * (sim_cfg.arrival_thread) with many records, the last of them (E2E and
 * queue time, or E2E alone) are summarised on a second thread with a
 * buffer of their own while this one does the others, and job(ctx) runs
 * there before them (else here, after all five): each summary reads its
 * own values alone, so the same bits either way. */
static void summarise_all(const struct sim *s, struct sum_job *jobs, bool all, void (*job)(void *ctx), void *ctx)
{
	struct side_work w;
	size_t no = 0, k;
	pthread_t th;
	bool par = s->cfg.arrival_thread && s->nrec >= SIM_ARRIVAL_THREAD_MIN, started = false;
	float *b = NULL;
	uint32_t *sc = NULL, *sc2 = NULL;

	memset(&w, 0, sizeof(w));
	w.job = job;
	w.ctx = ctx;
	if (par && (b = malloc(xmul(s->nrec, sizeof(float))))) {
		/* the other thread's sort scratch, one for its distributions */
		sc2 = malloc(xmul(s->nrec, sizeof(uint32_t)));
		sim_advise_huge(s, sc2, s->nrec * sizeof(uint32_t));
		sim_advise_huge(s, b, s->nrec * sizeof(float));
		for (k = 3; k < 5; k++)
			if (all || k == 3) {
				w.jobs[no] = jobs[k];
				w.jobs[no].scratch = sc2;
				w.jobs[no++].buf = b;
			}
		/* this thread's gather buffer and sort scratch, mapped by the
		 * other (a few thousand page faults of a million records) */
		sc = malloc(xmul(s->nrec, sizeof(uint32_t)));
		sim_advise_huge(s, sc, s->nrec * sizeof(uint32_t));
		w.prefault[0] = jobs[0].buf;
		w.prefault[1] = sc;
		w.bytes = sc ? s->nrec * sizeof(uint32_t) : 0;
		started = pthread_create(&th, NULL, side_run, &w) == 0;
	}
	for (k = 0; k < 5; k++)
		if ((all || (k != 2 && k != 4)) && !(started && k >= 3)) {
			jobs[k].buf = jobs[0].buf;
			jobs[k].scratch = started ? sc : NULL;
			sum_one(&jobs[k]);
		}
	if (started)
		pthread_join(th, NULL);
	else if (job)
		job(ctx);
	free(sc);
	free(sc2);
	free(b);
}

static void summary_compute(struct sim *s, int stage, bool all, struct metric_set *o, void (*job)(void *ctx),
			    void *ctx)
{
	float *buf = xmalloc(xmul(s->nrec ? s->nrec : 1, sizeof(float)));
	size_t i;
	double first = INFINITY, last = 0, gap_ms = 0, gaps = 0, last_arr = 0, wait = 0, run = 0;

	memset(o, 0, sizeof(*o));
	if (s->hist) {
		records_fold(s);
		summary_hist(s, stage, o);
		free(buf);
		buf = NULL;
		if (job)
			job(ctx);
	}
	if (buf) {
		struct sum_job jobs[5] = {{s, s->ttft, stage, &o->ttft_ms, buf, NULL},
					  {s, s->itl, stage, &o->itl_ms, buf, NULL},
					  {s, s->tpot, stage, &o->tpot_ms, buf, NULL},
					  {s, s->e2e, stage, &o->e2e_ms, buf, NULL},
					  {s, s->queue, stage, &o->queue_ms, NULL, NULL}};
		/* (the sorts' gather buffer: a histogram's summary has none) */
		sim_advise_huge(s, buf, s->nrec * sizeof(float));
		summarise_all(s, jobs, all, job, ctx);
		free(buf);
	}
	for (i = 0; i < 256; i++) {
		const struct stage_agg *ag = &s->agg[i];
		if ((stage >= 0 && (size_t)stage != i) || ag->completed == 0)
			continue;
		o->completed += (size_t)ag->completed;
		o->input_tokens += ag->in_tok;
		o->output_tokens += ag->out_tok;
		gap_ms += ag->gap_ms;
		gaps += ag->gaps;
		wait += ag->wait_ms;
		run += ag->run_ms;
		if ((double)ag->first_arr_ns < first)
			first = (double)ag->first_arr_ns;
		if ((double)ag->last_arr_ns > last_arr)
			last_arr = (double)ag->last_arr_ns;
		if ((double)ag->last_done_ns > last)
			last = (double)ag->last_done_ns;
	}
	o->token_gaps = (size_t)gaps;
	o->itl_pooled_mean_ms = gaps > 0 ? gap_ms / gaps : NAN;
	pooled_gaps(s, stage, o);
	o->running_per_rank = o->queue_share = NAN;
	if (o->completed > 0 && wait + run > 0)
		o->queue_share = wait / (wait + run);
	if (o->completed > 0 && last > first) {
		double span = (last - first) * 1e-9;
		o->running_per_rank = run * 1e-3 / span / (double)s->nrep;
		o->first_arrival_s = first * 1e-9;
		o->last_done_s = last * 1e-9;
		o->last_arrival_s = last_arr * 1e-9;
		o->throughput_rps = (double)o->completed / span;
		o->input_tok_s = o->input_tokens / span;
		o->output_tok_s = o->output_tokens / span;
	}
	summary_energy(s, stage, o);
}

/* sim_per_request into doubles (td, ed) or floats (tf, ef). */
static void per_request(const struct sim *s, double *td, double *ed, float *tf, float *ef, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (td)
			td[i] = ed[i] = NAN;
		else
			tf[i] = ef[i] = NAN;
	if (s->hist)
		return; /* not kept past LOGHIST_EXACT_MAX (sim.h) */
	for (i = 0; i < s->nrec; i++) {
		int32_t id = s->rec_id[i];
		if (id < 0 || (size_t)id >= n)
			continue;
		if (td) {
			td[id] = s->ttft[i];
			ed[id] = s->e2e[i];
		} else {
			tf[id] = s->ttft[i];
			ef[id] = s->e2e[i];
		}
	}
}

void sim_per_request(const struct sim *s, double *ttft_ms, double *e2e_ms, size_t n)
{
	per_request(s, ttft_ms, e2e_ms, NULL, NULL, n);
}

void sim_per_request_f(const struct sim *s, float *ttft_ms, float *e2e_ms, size_t n)
{
	per_request(s, NULL, NULL, ttft_ms, e2e_ms, n);
}

void sim_per_request_itl(const struct sim *s, double *itl_ms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		itl_ms[i] = NAN;
	if (s->hist)
		return;
	for (i = 0; i < s->nrec; i++) {
		int32_t id = s->rec_id[i];
		if (id >= 0 && (size_t)id < n)
			itl_ms[id] = s->itl[i];
	}
}

void sim_keep_client_times(struct sim *s)
{
	s->keep_raw = true;
}

bool sim_reprice_api(struct sim *s, double api_ttft_ms, double api_e2e_ms)
{
	struct overheads ov = s->cost->cfg.ov;
	size_t i;

	/* the pooled gaps and the CSV rows (or whoever read them) hold the
	 * old terms */
	if (!s->raw_first || s->hist || s->flow || !s->cfg.no_pooled_gaps || s->cfg.requests_out ||
	    s->cfg.on_request || ov.api_prompt_us > 0 /* (no prompt lengths kept) */ ||
	    s->apiq) /* (the API time moved the engine's arrivals) */
		return false;
	ov.api_ttft_ms = api_ttft_ms;
	ov.api_e2e_ms = api_e2e_ms;
	for (i = 0; i < 256; i++)
		s->agg[i].gap_ms = 0;
	/* records_keep()'s values, in its order (the gap sums add up the same) */
	for (i = 0; i < s->nrec; i++) {
		int64_t out = s->raw_out[i];
		double ttft, e2e, itl;
		records_client_times(s, &ov, s->raw_first[i], s->raw_last[i], out, 0, &ttft, &e2e);
		itl = out > 1 ? (e2e - ttft) / (double)(out - 1) : NAN;
		s->ttft[i] = (float)ttft;
		s->itl[i] = (float)itl;
		s->tpot[i] = (float)(e2e / (double)out);
		s->e2e[i] = (float)e2e;
		if (out > 1)
			s->agg[s->stage[i]].gap_ms += e2e - ttft;
		if (s->arr_ttft && s->rec_id[i] >= 0 && (size_t)s->rec_id[i] < s->narr) {
			s->arr_ttft[s->rec_id[i]] = s->ttft[i];
			s->arr_e2e[s->rec_id[i]] = s->e2e[i];
		}
	}
	if (s->nsum)
		memset(s->sum_ok, 0, s->nsum * sizeof(*s->sum_ok));
	return true;
}
