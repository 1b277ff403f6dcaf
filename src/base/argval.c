/* argval.c - numbers and lists from flag values (argval.h). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/argval.h"

/* The text begins as a number does (a sign, a digit or a point), not with a
 * blank strtoll and strtod would pass over. */
static bool argval_starts_number(const char *arg)
{
	return arg[0] != '\0' && strchr("+-.0123456789", arg[0]);
}

bool argval_lead_int(const char *s, long long *v, const char **end)
{
	char *e;

	if (!argval_starts_number(s) || *s == '.')
		return false;
	errno = 0;
	*v = strtoll(s, &e, 10);
	*end = e;
	return e != s && errno != ERANGE;
}

bool argval_lead_num(const char *s, double *v, const char **end)
{
	char *e;

	if (!argval_starts_number(s))
		return false;
	*v = strtod(s, &e);
	*end = e;
	/* decimal only: strtod also reads hex ("0x10") */
	return e != s && strspn(s, "0123456789.eE+-") >= (size_t)(e - s);
}

bool argval_pattern(const char *s, const char *pat, long long *v, int nv)
{
	int n = 0;

	for (; *pat; pat++) {
		const char *end;
		if (*pat != '#') {
			if (*s != *pat)
				return false;
			s++;
			continue;
		}
		if (n == nv || !argval_lead_int(s, &v[n], &end))
			return false;
		n++;
		s = end;
	}
	return *s == '\0';
}

int argval_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out, struct err *e)
{
	char *end;
	long long v;

	/* digits and one leading sign only: strtoll would also skip leading
	 * blanks (" 3", "\t3"), which a quoted flag value carries by mistake */
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end || !argval_starts_number(arg))
		return err_set(e, SS_EUSAGE, "%s must be an integer, got '%s'", flag, arg);
	/* an integer past long long (ERANGE) is out of range too: say which */
	if (errno == ERANGE || v < lo || v > hi) {
		if (lo == 1 && hi == INT64_MAX && errno != ERANGE)
			return err_set(e, SS_EUSAGE, "%s must be >= 1, got %s", flag, arg);
		return err_set(e, SS_EUSAGE, "%s must be in [%lld, %lld], got %s", flag,
			       (long long)lo, (long long)hi, arg);
	}
	*out = v;
	return 0;
}

int argval_num(const char *flag, const char *arg, double lo, bool lo_open, double *out, struct err *e)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* decimal only: strtod also reads hex ("0x10"), inf and nan, and
	 * skips leading blanks */
	if (end == arg || *end || arg[strspn(arg, "0123456789.eE+-")] != '\0')
		return err_set(e, SS_EUSAGE, "%s must be a number, got '%s'", flag, arg);
	/* a number all the same, past what a double holds (ERANGE): the
	 * bound it crossed */
	if (errno == ERANGE)
		return err_set(e, SS_EUSAGE, "%s %s is %s the %s number servesim computes with (%g)", flag, arg,
			       fabs(v) > 1.0 ? "above" : "below", fabs(v) > 1.0 ? "largest" : "smallest",
			       fabs(v) > 1.0 ? DBL_MAX : DBL_MIN);
	if (lo_open ? !(v > lo) : !(v >= lo))
		return err_set(e, SS_EUSAGE, "%s must be %s %g, got %g", flag, lo_open ? ">" : ">=",
			       lo, v);
	*out = v;
	return 0;
}

void argval_items_start(struct argval_items *it, const char *flag, const char *list)
{
	it->flag = flag;
	it->list = it->p = list;
	it->comma = false;
	it->n = 0;
	it->item[0] = '\0';
}

int argval_items_next(struct argval_items *it, struct err *e)
{
	size_t len;

	if (!*it->p && !it->comma)
		return 0;
	len = strcspn(it->p, ",");
	if (len == 0)
		return err_set(e, SS_EUSAGE, "%s: an empty item in '%.80s' (items are separated by single commas)",
			       it->flag, it->list);
	if (len >= sizeof(it->item))
		return err_set(e, SS_EUSAGE, "%s: item '%.20s...' too long (at most %zu characters)", it->flag, it->p,
			       sizeof(it->item) - 1);
	memcpy(it->item, it->p, len);
	it->item[len] = '\0';
	it->comma = it->p[len] == ',';
	it->p += len + it->comma;
	it->n++;
	return 1;
}
