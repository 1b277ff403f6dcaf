/* jfield.c - JSON fields into a record's storage (jfield.h). */
#include <stdio.h>

#include "base/jfield.h"

int jf_str(const struct json *o, const char *key, const char *ctx, char *dst, size_t n, bool req,
	   struct err *e)
{
	const char *s = NULL;
	int rc = req ? json_req_str(o, key, ctx, &s, e) : json_opt_str(o, key, ctx, &s, e);

	if (rc < 0)
		return rc;
	if (s)
		snprintf(dst, n, "%s", s);
	return 0;
}

int jf_int(const struct json *o, const char *key, const char *ctx, int64_t lo, int64_t hi, int *dst,
	   struct err *e)
{
	int64_t v;
	bool pres;
	int rc = json_opt_int(o, key, ctx, lo, hi, &v, &pres, e);

	if (rc == 0 && pres)
		*dst = (int)v;
	return rc;
}

int jf_req(const struct json *o, const char *key, const char *ctx, const struct json **out,
	   struct err *e)
{
	if (!(*out = json_get(o, key)))
		return err_set(e, SS_EDATA, "%s: missing required key '%s'", ctx, key);
	return 0;
}

int jf_mapping(const struct json *j, const char *ctx, const char *what, struct err *e)
{
	if (json_type_of(j) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected a mapping of %s, got %s", ctx, what,
			       json_type_name(json_type_of(j)));
	return 0;
}
