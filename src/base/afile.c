/* afile.c - output files: checked before work, written atomically through a
 * temp file and rename(), or directly to a FIFO or device; every write error
 * named.  See afile.h. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
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
#include "base/paths.h"
#include "base/sbuf.h"

/* Temporary files to remove when a terminating signal arrives.  A signal
 * handler can reach nothing but static storage, so this table is the one
 * mutable global of the library (with the standard-output claim below); it
 * holds fixed buffers (no malloc in the handler) and is only ever written
 * outside the handler.  16 slots: no command keeps more than three outputs
 * open at once. */
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

/* Every signal whose default action ends the process and that a user, a
 * shell, a resource limit, a timer or a closed pipe sends: a hang-up, ^\,
 * kill's USR1/USR2, the alarms and the profiling timers, the CPU and
 * file-size limits (ulimit -t, -f), a reader gone, ^C and kill, I/O and
 * power notices, a seccomp or debugger trap, and the real-time signals
 * (SIGRTMIN..SIGRTMAX, added where they are installed).  SIGKILL cannot
 * be caught; the crash signals (SEGV, BUS, FPE, ILL, ABRT) are programmer
 * errors: they keep their core dump and the sanitizers' reports. */
static const int afile_sigs[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
				 SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPIPE, SIGIO,  SIGSYS, SIGTRAP,
#ifdef SIGPWR
				 SIGPWR,
#endif
#ifdef SIGSTKFLT
				 SIGSTKFLT,
#endif
};
#define AFILE_NSIGS (sizeof(afile_sigs) / sizeof(afile_sigs[0]))

/* The i-th signal afile catches, i from 0: afile_sigs, then the real-time
 * ones; 0 past the last. */
static int afile_sig(int i)
{
	if (i < (int)AFILE_NSIGS)
		return afile_sigs[i];
	i -= (int)AFILE_NSIGS;
	return SIGRTMIN + i <= SIGRTMAX ? SIGRTMIN + i : 0;
}

/* set: every signal afile catches. */
static void afile_sigset(sigset_t *set)
{
	int i, sig;

	sigemptyset(set);
	for (i = 0; (sig = afile_sig(i)) != 0; i++)
		sigaddset(set, sig);
}

static void install_handlers(void)
{
	struct sigaction sa, old;
	int i, sig;

	if (afile_handlers_set)
		return;
	afile_handlers_set = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = afile_on_signal;
	/* one cleanup at a time: the others wait until it re-raises */
	afile_sigset(&sa.sa_mask);
	for (i = 0; (sig = afile_sig(i)) != 0; i++) {
		if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* nohup and friends: keep ignoring */
		sigaction(sig, &sa, NULL);
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

/* Standard output once an output claims it (afile_check_outputs): a
 * duplicate of the process's fd 1 as it was, fd 1 itself then carrying the
 * report to standard error; and the name that claimed it.  -1: unclaimed. */
static int afile_stdout_fd = -1;
static char afile_stdout_name[AFILE_PATH_MAX];

static bool afile_is_stdout(const char *path)
{
	return afile_stdout_fd >= 0 && path &&
	       (strcmp(path, "-") == 0 || strcmp(path, afile_stdout_name) == 0);
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
	if (afile_is_stdout(path)) {
		/* claimed by afile_check_outputs: the process's standard output
		 * as it was then (fd 1 now carries the report to stderr) */
		if ((fd = dup(afile_stdout_fd)) < 0 || !(a->f = fdopen(fd, "w"))) {
			rc = err_set(e, SS_ERUNTIME, "standard output: cannot open: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			return rc;
		}
		a->path = xstrdup("standard output");
		return 0;
	}
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
	/* the signals held off from the file's creation to its registration,
	 * so one in between cannot leave it behind */
	afile_sigset(&hold);
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

/* Flush and close a->f, checking both; on an error a is aborted. */
static int afile_close_checked(struct afile *a, struct err *e)
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
	return 0;
}

/* Rename a closed a into place. */
static int afile_rename(struct afile *a, struct err *e)
{
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

int afile_write(const char *path, const void *buf, size_t len, struct err *e)
{
	struct afile af;
	int rc;

	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	fwrite(buf, 1, len, af.f);
	return afile_commit(&af, e);
}

void afile_set_init(struct afile_set *g)
{
	g->n = 0;
}

void afile_set_abort(struct afile_set *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		afile_abort(g->open[i]);
	g->n = 0;
}

int afile_set_open(struct afile_set *g, const char *path, FILE **f, struct err *e)
{
	int rc;

	*f = NULL;
	if (!path)
		return 0;
	if (g->n == AFILE_SET_MAX)
		BUG("afile_set_open: more files than AFILE_SET_MAX");
	if ((rc = afile_open(&g->af[g->n], path, e)) < 0) {
		afile_set_abort(g);
		return rc;
	}
	g->open[g->n] = &g->af[g->n];
	*f = g->af[g->n++].f;
	return 0;
}

int afile_set_commit(struct afile_set *g, struct err *e)
{
	int rc = afile_commit_all(g->open, g->n, e);

	g->n = 0;
	return rc;
}

int afile_set_write(struct afile_set *g, const struct afile_job *j, struct err *e)
{
	FILE *f;
	int rc;

	if ((rc = afile_set_open(g, j->path, &f, e)) < 0 || !f)
		return rc;
	if ((rc = j->write(f, j->ctx, e)) < 0)
		afile_set_abort(g);
	return rc;
}

int afile_write_all(const struct afile_job *jobs, size_t n, struct err *e)
{
	struct afile_set g;
	size_t i;
	int rc;

	afile_set_init(&g);
	for (i = 0; i < n; i++)
		if ((rc = afile_set_write(&g, &jobs[i], e)) < 0)
			return rc;
	return afile_set_commit(&g, e);
}

int afile_print_whole(FILE *out, const struct afile_job *j, struct err *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	int rc;

	if (!mf)
		return err_set(e, SS_ERUNTIME, "out of memory");
	rc = j->write(mf, j->ctx, e);
	fclose(mf);
	if (rc == 0)
		fwrite(buf, 1, len, out);
	free(buf);
	return rc;
}

int afile_commit(struct afile *a, struct err *e)
{
	int rc = afile_close_checked(a, e);

	return rc < 0 ? rc : afile_rename(a, e);
}

int afile_commit_all(struct afile *const *a, size_t n, struct err *e)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		rc = afile_close_checked(a[i], e);
	for (i = 0; i < n && rc == 0; i++)
		rc = afile_rename(a[i], e);
	if (rc < 0)
		for (i = 0; i < n; i++)
			afile_abort(a[i]);
	return rc;
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
		if ((rc = check_inputs(path, &so, inputs, n, e)) < 0)
			return rc;
		/* replaced by a temporary file renamed over it: refused now,
		 * before the work, when the file is read-only (rename() would
		 * replace it regardless) or its folder takes no new file (the
		 * rename would fail after the work) */
		if (access(path, W_OK) != 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
			return err_set(e, SS_EUSAGE, "%s: is read-only; refusing to replace it (make it "
				       "writable or write the output elsewhere)", path);
		real = resolve_links(path);
		dir = dir_of(real ? real : path);
		if (access(dir, W_OK) != 0)
			rc = err_set(e, SS_EUSAGE, "%s: cannot replace it: folder %s is not writable (an output is "
				     "written beside its name and renamed over it)", path, dir);
		free(dir);
		free(real);
		return rc;
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

/* --- the output rule (afile_check_outputs) --- */

/* Does path name the process's standard output: "-", or the very file,
 * pipe or socket fd 1 writes to (/dev/stdout, /proc/self/fd/1, or the file
 * a shell redirected it to)?  A terminal or /dev/null that fd 1 also goes
 * to counts only under standard output's own names: both are written in
 * place, and two writers on them harm nothing. */
static bool names_stdout(const char *path)
{
	static const char *const own[] = {"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"};
	struct stat sp, so;
	size_t i;

	if (strcmp(path, "-") == 0)
		return true;
	if (fstat(STDOUT_FILENO, &so) != 0 || stat(path, &sp) != 0 || !same_file(&sp, &so))
		return false;
	if (!S_ISCHR(so.st_mode))
		return true;
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcmp(path, own[i]) == 0)
			return true;
	return false;
}

/* The absolute name of path with every link followed, whether or not the
 * file exists yet (its folder must); NULL when its folder does not. */
static char *canonical(const char *path)
{
	char *real = resolve_links(path), *p = real ? real : xstrdup(path), *d, *rd, *c;
	const char *base;
	struct sbuf sb;

	if ((c = realpath(p, NULL)) != NULL) {
		free(p);
		return c;
	}
	d = dir_of(p);
	base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
	rd = realpath(d, NULL);
	c = NULL;
	if (rd) {
		sb_init(&sb);
		sb_printf(&sb, "%s/%s", strcmp(rd, "/") == 0 ? "" : rd, base);
		c = sb.buf;
	}
	free(rd);
	free(d);
	free(p);
	return c;
}

static bool inside(const char *path, const char *tree)
{
	size_t n = strlen(tree);

	return tree[0] && strncmp(path, tree, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Is the (canonical) path inside a folder servesim reads without being
 * told: the data folder (models, GPUs, prices, kernel tables), the example
 * workloads (workloads/default.json is every command's default) or the
 * calibration files (tier 1 and 2, applied by default)?  flag names the
 * output in the message. */
static int check_implicit(const char *flag, const char *path, const char *canon, unsigned flags,
			  struct err *e)
{
	static const char *const trees[3][3] = {
		{"", "servesim's data folder", "models, GPUs, prices, kernel tables"},
		{"/../workloads", "the workloads folder", "workloads/default.json is the default workload"},
		{"/../calibration", "the calibration folder", "tier-1 and tier-2 files applied by default"}};
	char data[AFILE_PATH_MAX], t[AFILE_PATH_MAX + 32], *real;
	int i, rc = 0;

	paths_data_dir(data, sizeof(data));
	for (i = 0; i < 3 && rc == 0; i++) {
		snprintf(t, sizeof(t), "%s%s", data, trees[i][0]);
		if (!(real = realpath(t, NULL)))
			continue;
		if (inside(canon, real)) {
			char tier1[AFILE_PATH_MAX + 8];
			snprintf(tier1, sizeof(tier1), "%s/tier1", real);
			if (!(i == 2 && (flags & AFILE_CALIBRATION) && inside(canon, tier1)))
				rc = err_set(e, SS_EUSAGE, "%s %s: is in %s %s (%s), which servesim reads; "
					     "write the output elsewhere", flag, path, trees[i][1], real,
					     trees[i][2]);
		}
		free(real);
	}
	return rc;
}

/* One output's own checks: not empty, not a folder, its folder there and
 * writable, not an input, not in a folder servesim reads. */
static int check_one(const struct afile_out *o, const char *path, const char *const *inputs,
		     size_t nin, unsigned flags, char **canon, struct err *e)
{
	int rc;

	*canon = NULL;
	if ((rc = afile_check(path, inputs, nin, e)) < 0)
		return rc;
	if (!(*canon = canonical(path)))
		return 0; /* (afile_check found its folder) */
	return check_implicit(o->flag, path, *canon, flags, e);
}

/* The outputs checked so far: canonical names (NULL: not yet known) and the
 * flags naming them. */
struct seen {
	char *canon;
	const char *flag;
};

static int seen_add(struct seen **v, size_t *n, size_t *cap, const struct afile_out *o,
		    const char *path, const char *const *inputs, size_t nin, unsigned flags,
		    struct err *e)
{
	XGROW(*v, *cap, *n + 1);
	(*v)[*n].flag = o->flag;
	return check_one(o, path, inputs, nin, flags, &(*v)[(*n)++].canon, e);
}

int afile_check_outputs(const struct afile_out *outs, size_t n, const char *const *inputs,
			size_t nin, unsigned flags, struct err *e)
{
	struct seen *v = NULL;
	const char *const *f;
	const char *claim = NULL;
	struct sbuf sb;
	size_t i, j, nv = 0, cap = 0;
	struct stat st;
	int rc = 0;

	sb_init(&sb);
	for (i = 0; i < n && rc == 0; i++) {
		const struct afile_out *o = &outs[i];
		char *c;
		if (!o->path)
			continue;
		if (!*o->path) {
			rc = err_set(e, SS_EUSAGE, "%s: empty file name", o->flag);
		} else if (!o->files && names_stdout(o->path)) {
			if (claim)
				rc = err_set(e, SS_EUSAGE, "%s and %s both name standard output; "
					     "write one of them to a file", claim, o->flag);
			else if (fcntl(STDOUT_FILENO, F_GETFD) < 0)
				rc = err_set(e, SS_EUSAGE, "%s %s: standard output is closed", o->flag, o->path);
			else if (strlen(o->path) >= AFILE_PATH_MAX)
				rc = err_set(e, SS_EUSAGE, "%s: name too long", o->flag);
			else
				memcpy(afile_stdout_name, o->path, strlen(o->path) + 1);
			claim = o->flag;
		} else if (!o->files) {
			rc = seen_add(&v, &nv, &cap, o, o->path, inputs, nin, flags, e);
		} else if (stat(o->path, &st) == 0 && !S_ISDIR(st.st_mode)) {
			rc = err_set(e, SS_EUSAGE, "%s %s: is not a folder", o->flag, o->path);
		} else {
			/* a folder receiving the named files (created later
			 * when it does not exist yet) */
			if ((c = canonical(o->path)) != NULL)
				rc = check_implicit(o->flag, o->path, c, flags, e);
			free(c);
			for (f = o->files; *f && rc == 0 && stat(o->path, &st) == 0; f++) {
				sb_reset(&sb);
				sb_printf(&sb, "%s/%s", o->path, *f);
				rc = seen_add(&v, &nv, &cap, o, sb.buf, inputs, nin, flags, e);
			}
		}
	}
	/* two outputs of one command on one file: the second would replace the
	 * first (a terminal or /dev/null may take both) */
	for (i = 0; i < nv && rc == 0; i++)
		for (j = 0; j < i && rc == 0; j++)
			if (v[i].canon && v[j].canon && strcmp(v[i].canon, v[j].canon) == 0 &&
			    !(stat(v[i].canon, &st) == 0 && S_ISCHR(st.st_mode)))
				rc = err_set(e, SS_EUSAGE, "%s and %s name the same file %s; each output needs "
					     "its own", v[j].flag, v[i].flag, v[i].canon);
	if (rc == 0 && claim && afile_stdout_fd < 0) {
		/* the claimed output gets fd 1 as it is; the report, which
		 * every command prints on fd 1, goes to standard error */
		fflush(stdout);
		if ((afile_stdout_fd = dup(STDOUT_FILENO)) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			rc = err_set(e, SS_ERUNTIME, "standard output: cannot redirect: %s", strerror(errno));
	}
	for (i = 0; i < nv; i++)
		free(v[i].canon);
	free(v);
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
