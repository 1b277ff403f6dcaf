/* records.c - request records kept as requests end: the per-request CSV rows,
 * the latency histograms and per-request arrays, conversation turns, and the
 * records folded into sketches past the kept count. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/loghist.h"
#include "core.h"
#include "sim/records.h"

const char *reject_reason_name(enum reject_reason r)
{
	switch (r) {
	case REJ_TOO_LONG: return "too_long";
	case REJ_KV_CAPACITY: return "kv_capacity";
	default: return "?";
	}
}

void records_csv_row(struct sim *s, const struct req *r, const char *status, double ttft_ms,
		    double itl_ms, double tpot_ms, double e2e_ms, double queue_ms)
{
	if (s->cfg.on_request) {
		struct sim_req_row row = {r->id, r->arrival_ns, strcmp(status, "completed") == 0,
					  strcmp(status, "aborted") == 0, queue_ms,
					  ttft_ms, itl_ms, tpot_ms, e2e_ms, r->prompt, r->output};
		s->cfg.on_request(s->cfg.on_request_ctx, &row);
	}
	if (!s->cfg.requests_out)
		return;
	fprintf(s->cfg.requests_out, "%lld,%d,%d,%.6f,%lld,%lld,%lld,%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f",
		(long long)r->id, r->replica, r->stage, (double)r->arrival_ns * 1e-9,
		(long long)r->prompt, (long long)r->output, (long long)r->prefix_hit_tokens,
		r->preempts, status, queue_ms, ttft_ms, itl_ms, tpot_ms, e2e_ms);
	if (s->cfg.spec.k > 0) /* output tokens after the first per decode step */
		fprintf(s->cfg.requests_out, ",%.4f",
			r->dsteps > 0 ? (double)(r->output - 1) / r->dsteps : 0.0);
	if (s->cfg.pd.prefill > 0)
		fprintf(s->cfg.requests_out, ",%.4f", (double)r->xfer_ns * 1e-6);
	fputc('\n', s->cfg.requests_out);
}

void sim_requests_csv_header(FILE *f, bool spec, bool pd)
{
	fprintf(f, "id,replica,stage,arrival_s,prompt_tokens,output_tokens,cached_tokens,preemptions,status,queue_ms,ttft_ms,itl_ms,tpot_ms,e2e_ms%s%s\n",
		spec ? ",tokens_per_step" : "", pd ? ",kv_transfer_ms" : "");
}

/* Move the recorded values into the per-stage histograms (allocated on
 * first use) and empty the arrays: memory stays bounded past
 * LOGHIST_EXACT_MAX completions. */
void records_fold(struct sim *s)
{
	const float *src[5] = {s->ttft, s->itl, s->tpot, s->e2e, s->queue};
	size_t i, k;

	if (!s->hist) {
		flow_fold(s); /* (from the records about to go) */
		s->hist = xmalloc(xmul(256 * 5, sizeof(struct loghist)));
		for (i = 0; i < 256 * 5; i++)
			loghist_init(&s->hist[i]);
	}
	for (i = 0; i < s->nrec; i++)
		for (k = 0; k < 5; k++)
			loghist_add(&s->hist[s->stage[i] * 5 + k], src[k][i]);
	s->nrec = 0;
	/* folded: sim_reprice_api has nothing left to recompute */
	free(s->raw_first);
	free(s->raw_last);
	free(s->raw_out);
	s->raw_first = s->raw_last = s->raw_out = NULL;
	if (s->cap_rec > 4096) { /* from here on the arrays only buffer 4096 */
		s->cap_rec = 4096;
		s->ttft = xreallocarray(s->ttft, 4096, sizeof(float));
		s->itl = xreallocarray(s->itl, 4096, sizeof(float));
		s->tpot = xreallocarray(s->tpot, 4096, sizeof(float));
		s->e2e = xreallocarray(s->e2e, 4096, sizeof(float));
		s->queue = xreallocarray(s->queue, 4096, sizeof(float));
		s->stage = xreallocarray(s->stage, 4096, sizeof(uint8_t));
		s->rec_id = xreallocarray(s->rec_id, 4096, sizeof(int32_t));
	}
}

/* A completed session turn's figures, in its turn's row. */
static void turn_record(struct sim *s, const struct req *r, double ttft_ms)
{
	struct turn_agg *ta;
	int k;

	if (!s->turns) {
		s->turns = xcalloc(SIM_TURN_ROWS, sizeof(*s->turns));
		for (k = 0; k < SIM_TURN_ROWS; k++)
			loghist_init(&s->turns[k].ttft);
	}
	ta = &s->turns[(r->turn < SIM_TURN_ROWS ? r->turn : SIM_TURN_ROWS) - 1];
	loghist_add(&ta->ttft, ttft_ms);
	ta->completed++;
	ta->prompt += (double)r->prompt;
	ta->hit += (double)r->prefix_hit_tokens;
}

size_t sim_turn_stats(const struct sim *s, struct sim_turn_stats *out, size_t max)
{
	size_t n = 0;
	int k;

	for (k = 0; s->turns && k < SIM_TURN_ROWS && n < max; k++) {
		const struct turn_agg *ta = &s->turns[k];
		if (ta->completed == 0)
			continue;
		out[n].turn = k + 1;
		out[n].and_later = k + 1 == SIM_TURN_ROWS;
		out[n].completed = (size_t)ta->completed;
		out[n].prompt_tokens_mean = ta->prompt / (double)ta->completed;
		out[n].prefix_hit_rate = ta->prompt > 0 ? ta->hit / ta->prompt : 0;
		loghist_summarise(&ta->ttft, &out[n].ttft_ms);
		n++;
	}
	return n;
}

/* What the records keep of a completion: copied through the sinks' ring
 * (sinkq.h) while records go there (struct sim sink_recs), 8-byte words. */
struct rec_vals {
	int64_t id, arrival_ns, first_ns, last_ns, sched_ns, output, prompt, stage;
	double ng; /* its token gaps (stage_agg.gaps) */
};

enum { RECORDS_SINK_KEEP = 1, RECORDS_SINK_ARRIVE = 2 };

/* The record arrays' first room: the expected requests (rec_hint) up to
 * the count at which they are folded into histograms, at least 4,096.
 * The arrays' sizes move no value: only when they are grown. */
static size_t records_first_cap(const struct sim *s)
{
	size_t lim = s->cfg.exact_max ? s->cfg.exact_max : LOGHIST_EXACT_MAX;

	if (!s->cfg.exact_percentiles && s->rec_hint > lim)
		return lim + 1;
	return s->rec_hint > 4096 ? s->rec_hint : 4096;
}

/* The completion v kept: its client times, flow, arrays and stage sums;
 * *ttft_o, *e2e_o, *itl_o and *queue_o its CSV row's figures. */
static void keep_vals(struct sim *s, const struct rec_vals *v, double *ttft_o, double *e2e_o, double *itl_o,
		      double *queue_o)
{
	/* (the decode pool's overheads: its cost model is s->cost) */
	const struct overheads *ov = &s->cost->cfg.ov;
	double ttft, e2e, itl;
	double queue = (double)(v->sched_ns - v->arrival_ns) * 1e-6;
	size_t i = s->nrec;
	struct stage_agg *ag;

	records_client_times(s, ov, v->first_ns - v->arrival_ns, v->last_ns - v->arrival_ns, v->output, v->prompt,
			     &ttft, &e2e);
	itl = v->output > 1 ? (e2e - ttft) / (double)(v->output - 1) : NAN;
	flow_complete(s, v->id, (int)v->stage, v->arrival_ns, ttft, e2e);
	if (i == s->cap_rec) {
		size_t c = s->cap_rec ? s->cap_rec * 2 : records_first_cap(s);
		if (s->keep_raw && !s->hist) {
			s->raw_first = xreallocarray(s->raw_first, c, sizeof(int64_t));
			s->raw_last = xreallocarray(s->raw_last, c, sizeof(int64_t));
			s->raw_out = xreallocarray(s->raw_out, c, sizeof(int64_t));
		}
		s->ttft = sim_regrow(s, s->ttft, c, sizeof(float));
		s->itl = sim_regrow(s, s->itl, c, sizeof(float));
		s->tpot = sim_regrow(s, s->tpot, c, sizeof(float));
		s->e2e = sim_regrow(s, s->e2e, c, sizeof(float));
		s->queue = sim_regrow(s, s->queue, c, sizeof(float));
		s->stage = xreallocarray(s->stage, c, sizeof(uint8_t));
		s->rec_id = sim_regrow(s, s->rec_id, c, sizeof(int32_t));
		s->cap_rec = c;
	}
	if (s->raw_first) {
		s->raw_first[i] = v->first_ns - v->arrival_ns;
		s->raw_last[i] = v->last_ns - v->arrival_ns;
		s->raw_out[i] = v->output;
	}
	s->ttft[i] = (float)ttft;
	s->itl[i] = (float)itl;
	s->tpot[i] = (float)(e2e / (double)v->output);
	s->e2e[i] = (float)e2e;
	s->queue[i] = (float)queue;
	s->stage[i] = (uint8_t)(v->stage > 255 ? 255 : v->stage);
	s->rec_id[i] = v->id <= INT32_MAX ? (int32_t)v->id : -1;
	ag = &s->agg[s->stage[i]];
	s->nrec++;
	if (s->hist ? s->nrec == s->cap_rec
		    : s->nrec > (s->cfg.exact_max ? s->cfg.exact_max : LOGHIST_EXACT_MAX) &&
			      !s->cfg.exact_percentiles)
		records_fold(s);
	if (ag->completed == 0 || v->arrival_ns < ag->first_arr_ns)
		ag->first_arr_ns = v->arrival_ns;
	if (ag->completed == 0 || v->arrival_ns > ag->last_arr_ns)
		ag->last_arr_ns = v->arrival_ns;
	if (ag->completed == 0 || v->last_ns > ag->last_done_ns)
		ag->last_done_ns = v->last_ns;
	ag->completed++;
	ag->in_tok += (double)v->prompt;
	ag->out_tok += (double)v->output;
	ag->wait_ms += queue;
	ag->run_ms += (double)(v->last_ns - v->sched_ns) * 1e-6;
	if (v->ng > 0) {
		ag->gap_ms += e2e - ttft;
		ag->gaps += v->ng;
	}
	*ttft_o = ttft;
	*e2e_o = e2e;
	*itl_o = itl;
	*queue_o = queue;
}

/* v: completed request r's values (in place: the sinks' ring, or the
 * caller's) */
static void rec_vals_of(struct rec_vals *v, const struct sim *s, const struct req *r)
{
	v->id = r->id;
	v->arrival_ns = r->arrival_ns;
	v->first_ns = r->first_ns;
	v->last_ns = r->last_ns;
	v->sched_ns = r->sched_ns;
	v->output = r->output;
	v->prompt = r->prompt;
	v->stage = r->stage;
	/* speculative decoding: explicit requests count their chunks; P/D's
	 * first token may come with the second (pd_merged) */
	v->ng = s->cfg.spec.k > 0 ? (double)r->ngaps : (double)(r->output - 1 - r->pd_merged);
}

void records_keep(struct sim *s, const struct req *r)
{
	struct rec_vals v;
	double ttft, e2e, itl, queue;

	if (s->sink_recs) {
		rec_vals_of(sinkq_call_at(&s->sinkw, RECORDS_SINK_KEEP, sizeof(v)), s, r);
		return;
	}
	rec_vals_of(&v, s, r);
	keep_vals(s, &v, &ttft, &e2e, &itl, &queue);
	if (r->turn > 0)
		turn_record(s, r, ttft);
	if (s->cfg.on_request || s->cfg.requests_out) /* (no call per completion when nobody reads rows) */
		records_csv_row(s, r, "completed", ttft, isnan(itl) ? 0 : itl, e2e / (double)r->output, e2e, queue);
}

void records_arrive(struct sim *s, const struct wl_req *w)
{
	if (s->sink_recs) {
		if (!s->flow_off) {
			int64_t *a = sinkq_call_at(&s->sinkw, RECORDS_SINK_ARRIVE, 2 * sizeof(int64_t));
			a[0] = w->stage;
			a[1] = w->arrival_ns;
		}
		return;
	}
	flow_arrive(s, w->stage, w->arrival_ns);
}

void records_sink(void *ctx, unsigned kind, const void *p)
{
	struct sim *s = ctx;
	double ttft, e2e, itl, queue;

	if (kind == RECORDS_SINK_KEEP) {
		keep_vals(s, p, &ttft, &e2e, &itl, &queue);
	} else {
		const int64_t *a = p;
		flow_arrive(s, (int)a[0], a[1]);
	}
}
