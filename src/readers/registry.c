/* registry.c - the formats servesim reads and how each is recognised: a
 * file from its first bytes, a folder from the files it holds (readers.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "readers/readers.h"
#include "base/gzread.h"
#include "base/json.h"
#include "readers/measured.h"

/* enough to hold the first line of every format we read but GuideLLM's */
#define SNIFF_BYTES 65536

static const struct reader readers[RD__COUNT] = {
	[RD_SERVESIM] = {RD_SERVESIM, "a servesim experiment", "the folder, or its experiment.json", false},
	[RD_INFPERF] = {RD_INFPERF, "inference-perf results", "the folder (exp-config.yaml, results/)", false},
	[RD_GUIDELLM] = {RD_GUIDELLM, "GuideLLM results",
			 "a folder with guidellm-results.json, or the bare file with --experiment/--model", false},
	[RD_OTEL] = {RD_OTEL, "vLLM OpenTelemetry spans",
		     "a folder with traces.json, or the bare file with --experiment/--model", false},
	[RD_VLLM_REQUESTS] = {RD_VLLM_REQUESTS, "vLLM engine request stats",
			      "the file (meta.json beside it gives the model), or its folder", false},
	[RD_VCR] = {RD_VCR, "vllm-vcr trace", "the file: its meta line gives model and GPU", false},
	[RD_VLLM_BENCH] = {RD_VLLM_BENCH, "vLLM bench serve result",
			   "the file, with --model M --gpu G (or --experiment DIR) for what it does not record", true},
	[RD_SGLANG_BENCH] = {RD_SGLANG_BENCH, "SGLang bench_serving results",
			     "the file, with --model M --gpu G (or --experiment DIR)", true},
	[RD_AIC] = {RD_AIC, "aiconfigurator silicon CSV", "the file or its folder, with --where to pick rows", true},
	[RD_MOONCAKE] = {RD_MOONCAKE, "Mooncake trace", "the file, as run --workload FILE (a workload: no latencies)",
			 false},
};

const struct reader *reader_get(enum reader_id id)
{
	return (unsigned)id < RD__COUNT ? &readers[id] : NULL;
}

static bool has(const char *buf, size_t n, const char *key)
{
	char q[80];

	snprintf(q, sizeof(q), "\"%s\"", key);
	return memmem(buf, n, q, strlen(q)) != NULL;
}

/* A first line that is a JSON object: its keys name the format. */
static const struct reader *of_first_line(const struct json *o)
{
	if (json_get(o, "resourceSpans"))
		return &readers[RD_OTEL];
	if (json_get(o, "hash_ids") && json_get(o, "input_length") && json_get(o, "timestamp"))
		return &readers[RD_MOONCAKE];
	if (json_get(o, "meta") || (json_get(o, "ttft_ms") && json_get(o, "itl_ms")))
		return &readers[RD_VCR];
	if (json_get(o, "queued_ts") && json_get(o, "first_token_ts"))
		return &readers[RD_VLLM_REQUESTS];
	if (json_get(o, "mean_ttft_ms") && (json_get(o, "dataset_name") || json_get(o, "total_output_tokens_retokenized")))
		return &readers[RD_SGLANG_BENCH];
	if (json_get(o, "mean_ttft_ms"))
		return &readers[RD_VLLM_BENCH];
	if (json_get(o, "benchmarks"))
		return &readers[RD_GUIDELLM];
	return NULL;
}

/* A multi-line document: its distinctive keys. */
static const struct reader *of_document(const char *buf, size_t n)
{
	if (has(buf, n, "benchmarks"))
		return &readers[RD_GUIDELLM];
	if (has(buf, n, "resourceSpans"))
		return &readers[RD_OTEL];
	if (has(buf, n, "mean_ttft_ms"))
		return &readers[has(buf, n, "dataset_name") ? RD_SGLANG_BENCH : RD_VLLM_BENCH];
	return NULL;
}

const struct reader *reader_of_mem(const char *buf, size_t n, char *keys, size_t nk)
{
	const char *nl = memchr(buf, '\n', n);
	size_t first = nl ? (size_t)(nl - buf) : n, i;
	struct json *o = NULL;
	struct err e;

	if (keys && nk)
		keys[0] = '\0';
	/* a CSV header: the silicon table's columns */
	if (memmem(buf, first, "silicon_ttft_ms", 15) && memmem(buf, first, "model_path", 10))
		return &readers[RD_AIC];
	if (first && json_parse(buf, first, "sniff", &o, &e) == 0 && json_type_of(o) != JSON_OBJECT) {
		json_free(o);
		o = NULL;
	}
	if (o) {
		const struct reader *r = of_first_line(o);
		const struct json *m;
		size_t off = 0;
		for (m = json_first(o), i = 0; m && keys && i < 8; m = json_next(m), i++)
			off += (size_t)snprintf(keys + off, off < nk ? nk - off : 0, "%s%s", i ? ", " : "",
						json_key(m));
		json_free(o);
		return r;
	}
	return of_document(buf, n);
}

const struct reader *reader_of_file(const char *path, char *keys, size_t nk)
{
	const struct reader *r;
	char *b;
	struct gzr *g;
	struct err e;
	long got;

	if (keys && nk)
		keys[0] = '\0';
	if (gzr_open(path, &g, &e) < 0)
		return NULL;
	b = malloc(SNIFF_BYTES);
	if (!b) {
		gzr_close(g);
		return NULL;
	}
	got = gzr_read(g, b, SNIFF_BYTES, &e);
	gzr_close(g);
	r = got > 0 ? reader_of_mem(b, (size_t)got, keys, nk) : NULL;
	free(b);
	return r;
}

/* The first of names that dir holds, into out: true when there is one. */
static bool dir_holds(const char *dir, const char *const *names, char *out, size_t n)
{
	struct stat sb;

	for (; *names; names++) {
		snprintf(out, n, "%s/%s", dir, *names);
		if (stat(out, &sb) == 0 && S_ISREG(sb.st_mode))
			return true;
	}
	return false;
}

const struct reader *reader_of_dir(const char *dir, char *file, size_t n)
{
	static const char *const servesim[] = {"experiment.json", NULL};
	static const char *const infperf[] = {"results/config.yaml", NULL}, *const infperf_cfg[] = {"exp-config.yaml", NULL};
	static const char *const guidellm[] = {"guidellm-results.json.gz", "guidellm-results.json",
					       "guidellm-results.yaml", "benchmarks.json", NULL};
	static const char *const otel[] = {"traces.json.gz", "traces.json", NULL};
	static const char *const requests[] = {"vllm_requests.jsonl", "requests.jsonl", NULL},
				 *const meta[] = {"vllm_meta.json", "meta.json", NULL};
	char p[1200], aic[1][700];

	if (dir_holds(dir, servesim, file, n))
		return &readers[RD_SERVESIM];
	if (dir_holds(dir, infperf, p, sizeof(p)) && dir_holds(dir, infperf_cfg, p, sizeof(p))) {
		snprintf(file, n, "%s", dir);
		return &readers[RD_INFPERF];
	}
	if (dir_holds(dir, guidellm, file, n))
		return &readers[RD_GUIDELLM];
	if (dir_holds(dir, otel, file, n))
		return &readers[RD_OTEL];
	if (aic_table_files(dir, aic, 1) > 0) {
		snprintf(file, n, "%s", aic[0]);
		return &readers[RD_AIC];
	}
	if (dir_holds(dir, requests, file, n) && dir_holds(dir, meta, p, sizeof(p)))
		return &readers[RD_VLLM_REQUESTS];
	return NULL;
}
