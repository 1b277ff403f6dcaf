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

#include "servesim/alloc.h"
#include "servesim/gzread.h"
#include "servesim/json.h"
#include "servesim/measured.h"

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

static double num_or(const struct json *o, const char *key, double dflt)
{
	const struct json *v = json_get(o, key);

	if (v && json_type_of(v) == JSON_NUMBER && isfinite(json_number(v)))
		return json_number(v);
	return dflt;
}

/* Per-request lengths: numbers >= 1; NULL when absent or empty. */
static int lens(const struct json *o, const char *key, const char *ctx, double **out, size_t *n,
		struct err *e)
{
	const struct json *a = json_get(o, key), *v;
	size_t i = 0;

	*out = NULL;
	if (!a || json_type_of(a) != JSON_ARRAY || json_size(a) == 0)
		return 0;
	if (*n && json_size(a) != *n)
		return err_set(e, SS_EDATA, "%s: '%s' has %zu entries, input_lens %zu", ctx, key,
			       json_size(a), *n);
	*n = json_size(a);
	*out = xmalloc(xmul(*n, sizeof(double)));
	for (v = json_first(a); v; v = json_next(v), i++) {
		if (json_type_of(v) != JSON_NUMBER || !(json_number(v) >= 0) || !(json_number(v) < 1e9)) {
			free(*out);
			*out = NULL;
			return err_set(e, SS_EDATA, "%s: '%s'[%zu] must be a token count >= 0", ctx, key, i);
		}
		(*out)[i] = json_number(v);
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
	if (v && json_type_of(v) == JSON_NUMBER && json_number(v) > 0 && isfinite(json_number(v)))
		r->request_rate = json_number(v);
	else if (v && !(json_type_of(v) == JSON_STRING || json_type_of(v) == JSON_NULL ||
			json_type_of(v) == JSON_NUMBER))
		return err_set(e, SS_EDATA, "%s: 'request_rate' must be a number or \"inf\"", ctx);
	r->burstiness = num_or(o, "burstiness", 1);
	if (!(r->burstiness > 0))
		return err_set(e, SS_EDATA, "%s: 'burstiness' must be > 0, got %g", ctx, r->burstiness);
	r->max_concurrency = 0;
	v = json_get(o, "max_concurrency");
	if (v && json_type_of(v) == JSON_NUMBER) {
		double c = json_number(v);
		if (!(c >= 1 && c <= (1 << 24)) || c != floor(c))
			return err_set(e, SS_EDATA, "%s: 'max_concurrency' must be an integer >= 1, got %g", ctx, c);
		r->max_concurrency = (int64_t)c;
	}
	if ((rc = json_req_num(o, "completed", ctx, &tin, e)) < 0)
		return rc;
	if (!(tin >= 1 && tin <= (1 << 26)) || tin != floor(tin))
		return err_set(e, SS_EDATA, "%s: 'completed' must be an integer >= 1, got %g", ctx, tin);
	r->completed = (int64_t)tin;
	if ((rc = json_req_num(o, "duration", ctx, &r->duration_s, e)) < 0 ||
	    (rc = json_req_num(o, "total_input_tokens", ctx, &tin, e)) < 0 ||
	    (rc = json_req_num(o, "total_output_tokens", ctx, &tout, e)) < 0 ||
	    (rc = json_req_num(o, "mean_ttft_ms", ctx, &r->ttft_mean, e)) < 0)
		return rc;
	if (!(r->duration_s > 0) || !(tin >= 1) || !(tout >= 1) || !(r->ttft_mean >= 0))
		return err_set(e, SS_EDATA,
			       "%s: duration, total_input_tokens, total_output_tokens must be > 0 and mean_ttft_ms >= 0",
			       ctx);
	r->mean_in = tin / (double)r->completed;
	r->mean_out = tout / (double)r->completed;
	r->ttft_p90 = num_or(o, "p90_ttft_ms", NAN);
	r->tpot_mean = num_or(o, "mean_tpot_ms", NAN);
	r->itl_mean = num_or(o, "mean_itl_ms", NAN);
	r->e2e_mean = num_or(o, "mean_e2el_ms", num_or(o, "mean_e2e_latency_ms", NAN));
	r->e2e_p90 = num_or(o, "p90_e2el_ms", num_or(o, "p90_e2e_latency_ms", NAN));
	r->throughput = num_or(o, "request_throughput", NAN);
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
	char *copy, *p, *end;
	size_t line = 0;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	copy = python_literals(buf, len, &len);
	p = copy;
	end = copy + len;
	while (p < end && rc == 0) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), ctx[600];
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct json *o;
		char *t = p;
		p = nl ? nl + 1 : end;
		line++;
		while (n && (t[n - 1] == '\r' || t[n - 1] == ' '))
			n--;
		if (n == 0)
			continue;
		snprintf(ctx, sizeof(ctx), "%s:%zu", name, line);
		if (line == 1 && (rc = json_parse(copy, len, name, &o, e)) == 0) {
			/* one (pretty-printed) JSON document: vLLM */
			rc = read_run(o, name, b, e);
			json_free(o);
			break;
		}
		if ((rc = json_parse(t, n, ctx, &o, e)) < 0)
			break;
		rc = read_run(o, ctx, b, e);
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
