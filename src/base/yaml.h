/* yaml.h - YAML input (the only module that talks to libyaml): a YAML
 * document becomes the same strict JSON tree our readers validate, so one
 * schema check serves both.  Plain scalars that read fully as numbers become
 * numbers; true/false and null/~ become booleans and null; quoted scalars stay
 * strings.  Anchors, aliases and tags are refused.  Syntax errors (a tab in
 * indentation, say) are SS_EDATA with file:line:column. */
#ifndef SERVESIM_YAML_H
#define SERVESIM_YAML_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/json.h"

int yaml_parse_file(const char *path, struct json **out, struct err *e);
/* The same over a buffer; path names it in messages. */
int yaml_parse_text(const char *buf, size_t len, const char *path, struct json **out,
		    struct err *e);
/* Parse a .yaml/.yml file with yaml_parse_file, anything else as JSON;
 * SS_EDATA for a file over max_bytes (read no further). */
int yaml_or_json_parse_file(const char *path, size_t max_bytes, struct json **out, struct err *e);
bool yaml_is_yaml_path(const char *path);

#endif
