/* argval.h - numbers and lists from a flag's text ("--tp 4", "--tp 1,2,4", "--gpu-memory-utilization
 * 0.85"), with messages that name the flag, the value and the range. */
#ifndef SERVESIM_BASE_ARGVAL_H
#define SERVESIM_BASE_ARGVAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* A decimal integer in [lo, hi] into *out; SS_EUSAGE otherwise ("FLAG
 * must be an integer, got 'x'", "FLAG must be in [lo, hi], got v"). */
int argval_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out, struct err *e);
/* A decimal number >= lo (> lo when lo_open) into *out; SS_EUSAGE
 * otherwise, past a double's range too. */
int argval_num(const char *flag, const char *arg, double lo, bool lo_open, double *out, struct err *e);
/* The number at the start of s, for flags whose value holds numbers among
 * other text ("h100:8", "1:4", "ttft:500"): a sign or digit first (no blank,
 * which strtoll and strtod pass over), decimal digits only (no hex, inf or
 * nan).  true with the value in *v and *end just past it; false when s does
 * not start with such a number, or (an integer) one past long long.  A
 * number past a double's range is HUGE_VAL or 0: the caller's range check
 * refuses it. */
bool argval_lead_int(const char *s, long long *v, const char **end);
bool argval_lead_num(const char *s, double *v, const char **end);
/* s is pat exactly, each '#' of pat an integer as argval_lead_int reads it
 * ("2p4d" against "#p#d"), the integers into v[0 .. nv-1] in order; the
 * replacement of sscanf("%dp%dd%c"), which passes over blanks. */
bool argval_pattern(const char *s, const char *pat, long long *v, int nv);
/* The items of a comma-separated list ("--tp 1,2,4"), one at a time:
 *	struct argval_items it;
 *	argval_items_start(&it, "--tp", arg);
 *	while ((rc = argval_items_next(&it, e)) > 0)
 *		use(it.item);
 * next gives 1 with the next item in it.item (a copy the caller may change),
 * 0 past the last one (at once for an empty list: the caller says what it
 * expected), or SS_EUSAGE naming the flag for an empty item (two commas in a
 * row, or one at either end, which a tokenizer would skip without a word)
 * or an item of ARGVAL_ITEM_MAX characters or more.  it.n counts the items
 * given so far. */
#define ARGVAL_ITEM_MAX 128
struct argval_items {
	const char *flag, *list, *p;
	bool comma; /* the last item ended at a comma: another must follow */
	size_t n;
	char item[ARGVAL_ITEM_MAX];
};
void argval_items_start(struct argval_items *it, const char *flag, const char *list);
int argval_items_next(struct argval_items *it, struct err *e);

#endif
