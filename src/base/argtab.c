/* argtab.c - a command's flag table (argtab.h): getopt entries, values,
 * --help. */
#include <assert.h>
#include <string.h>

#include "base/argtab.h"
#include "base/argval.h"

/* The row an alias stands for. */
static size_t target(const struct argtab *t, size_t i)
{
	while (t->row[i].kind == AT_ALIAS) {
		assert(i > 0);
		i--;
	}
	return i;
}

static bool is_flag(enum argtab_kind k)
{
	return k != AT_TEXT && k != AT_SECTION;
}

void argtab_options(const struct argtab *t, struct option *out, size_t *n, size_t cap, char *s, size_t slen)
{
	size_t i, sl = strlen(s);

	for (i = 0; i < t->n; i++) {
		const struct argtab_row *r = &t->row[i];
		enum argtab_kind k = t->row[target(t, i)].kind;
		bool val = k != AT_SET && k != AT_CLEAR && k != AT_OWN0;

		if (!is_flag(r->kind))
			continue;
		assert(r->flag && r->flag[0] == '-');
		if (r->flag[1] != '-') { /* a short option: its character */
			assert(sl + 3 < slen);
			s[sl++] = r->flag[1];
			if (val)
				s[sl++] = ':';
			s[sl] = '\0';
			continue;
		}
		assert(*n + 1 < cap);
		out[(*n)++] = (struct option){r->flag + 2, val ? required_argument : no_argument, 0,
					      ARGTAB_CODE + (int)target(t, i)};
	}
	out[*n] = (struct option){0, 0, 0, 0};
}

/* The row of getopt's result c, or -1. */
static int row_of(const struct argtab *t, int c)
{
	size_t i;

	if (c >= ARGTAB_CODE && c < ARGTAB_CODE + (int)t->n)
		return c - ARGTAB_CODE;
	for (i = 0; c > 0 && c < 128 && i < t->n; i++)
		if (is_flag(t->row[i].kind) && t->row[i].flag[1] == c && t->row[i].flag[2] == '\0')
			return (int)target(t, i);
	return -1;
}

int argtab_parse(const struct argtab *t, int c, const char *arg, void *base, int *own, struct err *e)
{
	int i = row_of(t, c), rc = 0;
	const struct argtab_row *r;
	char *p = base;
	int64_t v;

	if (i < 0)
		return 0;
	r = &t->row[i];
	switch (r->kind) {
	case AT_STR: *(const char **)(p + r->off) = arg; break;
	case AT_SET: *(bool *)(p + r->off) = true; break;
	case AT_CLEAR: *(bool *)(p + r->off) = false; break;
	case AT_INT: rc = argval_int(r->flag, arg, r->lo, r->hi, (int64_t *)(void *)(p + r->off), e); break;
	case AT_I32:
		if ((rc = argval_int(r->flag, arg, r->lo, r->hi, &v, e)) == 0)
			*(int *)(void *)(p + r->off) = (int)v;
		break;
	case AT_NUM: rc = argval_num(r->flag, arg, r->num_lo, r->lo_open, (double *)(void *)(p + r->off), e); break;
	case AT_OWN:
	case AT_OWN0:
		*own = r->code;
		if (r->given)
			*(bool *)(p + r->given - 1) = true;
		return 2;
	default: assert(!"not a flag row"); return 0;
	}
	if (r->given)
		*(bool *)(p + r->given - 1) = true;
	return rc < 0 ? rc : 1;
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
