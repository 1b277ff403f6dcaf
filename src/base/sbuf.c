/* sbuf.c - growable string buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/sbuf.h"

void sb_init(struct sbuf *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->buf = xmalloc(sb->cap);
	sb->buf[0] = '\0';
}

void sb_release(struct sbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sb_reset(struct sbuf *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

void sb_put(struct sbuf *sb, const char *s, size_t n)
{
	XGROW(sb->buf, sb->cap, sb->len + n + 1);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_putc(struct sbuf *sb, char c)
{
	sb_put(sb, &c, 1);
}

void sb_puts(struct sbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sb->cap - sb->len) {
		XGROW(sb->buf, sb->cap, sb->len + (size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
	}
	sb->len += (size_t)n;
}

/* Words of letters, digits and _@%+=:,./- mean the same to every POSIX
 * shell bare; anything else ($, ;, spaces, quotes, globs, a leading ~ or #)
 * goes in single quotes, where only a ' needs care: '\'' closes, adds one
 * and reopens. */
void sb_put_shell(struct sbuf *sb, const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
	const char *p;

	if (s[0] != '\0' && strspn(s, safe) == strlen(s)) {
		sb_puts(sb, s);
		return;
	}
	sb_putc(sb, '\'');
	for (p = s; *p; p++) {
		if (*p == '\'')
			sb_puts(sb, "'\\''");
		else
			sb_putc(sb, *p);
	}
	sb_putc(sb, '\'');
}
