/* json.c - the only file that includes cJSON.  Adds what cJSON lacks for our
 * inputs: line:column on parse errors, rejection of trailing garbage and of
 * duplicate keys, and typed getters whose messages name the JSON path. */
#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "base/json.h"

#define J(x) ((const cJSON *)(x))
#define JSON_MAX_FILE_BYTES ((size_t)1 << 30)

static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	const char *p = text, *nl;

	/* memchr, not a byte loop: every failed parse of a fuzzer input comes here */
	*line = 1;
	while ((nl = memchr(p, '\n', off - (size_t)(p - text))) != NULL) {
		(*line)++;
		p = nl + 1;
	}
	*col = off - (size_t)(p - text) + 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Depth-first check for duplicate keys; returns the first duplicate key. */
static const char *find_duplicate(const cJSON *j)
{
	const cJSON *c;
	const char **keys = NULL;
	size_t n = 0, i;
	const char *dup = NULL;

	if (!cJSON_IsObject(j) && !cJSON_IsArray(j))
		return NULL;
	for (c = j->child; c; c = c->next) {
		const char *d = find_duplicate(c);
		if (d)
			return d;
		n++;
	}
	if (!cJSON_IsObject(j) || n < 2)
		return NULL;
	if (n <= 16) {
		/* most objects are small: the least duplicated key (what the sort
		 * below finds first) by pairs, without an allocation and a sort
		 * per object (a fifth of reading accuracy.json) */
		const cJSON *d;
		for (c = j->child; c; c = c->next) {
			const char *a = c->string ? c->string : "";
			for (d = c->next; d; d = d->next) {
				const char *b = d->string ? d->string : "";
				if (a[0] == b[0] && strcmp(a, b) == 0 && (!dup || strcmp(a, dup) < 0))
					dup = a;
			}
		}
		return dup;
	}
	/* keys in strictly ascending order hold no duplicate (accuracy.json's
	 * 123 classes are written so): one pass, no sort */
	for (c = j->child; c->next; c = c->next)
		if (strcmp(c->string ? c->string : "", c->next->string ? c->next->string : "") >= 0)
			break;
	if (!c->next)
		return NULL;
	keys = xmalloc(xmul(n, sizeof(*keys)));
	i = 0;
	for (c = j->child; c; c = c->next)
		keys[i++] = c->string ? c->string : "";
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 1; i < n && !dup; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			dup = keys[i];
	free(keys);
	return dup;
}

/* A parse's memory.  cJSON allocates a node for every value and a string for
 * every key and string value, and frees them one by one (accuracy.json: ~10,000
 * of each, about a third of reading it).  While json_parse runs, the hooks
 * below give this thread's cJSON its memory from an arena of the parse, in
 * chunks of geometric size, freed whole by json_free (a free during the parse,
 * of the arena's memory, does nothing); elsewhere (cJSON_PrintUnformatted in
 * json_write_tree) they are malloc and free.  Nothing points to a root node,
 * so the root is copied into the document's header at the start of the first
 * chunk, from which json_free finds the chunks. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	_Alignas(16) unsigned char data[];
};

struct arena {
	struct arena_chunk *first, *last;
};

struct json_doc {
	struct arena_chunk *chunks;
	cJSON root;
};

static _Thread_local struct arena *cur_arena; /* the parse in progress on this thread */
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static struct arena_chunk *arena_chunk_new(size_t cap)
{
	struct arena_chunk *c = xmalloc(xadd(sizeof(*c), cap));

	c->next = NULL;
	c->cap = cap;
	c->used = 0;
	return c;
}

static void *arena_take(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->last;
	void *p;

	n = xadd(n, 15) & ~(size_t)15;
	if (c->cap - c->used < n) {
		size_t cap = xmul(c->cap > n ? c->cap : n, 2);
		c->next = arena_chunk_new(cap);
		c = a->last = c->next;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

static void arena_free_all(struct arena_chunk *c)
{
	while (c) {
		struct arena_chunk *next = c->next;
		free(c);
		c = next;
	}
}

static void *hook_malloc(size_t n)
{
	return cur_arena ? arena_take(cur_arena, n) : malloc(n);
}

static void hook_free(void *p)
{
	if (!cur_arena)
		free(p);
}

static void hooks_init(void)
{
	cJSON_Hooks h = {hook_malloc, hook_free};

	cJSON_InitHooks(&h);
}

/* Python's json module writes the bare literals NaN, Infinity and -Infinity
 * (json.dumps with its default allow_nan=True; docs.python.org/3/library/json.html),
 * and published model configs contain them.  cJSON refuses them, so before
 * parsing each such literal in a value position is replaced, in a copy, by a
 * string of the same length made of 0xFF bytes ("\xff" for NaN, six for
 * Infinity, seven for -Infinity), which lines and columns keep; after parsing,
 * those strings become numbers again.  0xFF never occurs in UTF-8, so a raw
 * 0xFF byte in the input is refused and no real string can be mistaken for a
 * marker.  Whether a field may hold a non-finite value is the reader's call
 * (json_opt_num refuses them).  JSON_MAX_DEPTH is cJSON's CJSON_NESTING_LIMIT. */
#define JSON_MAX_DEPTH 1000
#define JSON_MARK ((char)0xFF)

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_delim(char c)
{
	return c != '\0' && strchr("{}[]:,\"", c) != NULL;
}

static bool ends_token(const char *t, size_t i, size_t len)
{
	return i >= len || is_ws(t[i]) || is_delim(t[i]);
}

/* Whether s occurs in t[0..len) (memmem is a GNU extension). */
static bool has_text(const char *t, size_t len, const char *s)
{
	size_t n = strlen(s);
	const char *p = t, *end = t + len;

	while ((size_t)(end - p) >= n && (p = memchr(p, s[0], (size_t)(end - p) - n + 1)) != NULL) {
		if (memcmp(p, s, n) == 0)
			return true;
		p++;
	}
	return false;
}

/* Scan text outside strings, keeping a stack of open containers to know
 * whether a token is in a value position.  Returns the copy with markers
 * (or NULL when none was needed); *bad is the offset of a raw 0xFF byte. */
static char *mark_literals(const char *t, size_t len, size_t *bad)
{
	static const char *const lit[] = {"NaN", "Infinity", "-Infinity"};
	char stack[JSON_MAX_DEPTH];
	size_t depth = 0, i = 0, k, n;
	char prev = 0, *copy = NULL;

	*bad = SIZE_MAX;
	/* nothing to mark and nothing to refuse: skip the byte loop (most files;
	 * memchr is far faster than it, and than it under the fuzzers'
	 * per-comparison instrumentation) */
	if (!memchr(t, JSON_MARK, len) && !has_text(t, len, "NaN") && !has_text(t, len, "Infinity"))
		return NULL;
	while (i < len) {
		char c = t[i];
		bool value_pos;

		if (is_ws(c)) {
			i++;
			continue;
		}
		if (c == '"') {
			for (i++; i < len && t[i] != '"'; i++) {
				if (t[i] == JSON_MARK) {
					*bad = i;
					free(copy);
					return NULL;
				}
				if (t[i] == '\\')
					i++;
			}
			i++;
			prev = '"';
			continue;
		}
		if (c == '{' || c == '[') {
			if (depth < JSON_MAX_DEPTH)
				stack[depth] = c;
			depth++;
			prev = c;
			i++;
			continue;
		}
		if (c == '}' || c == ']' || c == ':' || c == ',') {
			if ((c == '}' || c == ']') && depth > 0)
				depth--;
			prev = c;
			i++;
			continue;
		}
		value_pos = prev == 0 || prev == ':' || prev == '[' ||
			    (prev == ',' && depth > 0 && depth <= JSON_MAX_DEPTH && stack[depth - 1] == '[');
		for (k = 0; value_pos && k < sizeof(lit) / sizeof(lit[0]); k++) {
			n = strlen(lit[k]);
			if (len - i >= n && memcmp(t + i, lit[k], n) == 0 && ends_token(t, i + n, len))
				break;
		}
		if (value_pos && k < sizeof(lit) / sizeof(lit[0])) {
			if (!copy) {
				copy = xmalloc(len);
				memcpy(copy, t, len);
			}
			copy[i] = '"';
			memset(copy + i + 1, JSON_MARK, n - 2);
			copy[i + n - 1] = '"';
			i += n;
		} else {
			do
				i++;
			while (i < len && !is_ws(t[i]) && !is_delim(t[i]));
		}
		prev = 'v';
	}
	return copy;
}

/* A marker string back to the number it stands for. */
static void unmark_literals(cJSON *j)
{
	cJSON *c;

	if (cJSON_IsString(j) && j->valuestring && j->valuestring[0] == JSON_MARK) {
		size_t n = strlen(j->valuestring);
		double v = n == 1 ? NAN : n == 6 ? INFINITY : -INFINITY;
		cJSON_free(j->valuestring);
		j->valuestring = NULL;
		j->type = cJSON_Number;
		j->valuedouble = v;
		j->valueint = 0;
		return;
	}
	for (c = j->child; c; c = c->next)
		unmark_literals(c);
}

/* A number token that overflows a double parses as +-HUGE_VAL in cJSON;
 * refuse it (the literals above are the only way to write an infinity).
 * Returns the path-less key of the first one, or "" at the top. */
static const cJSON *find_overflow(const cJSON *j)
{
	const cJSON *c, *r;

	if (cJSON_IsNumber(j) && isinf(j->valuedouble))
		return j;
	for (c = j->child; c; c = c->next)
		if ((r = find_overflow(c)) != NULL)
			return r;
	return NULL;
}

/* How many arrays and objects are open at text[off] (outside strings):
 * whether a parse failed on cJSON's nesting limit, not on the text. */
static size_t depth_at(const char *t, size_t off)
{
	size_t i, depth = 0;
	bool in_str = false;

	for (i = 0; i < off; i++) {
		char c = t[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return depth;
}

int json_parse(const char *text, size_t len, const char *source, struct json **out,
	       struct err *e)
{
	const char *end = NULL;
	cJSON *root;
	size_t line, col, off, bad, open;
	const char *dup;
	char *marked;
	const cJSON *big;
	struct arena ar;
	struct json_doc *doc;

	*out = NULL;
	if (len == 0)
		return err_set(e, SS_EDATA, "%s:1:1: empty input, expected a JSON value", source);
	marked = mark_literals(text, len, &bad);
	if (bad != SIZE_MAX) {
		line_col(text, bad, &line, &col);
		return err_set(e, SS_EDATA, "%s:%zu:%zu: byte 0xff is not valid UTF-8", source, line,
			       col);
	}
	pthread_once(&hooks_once, hooks_init);
	/* the first chunk: the document's header, then about as many bytes as
	 * the text (cJSON takes ~3-6 times that: two or three more chunks) */
	ar.first = ar.last = arena_chunk_new(xadd(len, 4096));
	doc = arena_take(&ar, sizeof(*doc));
	cur_arena = &ar;
	root = cJSON_ParseWithLengthOpts(marked ? marked : text, len, &end, 0);
	big = root ? find_overflow(root) : NULL;
	if (root && !big)
		unmark_literals(root); /* cJSON_free of the markers' strings: the arena's */
	cur_arena = NULL;
	if (marked && end)
		end = text + (end - marked);
	free(marked);
	if (!root) {
		arena_free_all(ar.first);
		off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
		line_col(text, off, &line, &col);
		if (depth_at(text, off) >= JSON_MAX_DEPTH)
			return err_set(e, SS_EDATA, "%s:%zu:%zu: malformed JSON: arrays and objects nested more than %d deep",
				       source, line, col, JSON_MAX_DEPTH);
		/* brackets still open at the end: a cut file (a write that
		 * stopped, a copy of its head), whose end is where it breaks */
		if ((open = depth_at(text, len)) > 0) {
			size_t z = len; /* just past its last character */
			while (z > 0 && (text[z - 1] == ' ' || text[z - 1] == '\n' || text[z - 1] == '\r' ||
					 text[z - 1] == '\t'))
				z--;
			line_col(text, z, &line, &col);
			return err_set(e, SS_EDATA, "%s:%zu:%zu: malformed JSON: the text ends with %zu object%s or "
				       "array%s still open (a truncated file?)", source, line, col, open,
				       open == 1 ? "" : "s", open == 1 ? "" : "s");
		}
		return err_set(e, SS_EDATA, "%s:%zu:%zu: malformed JSON", source, line, col);
	}
	if (big) {
		int rc = err_set(e, SS_EDATA, "%s: number%s%s%s is out of the range of a double "
				 "(write Infinity if that is meant)", source, big->string ? " '" : "",
				 big->string ? big->string : "", big->string ? "'" : "");
		arena_free_all(ar.first);
		return rc;
	}
	off = end ? (size_t)(end - text) : len;
	while (off < len && is_ws(text[off]))
		off++;
	if (off < len) {
		arena_free_all(ar.first);
		line_col(text, off, &line, &col);
		return err_set(e, SS_EDATA, "%s:%zu:%zu: unexpected characters after the JSON value",
			       source, line, col);
	}
	dup = find_duplicate(root);
	if (dup) {
		int rc = err_set(e, SS_EDATA, "%s: duplicate key '%s'", source, dup);
		arena_free_all(ar.first);
		return rc;
	}
	doc->chunks = ar.first;
	doc->root = *root;
	*out = (struct json *)&doc->root;
	return 0;
}

int json_parse_file(const char *path, struct json **out, struct err *e)
{
	return json_parse_file_max(path, JSON_MAX_FILE_BYTES, out, e);
}

int json_parse_file_max(const char *path, size_t max_bytes, struct json **out, struct err *e)
{
	return json_parse_file_with(path, max_bytes, json_parse, out, e);
}

int json_parse_file_with(const char *path, size_t max_bytes, json_text_parser parse, struct json **out,
			 struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = gzr_read_file(path, max_bytes, &buf, &len, e);

	if (rc < 0)
		return rc;
	rc = parse(buf, len, path, out, e);
	free(buf);
	return rc;
}

void json_free(struct json *root)
{
	if (root) {
		struct json_doc *doc = (struct json_doc *)((char *)root - offsetof(struct json_doc, root));
		arena_free_all(doc->chunks);
	}
}

enum json_type json_type_of(const struct json *j)
{
	const cJSON *c = J(j);

	if (cJSON_IsBool(c))
		return JSON_BOOL;
	if (cJSON_IsNumber(c))
		return JSON_NUMBER;
	if (cJSON_IsString(c))
		return JSON_STRING;
	if (cJSON_IsArray(c))
		return JSON_ARRAY;
	if (cJSON_IsObject(c))
		return JSON_OBJECT;
	return JSON_NULL;
}

const char *json_type_name(enum json_type t)
{
	switch (t) {
	case JSON_NULL: return "null";
	case JSON_BOOL: return "a boolean";
	case JSON_NUMBER: return "a number";
	case JSON_STRING: return "a string";
	case JSON_ARRAY: return "an array";
	case JSON_OBJECT: return "an object";
	}
	return "?";
}

const struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || !cJSON_IsObject(J(obj)))
		return NULL;
	return (const struct json *)cJSON_GetObjectItemCaseSensitive(J(obj), key);
}

size_t json_size(const struct json *j)
{
	const cJSON *c;
	size_t n = 0;

	if (!j)
		return 0;
	for (c = J(j)->child; c; c = c->next)
		n++;
	return n;
}

const struct json *json_at(const struct json *j, size_t i)
{
	const cJSON *c;

	if (!j || !(cJSON_IsArray(J(j)) || cJSON_IsObject(J(j))))
		return NULL;
	for (c = J(j)->child; c && i; c = c->next)
		i--;
	return (const struct json *)c;
}

const struct json *json_first(const struct json *j)
{
	if (!j || !(cJSON_IsArray(J(j)) || cJSON_IsObject(J(j))))
		return NULL;
	return (const struct json *)J(j)->child;
}

const struct json *json_next(const struct json *j)
{
	return j ? (const struct json *)J(j)->next : NULL;
}

const char *json_key(const struct json *member)
{
	return member ? J(member)->string : NULL;
}

double json_number(const struct json *j)
{
	return j && cJSON_IsNumber(J(j)) ? J(j)->valuedouble : NAN;
}

long long json_ll(const struct json *j, long long dflt)
{
	double v = json_number(j);

	return v >= -0x1p62 && v <= 0x1p62 ? (long long)v : dflt;
}

const char *json_string(const struct json *j)
{
	return j && cJSON_IsString(J(j)) ? J(j)->valuestring : NULL;
}

bool json_bool(const struct json *j)
{
	return j && cJSON_IsTrue(J(j));
}

/* Short printable rendering of a value for messages. */
static void describe(const struct json *j, char *buf, size_t n)
{
	switch (json_type_of(j)) {
	case JSON_NUMBER:
		snprintf(buf, n, "%.10g", json_number(j));
		break;
	case JSON_STRING:
		snprintf(buf, n, "\"%.60s\"", json_string(j));
		break;
	case JSON_BOOL:
		snprintf(buf, n, "%s", json_bool(j) ? "true" : "false");
		break;
	default:
		snprintf(buf, n, "%s", json_type_name(json_type_of(j)));
	}
}

int json_load_records(const char *path, const char *const *top, bool nonempty, size_t size, json_record_parser parse,
		      void **items, size_t *n, struct err *e)
{
	struct json *root = NULL;
	const struct json *arr, *o;
	char *v = NULL;
	size_t i = 0, len = 0;
	int rc;

	if ((rc = json_parse_file(path, &root, e)) < 0)
		return rc;
	if ((rc = json_check_keys(root, top, path, e)) < 0)
		goto out;
	arr = json_get(root, top[0]);
	if (!arr || json_type_of(arr) != JSON_ARRAY || (nonempty && json_size(arr) == 0)) {
		rc = err_set(e, SS_EDATA, "%s: '%s' must be a%s array", path, top[0], nonempty ? " non-empty" : "n");
		goto out;
	}
	len = json_size(arr);
	v = xcalloc(len ? len : 1, size);
	for (o = json_first(arr); o; o = json_next(o), i++)
		if ((rc = parse(o, path, i, v + i * size, e)) < 0)
			goto out;
	*items = v;
	*n = len;
	v = NULL;
out:
	free(v);
	json_free(root);
	return rc;
}

int json_check_keys(const struct json *obj, const char *const *allowed, const char *ctx,
		    struct err *e)
{
	const struct json *m;

	if (json_type_of(obj) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected an object, got %s", ctx,
			       json_type_name(json_type_of(obj)));
	for (m = json_first(obj); m; m = json_next(m)) {
		const char *k = json_key(m);
		const char *const *a;
		int ok = 0;
		for (a = allowed; *a; a++)
			if ((*a)[0] == k[0] && strcmp(*a, k) == 0) {
				ok = 1;
				break;
			}
		if (!ok) {
			struct sbuf_local { char s[600]; } l;
			size_t off = 0;
			l.s[0] = '\0';
			for (a = allowed; *a && off < sizeof(l.s) - 40; a++)
				off += (size_t)snprintf(l.s + off, sizeof(l.s) - off, "%s%s",
							a == allowed ? "" : ", ", *a);
			return err_set(e, SS_EDATA, "%s: unknown key '%s' (expected one of: %s)", ctx,
				       k, l.s);
		}
	}
	return 0;
}

/* obj's key in *out when it is there and not null, NULL otherwise; of
 * type t, which want names in the message, or an error. */
static int opt_value(const struct json *obj, const char *key, const char *ctx, enum json_type t, const char *want,
		     const struct json **out, struct err *e)
{
	const struct json *v = json_get(obj, key);
	char d[80];

	*out = NULL;
	if (!v || json_type_of(v) == JSON_NULL)
		return 0;
	if (json_type_of(v) != t) {
		describe(v, d, sizeof(d));
		return err_set(e, SS_EDATA, "%s: '%s' must be %s, got %s", ctx, key, want, d);
	}
	*out = v;
	return 0;
}

int json_opt_num(const struct json *obj, const char *key, const char *ctx, double *out,
		 bool *present, struct err *e)
{
	const struct json *v;
	int rc = opt_value(obj, key, ctx, JSON_NUMBER, "a number", &v, e);

	if (present)
		*present = false;
	if (rc < 0 || !v)
		return rc;
	/* NaN and +-Infinity parse (Python writes them) but are no value for a
	 * field read through the schema helpers */
	if (!isfinite(json_number(v)))
		return err_set(e, SS_EDATA, "%s: '%s' must be a finite number, got %g", ctx, key,
			       json_number(v));
	*out = json_number(v);
	if (present)
		*present = true;
	return 0;
}

int json_req_num(const struct json *obj, const char *key, const char *ctx, double *out,
		 struct err *e)
{
	bool present;
	int rc = json_opt_num(obj, key, ctx, out, &present, e);

	if (rc < 0)
		return rc;
	if (!present)
		return err_set(e, SS_EDATA, "%s: missing required key '%s'", ctx, key);
	return 0;
}

int json_opt_int(const struct json *obj, const char *key, const char *ctx, int64_t lo,
		 int64_t hi, int64_t *out, bool *present, struct err *e)
{
	double v = 0;
	bool p = false;
	int rc = json_opt_num(obj, key, ctx, &v, &p, e);

	if (present)
		*present = p;
	if (rc < 0 || !p)
		return rc;
	/* (double)INT64_MAX rounds up to 2^63, which no int64_t holds */
	if (v != floor(v) || v < (double)lo || v > (double)hi || v >= 0x1p63) {
		if (v != floor(v))
			return err_set(e, SS_EDATA, "%s: '%s' must be an integer, got %.10g", ctx, key, v);
		if (hi == INT64_MAX && v >= (double)lo)
			return err_set(e, SS_EDATA, "%s: '%s' must be below 2^63, got %.10g", ctx, key, v);
		if (hi == INT64_MAX)
			return err_set(e, SS_EDATA, "%s: '%s' must be >= %lld, got %.10g", ctx, key,
				       (long long)lo, v);
		return err_set(e, SS_EDATA, "%s: '%s' must be in [%lld, %lld], got %.10g", ctx, key,
			       (long long)lo, (long long)hi, v);
	}
	*out = (int64_t)v;
	return 0;
}

int json_req_int(const struct json *obj, const char *key, const char *ctx, int64_t lo,
		 int64_t hi, int64_t *out, struct err *e)
{
	bool present;
	int rc = json_opt_int(obj, key, ctx, lo, hi, out, &present, e);

	if (rc < 0)
		return rc;
	if (!present)
		return err_set(e, SS_EDATA, "%s: missing required key '%s'", ctx, key);
	return 0;
}

int json_opt_str(const struct json *obj, const char *key, const char *ctx, const char **out,
		 struct err *e)
{
	const struct json *v;
	int rc = opt_value(obj, key, ctx, JSON_STRING, "a string", &v, e);

	if (v)
		*out = json_string(v);
	return rc;
}

int json_req_str(const struct json *obj, const char *key, const char *ctx, const char **out,
		 struct err *e)
{
	const char *s = NULL;
	int rc = json_opt_str(obj, key, ctx, &s, e);

	if (rc < 0)
		return rc;
	if (!s)
		return err_set(e, SS_EDATA, "%s: missing required key '%s'", ctx, key);
	*out = s;
	return 0;
}

int json_opt_bool(const struct json *obj, const char *key, const char *ctx, bool *out,
		  struct err *e)
{
	const struct json *v;
	int rc = opt_value(obj, key, ctx, JSON_BOOL, "true or false", &v, e);

	if (v)
		*out = json_bool(v);
	return rc;
}

void json_write_tree(FILE *out, const struct json *j)
{
	char *t = cJSON_PrintUnformatted(J(j));

	if (t) {
		fputs(t, out);
		cJSON_free(t);
	}
}

void json_dims_text(const struct json *d, char *b, size_t n)
{
	const struct json *x;
	size_t used = 0;

	b[0] = '\0';
	if (!d)
		return;
	if (json_type_of(d) == JSON_STRING) {
		snprintf(b, n, "%s", json_string(d));
		return;
	}
	if (json_type_of(d) == JSON_NUMBER) {
		snprintf(b, n, "%.0f", json_number(d));
		return;
	}
	if (json_type_of(d) != JSON_ARRAY)
		return;
	used += (size_t)snprintf(b + used, n - used, "[");
	for (x = json_first(d); x && used < n; x = json_next(x)) {
		char sub[96];
		json_dims_text(x, sub, sizeof(sub));
		used += (size_t)snprintf(b + used, n - used, "%s%s", x == json_first(d) ? "" : ",", sub);
	}
	if (used < n)
		snprintf(b + used, n - used, "]");
}
