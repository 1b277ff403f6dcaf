/* json.h - the project's JSON reader (an adapter over cJSON, which no other
 * file includes) and a small deterministic streaming writer.
 *
 * Parsing is strict: trailing garbage and duplicate object keys are errors,
 * reported as "SOURCE:LINE:COL: message".  Key lookups are case-sensitive.
 * Schema helpers (json_check_keys, json_req_*) produce messages that name the
 * source, the JSON path of the field, the bad value and what was expected. */
#ifndef SERVESIM_JSON_H
#define SERVESIM_JSON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

struct json; /* a parsed node; owned by the root returned from json_parse */

enum json_type {
	JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
};

/* Parse len bytes of text.  source names the input in messages.  On
 * success *out owns the whole tree (free with json_free). */
int json_parse(const char *text, size_t len, const char *source, struct json **out,
	       struct err *e);
/* Read (plain or .gz) file and parse it (files up to 1 GiB). */
int json_parse_file(const char *path, struct json **out, struct err *e);
/* json_parse_file for a file that is never large (a model's config.json, a
 * workload spec): SS_EDATA past max_bytes, read no further. */
int json_parse_file_max(const char *path, size_t max_bytes, struct json **out, struct err *e);
/* A parser of text into a tree: json_parse, yaml_parse_text (yaml.h). */
typedef int (*json_text_parser)(const char *text, size_t len, const char *source, struct json **out,
				struct err *e);
/* json_parse_file_max with another parser of the file's text. */
int json_parse_file_with(const char *path, size_t max_bytes, json_text_parser parse, struct json **out,
			 struct err *e);
void json_free(struct json *root);

enum json_type json_type_of(const struct json *j);
const char *json_type_name(enum json_type t);
/* Object member by exact key, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* Number of array elements or object members. */
size_t json_size(const struct json *j);
/* Array element / object member i (0-based), or NULL. */
const struct json *json_at(const struct json *j, size_t i);
/* Iteration over array elements or object members. */
const struct json *json_first(const struct json *j);
const struct json *json_next(const struct json *j);
/* Key of an object member, or NULL. */
const char *json_key(const struct json *member);
double json_number(const struct json *j);
/* A number as a long long without undefined behaviour: dflt when j is not
 * a finite number within +-2^62 (ids, shapes, counters in profiler traces). */
long long json_ll(const struct json *j, long long dflt);
const char *json_string(const struct json *j);
bool json_bool(const struct json *j);
/* Compact text of a number, a string or a (nested) array of them, as shapes
 * are written: [8,7168] or [[8,7168],[7168,2048]]; "" for anything else. */
void json_dims_text(const struct json *j, char *buf, size_t n);

/* --- schema helpers; ctx is "source: path" used as the message prefix --- */

/* Every key of obj must appear in the NULL-terminated allowed list. */
int json_check_keys(const struct json *obj, const char *const *allowed, const char *ctx,
		    struct err *e);
/* A catalogue file's record i (o, in file path) parsed into slot. */
typedef int (*json_record_parser)(const struct json *o, const char *path, size_t i, void *slot, struct err *e);
/* A catalogue file (data/gpus.json, data/models/index.json): path holds an
 * object with no keys but top (NULL-terminated), whose first, top[0], is
 * an array of records (at least one when nonempty); each parsed by parse
 * into its slot of a zeroed array of records of size bytes.  *items (the
 * caller frees it) and *n on success; nothing allocated on error. */
int json_load_records(const char *path, const char *const *top, bool nonempty, size_t size, json_record_parser parse,
		      void **items, size_t *n, struct err *e);
/* Required / optional number field.  Optional: *present (may be NULL) says
 * whether it was there; *out is untouched when absent. */
int json_req_num(const struct json *obj, const char *key, const char *ctx, double *out,
		 struct err *e);
int json_opt_num(const struct json *obj, const char *key, const char *ctx, double *out,
		 bool *present, struct err *e);
/* Integer fields: the number must be integral and within [lo, hi]. */
int json_req_int(const struct json *obj, const char *key, const char *ctx, int64_t lo,
		 int64_t hi, int64_t *out, struct err *e);
int json_opt_int(const struct json *obj, const char *key, const char *ctx, int64_t lo,
		 int64_t hi, int64_t *out, bool *present, struct err *e);
int json_req_str(const struct json *obj, const char *key, const char *ctx, const char **out,
		 struct err *e);
int json_opt_str(const struct json *obj, const char *key, const char *ctx, const char **out,
		 struct err *e);
int json_opt_bool(const struct json *obj, const char *key, const char *ctx, bool *out,
		  struct err *e);

/* --- writer: deterministic, pretty-printed, numbers that are integral and
 * below 2^53 printed without exponent, others with %.9g --- */
struct jw {
	FILE *f;
	int depth;
	bool first[64];
	bool pretty;
};

void jw_init(struct jw *w, FILE *f, bool pretty);
/* key is NULL inside arrays. */
void jw_obj(struct jw *w, const char *key);
void jw_arr(struct jw *w, const char *key);
void jw_end_obj(struct jw *w);
void jw_end_arr(struct jw *w);
void jw_num(struct jw *w, const char *key, double v);
void jw_int(struct jw *w, const char *key, int64_t v);
void jw_str(struct jw *w, const char *key, const char *v);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
/* Finish with a newline. */
void jw_finish(struct jw *w);
/* Serialise a parsed tree compactly to f (round trip of YAML input). */
void json_write_tree(FILE *out, const struct json *j);
/* Print a JSON string literal (with quotes and escapes) to f. */
void json_print_string(FILE *f, const char *s);

#endif
