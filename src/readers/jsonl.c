/* jsonl.c - walking the lines of a JSON-per-line buffer (jsonl.h). */
#include <stdio.h>
#include <string.h>

#include "readers/jsonl.h"

void jsonl_init(struct jsonl *it, const char *buf, size_t len, const char *name)
{
	it->p = buf;
	it->end = buf + len;
	it->name = name;
	it->line = 0;
	it->ctx[0] = '\0';
}

bool jsonl_next_line(struct jsonl *it, const char **s, size_t *n)
{
	while (it->p < it->end) {
		const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
		*s = it->p;
		*n = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
		it->p = nl ? nl + 1 : it->end;
		it->line++;
		while (*n && ((*s)[*n - 1] == '\r' || (*s)[*n - 1] == ' '))
			(*n)--;
		if (*n == 0)
			continue;
		snprintf(it->ctx, sizeof(it->ctx), "%s:%zu", it->name, it->line);
		return true;
	}
	return false;
}

int jsonl_next(struct jsonl *it, struct json **o, struct err *e)
{
	const char *s;
	size_t n;
	int rc;

	if (!jsonl_next_line(it, &s, &n))
		return 0;
	if ((rc = json_parse(s, n, it->ctx, o, e)) < 0)
		return rc;
	if (json_type_of(*o) != JSON_OBJECT) {
		json_free(*o);
		return err_set(e, SS_EDATA, "%s: expected one JSON object per line", it->ctx);
	}
	return 1;
}
