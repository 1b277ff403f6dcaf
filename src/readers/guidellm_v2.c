/* guidellm_v2.c - GuideLLM reports that carry aggregate metrics only
 * (report metadata.version 2, GuideLLM >= 0.8; per-request lists empty, as
 * llm-d-benchmark keeps them): each benchmark's metrics.<name>.successful
 * {mean, percentiles{p90}} for time_to_first_token_ms,
 * inter_token_latency_ms, request_latency (s), prompt_token_count,
 * output_token_count, requests_per_second, request_totals.successful, and
 * its config.strategy {type_, rate} and duration.  The benchmarks become
 * back-to-back stages of one workload: constant (exact spacing) or poisson
 * at each benchmark's rate, lengths fixed at the request-weighted means. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "readers/measured.h"
#include "workload/workload.h"

/* the largest request count a report may state: far above any benchmark,
 * far below where a double stops holding integers (2^53) or an int64 ends */
#define GV2_MAX_REQUESTS 1e12

static double succ(const struct json *metrics, const char *name, const char *stat)
{
	const struct json *s = json_get(json_get(metrics, name), "successful"), *v;

	if (!s)
		return NAN;
	v = strcmp(stat, "p90") == 0 ? json_get(json_get(s, "percentiles"), "p90") : json_get(s, stat);
	return v && json_type_of(v) == JSON_NUMBER ? json_number(v) : NAN;
}

int guidellm_aggregates_json(const struct json *root, const char *path, struct wl_spec *wl,
			     struct measured_stage *st, size_t *nst, struct err *e)
{
	const struct json *bl, *b;
	double in_sum = 0, out_sum = 0, req_sum = 0;
	enum wl_process proc = WL_CONSTANT;
	size_t i = 0;
	int rc;

	*nst = 0;
	bl = json_get(root, "benchmarks");
	if (!bl || json_type_of(bl) != JSON_ARRAY || json_size(bl) == 0 ||
	    !json_get(json_first(bl), "metrics"))
		return 1;
	wl_spec_defaults(wl);
	for (b = json_first(bl); b; b = json_next(b), i++) {
		const struct json *m = json_get(b, "metrics"), *strat = json_get(json_get(b, "config"), "strategy");
		const char *type = json_string(json_get(strat, "type_"));
		double rate = json_number(json_get(strat, "rate")), dur = json_number(json_get(b, "duration"));
		double done = json_number(json_get(json_get(m, "request_totals"), "successful"));
		struct measured_stage *s = &st[i];
		enum wl_process p;
		int k;
		if (i >= WL_MAX_STAGES) {
			rc = err_set(e, SS_EDATA, "%s: more than %d benchmarks", path, WL_MAX_STAGES);
			goto out;
		}
		if (!m || !type) {
			rc = err_set(e, SS_EDATA, "%s: benchmarks[%zu] lacks metrics or config.strategy.type_", path, i);
			goto out;
		}
		if (strcmp(type, "constant") == 0) {
			p = WL_CONSTANT;
		} else if (strcmp(type, "poisson") == 0) {
			p = WL_POISSON;
		} else {
			rc = err_set(e, SS_EDATA,
				     "%s: benchmarks[%zu] is a %s benchmark: aggregate-only GuideLLM reports are replayed for constant and poisson rates (per-request results replay every strategy)",
				     path, i, type);
			goto out;
		}
		if (i > 0 && p != proc) {
			rc = err_set(e, SS_EDATA, "%s: benchmarks[%zu] is %s, the first is %s: one arrival process per report",
				     path, i, type, wl_process_name(proc));
			goto out;
		}
		proc = p;
		if (!(rate > 0) || !(dur > 0) || !(done >= 0)) {
			rc = err_set(e, SS_EDATA,
				     "%s: benchmarks[%zu]: strategy rate and duration must be > 0 and request_totals.successful >= 0",
				     path, i);
			goto out;
		}
		if (!(done <= GV2_MAX_REQUESTS)) { /* before it becomes an integer */
			rc = err_set(e, SS_EDATA,
				     "%s: benchmarks[%zu]: request_totals.successful is %g, expected at most %g",
				     path, i, done, GV2_MAX_REQUESTS);
			goto out;
		}
		memset(s, 0, sizeof(*s));
		for (k = 0; k < EM__COUNT; k++)
			s->v[k] = NAN;
		s->index = (int)i;
		s->rate = rate;
		s->duration_s = dur;
		s->completed = (int64_t)done;
		s->v[EM_TTFT_MEAN] = succ(m, "time_to_first_token_ms", "mean");
		s->v[EM_TTFT_P90] = succ(m, "time_to_first_token_ms", "p90");
		s->v[EM_ITL_MEAN] = succ(m, "inter_token_latency_ms", "mean");
		s->v[EM_E2E_MEAN] = succ(m, "request_latency", "mean") * 1e3;
		s->v[EM_E2E_P90] = succ(m, "request_latency", "p90") * 1e3;
		s->v[EM_THROUGHPUT] = done / dur;
		s->itl_reported_ms = s->v[EM_ITL_MEAN];
		if (done > 0) {
			double pi = succ(m, "prompt_token_count", "mean"), po = succ(m, "output_token_count", "mean");
			if (!(pi >= 1) || !(po >= 1)) {
				rc = err_set(e, SS_EDATA,
					     "%s: benchmarks[%zu]: metrics.prompt_token_count and output_token_count need a successful mean >= 1",
					     path, i);
				goto out;
			}
			in_sum += pi * done;
			out_sum += po * done;
			req_sum += done;
		}
		wl->stages[i].rate = rate;
		wl->stages[i].duration_s = dur;
	}
	if (req_sum == 0) {
		rc = err_set(e, SS_EDATA, "%s: no successful requests in any benchmark (aggregates)", path);
		goto out;
	}
	wl->nstages = i;
	wl->process = proc;
	wl->num_requests = 0;
	wl->prompt.kind = wl->output.kind = WL_FIXED;
	wl->prompt.a = floor(in_sum / req_sum + 0.5);
	wl->output.a = floor(out_sum / req_sum + 0.5);
	snprintf(wl->source, sizeof(wl->source), "%s", path);
	*nst = i;
	rc = 0;
out:
	if (rc < 0)
		wl_spec_release(wl);
	return rc;
}

int guidellm_read_aggregates(const char *path, struct wl_spec *wl, struct measured_stage *st,
			     size_t *nst, struct err *e)
{
	struct json *root;
	int rc;

	*nst = 0;
	if (json_parse_file(path, &root, e) < 0)
		return 1; /* not a report we can read this way: the caller's error stands */
	rc = guidellm_aggregates_json(root, path, wl, st, nst, e);
	json_free(root);
	return rc;
}
