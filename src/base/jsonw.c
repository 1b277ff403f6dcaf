/* jsonw.c - deterministic streaming JSON writer (no allocation, no cJSON). */
#include <math.h>
#include <stdio.h>

#include "base/json.h"

void jw_init(struct jw *w, FILE *f, bool pretty)
{
	w->f = f;
	w->depth = 0;
	w->first[0] = true;
	w->pretty = pretty;
}

void json_print_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void indent(struct jw *w)
{
	int i;

	if (!w->pretty)
		return;
	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

static void item(struct jw *w, const char *key)
{
	if (w->depth > 0) {
		if (!w->first[w->depth])
			fputc(',', w->f);
		indent(w);
	}
	w->first[w->depth] = false;
	if (key) {
		json_print_string(w->f, key);
		fputs(w->pretty ? ": " : ":", w->f);
	}
}

static void open_(struct jw *w, const char *key, char c)
{
	item(w, key);
	fputc(c, w->f);
	if (w->depth < 63)
		w->depth++;
	w->first[w->depth] = true;
}

static void close_(struct jw *w, char c)
{
	bool empty = w->first[w->depth];

	if (w->depth > 0)
		w->depth--;
	if (!empty)
		indent(w);
	fputc(c, w->f);
}

void jw_obj(struct jw *w, const char *key) { open_(w, key, '{'); }
void jw_arr(struct jw *w, const char *key) { open_(w, key, '['); }
void jw_end_obj(struct jw *w) { close_(w, '}'); }
void jw_end_arr(struct jw *w) { close_(w, ']'); }

void jw_num(struct jw *w, const char *key, double v)
{
	item(w, key);
	if (!isfinite(v))
		fputs("null", w->f);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(w->f, "%.0f", v == 0 ? 0.0 : v);
	else
		fprintf(w->f, "%.9g", v);
}

void jw_int(struct jw *w, const char *key, int64_t v)
{
	item(w, key);
	fprintf(w->f, "%lld", (long long)v);
}

void jw_str(struct jw *w, const char *key, const char *v)
{
	item(w, key);
	if (v)
		json_print_string(w->f, v);
	else
		fputs("null", w->f);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	item(w, key);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w, const char *key)
{
	item(w, key);
	fputs("null", w->f);
}

void jw_finish(struct jw *w)
{
	fputc('\n', w->f);
}
