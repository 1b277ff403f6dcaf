/* sniff.c - what a results file is, from its first bytes: which reader
 * takes it, and a description for messages when none does. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/gzread.h"
#include "servesim/json.h"
#include "servesim/measured.h"

/* enough to hold the first line of every format we read but GuideLLM's */
#define SNIFF_BYTES 65536

const char *gt_format_name(enum gt_format f)
{
	static const char *const n[GT__COUNT] = {
		"unknown", "GuideLLM results", "vLLM OpenTelemetry spans", "vLLM engine request stats",
		"vllm-vcr trace", "vLLM bench serve result", "SGLang bench_serving results",
		"aiconfigurator silicon CSV"};
	return (unsigned)f < GT__COUNT ? n[f] : "?";
}

static bool has(const char *buf, size_t n, const char *key)
{
	char q[80];

	snprintf(q, sizeof(q), "\"%s\"", key);
	return memmem(buf, n, q, strlen(q)) != NULL;
}

enum gt_format gt_sniff_mem(const char *buf, size_t n, char *keys, size_t nk)
{
	const char *nl = memchr(buf, '\n', n);
	size_t first = nl ? (size_t)(nl - buf) : n, i;
	struct json *o = NULL;
	struct err e;

	if (keys && nk)
		keys[0] = '\0';
	if (memmem(buf, first, "silicon_ttft_ms", 15) && memmem(buf, first, "model_path", 10))
		return GT_AIC;
	/* the first line as a JSON object: its keys name the format */
	if (first && json_parse(buf, first, "sniff", &o, &e) == 0 && json_type_of(o) != JSON_OBJECT) {
		json_free(o);
		o = NULL;
	}
	if (o) {
		const struct json *m;
		size_t off = 0;
		enum gt_format f = GT_UNKNOWN;
		for (m = json_first(o), i = 0; m && keys && i < 8; m = json_next(m), i++)
			off += (size_t)snprintf(keys + off, off < nk ? nk - off : 0, "%s%s", i ? ", " : "",
						json_key(m));
		if (json_get(o, "resourceSpans"))
			f = GT_OTEL;
		else if (json_get(o, "meta") || (json_get(o, "ttft_ms") && json_get(o, "itl_ms")))
			f = GT_VCR;
		else if (json_get(o, "queued_ts") && json_get(o, "first_token_ts"))
			f = GT_VLLM_REQUESTS;
		else if (json_get(o, "mean_ttft_ms") &&
			 (json_get(o, "dataset_name") || json_get(o, "total_output_tokens_retokenized")))
			f = GT_SGLANG_BENCH;
		else if (json_get(o, "mean_ttft_ms"))
			f = GT_VLLM_BENCH;
		else if (json_get(o, "benchmarks"))
			f = GT_GUIDELLM;
		json_free(o);
		return f;
	}
	/* a multi-line document: look for its distinctive keys */
	if (has(buf, n, "benchmarks"))
		return GT_GUIDELLM;
	if (has(buf, n, "resourceSpans"))
		return GT_OTEL;
	if (has(buf, n, "mean_ttft_ms"))
		return has(buf, n, "dataset_name") ? GT_SGLANG_BENCH : GT_VLLM_BENCH;
	return GT_UNKNOWN;
}

enum gt_format gt_sniff(const char *path, char *keys, size_t nk)
{
	char *b;
	struct gzr *g;
	struct err e;
	long got;
	enum gt_format f;

	if (keys && nk)
		keys[0] = '\0';
	if (gzr_open(path, &g, &e) < 0)
		return GT_UNKNOWN;
	b = malloc(SNIFF_BYTES);
	if (!b) {
		gzr_close(g);
		return GT_UNKNOWN;
	}
	got = gzr_read(g, b, SNIFF_BYTES, &e);
	gzr_close(g);
	f = got > 0 ? gt_sniff_mem(b, (size_t)got, keys, nk) : GT_UNKNOWN;
	free(b);
	return f;
}
