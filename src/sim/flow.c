/* flow.c - what a run's sustainability test reads of it (sim.h
 * sim_flow_kind): arrival times by request id while the per-request
 * records are kept, per-stage sketches after.
 *
 * The test (report/summary.c) looks at the arrivals and completions of a
 * window that depends on the whole run (its span, its mean E2E), so the
 * exact test needs every arrival; it used to regenerate them all after the
 * run and hold 24 bytes a request beside them, past LOGHIST_EXACT_MAX
 * completions too, where it then judged nothing.  Here the arrivals are
 * kept as they come (8 bytes a request, the seconds the test reads) for as long as the records are,
 * and when those are folded into histograms (or the arrivals pass
 * SIM_FLOW_KEEP_MAX) both become sketches of fixed size: the exact test's
 * sums, and the times on tlines, so that memory stops growing with the
 * requests and long runs are judged too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* a tline's first bucket width (s): widened as the stage's span grows */
#define FLOW_WIDTH0_S 1e-6

static int stage_index(int stage)
{
	return stage < 0 ? 0 : stage >= WL_MAX_STAGES ? WL_MAX_STAGES - 1 : stage;
}

static void sketch_arrival(struct sim *s, int stage, double t_s)
{
	struct sim_flow *f = &s->flow[stage_index(stage)];

	if (f->arrived == 0) {
		f->first_s = t_s;
		tline_init(&f->arr, t_s, FLOW_WIDTH0_S);
		tline_init(&f->done, t_s, FLOW_WIDTH0_S);
	}
	if (t_s > f->last_s || f->arrived == 0)
		f->last_s = t_s;
	f->arrived++;
	tline_add(&f->arr, t_s);
}

static void sketch_completion(struct sim *s, int stage, double arrival_s, double ttft_ms, double e2e_ms)
{
	struct sim_flow *f = &s->flow[stage_index(stage)];
	double x = arrival_s - f->first_s, y = ttft_ms * 1e-3;

	if (f->arrived == 0 || isnan(ttft_ms) || isnan(e2e_ms))
		return; /* (arrived before the stage's first: not a generated stage) */
	f->completed++;
	f->e2e_s += e2e_ms * 1e-3;
	f->sx += x;
	f->sy += y;
	f->sxx += x * x;
	f->sxy += x * y;
	tline_add(&f->done, arrival_s + e2e_ms * 1e-3);
}

/* The arrival times and the values by id, gone. */
static void release_exact(struct sim *s)
{
	free(s->arr_s);
	free(s->arr_ttft);
	free(s->arr_e2e);
	s->arr_s = NULL;
	s->arr_ttft = s->arr_e2e = NULL;
	s->narr = s->cap_arr = 0;
}

static void release_sketches(struct sim *s)
{
	int k;

	for (k = 0; s->flow && k < WL_MAX_STAGES; k++)
		if (s->flow[k].arrived > 0) {
			tline_release(&s->flow[k].arr);
			tline_release(&s->flow[k].done);
		}
	free(s->flow);
	s->flow = NULL;
}

void flow_fold(struct sim *s)
{
	size_t i;

	if (s->flow_off || s->flow)
		return;
	s->flow = xcalloc(WL_MAX_STAGES, sizeof(*s->flow));
	/* a generated arrival's stage is the stage of its time (gen.c) */
	for (i = 0; i < s->narr; i++)
		sketch_arrival(s, wl_stage_of(s->wl, llround(s->arr_s[i] * 1e9)), s->arr_s[i]);
	for (i = 0; i < s->nrec; i++) {
		int32_t id = s->rec_id[i];
		if (id >= 0 && (size_t)id < s->narr)
			sketch_completion(s, s->stage[i], s->arr_s[id], s->ttft[i], s->e2e[i]);
	}
	release_exact(s);
}

void flow_arrive(struct sim *s, int stage, int64_t arrival_ns)
{
	if (s->flow_off)
		return;
	if (s->flow) {
		sketch_arrival(s, stage, (double)arrival_ns * 1e-9);
		return;
	}
	if (s->narr == s->cap_arr) {
		/* room for the expected arrivals at first (records.c) */
		size_t c = s->rec_hint < SIM_FLOW_KEEP_MAX ? s->rec_hint : SIM_FLOW_KEEP_MAX;
		s->cap_arr = s->cap_arr ? 2 * s->cap_arr : c > 4096 ? c : 4096;
		s->arr_s = sim_regrow(s, s->arr_s, s->cap_arr, sizeof(double));
		if (s->flow_byid) {
			s->arr_ttft = sim_regrow(s, s->arr_ttft, s->cap_arr, sizeof(float));
			s->arr_e2e = sim_regrow(s, s->arr_e2e, s->cap_arr, sizeof(float));
		}
	}
	if (s->flow_byid)
		s->arr_ttft[s->narr] = s->arr_e2e[s->narr] = NAN;
	s->arr_s[s->narr++] = (double)arrival_ns * 1e-9;
	if (s->narr >= SIM_FLOW_KEEP_MAX && !s->cfg.exact_percentiles)
		flow_fold(s);
}

void flow_complete(struct sim *s, int64_t id, int stage, int64_t arrival_ns, double ttft_ms, double e2e_ms)
{
	if (s->flow) {
		sketch_completion(s, stage, (double)arrival_ns * 1e-9, (float)ttft_ms, (float)e2e_ms);
	} else if (s->arr_ttft && id >= 0 && (uint64_t)id < s->narr) {
		/* (the floats the records keep: sim_per_request_f's values) */
		s->arr_ttft[id] = (float)ttft_ms;
		s->arr_e2e[id] = (float)e2e_ms;
	}
}

void flow_stop(struct sim *s)
{
	s->flow_off = true;
	release_exact(s);
	release_sketches(s);
}

enum sim_flow_kind sim_flow_kind(const struct sim *s)
{
	return s->flow_off ? SIM_FLOW_NONE : s->flow ? SIM_FLOW_SKETCH : SIM_FLOW_EXACT;
}

const double *sim_arrivals(const struct sim *s, size_t *n)
{
	*n = s->arr_s ? s->narr : 0;
	return s->arr_s;
}

bool sim_flow_values(const struct sim *s, const float **ttft_ms, const float **e2e_ms)
{
	*ttft_ms = s->arr_s ? s->arr_ttft : NULL;
	*e2e_ms = s->arr_s ? s->arr_e2e : NULL;
	return *ttft_ms != NULL;
}

void sim_flow_values_drop(struct sim *s)
{
	free(s->arr_ttft);
	free(s->arr_e2e);
	s->arr_ttft = s->arr_e2e = NULL;
}

const struct sim_flow *sim_flow(const struct sim *s, int stage)
{
	if (!s->flow || stage < 0 || stage >= WL_MAX_STAGES || s->flow[stage].arrived == 0)
		return NULL;
	return &s->flow[stage];
}
