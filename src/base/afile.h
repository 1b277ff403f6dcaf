/* afile.h - the one way servesim writes an output file.
 *
 * A regular file is written to a temporary file in the target's own folder
 * (after following symbolic links, so a link stays a link) with the mode the
 * umask gives a new file, then rename()d over the target: a crash or an error
 * never leaves a half-written result.  A FIFO or a character device (/dev/null,
 * /dev/stdout) is written directly, as asked, and never replaced.  Temporary
 * files are removed on SIGINT and SIGTERM.  Every write error is reported with
 * the file's name (SS_ERUNTIME).
 *
 * afile_check() validates an output path before any work is done: the folder
 * must exist, the path must not be a folder, and it must not be the same file
 * as an input (SS_EUSAGE). */
#ifndef SERVESIM_AFILE_H
#define SERVESIM_AFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "base/err.h"

struct afile {
	FILE *f;          /* write here */
	char *path;       /* final name (links followed) */
	char *tmp;        /* temporary name, NULL when writing directly */
	int slot;         /* signal-cleanup slot of tmp, -1 if none */
};

int afile_open(struct afile *a, const char *path, struct err *e);
/* Flush, close (checking both) and rename into place. */
int afile_commit(struct afile *a, struct err *e);
/* Close and remove the temporary file; safe to call after commit. */
void afile_abort(struct afile *a);

/* Output path checks, to run before any work.  inputs: n paths read by the
 * command (NULL entries skipped); a folder among them stands for the files
 * directly in it.  Two paths are the same file when device and inode agree
 * after following links. */
int afile_check(const char *path, const char *const *inputs, size_t n, struct err *e);
/* The same for an output folder that will receive the named files (NULL-
 * terminated list); the folder may not exist yet. */
int afile_check_dir(const char *dir, const char *const *names, const char *const *inputs,
		    size_t n, struct err *e);

/* Flush a stream and report any write error on it, naming it. */
int afile_check_stream(FILE *f, const char *name, struct err *e);

#endif
