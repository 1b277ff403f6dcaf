/* vcr.c - vllm-vcr traces (neuralmagic/vllm-vcr), one JSON object per
 * line: first {"meta": {model, gpu, tp, source, block_size}}, then one per
 * request: prompt_tokens, cached_tokens, output_tokens, ttft_ms, itl_ms
 * (one gap per streamed chunk), arrival_ms (from the capture's start),
 * concurrency, itl_ctx (the engine's running count per gap), ... .
 * E2E = TTFT + the sum of the gaps.  The capture taps the engine (its
 * itl_ctx holds scheduler state), so timings are taken as engine-side. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "base/jfield.h"
#include "base/json.h"
#include "readers/jsonl.h"
#include "readers/measured.h"

#define VCR_MAX_BYTES (256u << 20)

static int read_meta(const struct json *m, const char *ctx, struct gt_settings *s, struct err *e)
{
	const struct json *v;
	int rc;

	if (json_type_of(m) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: 'meta' must be an object", ctx);
	if ((v = json_get(m, "model")) && json_type_of(v) == JSON_STRING)
		snprintf(s->model, sizeof(s->model), "%s", json_string(v));
	if ((v = json_get(m, "gpu")) && json_type_of(v) == JSON_STRING)
		snprintf(s->gpu, sizeof(s->gpu), "%s", json_string(v));
	if ((rc = jf_int(m, "tp", ctx, 1, 4096, &s->tp, e)) < 0 ||
	    (rc = json_opt_int(m, "block_size", ctx, 1, 1024, &s->block_size, NULL, e)) < 0)
		return rc;
	snprintf(s->engine, sizeof(s->engine), "vllm");
	return 0;
}

static int read_request(const struct json *o, const char *ctx, struct gt_requests *g,
			struct err *e)
{
	static const struct gt_fields f = {"arrival_ms", "prompt_tokens", "output_tokens", "ttft_ms",
					   "ttft_ms + sum(itl_ms)"};
	const struct json *itl = json_get(o, "itl_ms"), *v;
	double p, out, ttft, arr, sum = 0, cached;
	bool pres;
	int rc;

	if ((rc = json_req_num(o, "prompt_tokens", ctx, &p, e)) < 0 ||
	    (rc = json_req_num(o, "output_tokens", ctx, &out, e)) < 0 ||
	    (rc = json_req_num(o, "ttft_ms", ctx, &ttft, e)) < 0 ||
	    (rc = json_req_num(o, "arrival_ms", ctx, &arr, e)) < 0)
		return rc;
	if (!(p >= 1 && p < 1e9) || !(out >= 1 && out < 1e9) || !(ttft >= 0) || !(arr >= 0) ||
	    !isfinite(arr) || !isfinite(ttft))
		return err_set(e, SS_EDATA,
			       "%s: expected prompt_tokens, output_tokens >= 1 and ttft_ms, arrival_ms >= 0 (got %g, %g, %g, %g)",
			       ctx, p, out, ttft, arr);
	if (!itl || json_type_of(itl) != JSON_ARRAY)
		return err_set(e, SS_EDATA, "%s: 'itl_ms' must be an array of gaps (ms)", ctx);
	for (v = json_first(itl); v; v = json_next(v)) {
		if (json_type_of(v) != JSON_NUMBER || !(json_number(v) >= 0) || !isfinite(json_number(v)))
			return err_set(e, SS_EDATA, "%s: 'itl_ms' must hold numbers >= 0", ctx);
		sum += json_number(v);
	}
	/* the prefix-cache hits the engine reported: part of the prompt */
	if ((rc = json_opt_num(o, "cached_tokens", ctx, &cached, &pres, e)) < 0)
		return rc;
	if (pres && (!(cached >= 0 && cached <= p) || cached != floor(cached)))
		return err_set(e, SS_EDATA, "%s: 'cached_tokens' must be an integer in [0, prompt_tokens = %g], got %g",
			       ctx, p, cached);
	XGROW(g->r, g->cap, g->n + 1);
	if ((rc = gt_request_set(&g->r[g->n], ctx, &f, arr * 1e-3, p, out, ttft, ttft + sum, e)) < 0)
		return rc;
	g->n++;
	return 0;
}

int vcr_read_mem(const char *buf, size_t len, const char *name, struct gt_requests *g,
		 struct gt_settings *s, struct err *e)
{
	struct jsonl it;
	struct json *o;
	int rc;

	memset(g, 0, sizeof(*g));
	memset(s, 0, sizeof(*s));
	jsonl_init(&it, buf, len, name);
	while ((rc = jsonl_next(&it, &o, e)) > 0) {
		const struct json *m = json_get(o, "meta");
		rc = m ? read_meta(m, it.ctx, s, e) : read_request(o, it.ctx, g, e);
		json_free(o);
		if (rc < 0)
			break;
	}
	return gt_replay_finish(g, rc, NULL, NULL, name, "no requests in the trace", "arrival_ms", "vcr", e);
}

int vcr_read(const char *path, struct gt_requests *g, struct gt_settings *s, struct err *e)
{
	char *buf;
	size_t len;
	int rc;

	memset(g, 0, sizeof(*g));
	memset(s, 0, sizeof(*s));
	if ((rc = gzr_read_file(path, VCR_MAX_BYTES, &buf, &len, e)) < 0)
		return rc;
	rc = vcr_read_mem(buf, len, path, g, s, e);
	free(buf);
	return rc;
}
