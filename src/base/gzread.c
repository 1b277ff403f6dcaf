/* gzread.c - zlib adapter.  gzopen reads plain files transparently, so one
 * code path serves .json and .json.gz; gzread < 0 and gzerror are checked so a
 * truncated archive is reported instead of silently yielding a short file. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/alloc.h"
#include "base/gzread.h"

struct gzr {
	gzFile f;
	char *path;
	size_t pos, fill;
	int eof;
	char *line;
	size_t line_cap;
	size_t lineno;
	/* last: left unzeroed by gzr_open (only [pos, fill) is ever read);
	 * zeroing 64 KiB per open cost more than reading a small file */
	char buf[65536];
};

int gzr_open(const char *path, struct gzr **out, struct err *e)
{
	struct gzr *g;
	struct stat st;
	gzFile f;

	/* a folder opens but fails on read: say so, as bad input like a missing file */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return err_set(e, SS_EDATA, "%s: is a folder, expected a file", path);
	/* "-" is standard input, as for the outputs (afile.c); a duplicate,
	 * so that gzclose leaves fd 0 open */
	if (strcmp(path, "-") == 0) {
		int fd = dup(STDIN_FILENO);
		f = fd < 0 ? NULL : gzdopen(fd, "rb");
		if (!f && fd >= 0)
			close(fd);
	} else {
		f = gzopen(path, "rb");
	}
	if (!f)
		return err_set(e, SS_EDATA, "%s: cannot open: %s", path,
			       errno ? strerror(errno) : "out of memory");
	g = xmalloc(sizeof(*g));
	memset(g, 0, offsetof(struct gzr, buf));
	g->f = f;
	g->path = xstrdup(path);
	*out = g;
	return 0;
}

static int gz_fail(struct gzr *g, struct err *e)
{
	int zerr = Z_OK;
	const char *msg = gzerror(g->f, &zerr);

	size_t pl = strlen(g->path);

	if (zerr == Z_ERRNO)
		return err_set(e, SS_ERUNTIME, "%s: read error: %s", g->path, strerror(errno));
	/* zlib's message starts with the path: keep only what follows */
	if (msg && strncmp(msg, g->path, pl) == 0 && msg[pl] == ':')
		msg += pl + 1 + (msg[pl + 1] == ' ');
	return err_set(e, SS_EDATA, "%s: corrupt or truncated gzip data: %s", g->path,
		       msg && *msg ? msg : "unexpected end of file");
}

long gzr_read(struct gzr *g, void *buf, size_t n, struct err *e)
{
	size_t got = 0;

	if (g->pos < g->fill) {
		size_t k = g->fill - g->pos;
		if (k > n)
			k = n;
		memcpy(buf, g->buf + g->pos, k);
		g->pos += k;
		got = k;
	}
	while (got < n) {
		unsigned chunk = (n - got) > (1u << 30) ? (1u << 30) : (unsigned)(n - got);
		int r = gzread(g->f, (char *)buf + got, chunk);
		if (r < 0)
			return gz_fail(g, e);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got == 0 && n > 0) {
		/* gzread returns 0 on a truncated stream too; gzerror tells. */
		int zerr = Z_OK;
		gzerror(g->f, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END)
			return gz_fail(g, e);
	}
	return (long)got;
}

static int refill(struct gzr *g, struct err *e)
{
	int r;

	if (g->eof)
		return 0;
	r = gzread(g->f, g->buf, sizeof(g->buf));
	if (r < 0)
		return gz_fail(g, e);
	if (r == 0) {
		int zerr = Z_OK;
		gzerror(g->f, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END)
			return gz_fail(g, e);
		g->eof = 1;
	}
	g->pos = 0;
	g->fill = (size_t)r;
	return r;
}

int gzr_getline(struct gzr *g, const char **line, size_t *len, struct err *e)
{
	size_t n = 0;
	int any = 0;

	for (;;) {
		char *nl;
		size_t k;

		if (g->pos >= g->fill) {
			int r = refill(g, e);
			if (r < 0)
				return r;
			if (r == 0)
				break;
		}
		any = 1;
		nl = memchr(g->buf + g->pos, '\n', g->fill - g->pos);
		k = nl ? (size_t)(nl - (g->buf + g->pos)) : g->fill - g->pos;
		/* a line without end (/dev/zero as a trace) is refused at the
		 * limit, not held until memory runs out */
		if (n + k > GZR_MAX_LINE)
			return err_set(e, SS_EDATA, "%s:%zu: a line longer than %zu bytes", g->path,
				       g->lineno + 1, (size_t)GZR_MAX_LINE);
		XGROW(g->line, g->line_cap, n + k + 1);
		memcpy(g->line + n, g->buf + g->pos, k);
		n += k;
		g->pos += k;
		if (nl) {
			g->pos++;
			break;
		}
	}
	if (!any) {
		*line = NULL;
		*len = 0;
		return 0;
	}
	if (n > 0 && g->line[n - 1] == '\r')
		n--;
	XGROW(g->line, g->line_cap, n + 1);
	g->line[n] = '\0';
	g->lineno++;
	*line = g->line;
	*len = n;
	return 0;
}

size_t gzr_lineno(const struct gzr *g)
{
	return g->lineno;
}

void gzr_close(struct gzr *g)
{
	if (!g)
		return;
	gzclose(g->f);
	free(g->path);
	free(g->line);
	free(g);
}

/* A regular file that is not gzip data, read whole in one buffer of its
 * size: no zlib state, no 64 KiB buffers and copies (most inputs are small
 * uncompressed JSON read at start-up).  The bytes are those gzread gives in
 * its transparent mode (zlib's gz_look: gzip data only when the first two
 * bytes are 0x1f 0x8b).  Returns true when *buf and *len are set; false
 * sends the caller down the general path, whose messages every failure
 * keeps (cannot open, a folder, standard input, over the limit, a read
 * error, a file that grows while read). */
static bool read_plain(const char *path, size_t max_bytes, char **buf, size_t *len)
{
	struct stat st;
	char *b = NULL, probe;
	size_t n = 0, want;
	int fd;

	if (strcmp(path, "-") == 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (unsigned long long)st.st_size > max_bytes)
		goto fall;
	want = (size_t)st.st_size;
	b = xmalloc(want + 1);
	while (n < want) {
		/* the first two bytes alone: gzip data goes to zlib unread */
		ssize_t r = read(fd, b + n, n < 2 && want > 2 ? 2 - n : want - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto fall;
		n += (size_t)r;
		if (n >= 2 && (unsigned char)b[0] == 0x1f && (unsigned char)b[1] == 0x8b)
			goto fall;
	}
	if (read(fd, &probe, 1) != 0)
		goto fall;
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return true;
fall:
	free(b);
	close(fd);
	return false;
}

int gzr_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, struct err *e)
{
	struct gzr *g;
	char *b = NULL;
	size_t cap = 0, n = 0;
	int rc;

	if (read_plain(path, max_bytes, buf, len))
		return 0;
	if ((rc = gzr_open(path, &g, e)) < 0)
		return rc;
	for (;;) {
		long r;
		/* the buffer never grows past the limit and one byte to tell it
		 * crossed (doubling took /dev/zero to 2 GiB for a 1 GiB limit) */
		if (n + 65536 + 1 > cap) {
			size_t want = cap * 2 > n + 65536 + 1 ? cap * 2 : n + 65536 + 1;
			if (want > max_bytes + 2)
				want = max_bytes + 2;
			b = xrealloc(b, want);
			cap = want;
		}
		r = gzr_read(g, b + n, cap - n - 1, e);
		if (r < 0) {
			rc = (int)r;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max_bytes) {
			rc = err_set(e, SS_EDATA, "%s: larger than the %zu-byte limit", path, max_bytes);
			goto out;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
	rc = 0;
out:
	free(b);
	gzr_close(g);
	return rc;
}
