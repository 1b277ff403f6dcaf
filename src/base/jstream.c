/* jstream.c - pull tokenizer for large JSON files (see jstream.h). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "base/jstream.h"

#define JS_MAX_DEPTH 256
#define JS_QUOTE_(x) #x
#define JS_QUOTE(x) JS_QUOTE_(x) /* a bound in a message */

struct jstream {
	struct gzr *g;
	const char *mem;
	size_t mem_len;
	char *name;
	size_t pos, fill, consumed;
	bool eof;
	size_t line, col;
	/* container stack: 'o' object, 'a' array; expect_key in objects */
	char stack[JS_MAX_DEPTH];
	int depth;
	bool expect_value;  /* after a key in an object */
	bool need_comma;    /* a value was completed in the current container */
	bool top_done;
	char str[JS_STR_MAX + 1];
	size_t slen;
	double num;
	/* last: js_new leaves it unzeroed (only [pos, fill) is ever read) */
	char buf[65536];
};

/* A zeroed stream but for its read buffer: zeroing 64 KiB per open cost more
 * than reading a small document (the fuzzers open one per input). */
static struct jstream *js_new(void)
{
	struct jstream *js = xmalloc(sizeof(*js));

	memset(js, 0, offsetof(struct jstream, buf));
	return js;
}

static int js_fill(struct jstream *js, struct err *e)
{
	long r;

	if (js->eof)
		return 0;
	if (js->mem) {
		size_t n = js->mem_len - js->consumed;
		if (n > sizeof(js->buf))
			n = sizeof(js->buf);
		memcpy(js->buf, js->mem + js->consumed, n);
		r = (long)n;
	} else {
		r = gzr_read(js->g, js->buf, sizeof(js->buf), e);
		if (r < 0)
			return (int)r;
	}
	js->consumed += (size_t)r;
	js->pos = 0;
	js->fill = (size_t)r;
	if (r == 0)
		js->eof = true;
	return (int)(r > 0);
}

/* Peek the next byte (-1 at end), refilling as needed. */
static int peek(struct jstream *js, struct err *e)
{
	if (js->pos >= js->fill) {
		int r = js_fill(js, e);
		if (r < 0)
			return -2;
		if (r == 0)
			return -1;
	}
	return (unsigned char)js->buf[js->pos];
}

static void adv(struct jstream *js)
{
	if (js->buf[js->pos] == '\n') {
		js->line++;
		js->col = 1;
	} else {
		js->col++;
	}
	js->pos++;
}

static int syntax(struct jstream *js, struct err *e, const char *what)
{
	return err_set(e, SS_EDATA, "%s:%zu:%zu: malformed JSON: %s", js->name, js->line, js->col, what);
}

static int open_common(struct jstream *js, const char *name)
{
	js->name = xstrdup(name);
	js->line = js->col = 1;
	return 0;
}

int js_open(const char *path, struct jstream **out, struct err *e)
{
	struct jstream *js = js_new();
	int rc = gzr_open(path, &js->g, e);

	if (rc < 0) {
		free(js);
		return rc;
	}
	open_common(js, path);
	*out = js;
	return 0;
}

int js_open_mem(const char *buf, size_t len, const char *name, struct jstream **out,
		struct err *e)
{
	struct jstream *js = js_new();

	(void)e;
	js->mem = buf;
	js->mem_len = len;
	open_common(js, name);
	*out = js;
	return 0;
}

void js_close(struct jstream *js)
{
	if (!js)
		return;
	gzr_close(js->g);
	free(js->name);
	free(js);
}

const char *js_str(const struct jstream *js)
{
	return js->str;
}

double js_num(const struct jstream *js)
{
	return js->num;
}

size_t js_offset(const struct jstream *js)
{
	return js->consumed - (js->fill - js->pos);
}

static int skip_ws(struct jstream *js, struct err *e)
{
	int c;

	while ((c = peek(js, e)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		adv(js);
	return c;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void keep(struct jstream *js, char c)
{
	if (js->slen < JS_STR_MAX)
		js->str[js->slen++] = c;
}

static int read_string(struct jstream *js, struct err *e)
{
	int c;

	adv(js); /* opening quote */
	js->slen = 0;
	for (;;) {
		c = peek(js, e);
		if (c == -2)
			return -SS_EDATA;
		if (c < 0)
			return syntax(js, e, "unterminated string");
		adv(js);
		if (c == '"')
			break;
		if (c < 0x20)
			return syntax(js, e, "control character in string");
		if (c == '\\') {
			c = peek(js, e);
			if (c < 0)
				return syntax(js, e, "unterminated escape");
			adv(js);
			switch (c) {
			case '"': case '\\': case '/': keep(js, (char)c); break;
			case 'b': keep(js, '\b'); break;
			case 'f': keep(js, '\f'); break;
			case 'n': keep(js, '\n'); break;
			case 'r': keep(js, '\r'); break;
			case 't': keep(js, '\t'); break;
			case 'u': {
				int i, v = 0;
				for (i = 0; i < 4; i++) {
					int h = hexval(peek(js, e));
					if (h < 0)
						return syntax(js, e, "bad \\u escape");
					adv(js);
					v = v * 16 + h;
				}
				keep(js, v < 0x80 ? (char)v : '?');
				break;
			}
			default:
				return syntax(js, e, "bad escape");
			}
			continue;
		}
		keep(js, (char)c);
	}
	js->str[js->slen] = '\0';
	return 0;
}

static int read_literal(struct jstream *js, const char *lit, struct err *e)
{
	for (; *lit; lit++) {
		if (peek(js, e) != *lit)
			return syntax(js, e, "unexpected character");
		adv(js);
	}
	return 0;
}

static int read_number(struct jstream *js, struct err *e)
{
	char nb[64];
	size_t n = 0;
	char *end;
	int c;

	while ((c = peek(js, e)) >= 0 &&
	       ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
		if (n + 1 >= sizeof(nb))
			return syntax(js, e, "number too long");
		nb[n++] = (char)c;
		adv(js);
	}
	nb[n] = '\0';
	errno = 0;
	js->num = strtod(nb, &end);
	if (n == 0 || *end || errno)
		return syntax(js, e, "bad number");
	return 0;
}

/* A value finished: the container now needs a comma or its end. */
static void value_done(struct jstream *js)
{
	js->expect_value = false;
	js->need_comma = true;
	if (js->depth == 0)
		js->top_done = true;
}

int js_next(struct jstream *js, enum js_tok *tok, struct err *e)
{
	int c = skip_ws(js, e), rc;
	bool in_obj = js->depth > 0 && js->stack[js->depth - 1] == 'o';

	if (c == -2)
		return -SS_EDATA;
	if (c == -1) {
		if (js->depth > 0 || !js->top_done)
			return syntax(js, e, "unexpected end of input");
		*tok = JS_EOF;
		return 0;
	}
	if (js->top_done)
		return syntax(js, e, "unexpected characters after the JSON value");
	/* container ends */
	if ((c == '}' || c == ']') && js->depth > 0 && !js->expect_value) {
		if ((c == '}') != in_obj)
			return syntax(js, e, "mismatched bracket");
		adv(js);
		js->depth--;
		*tok = c == '}' ? JS_OBJ_END : JS_ARR_END;
		value_done(js);
		return 0;
	}
	if (js->need_comma && js->depth > 0 && !js->expect_value) {
		if (c != ',')
			return syntax(js, e, "expected ',' or a closing bracket");
		adv(js);
		c = skip_ws(js, e);
		js->need_comma = false;
	}
	if (in_obj && !js->expect_value) {
		if (c != '"')
			return syntax(js, e, "expected a key");
		if ((rc = read_string(js, e)) < 0)
			return rc;
		if (skip_ws(js, e) != ':')
			return syntax(js, e, "expected ':'");
		adv(js);
		js->expect_value = true;
		*tok = JS_KEY;
		return 0;
	}
	js->expect_value = false;
	switch (c) {
	case '{':
	case '[':
		if (js->depth >= JS_MAX_DEPTH)
			return syntax(js, e, "arrays and objects nested more than " JS_QUOTE(JS_MAX_DEPTH) " deep");
		adv(js);
		js->stack[js->depth++] = c == '{' ? 'o' : 'a';
		js->need_comma = false;
		*tok = c == '{' ? JS_OBJ : JS_ARR;
		return 0;
	case '"':
		if ((rc = read_string(js, e)) < 0)
			return rc;
		*tok = JS_STR;
		break;
	case 't':
		if ((rc = read_literal(js, "true", e)) < 0)
			return rc;
		*tok = JS_TRUE;
		break;
	case 'f':
		if ((rc = read_literal(js, "false", e)) < 0)
			return rc;
		*tok = JS_FALSE;
		break;
	case 'n':
		if ((rc = read_literal(js, "null", e)) < 0)
			return rc;
		*tok = JS_NULL;
		break;
	default:
		if (c == '-' || (c >= '0' && c <= '9')) {
			if ((rc = read_number(js, e)) < 0)
				return rc;
			*tok = JS_NUM;
			break;
		}
		/* NaN / Infinity as Python's json writes them */
		if (c == 'N' || c == 'I') {
			if ((rc = read_literal(js, c == 'N' ? "NaN" : "Infinity", e)) < 0)
				return rc;
			js->num = c == 'N' ? NAN : INFINITY;
			*tok = JS_NUM;
			break;
		}
		return syntax(js, e, "unexpected character");
	}
	value_done(js);
	return 0;
}

int js_skip(struct jstream *js, enum js_tok first, struct err *e)
{
	int depth;
	enum js_tok t;
	int rc;

	if (first != JS_OBJ && first != JS_ARR)
		return 0;
	depth = 1;
	while (depth > 0) {
		if ((rc = js_next(js, &t, e)) < 0)
			return rc;
		if (t == JS_OBJ || t == JS_ARR)
			depth++;
		else if (t == JS_OBJ_END || t == JS_ARR_END)
			depth--;
		else if (t == JS_EOF)
			return syntax(js, e, "unexpected end of input");
	}
	return 0;
}
