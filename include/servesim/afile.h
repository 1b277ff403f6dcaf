/* afile.h - atomic file writes: write to a temporary file beside the target,
 * then rename() over it, so a crash never leaves a half-written result. */
#ifndef SERVESIM_AFILE_H
#define SERVESIM_AFILE_H
#include <stdio.h>
#include "servesim/err.h"

struct afile {
	FILE *f;          /* write here */
	char *path;       /* final name */
	char *tmp;        /* temporary name */
};

int afile_open(struct afile *a, const char *path, struct err *e);
/* Flush, fsync-free close and rename into place. */
int afile_commit(struct afile *a, struct err *e);
/* Close and remove the temporary file; safe to call after commit. */
void afile_abort(struct afile *a);

#endif
