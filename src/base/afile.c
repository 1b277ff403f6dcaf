/* afile.c - output files: checked before work, written atomically through a
 * temp file and rename(), or directly to a FIFO or device; every write error
 * named.  See afile.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/alloc.h"
#include "base/sbuf.h"

/* Temporary files to remove when SIGINT or SIGTERM arrives.  A signal handler
 * can reach nothing but static storage, so this table is the one mutable
 * global of the library; it holds fixed buffers (no malloc in the handler)
 * and is only ever written outside the handler.  16 slots: no command keeps
 * more than three outputs open at once. */
#define AFILE_SLOTS 16
#define AFILE_PATH_MAX 4096
static char afile_tmp_path[AFILE_SLOTS][AFILE_PATH_MAX];
static volatile sig_atomic_t afile_tmp_used[AFILE_SLOTS];
static volatile sig_atomic_t afile_handlers_set;

static void afile_on_signal(int sig)
{
	int i;

	for (i = 0; i < AFILE_SLOTS; i++)
		if (afile_tmp_used[i])
			unlink(afile_tmp_path[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_handlers(void)
{
	static const int sigs[2] = {SIGINT, SIGTERM};
	struct sigaction sa, old;
	int i;

	if (afile_handlers_set)
		return;
	afile_handlers_set = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = afile_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 2; i++) {
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* nohup and friends: keep ignoring */
		sigaction(sigs[i], &sa, NULL);
	}
}

static int slot_take(const char *tmp)
{
	int i;

	if (strlen(tmp) >= AFILE_PATH_MAX)
		return -1;
	install_handlers();
	for (i = 0; i < AFILE_SLOTS; i++) {
		if (!afile_tmp_used[i]) {
			memcpy(afile_tmp_path[i], tmp, strlen(tmp) + 1);
			afile_tmp_used[i] = 1;
			return i;
		}
	}
	return -1;
}

static void slot_drop(int slot)
{
	if (slot >= 0 && slot < AFILE_SLOTS)
		afile_tmp_used[slot] = 0;
}

/* The mode a new file gets: 0666 less the umask (which can only be read by
 * setting it; servesim is single-threaded). */
static mode_t umask_mode(void)
{
	mode_t m = umask(022);

	umask(m);
	return 0666 & ~m;
}

/* The folder part of path ("." when it has none). */
static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	char *d;

	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	d = xmalloc((size_t)(s - path) + 1);
	memcpy(d, path, (size_t)(s - path));
	d[s - path] = '\0';
	return d;
}

/* path with its symbolic links followed, even when the last one dangles (the
 * file it names is created); NULL past 40 links (ELOOP's usual limit). */
static char *resolve_links(const char *path)
{
	char *p = xstrdup(path), *real;
	struct stat st;
	int hops;

	for (hops = 0; hops < 40; hops++) {
		char target[AFILE_PATH_MAX], *d, *q;
		ssize_t n;
		if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode))
			break;
		n = readlink(p, target, sizeof(target) - 1);
		if (n < 0)
			break;
		target[n] = '\0';
		if (target[0] == '/') {
			q = xstrdup(target);
		} else {
			struct sbuf sb;
			d = dir_of(p);
			sb_init(&sb);
			sb_printf(&sb, "%s/%s", d, target);
			q = sb.buf;
			free(d);
		}
		free(p);
		p = q;
	}
	if (hops == 40) {
		free(p);
		return NULL;
	}
	real = realpath(p, NULL);
	if (real) {
		free(p);
		return real;
	}
	return p;
}

int afile_open(struct afile *a, const char *path, struct err *e)
{
	struct sbuf sb;
	struct stat st;
	char *real;
	sigset_t hold, prev;
	int fd, rc;

	memset(a, 0, sizeof(*a));
	a->slot = -1;
	if ((rc = afile_check(path, NULL, 0, e)) < 0)
		return rc;
	/* follow links: the temp file goes beside the file that is replaced */
	real = resolve_links(path);
	a->path = real ? real : xstrdup(path);
	if (stat(a->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		a->f = fopen(a->path, "w");
		if (!a->f) {
			rc = err_set(e, SS_ERUNTIME, "%s: cannot open for writing: %s", path,
				     strerror(errno));
			free(a->path);
			memset(a, 0, sizeof(*a));
			a->slot = -1;
			return rc;
		}
		return 0;
	}
	sb_init(&sb);
	sb_printf(&sb, "%s.tmpXXXXXX", a->path);
	/* SIGINT/SIGTERM held off from the file's creation to its registration,
	 * so a signal in between cannot leave it behind */
	sigemptyset(&hold);
	sigaddset(&hold, SIGINT);
	sigaddset(&hold, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &hold, &prev);
	fd = mkstemp(sb.buf);
	if (fd >= 0)
		a->slot = slot_take(sb.buf);
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	if (fd < 0) {
		rc = err_set(e, SS_ERUNTIME, "%s: cannot create: %s", path, strerror(errno));
		sb_release(&sb);
		free(a->path);
		a->path = NULL;
		return rc;
	}
	a->tmp = sb.buf;
	if (fchmod(fd, umask_mode()) != 0 || !(a->f = fdopen(fd, "w"))) {
		rc = err_set(e, SS_ERUNTIME, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
		afile_abort(a);
		return rc;
	}
	return 0;
}

int afile_commit(struct afile *a, struct err *e)
{
	int bad = 0, errnum = 0;

	if (fflush(a->f) != 0 || ferror(a->f)) {
		bad = 1;
		errnum = errno;
	}
	if (fclose(a->f) != 0 && !bad) {
		bad = 1;
		errnum = errno;
	}
	a->f = NULL;
	if (bad) {
		int rc = err_set(e, SS_ERUNTIME, "%s: write error: %s", a->path,
				 errnum ? strerror(errnum) : "I/O error");
		afile_abort(a);
		return rc;
	}
	if (a->tmp && rename(a->tmp, a->path) != 0) {
		int rc = err_set(e, SS_ERUNTIME, "%s: cannot rename into place: %s", a->path,
				 strerror(errno));
		afile_abort(a);
		return rc;
	}
	slot_drop(a->slot);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
	a->slot = -1;
	return 0;
}

void afile_abort(struct afile *a)
{
	if (a->f)
		fclose(a->f);
	if (a->tmp) {
		unlink(a->tmp);
		slot_drop(a->slot);
	}
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof(*a));
	a->slot = -1;
}

static bool same_file(const struct stat *x, const struct stat *y)
{
	return x->st_dev == y->st_dev && x->st_ino == y->st_ino;
}

/* Is the existing file out (stat so) one of the inputs, or inside an input
 * folder (at any depth)? */
static int check_inputs(const char *path, const struct stat *so, const char *const *inputs,
			size_t n, struct err *e)
{
	struct stat si, sd;
	char *real = realpath(path, NULL), *d, *s;
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		if (!inputs[i] || stat(inputs[i], &si) != 0)
			continue;
		if (S_ISREG(si.st_mode) && same_file(so, &si)) {
			rc = err_set(e, SS_EUSAGE, "%s: is the input %s; refusing to overwrite an input "
				     "(write the output elsewhere)", path, inputs[i]);
		} else if (S_ISDIR(si.st_mode) && real) {
			d = xstrdup(real);
			while ((s = strrchr(d, '/')) != NULL && rc == 0) {
				if (s == d)
					s[1] = '\0';
				else
					*s = '\0';
				if (stat(d, &sd) == 0 && same_file(&sd, &si))
					rc = err_set(e, SS_EUSAGE, "%s: is a file of the input folder %s; "
						     "refusing to overwrite an input (write the output elsewhere)",
						     path, inputs[i]);
				if (s == d)
					break;
			}
			free(d);
		}
	}
	free(real);
	return rc;
}

int afile_check(const char *path, const char *const *inputs, size_t n, struct err *e)
{
	struct stat so, sd;
	char *real, *dir;
	int rc = 0;

	if (!path || !*path)
		return err_set(e, SS_EUSAGE, "empty output file name");
	if (stat(path, &so) == 0) {
		if (S_ISDIR(so.st_mode))
			return err_set(e, SS_EUSAGE, "%s: is a folder, expected an output file name", path);
		if (!S_ISREG(so.st_mode))
			return 0; /* FIFO or device: written directly */
		return check_inputs(path, &so, inputs, n, e);
	}
	/* new file (or a dangling link): its folder must exist */
	real = resolve_links(path);
	dir = dir_of(real ? real : path);
	if (stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode))
		rc = err_set(e, SS_EUSAGE, "%s: cannot write there: folder %s does not exist", path, dir);
	else if (access(dir, W_OK) != 0)
		rc = err_set(e, SS_EUSAGE, "%s: cannot write there: folder %s is not writable", path, dir);
	free(dir);
	free(real);
	return rc;
}

int afile_check_dir(const char *dir, const char *const *names, const char *const *inputs,
		    size_t n, struct err *e)
{
	struct stat sd;
	struct sbuf sb;
	int rc = 0;

	if (!dir || !*dir)
		return err_set(e, SS_EUSAGE, "empty output folder name");
	if (stat(dir, &sd) == 0 && !S_ISDIR(sd.st_mode))
		return err_set(e, SS_EUSAGE, "%s: is not a folder", dir);
	if (stat(dir, &sd) != 0)
		return 0; /* created later */
	sb_init(&sb);
	for (; *names && rc == 0; names++) {
		sb_reset(&sb);
		sb_printf(&sb, "%s/%s", dir, *names);
		rc = afile_check(sb.buf, inputs, n, e);
	}
	sb_release(&sb);
	return rc;
}

int afile_check_stream(FILE *f, const char *name, struct err *e)
{
	if (fflush(f) != 0 || ferror(f))
		return err_set(e, SS_ERUNTIME, "%s: write error: %s", name,
			       errno ? strerror(errno) : "I/O error");
	return 0;
}
