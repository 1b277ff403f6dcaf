/* argtab.c - a command's flag table (argtab.h): getopt entries, values,
 * --help.  An AT_TABLE row stands for another table's rows: codes count
 * them in its place, values and marks go to the offsets it names. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "base/argtab.h"
#include "base/argval.h"

/* The row an alias stands for. */
static size_t target(const struct argtab *t, size_t i)
{
	while (t->row[i].kind == AT_ALIAS) {
		assert(i > 0);
		i--;
		assert(t->row[i].kind != AT_TABLE);
	}
	return i;
}

static bool is_flag(enum argtab_kind k)
{
	return k != AT_TEXT && k != AT_SECTION && k != AT_TABLE;
}

/* How many codes t's rows take, an included table's rows counted. */
static size_t codes(const struct argtab *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		n += t->row[i].kind == AT_TABLE ? codes(t->row[i].sub) : 1;
	return n;
}

static bool has_name(const struct option *out, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(out[i].name, name) == 0)
			return true;
	return false;
}

/* t's entries, its first code first0; short options only when s. */
static void options(const struct argtab *t, int first0, struct option *out, size_t *n, size_t cap, char *s,
		    size_t slen)
{
	size_t i, sl = s ? strlen(s) : 0;
	int code = first0;

	for (i = 0; i < t->n; i++, code++) {
		const struct argtab_row *r = &t->row[i];
		enum argtab_kind k;
		bool val;

		if (r->kind == AT_TABLE) {
			options(r->sub, code, out, n, cap, NULL, 0);
			code += (int)codes(r->sub) - 1;
			continue;
		}
		if (!is_flag(r->kind))
			continue;
		k = t->row[target(t, i)].kind;
		val = k != AT_SET && k != AT_CLEAR && k != AT_OWN0 && k != AT_MARK;
		assert(r->flag && r->flag[0] == '-');
		if (r->flag[1] != '-') { /* a short option: its character */
			assert(s && sl + 3 < slen);
			s[sl++] = r->flag[1];
			if (val)
				s[sl++] = ':';
			s[sl] = '\0';
			continue;
		}
		if (has_name(out, *n, r->flag + 2))
			continue;
		assert(*n + 1 < cap);
		out[(*n)++] = (struct option){r->flag + 2, val ? required_argument : no_argument, 0,
					      code - (int)(i - target(t, i))};
	}
	out[*n] = (struct option){0, 0, 0, 0};
}

void argtab_options(const struct argtab *t, struct option *out, size_t *n, size_t cap, char *s, size_t slen)
{
	options(t, ARGTAB_CODE, out, n, cap, s, slen);
}

int argtab_whole_name(const struct option *o, char **argv, int ind, const char *arg, struct err *e)
{
	const char *text = argv[ind - 1];
	size_t len;

	if (arg && arg == text && ind >= 2)
		text = argv[ind - 2];
	if (strncmp(text, "--", 2) != 0)
		return 0;
	text += 2;
	len = strcspn(text, "=");
	if (len == strlen(o->name) && strncmp(text, o->name, len) == 0)
		return 0;
	return err_set(e, SS_EUSAGE, "unknown option '--%.*s': did you mean --%s? (options are taken by their whole name; "
		       "see --help)", (int)len, text, o->name);
}

static void mark(char *at, const struct argtab_row *r)
{
	if (r->bit)
		*(unsigned *)(void *)(at + r->given - 1) |= r->bit;
	else
		*(bool *)(at + r->given - 1) = true;
}

/* The index of arg among the '|'-separated words, or SS_EUSAGE "--f must
 * be a, b or c, got 'x'". */
static int choice(const char *flag, const char *words, const char *arg, int *out, struct err *e)
{
	char list[256] = "";
	const char *w = words, *bar;
	size_t len = strlen(arg), k, nw = 1;
	int i = 0;

	for (bar = words; (bar = strchr(bar, '|')) != NULL; bar++)
		nw++;
	for (k = 0; k < nw; k++, i++, w = bar + 1) {
		bar = strchr(w, '|');
		if (!bar)
			bar = w + strlen(w);
		if ((size_t)(bar - w) == len && strncmp(w, arg, len) == 0) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%.*s",
			 k == 0 ? "" : k + 1 == nw ? " or " : ", ", (int)(bar - w), w);
	}
	return err_set(e, SS_EUSAGE, "%s must be %s, got '%s'", flag, list, arg);
}

/* Row k (counted as codes counts) of t: its value into base, its mark
 * into marks; 0 when t has fewer, *k then less t's count. */
static int parse_at(const struct argtab *t, size_t *k, const char *arg, char *base, char *marks, int *own,
		    struct err *e)
{
	const struct argtab_row *r;
	size_t i;
	int64_t v;
	int rc = 0;

	for (i = 0; i < t->n; i++) {
		r = &t->row[i];
		if (r->kind == AT_TABLE) {
			size_t nsub = codes(r->sub);
			if (*k < nsub) {
				rc = parse_at(r->sub, k, arg, base + r->off, r->marks ? base + r->marks - 1 : base + r->off,
					      own, e);
				if (rc == 1 && r->given)
					mark(marks, r);
				return rc;
			}
			*k -= nsub;
			continue;
		}
		if (*k == 0)
			break;
		--*k;
	}
	if (i == t->n)
		return 0;
	r = &t->row[target(t, i)];
	switch (r->kind) {
	case AT_STR: *(const char **)(void *)(base + r->off) = arg; break;
	case AT_SET: *(bool *)(base + r->off) = true; break;
	case AT_CLEAR: *(bool *)(base + r->off) = false; break;
	case AT_MARK: break;
	case AT_INT: rc = argval_int(r->flag, arg, r->lo, r->hi, (int64_t *)(void *)(base + r->off), e); break;
	case AT_I32:
		if ((rc = argval_int(r->flag, arg, r->lo, r->hi, &v, e)) == 0)
			*(int *)(void *)(base + r->off) = (int)v;
		break;
	case AT_NUM: rc = argval_num(r->flag, arg, r->num_lo, r->lo_open, (double *)(void *)(base + r->off), e); break;
	case AT_FUNC: rc = r->fn(r->flag, arg, base + r->off, e); break;
	case AT_CHOICE: rc = choice(r->flag, r->words, arg, (int *)(void *)(base + r->off), e); break;
	case AT_OWN:
	case AT_OWN0:
		*own = r->code;
		if (r->given)
			mark(marks, r);
		return 2;
	default: assert(!"not a flag row"); return 0;
	}
	if (rc < 0)
		return rc;
	if (r->given)
		mark(marks, r);
	if (t->noted)
		t->noted(base, r);
	return 1;
}

/* The outer row of short option c, or -1. */
static int short_row(const struct argtab *t, int c)
{
	size_t i, code = 0;

	for (i = 0; i < t->n; i++) {
		const struct argtab_row *r = &t->row[i];
		if (is_flag(r->kind) && r->flag[1] == c && r->flag[2] == '\0')
			return (int)(code - (i - target(t, i)));
		code += r->kind == AT_TABLE ? codes(r->sub) : 1;
	}
	return -1;
}

int argtab_parse(const struct argtab *t, int c, const char *arg, void *base, int *own, struct err *e)
{
	size_t k;
	int i = c > 0 && c < 128 ? short_row(t, c) : -1;

	if (i >= 0)
		k = (size_t)i;
	else if (c >= ARGTAB_CODE && c < ARGTAB_CODE + (int)codes(t))
		k = (size_t)(c - ARGTAB_CODE);
	else
		return 0;
	return parse_at(t, &k, arg, base, base, own, e);
}

void argtab_help(const struct argtab *t, FILE *f)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct argtab_row *r = &t->row[i];
		const char *d = r->doc, *nl;
		int w;

		if (r->kind == AT_SECTION) {
			r->section(f);
			continue;
		}
		if (r->kind == AT_TABLE) {
			if (!r->quiet)
				argtab_help(r->sub, f);
			continue;
		}
		if (!d)
			continue;
		if (r->kind == AT_TEXT) {
			fputs(d, f);
			continue;
		}
		w = fprintf(f, "  %s%s%s", r->flag, r->arg ? " " : "", r->arg ? r->arg : "");
		if (!*d) {
			fputc('\n', f);
			continue;
		}
		fprintf(f, "%*s", w < t->col ? t->col - w : 1, "");
		for (;;) {
			nl = strchr(d, '\n');
			fprintf(f, "%.*s\n", nl ? (int)(nl - d) : (int)strlen(d), d);
			if (!nl)
				break;
			d = nl + 1;
			fprintf(f, "%*s", t->col, "");
		}
	}
}
