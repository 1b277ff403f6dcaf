/* confreport.h - the stated confidence of a prediction (accuracy.h) in
 * run's, capacity's and search's reports: one text line per headline
 * metric, and the JSON members summary.confidence (per metric
 * {p50_abs_err, p90_abs_err, rows, class} or null), confidence_class and
 * confidence_residuals. */
#ifndef SERVESIM_CONFREPORT_H
#define SERVESIM_CONFREPORT_H
#include <stdio.h>

#include "eval/accuracy.h"
#include "base/json.h"

/* A heading line (where, e.g. "at the answer, ", may be NULL), then
 * "  |err| TTFT mean   p50 31 %, p90 86 % (N rows)" (naming the coarser
 * class it fell back to) or "... no evidence (no measured run of CLASS)"
 * per metric; one line when there is no accuracy file. */
void out_confidence_text(FILE *f, const struct acc_confidence *c, const char *where);
/* "confidence", "confidence_class" and "confidence_residuals" into the open
 * object of w. */
void out_confidence_json(struct jw *w, const struct acc_confidence *c);

#endif
