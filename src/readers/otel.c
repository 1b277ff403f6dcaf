/* otel.c - vLLM OpenTelemetry span files: one OTLP JSON document per line
 * (resourceSpans > scopeSpans > spans), `llm_request` spans carrying
 * gen_ai.latency.* (seconds) and gen_ai.usage.* attributes.  Arrival is the
 * span start; TTFT and E2E are engine-side (no client or network time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "base/json.h"
#include "readers/measured.h"

static double attr_value(const struct json *v)
{
	const struct json *x;

	if ((x = json_get(v, "doubleValue")) && json_type_of(x) == JSON_NUMBER)
		return json_number(x);
	if ((x = json_get(v, "intValue"))) {
		if (json_type_of(x) == JSON_NUMBER)
			return json_number(x);
		if (json_type_of(x) == JSON_STRING)
			return strtod(json_string(x), NULL);
	}
	return NAN;
}

static int read_span(const struct json *sp, const char *path, size_t line, struct gt_requests *g,
		     struct err *e)
{
	const struct json *name = json_get(sp, "name"), *st = json_get(sp, "startTimeUnixNano"), *attrs, *a;
	double start, ttft = NAN, e2e = NAN, p = NAN, o = NAN;
	struct gt_request *r;

	if (!name || json_type_of(name) != JSON_STRING || strcmp(json_string(name), "llm_request") != 0)
		return 0;
	if (!st || (json_type_of(st) != JSON_STRING && json_type_of(st) != JSON_NUMBER))
		return err_set(e, SS_EDATA, "%s:%zu: llm_request span without 'startTimeUnixNano'", path, line);
	start = (json_type_of(st) == JSON_STRING ? strtod(json_string(st), NULL) : json_number(st)) * 1e-9;
	attrs = json_get(sp, "attributes");
	for (a = json_first(attrs); a; a = json_next(a)) {
		const char *k = json_string(json_get(a, "key"));
		double v = attr_value(json_get(a, "value"));
		if (!k)
			continue;
		if (strcmp(k, "gen_ai.latency.time_to_first_token") == 0)
			ttft = v * 1e3;
		else if (strcmp(k, "gen_ai.latency.e2e") == 0)
			e2e = v * 1e3;
		else if (strcmp(k, "gen_ai.usage.prompt_tokens") == 0)
			p = v;
		else if (strcmp(k, "gen_ai.usage.completion_tokens") == 0)
			o = v;
	}
	if (!(p >= 1) || !(o >= 1) || isnan(e2e))
		return err_set(e, SS_EDATA,
			       "%s:%zu: llm_request span lacks gen_ai.usage.prompt_tokens / completion_tokens or gen_ai.latency.e2e",
			       path, line);
	XGROW(g->r, g->cap, g->n + 1);
	r = &g->r[g->n++];
	r->arrival_s = start;
	r->prompt_tokens = (int64_t)p;
	r->output_tokens = (int64_t)o;
	r->ttft_ms = ttft;
	r->e2e_ms = e2e;
	r->stage = 0;
	return 0;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct gt_request *x = a, *y = b;
	return x->arrival_s < y->arrival_s ? -1 : x->arrival_s > y->arrival_s;
}

int otel_read(const char *path, struct gt_requests *g, struct err *e)
{
	struct gzr *z;
	const char *line;
	size_t len, i;
	int rc;

	memset(g, 0, sizeof(*g));
	if ((rc = gzr_open(path, &z, e)) < 0)
		return rc;
	while ((rc = gzr_getline(z, &line, &len, e)) == 0 && line) {
		struct json *doc;
		const struct json *rs, *ss, *sp;
		char src[600];
		if (len == 0)
			continue;
		snprintf(src, sizeof(src), "%s (line %zu)", path, gzr_lineno(z));
		if ((rc = json_parse(line, len, src, &doc, e)) < 0)
			break;
		for (rs = json_first(json_get(doc, "resourceSpans")); rs && rc == 0; rs = json_next(rs))
			for (ss = json_first(json_get(rs, "scopeSpans")); ss && rc == 0; ss = json_next(ss))
				for (sp = json_first(json_get(ss, "spans")); sp && rc == 0; sp = json_next(sp))
					rc = read_span(sp, path, gzr_lineno(z), g, e);
		json_free(doc);
		if (rc < 0)
			break;
	}
	gzr_close(z);
	if (rc == 0 && g->n == 0)
		rc = err_set(e, SS_EDATA, "%s: no llm_request spans", path);
	if (rc < 0) {
		gt_requests_release(g);
		return rc;
	}
	qsort(g->r, g->n, sizeof(*g->r), cmp_arrival);
	g->t0 = g->r[0].arrival_s;
	for (i = 0; i < g->n; i++)
		g->r[i].arrival_s -= g->t0;
	g->nb = 1;
	snprintf(g->b[0].strategy, sizeof(g->b[0].strategy), "replay");
	g->b[0].completed = (int64_t)g->n;
	g->b[0].start_s = 0;
	g->b[0].end_s = g->r[g->n - 1].arrival_s + g->r[g->n - 1].e2e_ms * 1e-3;
	snprintf(g->era, sizeof(g->era), "otel");
	g->server_side = true;
	return 0;
}
