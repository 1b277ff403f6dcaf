/* jfield.h - a JSON object's fields copied into a record's own storage: a
 * string into a fixed buffer, an integer into an int, a required member
 * found; the steps each reader of a settings file (experiment.json, a
 * calibration file, engine facts) would otherwise spell out per field.
 * Messages are json.h's: "CTX: missing required key 'KEY'" and the like. */
#ifndef SERVESIM_BASE_JFIELD_H
#define SERVESIM_BASE_JFIELD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/json.h"

/* A string member into dst[n] (cut to fit); required when req, else dst is
 * untouched when the key is absent. */
int jf_str(const struct json *o, const char *key, const char *ctx, char *dst, size_t n, bool req,
	   struct err *e);
/* An optional integer member in [lo, hi] into *dst, untouched when absent. */
int jf_int(const struct json *o, const char *key, const char *ctx, int64_t lo, int64_t hi, int *dst,
	   struct err *e);
/* A required member of any type: *out, or SS_EDATA naming key. */
int jf_req(const struct json *o, const char *key, const char *ctx, const struct json **out,
	   struct err *e);
/* A document read from YAML or JSON that must be a mapping: SS_EDATA
 * "CTX: expected a mapping of WHAT, got TYPE" when it is not. */
int jf_mapping(const struct json *j, const char *ctx, const char *what, struct err *e);
#endif
