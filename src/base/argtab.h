/* argtab.h - a command's flags as one declarative table: each row a flag
 * (spelling, argument kind, where its value goes, range) with its --help
 * lines, or a help line alone.  The getopt entries, the value parsing with
 * messages that name the flag, and the --help text all come from the rows,
 * so a simple flag is one row and nothing else. */
#ifndef SERVESIM_BASE_ARGTAB_H
#define SERVESIM_BASE_ARGTAB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <getopt.h>

#include "base/err.h"

enum argtab_kind {
	AT_TEXT,    /* no flag: doc printed as it is */
	AT_SECTION, /* no flag: section(f) prints help lines kept elsewhere */
	AT_STR,     /* const char * at off: the argument */
	AT_SET,     /* bool at off set true; no argument */
	AT_CLEAR,   /* bool at off set false; no argument */
	AT_INT,     /* int64_t at off in [lo, hi] */
	AT_I32,     /* int at off in [lo, hi] */
	AT_NUM,     /* double at off >= num_lo (> num_lo when lo_open) */
	AT_OWN,     /* the command parses its argument: code handed back
		     * (an included table's too) */
	AT_OWN0,    /* the same for a flag without an argument */
	AT_ALIAS,   /* another spelling of the nearest flag row above (no help) */
	AT_FUNC,    /* fn parses the argument into base + off */
	AT_MARK,    /* no argument: only its .given mark is set */
	AT_CHOICE,  /* int at off: the index of the argument among .words
		     * ("text|json|summary") */
	AT_TABLE    /* another table's rows in place of this one, their values
		     * at base + off (a shared option set); a command's own row
		     * of the same spelling, above it, takes its place */
};

struct argtab;

struct argtab_row {
	enum argtab_kind kind;
	const char *flag;   /* "--seeds", or "-o" for a short option */
	const char *arg;    /* the value's name in --help ("K"); NULL: none */
	const char *doc;    /* help text: its first line after the flag at the
			     * table's column, the others ('\n') at the column;
			     * NULL: no help line; AT_TEXT: the text itself */
	size_t off;         /* the value at base + off */
	int64_t lo, hi;     /* AT_INT, AT_I32 */
	double num_lo;      /* AT_NUM */
	bool lo_open;
	size_t given;       /* ARGTAB_GIVEN(type, member): a bool set true when
			     * the flag is given (0: none); AT_TABLE: when any
			     * of the table's flags is */
	unsigned bit;       /* nonzero: .given marks an unsigned, bit or-ed in */
	int code;           /* AT_OWN: the command's code for it */
	void (*section)(FILE *f); /* AT_SECTION */
	/* AT_FUNC: the value of flag into dst (base + off); <0 with e set */
	int (*fn)(const char *flag, const char *arg, void *dst, struct err *e);
	const struct argtab *sub; /* AT_TABLE */
	size_t marks;       /* AT_TABLE: ARGTAB_GIVEN-style offset of where the
			     * table's .given marks lie (0: with its values) */
	bool quiet;         /* AT_TABLE: its help is not printed here */
	const char *words;  /* AT_CHOICE */
};

#define ARGTAB_GIVEN(type, m) (offsetof(type, m) + 1)
/* A row's members by kind, to write inside a row's braces (other members,
 * such as .given, may follow): {AT_I("--seeds", "K", O(seeds), 1, 64, "doc")}. */
#define AT_S(f, a, o, d) .kind = AT_STR, .flag = (f), .arg = (a), .off = (o), .doc = (d)
#define AT_B(f, o, d) .kind = AT_SET, .flag = (f), .off = (o), .doc = (d)
#define AT_C(f, o, d) .kind = AT_CLEAR, .flag = (f), .off = (o), .doc = (d)
#define AT_I(f, a, o, l, h, d) .kind = AT_INT, .flag = (f), .arg = (a), .off = (o), .lo = (l), .hi = (h), .doc = (d)
#define AT_I32V(f, a, o, l, h, d) .kind = AT_I32, .flag = (f), .arg = (a), .off = (o), .lo = (l), .hi = (h), .doc = (d)
#define AT_N(f, a, o, l, open, d) .kind = AT_NUM, .flag = (f), .arg = (a), .off = (o), .num_lo = (l), .lo_open = (open), \
	.doc = (d)
#define AT_O(f, a, c, d) .kind = AT_OWN, .flag = (f), .arg = (a), .code = (c), .doc = (d)
#define AT_O0(f, c, d) .kind = AT_OWN0, .flag = (f), .code = (c), .doc = (d)
#define AT_A(f) .kind = AT_ALIAS, .flag = (f)
#define AT_F(f, a, o, fun, d) .kind = AT_FUNC, .flag = (f), .arg = (a), .off = (o), .fn = (fun), .doc = (d)
#define AT_M(f, d) .kind = AT_MARK, .flag = (f), .doc = (d)
#define AT_WA(f, a, w, o, d) .kind = AT_CHOICE, .flag = (f), .arg = (a), .words = (w), .off = (o), .doc = (d)
#define AT_W(f, w, o, d) AT_WA(f, w, w, o, d)
/* A shared table whose values are at o; AT_TQ: its help left out. */
#define AT_T(t, o) .kind = AT_TABLE, .sub = (t), .off = (o)
#define AT_TQ(t, o) .kind = AT_TABLE, .sub = (t), .off = (o), .quiet = true
/* A help text row, a section printed by a function, and the table of an
 * array of rows. */
#define AT_TXT(text) {.kind = AT_TEXT, .doc = (text)}
#define AT_SEC(fn) {.kind = AT_SECTION, .section = (fn)}
#define ARGTAB(rows, column) {.row = (rows), .n = sizeof(rows) / sizeof((rows)[0]), .col = (column)}

struct argtab {
	const struct argtab_row *row;
	size_t n;
	int col;            /* help column of the docs (e.g. 28) */
	/* NULL, or called after each of the table's rows parsed (base: the
	 * table's values) */
	void (*noted)(void *base, const struct argtab_row *r);
};

/* Codes of the rows' getopt entries: ARGTAB_CODE + row, counting an
 * included table's rows in place of its AT_TABLE row (an alias: its row's);
 * short options ("-o", outer table only) keep their character. */
enum { ARGTAB_CODE = 3000 };

/* The flag rows as getopt entries appended at out[*n] (cap entries in all,
 * {0}-ended; a spelling already there is left out: the first row of a
 * spelling is the one), and their short options appended to the optstring
 * s (cap slen). */
void argtab_options(const struct argtab *t, struct option *out, size_t *n, size_t cap, char *s, size_t slen);
/* One getopt result c: 1 parsed into base (kinds with a value), 0 not a
 * row of t, 2 an AT_OWN row (*own = its code), <0 bad value (SS_EUSAGE
 * naming the flag as the table spells it). */
int argtab_parse(const struct argtab *t, int c, const char *arg, void *base, int *own, struct err *e);
/* getopt_long takes any unambiguous prefix of a long option ("--requests"
 * for "--requests-out"); servesim takes whole names only, so a shortened
 * name never lands on another flag (an output path among them).  After
 * getopt_long matched o with optind ind and optarg arg: 0 when argv spelt
 * o whole, else <0 (SS_EUSAGE naming the option it would have matched). */
int argtab_whole_name(const struct option *o, char **argv, int ind, const char *arg, struct err *e);
/* The --help text of every row, in order. */
void argtab_help(const struct argtab *t, FILE *f);

#endif
