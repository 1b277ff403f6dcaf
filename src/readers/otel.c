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

/* OTLP JSON writes 64-bit integers as decimal strings: the whole string an
 * optional sign and digits, else NAN (strtod alone took "abc" for 0). */
static double int_text(const char *t)
{
	const char *d = t + (*t == '-' || *t == '+');
	char *end;
	double v;

	if (!*d || strspn(d, "0123456789") != strlen(d))
		return NAN;
	v = strtod(t, &end);
	return *end ? NAN : v;
}

/* A number, or an integer as OTLP writes it; NAN otherwise. */
static double num_of(const struct json *x)
{
	if (x && json_type_of(x) == JSON_NUMBER)
		return json_number(x);
	if (x && json_type_of(x) == JSON_STRING)
		return int_text(json_string(x));
	return NAN;
}

static double attr_value(const struct json *v)
{
	const struct json *x;

	if ((x = json_get(v, "doubleValue")) && json_type_of(x) == JSON_NUMBER)
		return json_number(x);
	return num_of(json_get(v, "intValue"));
}

static int read_span(const struct json *sp, const char *path, size_t line, struct gt_requests *g,
		     struct gt_ids *ids, struct err *e)
{
	static const struct gt_fields f = {"startTimeUnixNano", "gen_ai.usage.prompt_tokens",
					   "gen_ai.usage.completion_tokens",
					   "gen_ai.latency.time_to_first_token", "gen_ai.latency.e2e"};
	const struct json *name = json_get(sp, "name"), *st = json_get(sp, "startTimeUnixNano"), *attrs, *a;
	const struct json *id = json_get(sp, "spanId");
	double start, ttft = NAN, e2e = NAN, p = NAN, o = NAN;
	char ctx[600];
	int rc;

	if (!name || json_type_of(name) != JSON_STRING || strcmp(json_string(name), "llm_request") != 0)
		return 0;
	if (!st || (json_type_of(st) != JSON_STRING && json_type_of(st) != JSON_NUMBER))
		return err_set(e, SS_EDATA, "%s:%zu: llm_request span without 'startTimeUnixNano'", path, line);
	start = num_of(st) * 1e-9;
	if (isnan(start))
		return err_set(e, SS_EDATA, "%s:%zu: 'startTimeUnixNano' must be an integer count of ns, got %s%.40s%s",
			       path, line, json_type_of(st) == JSON_STRING ? "\"" : "",
			       json_type_of(st) == JSON_STRING ? json_string(st) : "NaN",
			       json_type_of(st) == JSON_STRING ? "\"" : "");
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
	snprintf(ctx, sizeof(ctx), "%s:%zu", path, line);
	XGROW(g->r, g->cap, g->n + 1);
	if ((rc = gt_request_set(&g->r[g->n], ctx, &f, start, p, o, ttft, e2e, e)) < 0)
		return rc;
	g->n++;
	if (id && json_type_of(id) == JSON_STRING)
		gt_ids_add(ids, json_string(id), line);
	return 0;
}

int otel_read(const char *path, struct gt_requests *g, struct err *e)
{
	struct gt_ids ids = {NULL, 0, 0};
	struct gzr *z;
	const char *line;
	size_t len;
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
					rc = read_span(sp, path, gzr_lineno(z), g, &ids, e);
		json_free(doc);
		if (rc < 0)
			break;
	}
	gzr_close(z);
	return gt_replay_finish(g, rc, &ids, "spanId", path, "no llm_request spans", "startTimeUnixNano", "otel", e);
}
