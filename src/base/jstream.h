/* jstream.h - streaming (pull) JSON tokenizer over the gz reader, for files
 * too large to hold as a tree (GuideLLM results run to hundreds of MB,
 * mostly prompt and output text).  Memory stays bounded: strings longer
 * than JS_STR_MAX are consumed but only their first JS_STR_MAX bytes kept.
 * Syntax errors are SS_EDATA with file:line:column.  Unlike json.c, duplicate
 * keys are not detected (that needs the whole object). */
#ifndef SERVESIM_JSTREAM_H
#define SERVESIM_JSTREAM_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define JS_STR_MAX 4096

enum js_tok {
	JS_EOF, JS_OBJ, JS_OBJ_END, JS_ARR, JS_ARR_END, JS_KEY, JS_STR, JS_NUM,
	JS_TRUE, JS_FALSE, JS_NULL
};

struct jstream;

int js_open(const char *path, struct jstream **out, struct err *e);
/* Over a memory buffer (fuzzing, tests); the buffer must outlive the stream. */
int js_open_mem(const char *buf, size_t len, const char *name, struct jstream **out,
		struct err *e);
void js_close(struct jstream *js);
/* Next token; for object members a JS_KEY (name in js_str) precedes the value. */
int js_next(struct jstream *js, enum js_tok *tok, struct err *e);
/* Text of the last JS_KEY / JS_STR (NUL-terminated, possibly truncated). */
const char *js_str(const struct jstream *js);
double js_num(const struct jstream *js);
/* Skip the value whose first token was just returned (no-op for scalars). */
int js_skip(struct jstream *js, enum js_tok first, struct err *e);
/* Bytes of the decompressed input consumed so far. */
size_t js_offset(const struct jstream *js);

#endif
