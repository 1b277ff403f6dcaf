/* sbuf.h - growable string buffer. */
#ifndef SERVESIM_SBUF_H
#define SERVESIM_SBUF_H
#include <stddef.h>

struct sbuf {
	char *buf; /* always NUL-terminated once initialised */
	size_t len;
	size_t cap;
};

void sb_init(struct sbuf *sb);
void sb_release(struct sbuf *sb);
void sb_reset(struct sbuf *sb);
void sb_putc(struct sbuf *sb, char c);
void sb_puts(struct sbuf *sb, const char *s);
void sb_put(struct sbuf *sb, const char *s, size_t n);
void sb_printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as one word of a POSIX shell command line: bare when it holds only
 * characters no shell treats specially, else single-quoted (an empty s is
 * ''), so a pasted line never runs what a name embeds. */
void sb_put_shell(struct sbuf *sb, const char *s);

#endif
