/* bench.c - serving-benchmark result files with aggregate metrics:
 *   vLLM `vllm bench serve --save-result` (one JSON object): date, backend,
 *     model_id, tokenizer_id, num_prompts, request_rate ("inf" or a
 *     number), burstiness, max_concurrency, duration, completed,
 *     total_input_tokens, total_output_tokens, request_throughput,
 *     mean/median/std/pNN of ttft_ms, tpot_ms, itl_ms, e2el_ms, and with
 *     --save-detailed the per-request arrays input_lens, output_lens,
 *     ttfts (s), itls (s), generated_texts, errors;
 *   SGLang `python -m sglang.bench_serving --output-file` (JSONL, one run
 *     appended per line): backend, dataset_name, request_rate (Python
 *     writes inf as Infinity), max_concurrency, random_input_len, ...,
 *     duration, completed, total_input_tokens, total_output_tokens,
 *     request_throughput, mean/median/std/pNN of e2e_latency_ms, ttft_ms,
 *     tpot_ms, itl_ms, and with --output-details the same per-request
 *     arrays.
 * Generated texts are skipped, never kept. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "base/json.h"
#include "readers/jsonl.h"
#include "readers/measured.h"
#include "workload/workload.h"

#define BENCH_MAX_BYTES (512u << 20)

void bench_runs_release(struct bench_runs *b)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		free(b->r[i].in_lens);
		free(b->r[i].out_lens);
	}
	free(b->r);
	memset(b, 0, sizeof(*b));
}

/* Ranges of a run's numbers (issue 15: every number range-checked before
 * it is used, the message naming field, value and range):
 * - times: up to 1e9 s (workload.h's WL_MAX_TIME_S), i.e. 1e12 ms;
 * - per-request token counts: 0 .. 2^24 (WL_MAX_TOKENS; vLLM records 0
 *   output tokens for a failed request);
 * - completed: 1 .. 2^24 (a rate-inf run becomes a closed loop of that many
 *   clients, the workload's concurrency range);
 * - request_rate: WL_MIN_RATE .. WL_MAX_RATE, or inf;
 * - burstiness: the gamma shape 1/cv^2 for cv in [WL_MIN_CV, WL_MAX_CV]. */
#define BENCH_MAX_MS (WL_MAX_TIME_S * 1e3)
#define BENCH_MAX_COUNT ((double)WL_MAX_TOKENS)

/* An optional measured metric: NaN when absent or null (Python's NaN and
 * Infinity are turned into null: "not measured"), else a number in [lo, hi]. */
static int opt_metric(const struct json *o, const char *key, const char *ctx, double lo, double hi,
		      double *out, struct err *e)
{
	const struct json *v = json_get(o, key);

	*out = NAN;
	if (!v || json_type_of(v) == JSON_NULL)
		return 0;
	if (json_type_of(v) != JSON_NUMBER)
		return err_set(e, SS_EDATA, "%s: '%s' must be a number, got %s", ctx, key,
			       json_type_name(json_type_of(v)));
	if (!(json_number(v) >= lo && json_number(v) <= hi))
		return err_set(e, SS_EDATA, "%s: '%s' must be in [%.10g, %.10g], got %g", ctx, key, lo, hi,
			       json_number(v));
	*out = json_number(v);
	return 0;
}

/* A required number in [lo, hi] (integral when integer is set). */
static int req_in(const struct json *o, const char *key, const char *ctx, double lo, double hi,
		  bool integer, double *out, struct err *e)
{
	const struct json *v = json_get(o, key);
	int rc;

	if (v && json_type_of(v) == JSON_NULL) /* Python's NaN and Infinity became null */
		return err_set(e, SS_EDATA, "%s: '%s' must be a finite number in [%.10g, %.10g], got "
			       "null, NaN or Infinity", ctx, key, lo, hi);
	if ((rc = json_req_num(o, key, ctx, out, e)) < 0)
		return rc;
	if (!(*out >= lo && *out <= hi) || (integer && *out != floor(*out)))
		return err_set(e, SS_EDATA, "%s: '%s' must be %s in [%.10g, %.10g], got %g", ctx, key,
			       integer ? "an integer" : "a number", lo, hi, *out);
	return 0;
}

/* Per-request lengths: integers in [0, 2^24]; NULL when absent or empty. */
static int lens(const struct json *o, const char *key, const char *ctx, double **out, size_t *n,
		struct err *e)
{
	const struct json *a = json_get(o, key), *v;
	size_t i = 0;

	*out = NULL;
	if (!a || json_type_of(a) == JSON_NULL)
		return 0;
	if (json_type_of(a) != JSON_ARRAY)
		return err_set(e, SS_EDATA, "%s: '%s' must be an array of token counts, got %s", ctx, key,
			       json_type_name(json_type_of(a)));
	if (json_size(a) == 0)
		return 0;
	if (*n && json_size(a) != *n)
		return err_set(e, SS_EDATA, "%s: '%s' has %zu entries, input_lens %zu", ctx, key,
			       json_size(a), *n);
	*n = json_size(a);
	*out = xmalloc(xmul(*n, sizeof(double)));
	for (v = json_first(a); v; v = json_next(v), i++) {
		double d = json_number(v);
		if (json_type_of(v) != JSON_NUMBER || !(d >= 0 && d <= BENCH_MAX_COUNT) || d != floor(d)) {
			free(*out);
			*out = NULL;
			if (json_type_of(v) != JSON_NUMBER)
				return err_set(e, SS_EDATA, "%s: '%s[%zu]' must be a token count, got %s", ctx,
					       key, i, json_type_name(json_type_of(v)));
			return err_set(e, SS_EDATA, "%s: '%s[%zu]' must be an integer in [0, %.10g], got %g", ctx,
				       key, i, BENCH_MAX_COUNT, d);
		}
		(*out)[i] = d;
	}
	return 0;
}

static int read_run(const struct json *o, const char *ctx, struct bench_runs *b, struct err *e)
{
	const struct json *v;
	struct bench_run *r;
	double tin, tout;
	size_t n = 0;
	int rc;

	if (json_type_of(o) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected a JSON object", ctx);
	XGROW(b->r, b->cap, b->n + 1);
	r = &b->r[b->n];
	memset(r, 0, sizeof(*r));
	if ((v = json_get(o, "backend")) && json_type_of(v) == JSON_STRING)
		snprintf(r->backend, sizeof(r->backend), "%s", json_string(v));
	if ((v = json_get(o, "model_id")) && json_type_of(v) == JSON_STRING)
		snprintf(r->model, sizeof(r->model), "%s", json_string(v));
	if ((v = json_get(o, "dataset_name")) && json_type_of(v) == JSON_STRING)
		snprintf(r->dataset, sizeof(r->dataset), "%s", json_string(v));
	/* SGLang writes dataset_name and the retokenized output count; vLLM
	 * writes model_id and num_prompts */
	snprintf(b->tool, sizeof(b->tool), "%s",
		 json_get(o, "total_output_tokens_retokenized") || json_get(o, "dataset_name") ? "sglang-bench"
											 : "vllm-bench");
	v = json_get(o, "request_rate");
	r->request_rate = INFINITY;
	if (v && json_type_of(v) == JSON_NUMBER) {
		r->request_rate = json_number(v);
		if (!(r->request_rate >= WL_MIN_RATE && r->request_rate <= WL_MAX_RATE))
			return err_set(e, SS_EDATA, "%s: 'request_rate' must be in [%g, %g] requests/s or "
				       "\"inf\", got %g", ctx, WL_MIN_RATE, WL_MAX_RATE, r->request_rate);
	} else if (v && json_type_of(v) == JSON_STRING && strcmp(json_string(v), "inf") != 0) {
		return err_set(e, SS_EDATA, "%s: 'request_rate' must be a number or \"inf\", got \"%.40s\"",
			       ctx, json_string(v));
	} else if (v && json_type_of(v) != JSON_STRING && json_type_of(v) != JSON_NULL) {
		return err_set(e, SS_EDATA, "%s: 'request_rate' must be a number or \"inf\", got %s", ctx,
			       json_type_name(json_type_of(v)));
	}
	if ((rc = opt_metric(o, "burstiness", ctx, 1 / (WL_MAX_CV * WL_MAX_CV), 1 / (WL_MIN_CV * WL_MIN_CV),
			     &r->burstiness, e)) < 0)
		return rc;
	if (isnan(r->burstiness))
		r->burstiness = 1;
	r->max_concurrency = 0;
	v = json_get(o, "max_concurrency");
	if (v && json_type_of(v) != JSON_NULL) {
		double c;
		if ((rc = req_in(o, "max_concurrency", ctx, 1, BENCH_MAX_COUNT, true, &c, e)) < 0)
			return rc;
		r->max_concurrency = (int64_t)c;
	}
	if ((rc = req_in(o, "completed", ctx, 1, BENCH_MAX_COUNT, true, &tin, e)) < 0)
		return rc;
	r->completed = (int64_t)tin;
	if ((rc = req_in(o, "duration", ctx, 1e-9, WL_MAX_TIME_S, false, &r->duration_s, e)) < 0 ||
	    (rc = req_in(o, "total_input_tokens", ctx, 1, (double)r->completed * BENCH_MAX_COUNT, true,
			 &tin, e)) < 0 ||
	    (rc = req_in(o, "total_output_tokens", ctx, 1, (double)r->completed * BENCH_MAX_COUNT, true,
			 &tout, e)) < 0 ||
	    (rc = req_in(o, "mean_ttft_ms", ctx, 0, BENCH_MAX_MS, false, &r->ttft_mean, e)) < 0)
		return rc;
	r->mean_in = tin / (double)r->completed;
	r->mean_out = tout / (double)r->completed;
	if ((rc = opt_metric(o, "p90_ttft_ms", ctx, 0, BENCH_MAX_MS, &r->ttft_p90, e)) < 0 ||
	    (rc = opt_metric(o, "mean_tpot_ms", ctx, 0, BENCH_MAX_MS, &r->tpot_mean, e)) < 0 ||
	    (rc = opt_metric(o, "mean_itl_ms", ctx, 0, BENCH_MAX_MS, &r->itl_mean, e)) < 0 ||
	    (rc = opt_metric(o, "request_throughput", ctx, 0, WL_MAX_RATE, &r->throughput, e)) < 0)
		return rc;
	/* vLLM spells them e2el, SGLang e2e_latency */
	if ((rc = opt_metric(o, "mean_e2el_ms", ctx, 0, BENCH_MAX_MS, &r->e2e_mean, e)) < 0 ||
	    (isnan(r->e2e_mean) &&
	     (rc = opt_metric(o, "mean_e2e_latency_ms", ctx, 0, BENCH_MAX_MS, &r->e2e_mean, e)) < 0) ||
	    (rc = opt_metric(o, "p90_e2el_ms", ctx, 0, BENCH_MAX_MS, &r->e2e_p90, e)) < 0 ||
	    (isnan(r->e2e_p90) &&
	     (rc = opt_metric(o, "p90_e2e_latency_ms", ctx, 0, BENCH_MAX_MS, &r->e2e_p90, e)) < 0))
		return rc;
	if ((rc = lens(o, "input_lens", ctx, &r->in_lens, &n, e)) < 0)
		return rc;
	if ((rc = lens(o, "output_lens", ctx, &r->out_lens, &n, e)) < 0) {
		free(r->in_lens);
		return rc;
	}
	if (!r->in_lens || !r->out_lens) {
		free(r->in_lens);
		free(r->out_lens);
		r->in_lens = r->out_lens = NULL;
		n = 0;
	}
	r->nlens = n;
	b->n++;
	return 0;
}

/* Python's json.dumps writes inf and nan as bare Infinity / NaN: a copy
 * with them turned into null outside strings. */
static char *python_literals(const char *s, size_t n, size_t *outlen)
{
	char *o = xmalloc(xmul(n + 1, 2)), *q = o;
	bool in_str = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (in_str) {
			if (s[i] == '\\' && i + 1 < n)
				*q++ = s[i++];
			else if (s[i] == '"')
				in_str = false;
			*q++ = s[i];
			continue;
		}
		if (s[i] == '"') {
			in_str = true;
			*q++ = s[i];
		} else if (n - i >= 9 && memcmp(s + i, "-Infinity", 9) == 0) {
			memcpy(q, "null", 4);
			q += 4;
			i += 8;
		} else if (n - i >= 8 && memcmp(s + i, "Infinity", 8) == 0) {
			memcpy(q, "null", 4);
			q += 4;
			i += 7;
		} else if (n - i >= 3 && memcmp(s + i, "NaN", 3) == 0) {
			memcpy(q, "null", 4);
			q += 4;
			i += 2;
		} else {
			*q++ = s[i];
		}
	}
	*q = '\0';
	*outlen = (size_t)(q - o);
	return o;
}

int bench_read_mem(const char *buf, size_t len, const char *name, struct bench_runs *b,
		   struct err *e)
{
	struct jsonl it;
	const char *t;
	char *copy;
	size_t n;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	copy = python_literals(buf, len, &len);
	jsonl_init(&it, copy, len, name);
	while (rc == 0 && jsonl_next_line(&it, &t, &n)) {
		struct json *o;
		if (it.line == 1 && (rc = json_parse(copy, len, name, &o, e)) == 0) {
			/* one (pretty-printed) JSON document: vLLM */
			rc = read_run(o, name, b, e);
			json_free(o);
			break;
		}
		if ((rc = json_parse(t, n, it.ctx, &o, e)) < 0)
			break;
		rc = read_run(o, it.ctx, b, e);
		json_free(o);
	}
	free(copy);
	if (rc == 0 && b->n == 0)
		rc = err_set(e, SS_EDATA, "%s: no benchmark runs", name);
	if (rc < 0)
		bench_runs_release(b);
	return rc;
}

int bench_read(const char *path, struct bench_runs *b, struct err *e)
{
	char *buf;
	size_t len;
	int rc;

	memset(b, 0, sizeof(*b));
	if ((rc = gzr_read_file(path, BENCH_MAX_BYTES, &buf, &len, e)) < 0)
		return rc;
	rc = bench_read_mem(buf, len, path, b, e);
	free(buf);
	return rc;
}
