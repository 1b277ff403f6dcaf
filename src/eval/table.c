/* table.c - a table's rows as experiments on threads (table.h).
 *
 * The rows go in chunks of up to 64 per thread: each loaded and prepared in
 * order (the caller's prepare may print, and notes what it used), then the
 * chunk simulated by eval_run_jobs, then each row's rows appended and its
 * refusal counted in order.  Only a chunk's experiments are in memory at
 * once.  (`servesim eval` ran the ~2,900 silicon rows one after another:
 * 17 s on one core of two.) */
#include "eval/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/fnv1a.h"
#include "eval/simkey.h"

/* rows of a chunk per thread, and the most rows of a chunk unless that
 * is fewer than TABLE_CHUNK_MIN_PER_THREAD a thread (a slot holds ~26 kB:
 * 512 of them 13 MB).  The rows' simulations take from 1 ms to ~0.8 s
 * (the silicon table); eval_run_jobs runs each chunk's heaviest first, and
 * the more a chunk holds, the less a thread waits at its end for the
 * others' last rows: at 4 rows a thread `servesim eval eval/silicon` kept
 * two cores 78 % busy, at 64 98 % (and started a thread per chunk a
 * sixteenth as often). */
#define TABLE_CHUNK_PER_THREAD 64
#define TABLE_CHUNK_MAX 512
#define TABLE_CHUNK_MIN_PER_THREAD 4

struct slot {
	struct experiment x;
	struct model_cfg m;
	bool loaded;
	int run;                        /* 1: a job, 0: skipped under why */
	char why[120];
	bool keyed;                     /* its job has a key (simkey.h) */
	struct eval_simkey key;
};

/* The same simulation once (simkey.h): job j of slot s takes the outcome
 * of an earlier row's run of it, or of an earlier job of this chunk's, or
 * keeps its own for later rows. */
static void job_from(struct eval_simcache *done, struct slot *sl, size_t n, struct eval_job *jobs, size_t nj)
{
	struct slot *s = &sl[n];
	struct eval_job *j = &jobs[nj];
	const struct eval_outcome *oc;
	size_t i, k;

	s->keyed = eval_simkey_of(j, &s->key);
	if (!s->keyed)
		return;
	if ((oc = eval_simcache_find(done, &s->key))) {
		j->from = EVAL_FROM_OC;
		j->oc = *oc;
		return;
	}
	for (i = 0, k = 0; i < n; i++) {
		if (!sl[i].run)
			continue;
		if (sl[i].keyed && jobs[k].from == 0 && sl[i].key.h[0] == s->key.h[0] &&
		    sl[i].key.h[1] == s->key.h[1]) {
			j->from = k + 1;
			return;
		}
		k++;
	}
	j->keep = true;
}

void eval_table_why(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
		    const struct err *e, char *why, size_t n)
{
	const char *msg = e->msg;
	size_t nl = strlen(x->name);
	char norm[80];

	if (strncmp(msg, x->name, nl) == 0 && msg[nl] == ':')
		msg += nl + 1 + (msg[nl + 1] == ' ');
	skip_reason_norm(msg, norm, sizeof(norm));
	snprintf(why, n, "%.30s %.16s: %.70s", m->id, g->id, norm);
}

/* Simulate the chunk's nj jobs (its running slots, in order), then take
 * each slot's results in order. */
static void chunk_flush(const struct eval_table_in *in, struct slot *sl, size_t n, struct eval_job *jobs,
			size_t nj, struct skip_tally *skips, struct eval_table_res *res, size_t *cap,
			struct eval_simcache *done)
{
	size_t i, k;

	eval_run_jobs(jobs, nj, in->threads, in->data_dir);
	for (i = 0, nj = 0; i < n; i++) {
		struct eval_job *j = sl[i].run ? &jobs[nj++] : NULL;
		if (j && j->kept)
			eval_simcache_add(done, &sl[i].key, &j->oc);
		if (!j) {
			skip_tally_add(skips, sl[i].why);
		} else if (j->rc < 0) {
			eval_table_why(&sl[i].x, &sl[i].m, j->g, &j->e, sl[i].why, sizeof(sl[i].why));
			skip_tally_add(skips, sl[i].why);
		} else {
			res->simulated++;
			if (res->nrows + j->nrows > *cap) {
				while (res->nrows + j->nrows > *cap)
					*cap = *cap ? 2 * *cap : 1024;
				res->rows = xreallocarray(res->rows, *cap, sizeof(*res->rows));
			}
			for (k = 0; k < j->nrows; k++)
				res->rows[res->nrows++] = j->rows[k];
		}
		if (j)
			free(j->rows);
		if (sl[i].loaded)
			experiment_release(&sl[i].x);
		sl[i].loaded = false;
	}
}

int eval_table_run(const struct eval_table_in *in, struct skip_tally *skips, struct eval_table_res *res,
		   struct err *e)
{
	struct exp_table t;
	size_t nth = (size_t)(in->threads > 1 ? in->threads : 1), i, n = 0, nj = 0;
	size_t chunk = nth * TABLE_CHUNK_PER_THREAD;
	size_t cap = 0;
	struct slot *sl;
	struct eval_job *jobs;
	struct eval_simcache done;
	int rc;

	if (chunk > TABLE_CHUNK_MAX)
		chunk = TABLE_CHUNK_MAX;
	if (chunk < nth * TABLE_CHUNK_MIN_PER_THREAD)
		chunk = nth * TABLE_CHUNK_MIN_PER_THREAD;
	memset(res, 0, sizeof(*res));
	if ((rc = exp_table_open(in->path, in->where, &t, e)) < 0)
		return rc;
	res->kept = t.n + t.dups;
	res->total = t.total;
	res->pools_derived = t.pools_derived;
	res->dups = t.dups;
	sl = xcalloc(chunk, sizeof(*sl));
	jobs = xcalloc(chunk, sizeof(*jobs));
	eval_simcache_init(&done);
	for (i = 0; i < t.n; i++) {
		struct slot *s = &sl[n++];
		const struct gpu_spec *g = NULL;
		struct eval_opts o;
		if ((rc = exp_table_load(&t, i, in->gpu, in->base, &s->x, s->why, sizeof(s->why), e)) < 0)
			break;
		s->loaded = rc > 0;
		s->keyed = false;
		s->run = rc > 0 ? in->prepare(in->ctx, &s->x, &s->m, &g, &o, s->why, sizeof(s->why)) > 0 : 0;
		if (s->run) {
			memset(&jobs[nj], 0, sizeof(jobs[nj]));
			jobs[nj].x = &s->x;
			jobs[nj].m = &s->m;
			jobs[nj].g = g;
			jobs[nj].o = o;
			job_from(&done, sl, n - 1, jobs, nj);
			nj++;
		}
		rc = 0;
		if (n == chunk) {
			chunk_flush(in, sl, n, jobs, nj, skips, res, &cap, &done);
			n = nj = 0;
		}
	}
	if (rc == 0) {
		chunk_flush(in, sl, n, jobs, nj, skips, res, &cap, &done);
	} else {
		for (i = 0; i < n; i++)
			if (sl[i].loaded)
				experiment_release(&sl[i].x);
		free(res->rows);
		memset(res, 0, sizeof(*res));
	}
	free(sl);
	free(jobs);
	eval_simcache_release(&done);
	exp_table_release(&t);
	return rc;
}

/* The folders an import has written: FNV-1a hashes beside the names, so
 * the look-up of each row's folder compares words, not strings. */
struct written {
	uint64_t *h;
	char **name;
	size_t n, hcap, ncap;
};

/* Whether dir was written before; else it is recorded. */
static bool written_before(struct written *w, const char *dir)
{
	uint64_t h = fnv1a64(FNV1A64_BASIS, dir);
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->h[i] == h && strcmp(w->name[i], dir) == 0)
			return true;
	XGROW(w->h, w->hcap, w->n + 1);
	XGROW(w->name, w->ncap, w->n + 1);
	w->h[w->n] = h;
	w->name[w->n++] = xstrdup(dir);
	return false;
}

int exp_table_import(const char *path, const char *where, const char *gpu, const struct experiment *base,
		     const char *out, struct skip_tally *skips, size_t *done, size_t *total, const char **title,
		     struct err *e)
{
	struct experiment *x = xcalloc(1, sizeof(*x));
	struct exp_table t;
	struct written w = {0};
	char dir[1400], why[120];
	size_t i;
	int rc;

	*done = *total = 0;
	if ((rc = exp_table_open(path, where, &t, e)) < 0)
		goto out;
	for (i = 0; i < t.n && rc == 0; i++) {
		char *c;
		if ((rc = exp_table_load(&t, i, gpu, base, x, why, sizeof(why), e)) < 0)
			break;
		if (rc == 0) {
			skip_tally_add(skips, why);
			continue;
		}
		if (x->pd_prefill > 0) { /* experiment.json has no P/D fields yet */
			skip_tally_add(skips, "mode disagg (import writes aggregated experiments; eval replays P/D rows)");
			experiment_release(x);
			rc = 0;
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/%s", out, x->name);
		for (c = dir + strlen(out) + 1; *c; c++)
			if (*c == '/' || *c == '#')
				*c = '_';
		if (written_before(&w, dir)) {
			/* two rows of one id (or of ids alike but for '/' and
			 * '#'): the second folder would replace the first's,
			 * one row silently lost */
			char r[120];
			snprintf(r, sizeof(r), "id of an earlier row: %.95s", dir + strlen(out) + 1);
			skip_tally_add(skips, r);
			experiment_release(x);
			rc = 0;
			continue;
		}
		rc = experiment_write(x, dir, e);
		experiment_release(x);
		*done += rc == 0;
	}
	*total = t.total;
	*title = reader_get(t.fmt)->title;
	exp_table_release(&t);
out:
	for (i = 0; i < w.n; i++)
		free(w.name[i]);
	free(w.name);
	free(w.h);
	free(x);
	return rc;
}
