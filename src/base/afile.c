/* afile.c - atomic file writes through a temp file and rename(). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "servesim/afile.h"
#include "servesim/alloc.h"
#include "servesim/sbuf.h"

int afile_open(struct afile *a, const char *path, struct err *e)
{
	struct sbuf sb;
	int fd;

	memset(a, 0, sizeof(*a));
	sb_init(&sb);
	sb_printf(&sb, "%s.tmpXXXXXX", path);
	fd = mkstemp(sb.buf);
	if (fd < 0) {
		int rc = err_set(e, SS_ERUNTIME, "%s: cannot create: %s", path, strerror(errno));
		sb_release(&sb);
		return rc;
	}
	a->f = fdopen(fd, "w");
	if (!a->f) {
		close(fd);
		unlink(sb.buf);
		sb_release(&sb);
		return err_set(e, SS_ERUNTIME, "%s: cannot open: %s", path, strerror(errno));
	}
	a->tmp = sb.buf;
	a->path = xstrdup(path);
	return 0;
}

int afile_commit(struct afile *a, struct err *e)
{
	int bad = ferror(a->f);

	if (fclose(a->f) != 0)
		bad = 1;
	a->f = NULL;
	if (bad) {
		afile_abort(a);
		return err_set(e, SS_ERUNTIME, "write error");
	}
	if (rename(a->tmp, a->path) != 0) {
		int rc = err_set(e, SS_ERUNTIME, "%s: cannot rename into place: %s", a->path,
				 strerror(errno));
		afile_abort(a);
		return rc;
	}
	free(a->tmp);
	free(a->path);
	a->tmp = a->path = NULL;
	return 0;
}

void afile_abort(struct afile *a)
{
	if (a->f)
		fclose(a->f);
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
}
