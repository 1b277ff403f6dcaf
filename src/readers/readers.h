/* readers.h - the formats servesim reads, behind one registry: each format
 * is named, recognised by its content (a file) or by what a folder holds, and
 * read by its own file in src/readers/ into the neutral records of
 * readers/measured.h (servesim's own experiment.json is eval's).  Every
 * detection goes through here: reader_of_file for a file, reader_of_dir for
 * a folder. */
#ifndef SERVESIM_READERS_READERS_H
#define SERVESIM_READERS_READERS_H
#include <stdbool.h>
#include <stddef.h>

/* The formats, for the code that turns each one's records into experiments
 * (eval/experiment.c). */
enum reader_id {
	RD_SERVESIM,        /* experiment.json (eval's own format) */
	RD_INFPERF,         /* an inference-perf result folder */
	RD_GUIDELLM,        /* GuideLLM results, every schema era */
	RD_OTEL,            /* vLLM OpenTelemetry spans */
	RD_VLLM_REQUESTS,   /* vLLM engine request stats */
	RD_VCR,             /* vllm-vcr traces */
	RD_VLLM_BENCH,      /* vLLM bench serve results */
	RD_SGLANG_BENCH,    /* SGLang bench_serving results */
	RD_AIC,             /* aiconfigurator silicon CSV */
	RD_MOONCAKE,        /* Mooncake traces (a workload: no latencies) */
	RD__COUNT
};

struct reader {
	enum reader_id id;
	const char *title;  /* as messages name it ("GuideLLM results") */
	/* what to give servesim to read it (messages) */
	const char *how;
	/* one experiment per row or run (exp_table) rather than one per file */
	bool table;
};

/* The format of a file from its first 64 KiB (NULL: none servesim reads);
 * keys: the first line's keys when it is a JSON object ("" otherwise). */
const struct reader *reader_of_file(const char *path, char *keys, size_t nk);
const struct reader *reader_of_mem(const char *buf, size_t n, char *keys, size_t nk);
/* The format of a folder from the files it holds (NULL: none), and in file
 * (n bytes) the one to read where one file carries it. */
const struct reader *reader_of_dir(const char *dir, char *file, size_t n);
const struct reader *reader_get(enum reader_id id);

#endif
