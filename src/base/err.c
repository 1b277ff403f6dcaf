/* err.c - error message carrier. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->code = SS_OK;
	e->msg[0] = '\0';
}

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->code = code;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	char buf[2 * sizeof(e->msg) + 4];
	size_t n;
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	memcpy(buf + n, ": ", 2);
	memcpy(buf + n + 2, e->msg, strlen(e->msg) + 1);
	n = strlen(buf);
	if (n >= sizeof(e->msg))
		n = sizeof(e->msg) - 1;
	memcpy(e->msg, buf, n);
	e->msg[n] = '\0';
}

void ss_bug(const char *file, int line, const char *msg)
{
	fprintf(stderr, "servesim: BUG at %s:%d: %s\n", file, line, msg);
	abort();
}
