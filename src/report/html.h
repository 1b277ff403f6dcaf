/* html.h - the self-contained HTML page of a servesim result (output
 * module): `--html FILE` on search, capacity, sweep and eval, and
 * `servesim report RESULT.json`.  The page is built from the result's JSON
 * (what --format json writes; sweep's rows as an array), so a saved result
 * gives the same page: inline CSS and SVG charts, tables sortable and
 * filterable by an inline script, each row's configuration behind it, no
 * external asset. */
#ifndef SERVESIM_HTML_H
#define SERVESIM_HTML_H
#include <stdio.h>

#include "base/err.h"
#include "base/json.h"
#include "base/sbuf.h"
#include "plan/sweep.h"

/* A saved result: one JSON document (search, capacity, eval --format
 * json), or sweep's rows as JSONL or CSV (header first), as one array;
 * free with json_free. */
int html_result_parse(const char *text, size_t len, const char *source, struct json **out, struct err *e);
/* "search", "capacity", "sweep", "eval", or NULL when res is none of them. */
const char *html_kind(const struct json *res);
/* The page of res to f; source (may be NULL) names where it came from.
 * SS_EDATA when res is not a servesim result. */
int html_page(FILE *f, const struct json *res, const char *source, struct err *e);
/* The page of res written to path atomically (afile.h). */
int html_write(const char *path, const struct json *res, const char *source, struct err *e);
/* --html FILE: a command writes its JSON result to the stream
 * html_capture_open gives; html_capture_page parses it and writes its page
 * to f (an output the command commits with its others: afile_set), then
 * frees the capture. */
struct html_capture {
	char *buf;
	size_t len;
	FILE *f;
};
FILE *html_capture_open(struct html_capture *h);
int html_capture_page(struct html_capture *h, FILE *f, struct err *e);
/* search --html: the page of a struct search_report's JSON result, an
 * afile_job writer. */
int html_search_file(FILE *f, const void *R, struct err *e);
/* A sweep's outputs: the header and the n rows (format f) to out (NULL:
 * standard output, after the files), their charts (out_sweep_svg) to svg
 * and their page to html (NULL: none), the files all or none; model (NULL:
 * the default) names the sweep in the charts' title. */
int html_sweep_outputs(const struct sbuf *rows, size_t n, enum sweep_fmt f, const char *out, const char *svg,
		       const char *html, const char *model, struct err *e);

#endif
