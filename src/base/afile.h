/* afile.h - the one way servesim writes an output file.
 *
 * A regular file is written to a temporary file in the target's own folder
 * (after following symbolic links, so a link stays a link) with the mode the
 * umask gives a new file, then rename()d over the target: a crash or an error
 * never leaves a half-written result.  A FIFO or a character device (/dev/null,
 * /dev/tty) is written directly, as asked, and never replaced.  Temporary
 * files are removed on every terminating signal a user, a shell, a limit or a
 * closed pipe sends (HUP, INT, QUIT, TERM, USR1, USR2, ALRM, XCPU, XFSZ, PIPE).
 * Every write error is reported with the file's name (SS_ERUNTIME).
 *
 * The output rule, afile_check_outputs(), runs over every output of a
 * command at once before any work is done (SS_EUSAGE otherwise):
 * - no output may be a file servesim reads: an input of the command
 *   (explicit; a folder stands for the files in it), or anything inside the
 *   folders it reads without being told (the data folder, workloads/ and
 *   calibration/ beside it; calibrate may write calibration/tier1/);
 * - no two outputs may be one file;
 * - "-", /dev/stdout (and the file or pipe standard output goes to) mean
 *   standard output: at most one output may take it, and the report the
 *   command prints there then goes to standard error;
 * - a file's folder must exist, and the path must not be a folder. */
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
/* Commit the n files a together, all or none: each is flushed and closed
 * (checked) before any is renamed into place; on the first error every one
 * is aborted (a command with two outputs never leaves one of them). */
int afile_commit_all(struct afile *const *a, size_t n, struct err *e);
/* Close and remove the temporary file; safe to call after commit. */
void afile_abort(struct afile *a);
/* len bytes of buf as the whole of path (open, write, commit). */
int afile_write(const char *path, const void *buf, size_t len, struct err *e);

/* A command's output files, written all or nothing (as run's --requests-out
 * and --step-log): each opened when it is asked for, then committed
 * together (afile_commit_all), or, on any error, every one aborted: a
 * failing output never leaves the others written. */
#define AFILE_SET_MAX 16 /* eval: --report, --html and --plots' 11 files */
struct afile_set {
	struct afile af[AFILE_SET_MAX];
	struct afile *open[AFILE_SET_MAX];
	size_t n;
};
void afile_set_init(struct afile_set *g);
/* Open path into the set, *f its stream; path NULL (not asked for): *f
 * NULL.  On an error every file of the set is aborted. */
int afile_set_open(struct afile_set *g, const char *path, FILE **f, struct err *e);
int afile_set_commit(struct afile_set *g, struct err *e);
/* Abort what is open (nothing after a commit). */
void afile_set_abort(struct afile_set *g);
/* One output of a set: write puts its content on f (0, or <0 with e
 * set); path NULL: not asked for. */
struct afile_job {
	const char *path;
	int (*write)(FILE *f, const void *ctx, struct err *e);
	const void *ctx;
};
/* Open j's path into the set and write it; on an error every file of the
 * set is aborted. */
int afile_set_write(struct afile_set *g, const struct afile_job *j, struct err *e);
/* The n jobs in order, then committed together: every file written or
 * none (a failing one leaves no other behind). */
int afile_write_all(const struct afile_job *jobs, size_t n, struct err *e);
/* j's content to out (standard output) only when its writer succeeds:
 * written into memory first, so an error leaves no partial output. */
int afile_print_whole(FILE *out, const struct afile_job *j, struct err *e);

/* One output of a command: the flag naming it (for messages), its path
 * (NULL: not asked for) and, for an output folder, the NULL-terminated names
 * of the files written in it (the folder may not exist yet). */
struct afile_out {
	const char *flag;
	const char *path;
	const char *const *files;
};
#define AFILE_CALIBRATION 1u /* outputs may go to calibration/tier1/ (calibrate -o) */

/* The output rule above, for the n outputs of one command.  inputs: nin
 * paths the command reads (NULL entries skipped).  Two paths are the same
 * file when they name it after following links (device and inode for
 * existing files).  When an output takes standard output, fd 1 is pointed
 * at standard error here and afile_open() of that name writes to the
 * original standard output. */
int afile_check_outputs(const struct afile_out *outs, size_t n, const char *const *inputs,
			size_t nin, unsigned flags, struct err *e);
/* One path's own part of the rule (folder, inputs), for tests. */
int afile_check(const char *path, const char *const *inputs, size_t n, struct err *e);

/* Flush a stream and report any write error on it, naming it. */
int afile_check_stream(FILE *f, const char *name, struct err *e);

#endif
