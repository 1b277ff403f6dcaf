/* jsonl.h - one JSON record per line of a buffer in memory (vllm-vcr
 * traces, vLLM engine request stats, bench-serve results): the walk over
 * its lines that each of those readers shares. */
#ifndef SERVESIM_READERS_JSONL_H
#define SERVESIM_READERS_JSONL_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/json.h"

/* A position in buf[0, len).  ctx names the line last returned as
 * "NAME:LINE" (1-based, blank lines counted) for messages. */
struct jsonl {
	const char *p, *end, *name;
	size_t line;
	char ctx[600];
};
void jsonl_init(struct jsonl *it, const char *buf, size_t len, const char *name);
/* The next line that is not blank once trailing '\r' and ' ' are cut:
 * true with *s, *n its text, false at the end of the buffer. */
bool jsonl_next_line(struct jsonl *it, const char **s, size_t *n);
/* The next non-blank line parsed as one JSON object (the caller frees *o):
 * 1, 0 at the end, <0 (SS_EDATA naming it->ctx) on a line that is not
 * JSON or not an object. */
int jsonl_next(struct jsonl *it, struct json **o, struct err *e);
#endif
