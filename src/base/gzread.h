/* gzread.h - read plain or gzip-compressed files (detected by content).
 * The only module that talks to zlib.  A truncated or corrupt .gz is an
 * SS_EDATA error naming the file. */
#ifndef SERVESIM_GZREAD_H
#define SERVESIM_GZREAD_H
#include <stddef.h>
#include "base/err.h"

struct gzr; /* opaque streaming reader */

int gzr_open(const char *path, struct gzr **out, struct err *e);
/* Read up to n bytes; returns bytes read (0 at end) or a negative status. */
long gzr_read(struct gzr *g, void *buf, size_t n, struct err *e);
/* Read one line (without the newline) into an internal buffer owned by g;
 * *line is NULL at end of file.  Returns 0 or a negative status; SS_EDATA
 * for a line over GZR_MAX_LINE bytes. */
#define GZR_MAX_LINE ((size_t)64 << 20)
int gzr_getline(struct gzr *g, const char **line, size_t *len, struct err *e);
/* 1-based number of the line last returned by gzr_getline. */
size_t gzr_lineno(const struct gzr *g);
void gzr_close(struct gzr *g);

/* Whole file into a NUL-terminated heap buffer (caller frees).  Files over
 * max_bytes are refused. */
int gzr_read_file(const char *path, size_t max_bytes, char **buf, size_t *len,
		  struct err *e);

#endif
