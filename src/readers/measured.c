/* measured.c - the neutral measured-request records every reader fills
 * (measured.h): each value checked before it is converted or stored, the
 * arrivals made relative within the span a simulation may take, request ids
 * unique.  One place, so that no reader can hand the simulator a negative
 * TTFT, an E2E of 1e300 ms or a start 1e10 s after the others (issue 30). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "readers/measured.h"
#include "workload/workload.h"

void gt_requests_release(struct gt_requests *g)
{
	free(g->r);
	memset(g, 0, sizeof(*g));
}

int gt_request_set(struct gt_request *r, const char *ctx, const struct gt_fields *f, double start_s,
		   double prompt, double output, double ttft_ms, double e2e_ms, struct err *e)
{
	if (!(start_s >= 0 && start_s <= GT_MAX_START_S))
		return err_set(e, SS_EDATA, "%s: '%s' must be a time in [0, %g] s, got %g", ctx, f->start,
			       GT_MAX_START_S, start_s);
	if (!(prompt >= 1 && prompt <= (double)WL_MAX_TOKENS) || prompt != floor(prompt))
		return err_set(e, SS_EDATA, "%s: '%s' must be an integer in [1, %lld], got %g", ctx, f->prompt,
			       (long long)WL_MAX_TOKENS, prompt);
	if (!(output >= 1 && output <= (double)WL_MAX_TOKENS) || output != floor(output))
		return err_set(e, SS_EDATA, "%s: '%s' must be an integer in [1, %lld], got %g", ctx, f->output,
			       (long long)WL_MAX_TOKENS, output);
	if (!isnan(ttft_ms) && !(ttft_ms >= 0 && ttft_ms <= GT_MAX_MS))
		return err_set(e, SS_EDATA, "%s: '%s' must be in [0, %g] ms, got %g ms", ctx, f->ttft, GT_MAX_MS,
			       ttft_ms);
	if (!(e2e_ms >= 0 && e2e_ms <= GT_MAX_MS))
		return err_set(e, SS_EDATA, "%s: '%s' must be in [0, %g] ms, got %g ms", ctx, f->e2e, GT_MAX_MS,
			       e2e_ms);
	if (!isnan(ttft_ms) && ttft_ms > e2e_ms)
		return err_set(e, SS_EDATA, "%s: '%s' must be at most '%s' (%g ms), got %g ms", ctx, f->ttft,
			       f->e2e, e2e_ms, ttft_ms);
	memset(r, 0, sizeof(*r));
	r->arrival_s = start_s;
	r->prompt_tokens = (int64_t)prompt;
	r->output_tokens = (int64_t)output;
	r->ttft_ms = ttft_ms;
	r->e2e_ms = e2e_ms;
	return 0;
}

int gt_requests_relative(struct gt_requests *g, const char *name, const char *start, struct err *e)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (g->r[i].arrival_s < lo)
			lo = g->r[i].arrival_s;
		if (g->r[i].arrival_s > hi)
			hi = g->r[i].arrival_s;
	}
	if (g->n > 0 && !(hi - lo <= WL_MAX_TIME_S))
		return err_set(e, SS_EDATA, "%s: the requests' '%s' span %g s, from %.17g to %.17g, more than the "
			       "%g s a simulation may span; a start time is wrong", name, start, hi - lo, lo, hi,
			       WL_MAX_TIME_S);
	g->t0 = g->n > 0 ? lo : 0;
	for (i = 0; i < g->n; i++)
		g->r[i].arrival_s -= g->t0;
	return 0;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct gt_request *x = a, *y = b;
	return x->arrival_s < y->arrival_s ? -1 : x->arrival_s > y->arrival_s;
}

int gt_requests_finish(struct gt_requests *g, const char *name, const char *start, const char *strategy,
		       double rate, const char *era, bool server_side, struct err *e)
{
	size_t i;
	int rc;

	if ((rc = gt_requests_relative(g, name, start, e)) < 0)
		return rc;
	if (g->n > 1)
		qsort(g->r, g->n, sizeof(*g->r), cmp_arrival);
	g->nb = 1;
	snprintf(g->b[0].strategy, sizeof(g->b[0].strategy), "%s", strategy);
	g->b[0].rate = rate;
	g->b[0].completed = (int64_t)g->n;
	g->b[0].start_s = 0;
	g->b[0].end_s = 0;
	for (i = 0; i < g->n; i++) {
		double end = g->r[i].arrival_s + (isnan(g->r[i].e2e_ms) ? 0 : g->r[i].e2e_ms * 1e-3);
		if (end > g->b[0].end_s)
			g->b[0].end_s = end;
	}
	snprintf(g->era, sizeof(g->era), "%s", era);
	g->server_side = server_side;
	return 0;
}

int gt_replay_finish(struct gt_requests *g, int rc, struct gt_ids *ids, const char *idkey, const char *name,
		     const char *none, const char *start, const char *era, struct err *e)
{
	if (rc == 0 && g->n == 0)
		rc = err_set(e, SS_EDATA, "%s: %s", name, none);
	if (ids) {
		if (rc == 0)
			rc = gt_ids_check(ids, name, idkey, "line", e);
		gt_ids_release(ids);
	}
	if (rc == 0)
		rc = gt_requests_finish(g, name, start, "replay", 0, era, true, e);
	if (rc < 0)
		gt_requests_release(g);
	return rc < 0 ? rc : 0;
}

/* --- request ids --- */

void gt_ids_add(struct gt_ids *ids, const char *id, size_t rec)
{
	XGROW(ids->v, ids->cap, ids->n + 1);
	ids->v[ids->n].id = xstrdup(id);
	ids->v[ids->n].rec = rec;
	ids->n++;
}

static int cmp_id(const void *a, const void *b)
{
	const struct gt_id *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->rec > y->rec) - (x->rec < y->rec);
}

int gt_ids_check(struct gt_ids *ids, const char *name, const char *key, const char *rec_name, struct err *e)
{
	size_t i;

	if (ids->n < 2)
		return 0;
	qsort(ids->v, ids->n, sizeof(*ids->v), cmp_id);
	for (i = 1; i < ids->n; i++)
		if (strcmp(ids->v[i].id, ids->v[i - 1].id) == 0)
			return err_set(e, SS_EDATA, "%s: %ss %zu and %zu have the same '%s' \"%.100s\"; "
				       "each request must be counted once", name, rec_name, ids->v[i - 1].rec,
				       ids->v[i].rec, key, ids->v[i].id);
	return 0;
}

void gt_ids_release(struct gt_ids *ids)
{
	size_t i;

	for (i = 0; i < ids->n; i++)
		free(ids->v[i].id);
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}
