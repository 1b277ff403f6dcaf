/* yaml.c - libyaml adapter: events -> JSON text -> the strict JSON reader.
 * Going through text keeps cJSON behind json.c and gives YAML input exactly
 * the duplicate-key and type checks JSON input gets. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/alloc.h"
#include "base/sbuf.h"
#include "base/yaml.h"

#define YAML_MAX_DEPTH 64
#define YAML_MAX_FILE_BYTES ((size_t)1 << 30)

bool yaml_is_yaml_path(const char *path)
{
	size_t n = strlen(path);
	return (n > 5 && strcmp(path + n - 5, ".yaml") == 0) ||
	       (n > 4 && strcmp(path + n - 4, ".yml") == 0) ||
	       (n > 8 && strcmp(path + n - 8, ".yaml.gz") == 0);
}

static void put_string(struct sbuf *sb, const char *s, size_t n)
{
	size_t i;

	sb_putc(sb, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': sb_puts(sb, "\\\""); break;
		case '\\': sb_puts(sb, "\\\\"); break;
		case '\n': sb_puts(sb, "\\n"); break;
		case '\r': sb_puts(sb, "\\r"); break;
		case '\t': sb_puts(sb, "\\t"); break;
		default:
			if (c < 0x20)
				sb_printf(sb, "\\u%04x", c);
			else
				sb_putc(sb, (char)c);
		}
	}
	sb_putc(sb, '"');
}

/* YAML 1.2 core schema numbers (yaml.org/spec/1.2.2, 10.3.2 "Tag Resolution"):
 *   int    [-+]?[0-9]+  |  0o[0-7]+  |  0x[0-9a-fA-F]+
 *   float  [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
 *          [-+]?\.(inf|Inf|INF)  |  \.nan|\.NaN|\.NAN
 * Returns 1 with *v set for a number (ERANGE in *overflow when it does not
 * fit a double), 0 for any other scalar. */
static int yaml_number(const char *s, size_t n, double *v, bool *overflow)
{
	char buf[512], *end;
	size_t i = 0, d0;
	int neg = 0;

	*overflow = false;
	if (n == 0 || n >= sizeof(buf))
		return 0;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'o')) {
		int base = buf[1] == 'x' ? 16 : 8;
		const char *digits = base == 16 ? "0123456789abcdefABCDEF" : "01234567";
		unsigned long long u;
		if (strspn(buf + 2, digits) != n - 2)
			return 0;
		errno = 0;
		u = strtoull(buf + 2, &end, base);
		*overflow = errno == ERANGE;
		*v = (double)u;
		return 1;
	}
	if (!strcmp(buf, ".nan") || !strcmp(buf, ".NaN") || !strcmp(buf, ".NAN")) {
		*v = NAN;
		return 1;
	}
	if (buf[0] == '-' || buf[0] == '+') {
		neg = buf[0] == '-';
		i = 1;
	}
	if (!strcmp(buf + i, ".inf") || !strcmp(buf + i, ".Inf") || !strcmp(buf + i, ".INF")) {
		*v = neg ? -INFINITY : INFINITY;
		return 1;
	}
	d0 = i;
	i += strspn(buf + i, "0123456789");
	if (buf[i] == '.')
		i += 1 + strspn(buf + i + 1, "0123456789");
	if (i == d0 || (i == d0 + 1 && buf[d0] == '.'))
		return 0; /* no digit */
	if (buf[i] == 'e' || buf[i] == 'E') {
		size_t k = i + 1;
		if (buf[k] == '-' || buf[k] == '+')
			k++;
		if (!isdigit((unsigned char)buf[k]))
			return 0;
		i = k + strspn(buf + k, "0123456789");
	}
	if (i != n)
		return 0;
	errno = 0;
	*v = strtod(buf, &end);
	*overflow = errno == ERANGE && isinf(*v);
	return 1;
}

static int put_scalar(struct sbuf *sb, const yaml_event_t *ev, const char *path, struct err *e)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;
	double x;
	bool overflow;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
		put_string(sb, v, n);
	} else if (yaml_number(v, n, &x, &overflow)) {
		if (overflow)
			return err_set(e, SS_EDATA, "%s:%zu:%zu: number %.*s is out of the range of a double",
				       path, ev->start_mark.line + 1, ev->start_mark.column + 1, (int)n, v);
		if (isnan(x))
			sb_puts(sb, "NaN");
		else if (isinf(x))
			sb_puts(sb, x > 0 ? "Infinity" : "-Infinity");
		else
			sb_printf(sb, "%.17g", x);
	} else if ((n == 4 && (!memcmp(v, "true", 4) || !memcmp(v, "True", 4))) ||
		   (n == 5 && (!memcmp(v, "false", 5) || !memcmp(v, "False", 5)))) {
		sb_puts(sb, v[0] == 't' || v[0] == 'T' ? "true" : "false");
	} else if ((n == 4 && !memcmp(v, "null", 4)) || (n == 1 && v[0] == '~') || n == 0) {
		sb_puts(sb, "null");
	} else {
		put_string(sb, v, n);
	}
	return 0;
}

int yaml_parse_text(const char *buf, size_t len, const char *path, struct json **out,
		    struct err *e)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct sbuf sb;
	bool in_map[YAML_MAX_DEPTH], first[YAML_MAX_DEPTH], key_next[YAML_MAX_DEPTH];
	int depth = 0, rc = 0, done = 0, docs = 0;

	*out = NULL;
	if (!yaml_parser_initialize(&p))
		return err_set(e, SS_ERUNTIME, "%s: cannot initialise the YAML parser", path);
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	sb_init(&sb);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = err_set(e, SS_EDATA, "%s:%zu:%zu: %s%s%s", path, p.problem_mark.line + 1,
				     p.problem_mark.column + 1, p.problem ? p.problem : "malformed YAML",
				     p.context ? " " : "", p.context ? p.context : "");
			break;
		}
		if (ev.type == YAML_ALIAS_EVENT ||
		    ((ev.type == YAML_SCALAR_EVENT || ev.type == YAML_MAPPING_START_EVENT ||
		      ev.type == YAML_SEQUENCE_START_EVENT) &&
		     (ev.data.scalar.anchor != NULL))) {
			rc = err_set(e, SS_EDATA, "%s:%zu:%zu: anchors and aliases are not supported", path,
				     ev.start_mark.line + 1, ev.start_mark.column + 1);
			yaml_event_delete(&ev);
			break;
		}
		/* separators inside the current container */
		if (depth > 0 && (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_MAPPING_START_EVENT ||
				  ev.type == YAML_SEQUENCE_START_EVENT)) {
			int d = depth - 1;
			if (in_map[d]) {
				if (key_next[d]) {
					if (!first[d])
						sb_putc(&sb, ',');
					first[d] = false;
					if (ev.type != YAML_SCALAR_EVENT) {
						rc = err_set(e, SS_EDATA, "%s:%zu:%zu: mapping keys must be scalars",
							     path, ev.start_mark.line + 1, ev.start_mark.column + 1);
						yaml_event_delete(&ev);
						break;
					}
				} else {
					sb_putc(&sb, ':');
				}
			} else {
				if (!first[d])
					sb_putc(&sb, ',');
				first[d] = false;
			}
		}
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
			if (depth > 0 && in_map[depth - 1] && key_next[depth - 1])
				put_string(&sb, (const char *)ev.data.scalar.value, ev.data.scalar.length);
			else
				rc = put_scalar(&sb, &ev, path, e);
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (depth >= YAML_MAX_DEPTH) {
				rc = err_set(e, SS_EDATA, "%s:%zu:%zu: nested deeper than %d levels", path,
					     ev.start_mark.line + 1, ev.start_mark.column + 1, YAML_MAX_DEPTH);
				break;
			}
			in_map[depth] = ev.type == YAML_MAPPING_START_EVENT;
			first[depth] = true;
			key_next[depth] = true;
			depth++;
			sb_putc(&sb, in_map[depth - 1] ? '{' : '[');
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			sb_putc(&sb, ev.type == YAML_MAPPING_END_EVENT ? '}' : ']');
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1)
				done = 1; /* the first document only */
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		/* a completed value flips the key/value expectation of its map */
		if (rc == 0 && depth > 0 && in_map[depth - 1] &&
		    (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_MAPPING_END_EVENT ||
		     ev.type == YAML_SEQUENCE_END_EVENT))
			key_next[depth - 1] = !key_next[depth - 1];
		yaml_event_delete(&ev);
		if (rc < 0)
			break;
	}
	yaml_parser_delete(&p);
	if (rc == 0) {
		if (sb.len == 0)
			rc = err_set(e, SS_EDATA, "%s: empty YAML document", path);
		else
			rc = json_parse(sb.buf, sb.len, path, out, e);
	}
	sb_release(&sb);
	return rc;
}

int yaml_parse_file(const char *path, struct json **out, struct err *e)
{
	return json_parse_file_with(path, YAML_MAX_FILE_BYTES, yaml_parse_text, out, e);
}

int yaml_or_json_parse_file(const char *path, size_t max_bytes, struct json **out, struct err *e)
{
	if (yaml_is_yaml_path(path))
		return json_parse_file_with(path, max_bytes, yaml_parse_text, out, e);
	return json_parse_file_max(path, max_bytes, out, e);
}
