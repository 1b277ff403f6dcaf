/* vllm_requests.c - vLLM engine request stats, one JSON object per line
 * (requests.jsonl as LLMServingSim's bench harness writes it from vLLM's
 * RequestStateStats): request_id, input_toks, output_toks, arrival_time
 * (wall clock, s), queued_ts, scheduled_ts, first_token_ts, last_token_ts
 * (engine monotonic clock, s).  Arrival = queued_ts; TTFT = first_token_ts
 * - queued_ts and E2E = last_token_ts - queued_ts are engine-side (no API
 * server or network time).  The meta.json beside it gives the model, the
 * vLLM version and the engine arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "base/json.h"
#include "readers/jsonl.h"
#include "readers/measured.h"

/* a few hundred bytes per request: 256 MB is about a million requests */
#define VR_MAX_BYTES (256u << 20)

static int num_field(const struct json *o, const char *key, const char *ctx, double *out,
		     struct err *e)
{
	const struct json *v = json_get(o, key);

	if (!v || json_type_of(v) != JSON_NUMBER || !isfinite(json_number(v)))
		return err_set(e, SS_EDATA, "%s: '%s' must be a number%s", ctx, key,
			       v ? "" : " (missing)");
	*out = json_number(v);
	return 0;
}

int vllm_requests_read_mem(const char *buf, size_t len, const char *name, struct gt_requests *g,
			   struct err *e)
{
	static const struct gt_fields f = {"queued_ts", "input_toks", "output_toks", "first_token_ts - queued_ts",
					   "last_token_ts - queued_ts"};
	struct gt_ids ids = {NULL, 0, 0};
	struct jsonl it;
	struct json *o;
	int rc;

	memset(g, 0, sizeof(*g));
	jsonl_init(&it, buf, len, name);
	while ((rc = jsonl_next(&it, &o, e)) > 0) {
		const char *ctx = it.ctx;
		const struct json *id;
		double in, out, q, ft, lt;
		if ((rc = num_field(o, "input_toks", ctx, &in, e)) == 0 &&
		    (rc = num_field(o, "output_toks", ctx, &out, e)) == 0 &&
		    (rc = num_field(o, "queued_ts", ctx, &q, e)) == 0 &&
		    (rc = num_field(o, "first_token_ts", ctx, &ft, e)) == 0 &&
		    (rc = num_field(o, "last_token_ts", ctx, &lt, e)) == 0) {
			if (!(in >= 1 && in < 1e9) || !(out >= 1 && out < 1e9) || !(ft >= q) || !(lt >= ft))
				rc = err_set(e, SS_EDATA,
					     "%s: expected input_toks, output_toks >= 1 and queued_ts <= first_token_ts <= last_token_ts (got %g, %g, %g, %g, %g)",
					     ctx, in, out, q, ft, lt);
		}
		if (rc == 0) {
			XGROW(g->r, g->cap, g->n + 1);
			if ((rc = gt_request_set(&g->r[g->n], ctx, &f, q, in, out, (ft - q) * 1e3, (lt - q) * 1e3,
						 e)) == 0)
				g->n++;
		}
		if (rc == 0 && (id = json_get(o, "request_id")) != NULL) {
			if (json_type_of(id) != JSON_STRING)
				rc = err_set(e, SS_EDATA, "%s: 'request_id' must be a string", ctx);
			else
				gt_ids_add(&ids, json_string(id), it.line);
		}
		json_free(o);
		if (rc < 0)
			break;
	}
	return gt_replay_finish(g, rc, &ids, "request_id", name, "no requests", "queued_ts", "vllm-engine", e);
}

int vllm_requests_read(const char *path, struct gt_requests *g, struct err *e)
{
	char *buf;
	size_t len;
	int rc;

	memset(g, 0, sizeof(*g));
	if ((rc = gzr_read_file(path, VR_MAX_BYTES, &buf, &len, e)) < 0)
		return rc;
	rc = vllm_requests_read_mem(buf, len, path, g, e);
	free(buf);
	return rc;
}

int vllm_meta_read(const char *path, struct gt_settings *s, struct err *e)
{
	const struct json *kw, *v;
	const char *str = NULL;
	struct json *j;
	int rc;

	if ((rc = json_parse_file(path, &j, e)) < 0)
		return rc;
	if ((rc = json_opt_str(j, "model", path, &str, e)) < 0)
		goto out;
	if (str)
		snprintf(s->model, sizeof(s->model), "%s", str);
	str = NULL;
	if ((rc = json_opt_str(j, "vllm_version", path, &str, e)) < 0)
		goto out;
	if (str)
		snprintf(s->version, sizeof(s->version), "%s", str);
	snprintf(s->engine, sizeof(s->engine), "vllm");
	kw = json_get(j, "engine_kwargs");
	if (kw && json_type_of(kw) == JSON_OBJECT) {
		static const char *const ik[] = {"tensor_parallel_size", "data_parallel_size",
						 "max_num_seqs", "max_num_batched_tokens",
						 "max_model_len", "block_size"};
		int64_t *dst[6] = {NULL, NULL, &s->max_num_seqs, &s->max_num_batched_tokens,
				   &s->max_model_len, &s->block_size};
		size_t k;
		for (k = 0; k < 6; k++) {
			int64_t x = 0;
			bool pres = false;
			v = json_get(kw, ik[k]);
			if (!v || json_type_of(v) == JSON_NULL)
				continue;
			if ((rc = json_opt_int(kw, ik[k], path, 1, 1 << 24, &x, &pres, e)) < 0)
				goto out;
			if (k == 0)
				s->tp = (int)x;
			else if (k == 1)
				s->dp = (int)x;
			else
				*dst[k] = x;
		}
		v = json_get(kw, "dtype");
		if (v && json_type_of(v) == JSON_STRING)
			snprintf(s->dtype, sizeof(s->dtype), "%s", json_string(v));
	}
	rc = 0;
out:
	json_free(j);
	return rc;
}
