/* pass.c - one evaluation pass over the inputs (pass.h): each loaded,
 * resolved and given its tier-1 terms in input order, simulated a batch at
 * a time on threads, and taken back in order, so that rows, warnings and
 * failures are the same for any number of threads. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>
#include <sys/stat.h>

#include "base/afile.h"
#include "base/alloc.h"
#include "base/pfor.h"
#include "readers/tier1file.h"
#include "engine/registry.h"
#include "eval/pass.h"
#include "eval/table.h"

/* rows a pass starts with room for (it grows: pass_room) */
#define ROWS_START 2048

static void note_used(struct eval_pass *p, const char *path)
{
	const char *shown = strstr(path, "calibration/");
	int k;

	shown = shown ? shown : path;
	for (k = 0; k < p->nused; k++)
		if (strcmp(p->used[k], shown) == 0)
			return;
	if (p->nused < 4)
		snprintf(p->used[p->nused++], sizeof(p->used[0]), "%s", shown);
}

static void note_model(struct eval_pass *p, const char *id)
{
	int k;

	for (k = 0; k < p->nmodels; k++)
		if (strcmp(p->models[k], id) == 0)
			return;
	if (p->nmodels < 16)
		snprintf(p->models[p->nmodels++], sizeof(p->models[0]), "%s", id);
}

static void note_workloads(struct eval_pass *p)
{
	size_t i;
	int k;

	for (i = 0; i < p->nrows; i++) {
		for (k = 0; k < p->nworkloads; k++)
			if (strcmp(p->workloads[k], p->rows[i].workload) == 0)
				break;
		if (k == p->nworkloads && p->nworkloads < 32)
			snprintf(p->workloads[p->nworkloads++], sizeof(p->workloads[0]), "%s",
				 p->rows[i].workload);
	}
}

/* What a silicon table's rows loaded before (the same few models, GPUs
 * and engine versions recur in thousands of rows): the models by the name
 * a row gives and the tier-1 file calib_find chose by GPU and version.
 * Only what loaded without error is kept. */
#define LOAD_MEMO_MAX 32

struct load_memo {
	size_t nm, nc;
	struct {
		char name[sizeof(((struct experiment *)0)->model)];
		struct model_cfg m;
	} *models;
	struct {
		char gpu[sizeof(((struct gpu_spec *)0)->id)], version[sizeof(((struct experiment *)0)->engine_version)];
		bool found;
		struct calib_file cf;
	} *calibs;
};

static void load_memo_release(struct load_memo *lm)
{
	free(lm->models);
	free(lm->calibs);
	memset(lm, 0, sizeof(*lm));
}

/* Model and GPU of x from the registries (the model from lm when it holds
 * the name; lm may be NULL); rows use the registry ids.  A name the
 * registry does not know is retried as the base checkpoint of a quantised
 * variant (aic_model_candidates: -FP8 / -NVFP4 suffix, nvidia/ prefix,
 * organisation dropped); the first error is the one reported. */
static int resolve(struct catalog *cat, struct experiment *x, struct model_cfg *m,
		   const struct gpu_spec **g, bool *gpu_failed, struct load_memo *lm, struct err *e)
{
	char cand[3][128];
	int nc, k, rc = -1;
	size_t i;
	struct err e2;

	/* a checkpoint the row names is loaded in place of its model */
	const char *name = x->checkpoint[0] ? x->checkpoint : x->model;

	*gpu_failed = false;
	for (i = 0; lm && i < lm->nm && rc < 0; i++)
		if (strcmp(lm->models[i].name, name) == 0) {
			*m = lm->models[i].m;
			rc = 0;
		}
	if (rc < 0) {
		nc = aic_model_candidates(name, cand);
		if ((rc = catalog_load_model(cat, name, NULL, m, e)) < 0)
			for (k = 1; k < nc && rc < 0; k++)
				rc = catalog_load_model(cat, cand[k], NULL, m, &e2);
		if (rc == 0 && lm && lm->nm < LOAD_MEMO_MAX) {
			if (!lm->models)
				lm->models = xcalloc(LOAD_MEMO_MAX, sizeof(*lm->models));
			snprintf(lm->models[lm->nm].name, sizeof(lm->models[0].name), "%s", name);
			lm->models[lm->nm++].m = *m;
		}
	}
	if (rc == 0 && ((rc = catalog_load_gpus(cat, e)) < 0 || (rc = gpu_find_result_name(&cat->gpus, x->gpu, g, e)) < 0))
		*gpu_failed = true;
	if (rc == 0) {
		/* the row keeps its model's id (held-out folds, reports) when a
		 * checkpoint of it was priced */
		const struct model_entry *me = x->checkpoint[0] ? registry_find(&cat->reg, x->model) : NULL;
		snprintf(x->model, sizeof(x->model), "%s", me ? me->id : m->id);
		snprintf(x->gpu, sizeof(x->gpu), "%s", (*g)->id);
	}
	return rc;
}

/* calib_find through lm (NULL: straight). */
static int find_tier1(struct load_memo *lm, const char *dir, const char *gpu, const char *version,
		      struct calib_file *cf, bool *found, struct err *e)
{
	size_t i;
	int rc;

	for (i = 0; lm && i < lm->nc; i++)
		if (strcmp(lm->calibs[i].gpu, gpu) == 0 && strcmp(lm->calibs[i].version, version) == 0) {
			*found = lm->calibs[i].found;
			if (*found)
				*cf = lm->calibs[i].cf;
			return 0;
		}
	rc = calib_find(dir, gpu, version, cf, found, e);
	if (rc == 0 && lm && lm->nc < LOAD_MEMO_MAX) {
		if (!lm->calibs)
			lm->calibs = xcalloc(LOAD_MEMO_MAX, sizeof(*lm->calibs));
		snprintf(lm->calibs[lm->nc].gpu, sizeof(lm->calibs[0].gpu), "%s", gpu);
		snprintf(lm->calibs[lm->nc].version, sizeof(lm->calibs[0].version), "%s", version);
		lm->calibs[lm->nc].found = *found;
		if (*found)
			lm->calibs[lm->nc].cf = *cf;
		lm->nc++;
	}
	return rc;
}

/* Tier 1 for x (--calibration FILE, none, or the matching accepted file,
 * found through lm, which may be NULL): the options it runs with in *xo;
 * warnings to diag. */
static int prepare_loaded(const struct eval_inputs *c, const struct eval_opts *eo,
			  const char *calibration, struct eval_pass *p, struct experiment *x,
			  const struct model_cfg *m, const struct gpu_spec *g, FILE *diag,
			  struct load_memo *lm, struct eval_opts *xo, struct err *e)
{
	struct calib_file cf;
	bool found = false;
	char dir[1200];
	int rc = 0;

	*xo = *eo;
	x->wl.seed += c->seed_add;
	/* rows and summaries use the registry id, whatever the file said (a
	 * priced checkpoint's row keeps its model's: resolve) */
	if (!x->checkpoint[0])
		snprintf(x->model, sizeof(x->model), "%s", m->id);
	note_model(p, x->model);
	/* tier 1: --calibration FILE, none, or the matching accepted file */
	if (calibration && strcmp(calibration, "none") == 0) {
		found = false;
	} else if (calibration) {
		char why[400];
		if ((rc = calib_load(calibration, &cf, e)) == 0)
			found = cf.accepted;
		if (rc == 0 && !cf.accepted && !p->warned_rejected) {
			fprintf(diag, "servesim eval: warning: %s is marked rejected (its fit did worse than tier 0): not applied, tier 0 stays\n",
				calibration);
			p->warned_rejected = true;
		}
		if (rc == 0 && calib_mismatch(&cf, m->id, g->id, x->engine_version, why, sizeof(why)) &&
		    strcmp(why, p->warned) != 0) {
			fprintf(diag, "servesim eval: warning: %s was fitted on another %s\n", calibration, why);
			snprintf(p->warned, sizeof(p->warned), "%s", why);
		}
	} else if (!c->terms_given && !eo->tier0_off) {
		snprintf(dir, sizeof(dir), "%s/../calibration/tier1", c->cat->data_dir);
		rc = find_tier1(lm, dir, g->id, x->engine_version, &cf, &found, e);
	}
	if (rc == 0 && found) {
		xo->ov = cf.ov;
		note_used(p, cf.path);
	}
	return rc;
}

/* Room in p for n more rows. */
static void pass_room(struct eval_pass *p, size_t n)
{
	if (p->nrows + n <= p->cap)
		return;
	while (p->nrows + n > p->cap)
		p->cap = p->cap ? 2 * p->cap : ROWS_START;
	p->rows = xrealloc(p->rows, xmul(p->cap, sizeof(*p->rows)));
}

/* A silicon table's row, loaded (eval/table.h's prepare): its model and
 * GPU, then its tier-1 terms, in row order; refusals counted by reason. */
struct table_ctx {
	const struct eval_inputs *c;
	const struct eval_opts *eo;
	const char *calibration;
	struct eval_pass *p;
	struct load_memo lm;
};

static int table_prepare(void *vctx, struct experiment *x, struct model_cfg *m, const struct gpu_spec **g,
			 struct eval_opts *o, char *why, size_t n)
{
	struct table_ctx *t = vctx;
	struct err e2;
	bool gf;

	if (resolve(t->c->cat, x, m, g, &gf, &t->lm, &e2) < 0) {
		snprintf(why, n, "%s %.90s unknown to servesim", gf ? "GPU" : "model", gf ? x->gpu : x->model);
		return 0;
	}
	if (prepare_loaded(t->c, t->eo, t->calibration, t->p, x, m, *g, t->c->diag, &t->lm, o, &e2) < 0) {
		eval_table_why(x, m, *g, &e2, why, n);
		return 0;
	}
	return 1;
}

/* Every row of an aiconfigurator silicon table that --where keeps, on
 * threads (eval_table_run); rows servesim cannot run are counted by
 * reason in p->skips, never dropped silently. */
static int run_table(const char *path, const struct eval_inputs *c, const struct eval_opts *eo,
		     const char *calibration, int threads, struct eval_pass *p, struct err *e)
{
	struct table_ctx tc = {c, eo, calibration, p, {0}};
	struct eval_table_in in = {path, c->where, c->gpu, c->base, c->cat->data_dir, threads, table_prepare, &tc};
	struct eval_table_res r;
	int rc;

	rc = eval_table_run(&in, &p->skips, &r, e);
	load_memo_release(&tc.lm);
	if (rc < 0)
		return rc;
	p->table_rows += r.kept;
	p->table_total += r.total;
	p->table_sim += r.simulated;
	p->table_pools += r.pools_derived;
	p->table_dups += r.dups;
	if (r.nrows) {
		pass_room(p, r.nrows);
		memcpy(p->rows + p->nrows, r.rows, r.nrows * sizeof(*r.rows));
		p->nrows += r.nrows;
	}
	free(r.rows);
	return 0;
}

static const char *base_name_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b && b[1] ? b + 1 : path;
}

/* Experiment folders of a pass run as a batch: each loaded, resolved and
 * given its tier-1 terms in order (its warnings kept in its own buffer),
 * then all simulated on threads (eval_run_jobs), then, in order, each
 * one's warnings printed and its rows appended, up to the first failure:
 * the same output, stderr included, as one experiment after another. */
#define BATCH_MAX 64

struct pend {
	const char *file;      /* the input, for its failure */
	struct experiment *x;
	struct model_cfg *m;
	bool loaded;           /* x holds a loaded experiment (released after) */
	char *diag;            /* its warnings */
	size_t ndiag;
	FILE *df;
	int rc;                /* <0: it failed before its simulation (e) */
	struct err e;
	struct eval_job job;
};

struct batch {
	struct pend q[BATCH_MAX];
	size_t n;
	int threads;
};

static struct pend *batch_add(struct batch *b)
{
	struct pend *q = &b->q[b->n++];

	memset(q, 0, sizeof(*q));
	q->x = xcalloc(1, sizeof(*q->x));
	q->m = xcalloc(1, sizeof(*q->m));
	q->df = open_memstream(&q->diag, &q->ndiag);
	if (!q->df)
		BUG("open_memstream");
	return q;
}

static void pend_release(struct pend *q)
{
	if (q->df)
		fclose(q->df);
	free(q->diag);
	if (q->loaded)
		experiment_release(q->x);
	free(q->x);
	free(q->m);
	free(q->job.rows);
	memset(q, 0, sizeof(*q));
}

/* Input `file` could not be evaluated (e says why): counted and listed
 * in the pass, the other inputs go on.  The message names the input. */
static void fail_input(struct eval_pass *p, const char *file, const struct err *e)
{
	size_t n = strlen(file);

	if (p->nfailed == 0)
		p->first_failure = *e;
	if (p->nfailed < EVAL_MAX_FAILED) {
		if (strncmp(e->msg, file, n) == 0)
			snprintf(p->failed[p->nfailed], sizeof(p->failed[0]), "%.399s", e->msg);
		else
			snprintf(p->failed[p->nfailed], sizeof(p->failed[0]), "%.150s: %.240s", file, e->msg);
	}
	p->nfailed++;
}

/* Simulate the batch, then print and append in order; an experiment that
 * failed (loading, resolving or simulating) is counted in p, not fatal. */
static void batch_flush(const struct eval_inputs *c, struct batch *b, struct eval_pass *p)
{
	struct eval_job *jobs = xcalloc(b->n ? b->n : 1, sizeof(*jobs));
	size_t i, nj = 0, k;

	/* an entry that failed before its simulation, or was skipped, has
	 * no job */
	for (i = 0; i < b->n; i++)
		if (b->q[i].rc == 0 && b->q[i].job.x)
			jobs[nj++] = b->q[i].job;
	eval_run_jobs(jobs, nj, b->threads, c->cat->data_dir);
	for (i = 0, nj = 0; i < b->n; i++) {
		struct pend *q = &b->q[i];
		fclose(q->df);
		q->df = NULL;
		if (q->ndiag)
			fwrite(q->diag, 1, q->ndiag, c->diag);
		if (q->rc == 0 && q->job.x)
			q->job = jobs[nj++];
		if (q->rc < 0) {
			fail_input(p, q->file, &q->e);
		} else if (q->job.rc < 0) {
			fail_input(p, q->file, &q->job.e);
		} else {
			pass_room(p, q->job.nrows);
			for (k = 0; k < q->job.nrows; k++)
				p->rows[p->nrows++] = q->job.rows[k];
		}
		pend_release(q);
	}
	b->n = 0;
	free(jobs);
}

/* One evaluation pass over every experiment.  An input that cannot be
 * evaluated is counted in p->nfailed and listed (p->failed), and the others
 * still run; the caller turns that into the partial status. */
int eval_pass_run(const struct eval_inputs *c, const struct eval_opts *eo, const char *calibration,
		  struct eval_pass *p, struct err *e)
{
	char **files = c->files;
	size_t nf = c->n;
	struct batch *b = xcalloc(1, sizeof(*b));
	long ncpu = c->jobs > 0 ? c->jobs : pfor_default_threads();
	char tf[1200];
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	pass_room(p, ROWS_START);
	b->threads = ncpu > 1 ? (int)(ncpu < 64 ? ncpu : 64) : 1;
	p->ninputs = nf;
	for (i = 0; i < nf; i++) {
		const struct gpu_spec *g;
		struct pend *q;
		bool gf;
		if (exp_table_detect(files[i], tf, sizeof(tf))) {
			/* in order: the experiments before it first; a table that
			 * fails leaves nothing of itself behind */
			size_t nrows, rows, total, sim, dups;
			struct skip_tally skips;
			struct err te;
			batch_flush(c, b, p);
			nrows = p->nrows;
			rows = p->table_rows;
			total = p->table_total;
			sim = p->table_sim;
			dups = p->table_dups;
			skips = p->skips;
			p->ntables++;
			err_clear(&te);
			if (run_table(files[i], c, eo, calibration, b->threads, p, &te) < 0) {
				p->ntables--;
				p->nrows = nrows;
				p->table_rows = rows;
				p->table_total = total;
				p->table_sim = sim;
				p->table_dups = dups;
				p->skips = skips;
				fail_input(p, files[i], &te);
			}
			continue;
		}
		/* a few experiments per thread: loaded ones wait in memory */
		if (b->n == BATCH_MAX || b->n >= 4 * (size_t)b->threads)
			batch_flush(c, b, p);
		q = batch_add(b);
		q->file = files[i];
		if ((q->rc = experiment_load_with(files[i], c->gpu, c->base, q->x, &q->e)) < 0)
			continue;
		q->loaded = true;
		if (q->x->warning[0])
			fprintf(q->df, "servesim eval: warning: %s\n", q->x->warning);
		if ((q->rc = resolve(c->cat, q->x, q->m, &g, &gf, NULL, &q->e)) < 0 && q->x->skippable) {
			/* results that name their model / GPU (engine request
			 * stats, vcr traces): counted, the others still run */
			char why[200];
			snprintf(why, sizeof(why), "%.60s: %s %.90s unknown to servesim", base_name_of(files[i]),
				 gf ? "GPU" : "model", gf ? q->x->gpu : q->x->model);
			skip_tally_add(&p->skips, why);
			/* no job: only its warning stays, printed in order */
			q->rc = 0;
			experiment_release(q->x);
			q->loaded = false;
			q->job.x = NULL;
			continue;
		}
		if (q->rc < 0) {
			err_prefix(&q->e, "%s", files[i]);
			q->rc = -SS_EDATA;
			q->e.code = SS_EDATA;
			continue;
		}
		if ((q->rc = prepare_loaded(c, eo, calibration, p, q->x, q->m, g, q->df, NULL, &q->job.o,
					    &q->e)) < 0)
			continue;
		q->job.x = q->x;
		q->job.m = q->m;
		q->job.g = g;
	}
	batch_flush(c, b, p);
	if (c->where && p->ntables == 0 && p->nfailed == 0)
		rc = err_set(e, SS_EUSAGE, "--where filters the rows of aiconfigurator silicon CSVs, and no path holds one");
	else if (c->where && p->table_rows == 0 && p->nrows == 0 && p->nfailed == 0)
		/* nothing to report: an empty table would read as a result */
		rc = err_set(e, SS_EUSAGE, "--where '%s' keeps none of the %zu rows of the silicon CSV%s given (the "
			     "values are the CSV's own, e.g. mode=agg, backend=vllm, system=h200_sxm)",
			     c->where, p->table_total, p->ntables > 1 ? "s" : "");
	note_workloads(p);
	free(b);
	return rc;
}

/* The status of a pass with failed inputs: 0 when none failed; the one
 * input's own error when it was the only one; else each failure named on
 * diag, then -SS_EPARTIAL (some evaluated) or the first failure's status
 * (none evaluated). */
int eval_pass_status(const struct eval_pass *p, FILE *diag, struct err *e)
{
	size_t i;

	if (p->nfailed == 0)
		return 0;
	if (p->ninputs == 1) {
		*e = p->first_failure;
		return -e->code;
	}
	for (i = 0; i < p->nfailed && i < EVAL_MAX_FAILED; i++)
		fprintf(diag, "servesim eval: not evaluated: %s\n", p->failed[i]);
	if (p->nfailed > EVAL_MAX_FAILED)
		fprintf(diag, "servesim eval: not evaluated: %zu more inputs\n", p->nfailed - EVAL_MAX_FAILED);
	if (p->nfailed == p->ninputs)
		return err_set(e, p->first_failure.code, "none of the %zu inputs could be evaluated",
			       p->ninputs);
	return err_set(e, SS_EPARTIAL, "%zu of %zu inputs not evaluated (named above); the other %zu are reported (exit 4: partial)",
		       p->nfailed, p->ninputs, p->ninputs - p->nfailed);
}

/* The failed inputs of src, for the caller's status. */
void eval_pass_failures(struct eval_pass *dst, const struct eval_pass *src)
{
	dst->ninputs = src->ninputs;
	dst->nfailed = src->nfailed;
	memcpy(dst->failed, src->failed, sizeof(dst->failed));
	dst->first_failure = src->first_failure;
}

void eval_pass_release(struct eval_pass *p)
{
	free(p->rows);
	p->rows = NULL;
	p->nrows = p->cap = 0;
}

bool eval_pass_any(const struct eval_pass *p)
{
	return !(p->nfailed && p->nfailed == p->ninputs);
}

int eval_seed_spread(const struct eval_inputs *in, const struct eval_opts *eo, const char *calibration,
		     int seeds, double (*med)[EM__COUNT], double (*mean)[EM__COUNT], struct err *e)
{
	int s, k, rc = 0;

	for (s = 0; s < seeds && s < 64; s++) {
		struct eval_inputs cs = *in;
		struct eval_pass q;
		size_t cnt;
		cs.seed_add = (uint64_t)s;
		if ((rc = eval_pass_run(&cs, eo, calibration, &q, e)) < 0) {
			free(q.rows);
			return rc;
		}
		for (k = 0; k < EM__COUNT; k++)
			eval_ape_stats(q.rows, q.nrows, (enum ev_metric)k, false, NULL, NULL, &med[s][k],
				       &mean[s][k], &cnt);
		free(q.rows);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* path, an input about to be collected, is one of out[0..n) under another
 * name (overlapping arguments, a link): SS_EUSAGE naming both; evaluated
 * twice, its rows would count twice in every median and fit. */
static int check_twice(char *const *out, size_t n, const char *path, struct err *e)
{
	struct stat a, b;
	size_t i;

	if (stat(path, &a) != 0)
		return 0;
	for (i = 0; i < n; i++)
		if (stat(out[i], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return err_set(e, SS_EUSAGE, "%s: the same input as %s (the paths given overlap); "
				       "name each input once", path, out[i]);
	return 0;
}

static int collect(const char *path, char **out, size_t *n, size_t max, int depth, struct err *e)
{
	char f[1200];
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, cap = 0, i;
	int rc = 0;

	/* ENOENT said as before; a link loop, a denied folder, ... by its own
	 * name, not as a missing file */
	if (stat(path, &sb) != 0)
		return err_set(e, SS_EDATA, "%s: %s", path,
			       errno == ENOENT ? "no such file or folder" : strerror(errno));
	if (S_ISREG(sb.st_mode) || experiment_detect(path)) {
		if (*n >= max)
			return err_set(e, SS_EUSAGE, "more than %zu experiments", max);
		if ((rc = check_twice(out, *n, path, e)) < 0)
			return rc;
		out[(*n)++] = xstrdup(path);
		return 0;
	}
	if (depth > 6)
		return 0;
	if (!(d = opendir(path))) {
		/* a folder that cannot be read is an input that fails with the
		 * reason (eval counts it and goes on), never silently left out */
		if (*n >= max)
			return err_set(e, SS_EUSAGE, "more than %zu experiments", max);
		out[(*n)++] = xstrdup(path);
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		XGROW(names, cap, nn + 1);
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	for (i = 0; i < nn; i++) {
		snprintf(f, sizeof(f), "%s/%s", path, names[i]);
		if (rc == 0 && stat(f, &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = collect(f, out, n, max, depth + 1, e);
		free(names[i]);
	}
	free(names);
	return rc;
}

int eval_collect(const char *path, char **out, size_t *n, size_t max, struct err *e)
{
	return collect(path, out, n, max, 0, e);
}

int eval_check_outputs(const struct afile_out *outs, size_t n, char *const *files, size_t nf,
		       const char *calibration, struct err *e)
{
	const char **paths = xcalloc(2 * nf + 1, sizeof(*paths));
	char (*pools)[760] = xcalloc(nf ? nf : 1, sizeof(*pools));
	size_t nin = 0, i;
	int rc;

	for (i = 0; i < nf; i++) {
		paths[nin++] = files[i];
		if (exp_table_pools(files[i], pools[i], sizeof(pools[i])))
			paths[nin++] = pools[i]; /* read beside a silicon table */
	}
	paths[nin++] = calibration;
	rc = afile_check_outputs(outs, n, paths, nin, 0, e);
	free(pools);
	free(paths);
	return rc;
}

#define O(m) offsetof(struct exp_settings, m)
#define LIMIT(flag, m, lo) {AT_I(flag, "N", O(m), lo, INT32_MAX, NULL)}
static const struct argtab_row settings_rows[] = {
	AT_TXT("  --experiment DIR  for results that record no model or engine settings (a\n"
	       "                    bare guidellm-results.json[.gz] or traces.json[.gz], or a\n"
	       "                    folder without exp-config.yaml): use DIR's settings\n"
	       "  --model M --tp N [--max-num-batched-tokens N] [--max-num-seqs N]\n"
	       "  [--max-model-len N] [--total-kv-blocks N] [--engine-version V]\n"
	       "  [--prefix-tokens N]  ... or give them (defaults 8192, 256, 4096, KV from\n"
	       "                    memory, unknown, 0); with --experiment they override DIR's\n"),
	{AT_S("--experiment", "DIR", O(experiment), NULL)},
	{AT_S("--model", "M", O(model), NULL)},
	LIMIT("--tp", tp, 1),
	LIMIT("--max-num-batched-tokens", mbt, 1),
	LIMIT("--max-num-seqs", mns, 1),
	LIMIT("--max-model-len", mml, 1),
	LIMIT("--total-kv-blocks", kv, 1),
	{AT_F("--engine-version", "V", O(engine_version), engine_version_arg, NULL)},
	LIMIT("--prefix-tokens", prefix, 0),
};
const struct argtab exp_settings_tab = ARGTAB(settings_rows, 0);

int exp_settings_base(const struct exp_settings *s, const char *gpu, struct experiment *base, bool *have,
		      struct err *e)
{
	int rc;

	memset(base, 0, sizeof(*base));
	*have = false;
	if (!s->experiment && !s->model) {
		if (s->tp || s->mbt || s->mns || s->mml || s->kv || s->engine_version || s->prefix)
			return err_set(e, SS_EUSAGE,
				       "--tp and the engine limits describe bare results files: give --model M or --experiment DIR with them");
		return 0;
	}
	if (s->experiment) {
		/* its settings only: the measurements go */
		struct experiment *t = xcalloc(1, sizeof(*t));
		if ((rc = experiment_load_any(s->experiment, gpu, t, e)) < 0) {
			free(t);
			err_prefix(e, "--experiment");
			return rc;
		}
		*base = *t;
		memset(&base->meas, 0, sizeof(base->meas));
		base->replay = NULL;
		base->nstages = 0;
		wl_spec_defaults(&base->wl);
		base->wl.prefix_tokens = t->wl.prefix_tokens;
		experiment_release(t);
		free(t);
	} else {
		wl_spec_defaults(&base->wl);
		snprintf(base->gpu, sizeof(base->gpu), "%s", gpu);
		snprintf(base->engine_version, sizeof(base->engine_version), "unknown");
		base->tp = base->pp = base->dp = base->ep = 1;
		base->dtype = DT_BF16;
		/* max_num_seqs 256 and max_model_len 4096: the defaults the
		 * --max-num-seqs and --max-model-len flags document for bare
		 * results files (exp_settings_tab's help, docs/commands/eval.md), kept
		 * apart from the 1024 and longest-request ones experiment.c's
		 * apply_settings takes when no --model or --experiment is given */
		experiment_default_knobs(&base->k, 256, 4096);
	}
	if (s->model)
		snprintf(base->model, sizeof(base->model), "%s", s->model);
	if (s->engine_version)
		snprintf(base->engine_version, sizeof(base->engine_version), "%s", s->engine_version);
	if (s->tp)
		base->tp = (int)s->tp;
	if (s->mbt)
		base->k.max_num_batched_tokens = s->mbt;
	if (s->mns)
		base->k.max_num_seqs = s->mns;
	if (s->mml)
		base->k.max_model_len = s->mml;
	if (s->kv)
		base->k.total_kv_blocks = s->kv;
	if (s->prefix)
		base->wl.prefix_tokens = s->prefix;
	*have = true;
	return 0;
}
