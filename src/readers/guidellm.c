/* guidellm.c - GuideLLM results reader, all schema eras, streamed.
 *
 * Eras, told apart by the keys a request carries:
 *   0.1      report{benchmarks[report{benchmarks[{mode, rate, results[], errors[]}]}]};
 *            results: prompt_token_count, output_token_count, start_time,
 *            first_token_time, end_time (s)
 *   0.2-0.3  benchmarks[{args{strategy}, requests{successful[], errored[], incomplete[]}}];
 *            requests: prompt_tokens, output_tokens, start_time, first_token_time, end_time
 *   0.4-0.6  benchmarks[{config{strategy}, requests{...}}]; requests:
 *            request_start_time, time_to_first_token_ms, request_latency (s),
 *            prompt_tokens, output_tokens
 *   0.7+     the same layout, timings under info.timings (request_start,
 *            first_token_iteration, request_end) and token counts under
 *            input_metrics / output_metrics (total_tokens)
 * Explicit fields win; timings fill what is missing.  Per-request ITL is
 * recomputed as (E2E - TTFT)/(output - 1) in every era. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/jstream.h"
#include "readers/measured.h"
#include "base/stats.h"
#include "workload/workload.h"
#include "base/yaml.h"

/* Fields a request may carry, NAN until seen. */
enum { F_REQ_START, F_START, F_END, F_REQ_END, F_FIRST_TOK, F_LATENCY, F_TTFT_MS, F_PROMPT,
       F_OUTPUT, F_T_START, F_T_FIRST, F_T_END, F_IN_TOTAL, F_OUT_TOTAL, F__N };

struct gl_ctx {
	struct jstream *js;
	struct gt_requests *g;
	const char *path;
	int saw[4];       /* era votes */
	struct gt_ids ids; /* request_id of the successful requests */
};

static int skip_value(struct gl_ctx *c, enum js_tok t, struct err *e)
{
	return js_skip(c->js, t, e);
}

/* The next member of the object being read: 1 with its key in key and the
 * first token of its value in *t, 0 at the end of the object. */
static int next_member(struct gl_ctx *c, char *key, size_t n, enum js_tok *t, struct err *e)
{
	int rc;

	if ((rc = js_next(c->js, t, e)) < 0)
		return rc;
	if (*t == JS_OBJ_END)
		return 0;
	snprintf(key, n, "%s", js_str(c->js));
	if ((rc = js_next(c->js, t, e)) < 0)
		return rc;
	return 1;
}

/* Inside an object: its members skipped up to the next `key` whose value
 * starts with `want`: 1 with that value next to read, 0 at the object's end. */
static int seek_member(struct gl_ctx *c, const char *key, enum js_tok want, struct err *e)
{
	char k[64];
	enum js_tok t;
	int rc;

	while ((rc = next_member(c, k, sizeof(k), &t, e)) > 0) {
		if (t == want && strcmp(k, key) == 0)
			return 1;
		if ((rc = skip_value(c, t, e)) < 0)
			return rc;
	}
	return rc;
}

/* The next element of the array being read: 1 with its first token in *t,
 * 0 at the end of the array. */
static int next_element(struct gl_ctx *c, enum js_tok *t, struct err *e)
{
	int rc = js_next(c->js, t, e);

	return rc < 0 ? rc : *t != JS_ARR_END;
}

/* Read the numeric members of an object we are inside (after JS_OBJ),
 * mapping some keys to fields; nested objects are handled by the caller's
 * map function. */
static int read_timings(struct gl_ctx *c, double *f, int which, struct err *e)
{
	enum js_tok t;
	char key[64];
	int rc;

	while ((rc = next_member(c, key, sizeof(key), &t, e)) > 0) {
		if (t == JS_OBJ && which == 0 && strcmp(key, "timings") == 0) {
			if ((rc = read_timings(c, f, 1, e)) < 0)
				return rc;
			continue;
		}
		if (t != JS_NUM) {
			if ((rc = skip_value(c, t, e)) < 0)
				return rc;
			continue;
		}
		if (which == 1) {
			if (strcmp(key, "request_start") == 0)
				f[F_T_START] = js_num(c->js);
			else if (strcmp(key, "first_token_iteration") == 0)
				f[F_T_FIRST] = js_num(c->js);
			else if (strcmp(key, "request_end") == 0)
				f[F_T_END] = js_num(c->js);
		} else if (which == 2) { /* scheduler_info (0.2-0.3) */
			if (strcmp(key, "request_start") == 0)
				f[F_T_START] = js_num(c->js);
			else if (strcmp(key, "request_end") == 0)
				f[F_T_END] = js_num(c->js);
		} else if (which == 3 || which == 4) { /* input/output metrics */
			if (strcmp(key, "total_tokens") == 0)
				f[which == 3 ? F_IN_TOTAL : F_OUT_TOTAL] = js_num(c->js);
		}
	}
	return rc;
}

/* A time point each era records under its own name, newest first: the
 * first a request has, as ms after its start (names the field), NAN when it
 * has none. */
struct gl_time {
	int field;
	const char *name;
};
static const struct gl_time first_token[] = {{F_FIRST_TOK, "first_token_time - start"},
					      {F_T_FIRST, "timings.first_token_iteration - start"},
					      {-1, NULL}};
static const struct gl_time request_end[] = {{F_END, "end_time - start"},
					      {F_REQ_END, "request_end_time - start"},
					      {F_T_END, "timings.request_end - start"},
					      {-1, NULL}};

static double since_start(const double *f, const struct gl_time *at, double start, const char **name)
{
	for (; at->name; at++)
		if (!isnan(f[at->field])) {
			*name = at->name;
			return (f[at->field] - start) * 1e3;
		}
	return NAN;
}

static int read_request(struct gl_ctx *c, int bench, struct err *e)
{
	double f[F__N], start, ttft = NAN, e2e = NAN, p, o;
	struct gt_fields names = {"request_start_time", "prompt_tokens", "output_tokens",
				  "time_to_first_token_ms", "request_latency"};
	enum js_tok t;
	char key[64], ctx[600], id[256] = "";
	int rc, i;
	static const struct {
		const char *key;
		int field;
	} keys[] = {
		{"request_start_time", F_REQ_START}, {"start_time", F_START}, {"end_time", F_END},
		{"request_end_time", F_REQ_END}, {"first_token_time", F_FIRST_TOK},
		{"request_latency", F_LATENCY}, {"time_to_first_token_ms", F_TTFT_MS},
		{"prompt_tokens", F_PROMPT}, {"prompt_token_count", F_PROMPT},
		{"output_tokens", F_OUTPUT}, {"output_token_count", F_OUTPUT},
	};

	for (i = 0; i < F__N; i++)
		f[i] = NAN;
	while ((rc = next_member(c, key, sizeof(key), &t, e)) > 0) {
		if (t == JS_OBJ) {
			int which = strcmp(key, "info") == 0 ? 0 : strcmp(key, "scheduler_info") == 0 ? 2
				  : strcmp(key, "input_metrics") == 0 ? 3
				  : strcmp(key, "output_metrics") == 0 ? 4 : -1;
			if (which >= 0) {
				if ((rc = read_timings(c, f, which, e)) < 0)
					return rc;
				continue;
			}
		}
		if (t == JS_NUM) {
			for (i = 0; i < (int)(sizeof(keys) / sizeof(keys[0])); i++)
				if (strcmp(key, keys[i].key) == 0 && isnan(f[keys[i].field]))
					f[keys[i].field] = js_num(c->js);
			continue;
		}
		if (t == JS_STR && strcmp(key, "request_id") == 0) {
			snprintf(id, sizeof(id), "%s", js_str(c->js));
			continue;
		}
		/* a time or a count as anything but a number (null: absent) */
		for (i = 0; t != JS_NULL && i < (int)(sizeof(keys) / sizeof(keys[0])); i++)
			if (strcmp(key, keys[i].key) == 0)
				return err_set(e, SS_EDATA, "%s: request %zu of benchmark %d: '%s' must be a number, "
					       "got %s%.40s%s", c->path, c->g->n, bench, key, t == JS_STR ? "\"" : "",
					       t == JS_STR ? js_str(c->js) : "an array, an object or a boolean",
					       t == JS_STR ? "\"" : "");
		if ((rc = skip_value(c, t, e)) < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	/* era votes */
	if (!isnan(f[F_REQ_START]) && !isnan(f[F_TTFT_MS]))
		c->saw[2]++;
	else if (!isnan(f[F_START]) && !isnan(f[F_FIRST_TOK]) && !isnan(f[F_PROMPT]))
		c->saw[1]++;
	else if (!isnan(f[F_T_START]))
		c->saw[3]++;
	start = !isnan(f[F_REQ_START]) ? f[F_REQ_START] : !isnan(f[F_START]) ? f[F_START] : f[F_T_START];
	if (isnan(f[F_REQ_START]))
		names.start = !isnan(f[F_START]) ? "start_time" : "timings.request_start";
	ttft = !isnan(f[F_TTFT_MS]) ? f[F_TTFT_MS] : since_start(f, first_token, start, &names.ttft);
	e2e = !isnan(f[F_LATENCY]) ? f[F_LATENCY] * 1e3 : since_start(f, request_end, start, &names.e2e);
	p = !isnan(f[F_PROMPT]) ? f[F_PROMPT] : f[F_IN_TOTAL];
	o = !isnan(f[F_OUTPUT]) ? f[F_OUTPUT] : f[F_OUT_TOTAL];
	if (isnan(f[F_PROMPT]))
		names.prompt = "input_metrics.total_tokens";
	if (isnan(f[F_OUTPUT]))
		names.output = "output_metrics.total_tokens";
	if (isnan(start) || !(p >= 1) || !(o >= 1) || isnan(e2e))
		return err_set(e, SS_EDATA,
			       "%s: request %zu of benchmark %d lacks a start time, token counts or latency (prompt %g, output %g)",
			       c->path, c->g->n, bench, p, o);
	/* measurements: finite, lengths integral and within the workload's token range */
	if (!isfinite(start) || !isfinite(e2e) || (!isnan(ttft) && !isfinite(ttft)) ||
	    !(p <= (double)WL_MAX_TOKENS) || !(o <= (double)WL_MAX_TOKENS) || p != floor(p) ||
	    o != floor(o))
		return err_set(e, SS_EDATA,
			       "%s: request %zu of benchmark %d: start %g s, ttft %g ms, latency %g ms must be "
			       "finite and prompt %g, output %g integers in [1, %lld]",
			       c->path, c->g->n, bench, start, ttft, e2e, p, o, (long long)WL_MAX_TOKENS);
	snprintf(ctx, sizeof(ctx), "%s: request %zu of benchmark %d", c->path, c->g->n, bench);
	XGROW(c->g->r, c->g->cap, c->g->n + 1);
	if ((rc = gt_request_set(&c->g->r[c->g->n], ctx, &names, start, p, o, ttft, e2e, e)) < 0)
		return rc;
	c->g->r[c->g->n].stage = bench;
	if (id[0])
		gt_ids_add(&c->ids, id, c->g->n);
	c->g->n++;
	return 0;
}

/* A strategy's rate: requests/s or streams, 0 when it has none. */
static int check_rate(const struct gl_ctx *c, int idx, const struct gt_bench *b, struct err *e)
{
	if (!(b->rate >= 0 && b->rate <= WL_MAX_RATE))
		return err_set(e, SS_EDATA, "%s: benchmark %d: the %s strategy's 'rate' must be in [0, %g], got %g",
			       c->path, idx, b->strategy[0] ? b->strategy : "(unnamed)", WL_MAX_RATE, b->rate);
	return 0;
}

/* An array of requests: counted, parsed when `keep`. */
static int read_request_array(struct gl_ctx *c, int bench, bool keep, int64_t *count,
			      struct err *e)
{
	enum js_tok t;
	int rc;

	while ((rc = next_element(c, &t, e)) > 0) {
		(*count)++;
		if (keep && t == JS_OBJ) {
			if ((rc = read_request(c, bench, e)) < 0)
				return rc;
		} else if ((rc = skip_value(c, t, e)) < 0) {
			return rc;
		}
	}
	return rc;
}

/* {"type_": ..., "rate": ...} strategy descriptions */
static int read_strategy(struct gl_ctx *c, struct gt_bench *b, struct err *e)
{
	enum js_tok t;
	char key[64];
	int rc;

	while ((rc = next_member(c, key, sizeof(key), &t, e)) > 0) {
		if (t == JS_STR && (strcmp(key, "type_") == 0 || strcmp(key, "type") == 0))
			snprintf(b->strategy, sizeof(b->strategy), "%s", js_str(c->js));
		else if (t == JS_NUM && strcmp(key, "rate") == 0)
			b->rate = js_num(c->js);
		else if (t == JS_NUM && (strcmp(key, "streams") == 0 || strcmp(key, "max_concurrency") == 0) &&
			 b->rate == 0 && strcmp(b->strategy, "concurrent") == 0)
			b->rate = js_num(c->js);
		else if ((rc = skip_value(c, t, e)) < 0)
			return rc;
	}
	return rc;
}

/* Find "strategy" inside config (0.4+) or args (0.2-0.3). */
static int read_config(struct gl_ctx *c, struct gt_bench *b, struct err *e)
{
	int rc;

	while ((rc = seek_member(c, "strategy", JS_OBJ, e)) > 0)
		if ((rc = read_strategy(c, b, e)) < 0)
			return rc;
	return rc;
}

static int read_benchmark(struct gl_ctx *c, struct err *e);

/* 0.1: a report object holding its own "benchmarks" array */
static int read_bench_list(struct gl_ctx *c, struct err *e)
{
	enum js_tok t;
	int rc;

	while ((rc = next_element(c, &t, e)) > 0) {
		if (t != JS_OBJ)
			return err_set(e, SS_EDATA, "%s: 'benchmarks' must hold objects", c->path);
		if ((rc = read_benchmark(c, e)) < 0)
			return rc;
	}
	return rc;
}

static int read_benchmark(struct gl_ctx *c, struct err *e)
{
	struct gt_bench b;
	enum js_tok t;
	char key[64];
	int idx = (int)c->g->nb, rc;
	bool nested = false;

	memset(&b, 0, sizeof(b));
	if (c->g->nb >= GT_MAX_BENCH)
		return err_set(e, SS_EDATA, "%s: more than %d benchmarks", c->path, GT_MAX_BENCH);
	c->g->nb++; /* reserve the index: requests refer to it */
	while ((rc = next_member(c, key, sizeof(key), &t, e)) > 0) {
		if (t == JS_ARR && strcmp(key, "benchmarks") == 0) {
			/* a 0.1 report: its benchmarks are the real ones */
			c->g->nb--;
			nested = true;
			if ((rc = read_bench_list(c, e)) < 0)
				return rc;
		} else if (t == JS_OBJ && (strcmp(key, "config") == 0 || strcmp(key, "args") == 0)) {
			if ((rc = read_config(c, &b, e)) < 0)
				return rc;
		} else if (t == JS_STR && strcmp(key, "mode") == 0) {
			snprintf(b.strategy, sizeof(b.strategy), "%s", js_str(c->js));
			c->saw[0]++;
		} else if (t == JS_NUM && strcmp(key, "rate") == 0) {
			b.rate = js_num(c->js);
		} else if (t == JS_ARR && strcmp(key, "results") == 0) {
			if ((rc = read_request_array(c, idx, true, &b.completed, e)) < 0)
				return rc;
		} else if (t == JS_ARR && strcmp(key, "errors") == 0) {
			if ((rc = read_request_array(c, idx, false, &b.errored, e)) < 0)
				return rc;
		} else if (t == JS_OBJ && strcmp(key, "requests") == 0) {
			char k2[32];
			while ((rc = next_member(c, k2, sizeof(k2), &t, e)) > 0) {
				if (t == JS_ARR && strcmp(k2, "successful") == 0)
					rc = read_request_array(c, idx, true, &b.completed, e);
				else if (t == JS_ARR && strcmp(k2, "errored") == 0)
					rc = read_request_array(c, idx, false, &b.errored, e);
				else if (t == JS_ARR && strcmp(k2, "incomplete") == 0)
					rc = read_request_array(c, idx, false, &b.incomplete, e);
				else
					rc = skip_value(c, t, e);
				if (rc < 0)
					return rc;
			}
			if (rc < 0)
				return rc;
		} else if ((rc = skip_value(c, t, e)) < 0) {
			return rc;
		}
	}
	if (rc < 0)
		return rc;
	if (!nested && (rc = check_rate(c, idx, &b, e)) < 0)
		return rc;
	if (!nested)
		c->g->b[idx] = b;
	return 0;
}

static int read_all(struct gl_ctx *c, struct err *e)
{
	struct gt_requests *g = c->g;
	enum js_tok t;
	size_t i, k;
	int rc, found = 0;

	if ((rc = js_next(c->js, &t, e)) < 0)
		return rc;
	if (t != JS_OBJ)
		return err_set(e, SS_EDATA, "%s: expected a JSON object at the top", c->path);
	while ((rc = seek_member(c, "benchmarks", JS_ARR, e)) > 0) {
		found = 1;
		if ((rc = read_bench_list(c, e)) < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	if ((rc = js_next(c->js, &t, e)) < 0)
		return rc;
	if (!found)
		return err_set(e, SS_EDATA, "%s: no 'benchmarks' array: not a GuideLLM results file", c->path);
	if (g->n == 0)
		return err_set(e, SS_EDATA, "%s: no successful requests in any benchmark", c->path);
	snprintf(g->era, sizeof(g->era), "%s",
		 c->saw[0] ? "0.1" : c->saw[2] ? "0.4-0.6" : c->saw[1] ? "0.2-0.3" : "0.7+");
	if ((rc = gt_ids_check(&c->ids, c->path, "request_id", "request", e)) < 0)
		return rc;
	/* relative times; per-benchmark spans */
	if ((rc = gt_requests_relative(g, c->path, "request_start_time", e)) < 0)
		return rc;
	for (k = 0; k < g->nb; k++) {
		g->b[k].start_s = INFINITY;
		g->b[k].end_s = -INFINITY;
	}
	for (i = 0; i < g->n; i++) {
		struct gt_bench *b = &g->b[g->r[i].stage];
		if (g->r[i].arrival_s < b->start_s)
			b->start_s = g->r[i].arrival_s;
		if (g->r[i].arrival_s + g->r[i].e2e_ms * 1e-3 > b->end_s)
			b->end_s = g->r[i].arrival_s + g->r[i].e2e_ms * 1e-3;
	}
	return 0;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct gt_request *x = a, *y = b;
	if (x->arrival_s != y->arrival_s)
		return x->arrival_s < y->arrival_s ? -1 : 1;
	return x->stage - y->stage;
}

static int finish(struct gl_ctx *c, int rc)
{
	js_close(c->js);
	gt_ids_release(&c->ids);
	if (rc < 0) {
		gt_requests_release(c->g);
		return rc;
	}
	qsort(c->g->r, c->g->n, sizeof(*c->g->r), cmp_arrival);
	return 0;
}

int guidellm_read_mem(const char *buf, size_t len, const char *name, struct gt_requests *g,
		      struct err *e)
{
	struct gl_ctx c;
	int rc;

	memset(g, 0, sizeof(*g));
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.path = name;
	if ((rc = js_open_mem(buf, len, name, &c.js, e)) < 0)
		return rc;
	return finish(&c, read_all(&c, e));
}

int guidellm_read(const char *path, struct gt_requests *g, struct err *e)
{
	struct gl_ctx c;
	int rc;

	if (yaml_is_yaml_path(path)) {
		/* YAML results are small (GuideLLM writes YAML only on request):
		 * convert through the YAML adapter, then stream the JSON text */
		struct json *j;
		char *text;
		size_t len;
		FILE *f;
		if ((rc = yaml_parse_file(path, &j, e)) < 0)
			return rc;
		text = NULL;
		len = 0;
		f = open_memstream(&text, &len);
		json_write_tree(f, j);
		fclose(f);
		json_free(j);
		rc = guidellm_read_mem(text, len, path, g, e);
		free(text);
		return rc;
	}
	memset(g, 0, sizeof(*g));
	memset(&c, 0, sizeof(c));
	c.g = g;
	c.path = path;
	if ((rc = js_open(path, &c.js, e)) < 0)
		return rc;
	return finish(&c, read_all(&c, e));
}

double gt_stat(const struct gt_requests *g, int stage, int which, double pct)
{
	float *v = xmalloc(xmul(g->n ? g->n : 1, sizeof(float)));
	struct dist_summary d;
	size_t i, n = 0;
	double out;

	for (i = 0; i < g->n; i++) {
		const struct gt_request *r = &g->r[i];
		double x;
		if (stage >= 0 && r->stage != stage)
			continue;
		x = which == 0 ? r->ttft_ms : which == 1 ? r->e2e_ms
			: (r->output_tokens > 1 ? (r->e2e_ms - r->ttft_ms) / (double)(r->output_tokens - 1) : NAN);
		if (!isnan(x))
			v[n++] = (float)x;
	}
	stats_summarise(v, n, &d);
	if (n == 0)
		out = NAN;
	else if (pct < 0)
		out = d.mean;
	else
		out = stats_percentile_sorted(v, n, pct);
	free(v);
	return out;
}
