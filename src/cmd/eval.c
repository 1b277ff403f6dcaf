/* eval.c - `servesim eval PATH...`: simulate every ground-truth experiment
 * found under the paths and report measured vs predicted, APE per metric and
 * stage, and median / mean APE overall and per model; `--ablate` measures
 * each tier-0 correction, `--synthetic` runs the cost-model experiments,
 * `--report` writes markdown with gnuplot plots. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "calib/calib.h"
#include "eval/cv.h"
#include "eval/eval.h"
#include "report/evalreport.h"
#include "eval/synthetic.h"
#include "eval/table.h"
#include "hw/tier2.h"

#include "eval/ablation.h"

static const char eval_usage[] =
	"usage: servesim eval PATH... [options]\n"
	"       servesim eval --ablate PATH...\n"
	"       servesim eval --synthetic h4|h5|h6 [--model M] [--gpu G]\n"
	"\n"
	"Runs every ground-truth experiment under the PATHs and prints, per experiment\n"
	"and stage (or GuideLLM benchmark), measured vs predicted and the APE of TTFT\n"
	"mean and p90, ITL mean, E2E mean and p90 and throughput; then median and mean\n"
	"APE per metric, overall, per model and per workload.  Overloaded stages (queue\n"
	"growing without bound) are flagged with * and summarised apart.  ITL is\n"
	"compared as (E2E mean - TTFT mean)/(output - 1) because inference-perf <= 0.2\n"
	"reports about half the true inter-token latency.\n"
	"\n"
	"An experiment is a folder holding servesim's experiment.json, an inference-perf\n"
	"result folder (exp-config.yaml, results/), GuideLLM results\n"
	"(guidellm-results.json[.gz] with exp-config.yaml, engine-facts.json) or vLLM\n"
	"OpenTelemetry spans (traces.json[.gz]); per-request data is replayed at its\n"
	"recorded arrival times and lengths.  An aiconfigurator silicon CSV (or a folder\n"
	"holding one) is one closed-loop experiment per row (2 C warm-up + 10 C measured\n"
	"requests at concurrency C, as its genai-perf harness ran); rows servesim cannot\n"
	"run are counted by reason; a per model x GPU summary follows.  Folders above\n"
	"them are searched.  A bare results file needs --experiment or --model (below).\n"
	"\n";
/* the rest of the help (one literal would pass ISO C's 4095 characters) */
static const char eval_usage2[] =
	"options:\n"
	"  --calibration FILE|none tier-1 file to apply; default: the accepted file in\n"
	"                          calibration/tier1/ matching the GPU and engine version\n"
	"                          (closest version); none when the flags below are given\n"
	"  --tier0-off LIST        switch tier-0 corrections off (H1..H6)\n"
	"  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	"  --api-ttft-ms X --api-prompt-us X --stream-token-us X --delivery-steps X --eager-op-us X\n"
	"                          override the engine's host terms (each engine's\n"
	"                          own by version otherwise: docs/engines.md)\n"
	"  --ablate                switch each of H1..H6 off in turn (tier 0, no\n"
	"                          calibration) and print the change of median APE\n"
	"  --synthetic h4|h5|h6    cost-model experiments for H4, H5, H6 (--model,\n"
	"                          default llama-3.1-8b; --gpu)\n"
	"  --seeds K               also run K workload seeds (each experiment's seed +\n"
	"                          0..K-1; design document 002 asks for 3-5) and print the\n"
	"                          spread of the median and mean APE across them (text)\n"
	"  --tier2 FILE            tier-2 hardware file (measured bandwidth per pattern)\n"
	"  --gpu G                 GPU of runs that do not record it (default h100)\n"
	"  --where COND[,COND...]  rows of aiconfigurator silicon CSVs to run: COL=V or\n"
	"                          COL!=V on any column, comma = and (e.g.\n"
	"                          backend=trtllm,mode=agg,system=h200_sxm)\n"
	"  --cv model|gpu|engine   held-out accuracy: refit each engine's fitted host terms\n"
	"                          leaving each model family, GPU or engine out in turn\n"
	"                          and report every group's medians predicted by the\n"
	"                          others' fit beside the shipped ones (7 passes: slow)\n"
	"  --jobs N                experiments simulated at once on threads (default: the\n"
	"                          online cores; the output is the same for any N)\n"
	"  --format text|json|csv  (default text)\n"
	"  --report FILE.md        also write a markdown report (atomically)\n"
	"  --html FILE             the report as one self-contained HTML page (charts,\n"
	"                          sortable tables; as `servesim report` makes from --format json)\n"
	"  --plots DIR             with --report: SVG charts (their data and an optional\n"
	"                          gnuplot script beside them) in DIR\n"
	CLI_SETTINGS_HELP
	"\n"
	"exit codes: 0 ok (every input evaluated), 1 runtime error, 2 usage error,\n"
	"3 bad input data (the only input, or every input, failed), 4 partial: some\n"
	"inputs could not be evaluated (each named, counted in the summary), the\n"
	"others are reported\n";

#define MAX_EXP 256
/* rows a pass starts with room for (it grows: pass_room) */
#define ROWS_START 2048

struct eval_cli {
	struct eval_opts eo;
	enum out_format fmt;
	const char *gpu, *calibration, *report, *plots, *synthetic, *model, *html;
	bool ov_flags, ablate;
	const struct experiment *base; /* settings for bare results, or NULL */
	int seeds;             /* --seeds K: K workload seeds (0: the files' own) */
	uint64_t seed_add;     /* added to each experiment's workload seed */
	const char *where;             /* --where: rows of silicon tables */
	int jobs;                      /* --jobs: experiments simulated at once (0: the online cores) */
	bool cv;                       /* --cv: held-out refits (cv.h) grouped by cv_by */
	enum cv_by cv_by;
};

static void note_used(struct out_eval_pass *p, const char *path)
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

static void note_model(struct out_eval_pass *p, const char *id)
{
	int k;

	for (k = 0; k < p->nmodels; k++)
		if (strcmp(p->models[k], id) == 0)
			return;
	if (p->nmodels < 16)
		snprintf(p->models[p->nmodels++], sizeof(p->models[0]), "%s", id);
}

static void note_workloads(struct out_eval_pass *p)
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

/* Model and GPU of x from the registries; rows use the registry ids.  A
 * name the registry does not know is retried as the base checkpoint of a
 * quantised variant (aic_model_candidates: -FP8 / -NVFP4 suffix, nvidia/
 * prefix, organisation dropped); the first error is the one reported. */
static int resolve(struct cli_env *env, struct experiment *x, struct model_cfg *m,
		   const struct gpu_spec **g, bool *gpu_failed, struct err *e)
{
	char cand[3][128];
	int nc = aic_model_candidates(x->model, cand), k, rc;
	struct err e2;

	*gpu_failed = false;
	if ((rc = cli_load_model(env, x->model, NULL, m, e)) < 0)
		for (k = 1; k < nc && rc < 0; k++)
			rc = cli_load_model(env, cand[k], NULL, m, &e2);
	if (rc == 0 && ((rc = cli_load_gpus(env, e)) < 0 || (rc = gpu_find_result_name(&env->gpus, x->gpu, g, e)) < 0))
		*gpu_failed = true;
	if (rc == 0) {
		snprintf(x->model, sizeof(x->model), "%s", m->id);
		snprintf(x->gpu, sizeof(x->gpu), "%s", (*g)->id);
	}
	return rc;
}

/* Tier 1 for x (--calibration FILE, none, or the matching accepted file):
 * the options it runs with in *xo; warnings to diag. */
static int prepare_loaded(struct cli_env *env, const struct eval_cli *c, const struct eval_opts *eo,
			  const char *calibration, struct out_eval_pass *p, struct experiment *x,
			  const struct model_cfg *m, const struct gpu_spec *g, FILE *diag,
			  struct eval_opts *xo, struct err *e)
{
	struct calib_file cf;
	bool found = false;
	char dir[1200];
	int rc = 0;

	*xo = *eo;
	x->wl.seed += c->seed_add;
	/* rows and summaries use the registry id, whatever the file said */
	snprintf(x->model, sizeof(x->model), "%s", m->id);
	note_model(p, m->id);
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
	} else if (!c->ov_flags && !eo->tier0_off) {
		snprintf(dir, sizeof(dir), "%s/../calibration/tier1", env->data_dir);
		rc = calib_find(dir, g->id, x->engine_version, &cf, &found, e);
	}
	if (rc == 0 && found) {
		xo->ov = cf.ov;
		note_used(p, cf.path);
	}
	return rc;
}

/* Room in p for n more rows. */
static void pass_room(struct out_eval_pass *p, size_t n)
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
	struct cli_env *env;
	const struct eval_cli *c;
	const struct eval_opts *eo;
	const char *calibration;
	struct out_eval_pass *p;
};

static int table_prepare(void *vctx, struct experiment *x, struct model_cfg *m, const struct gpu_spec **g,
			 struct eval_opts *o, char *why, size_t n)
{
	const struct table_ctx *t = vctx;
	struct err e2;
	bool gf;

	if (resolve(t->env, x, m, g, &gf, &e2) < 0) {
		snprintf(why, n, "%s %.90s unknown to servesim", gf ? "GPU" : "model", gf ? x->gpu : x->model);
		return 0;
	}
	if (prepare_loaded(t->env, t->c, t->eo, t->calibration, t->p, x, m, *g, stderr, o, &e2) < 0) {
		eval_table_why(x, m, *g, &e2, why, n);
		return 0;
	}
	return 1;
}

/* Every row of an aiconfigurator silicon table that --where keeps, on
 * threads (eval_table_run); rows servesim cannot run are counted by
 * reason in p->skips, never dropped silently. */
static int run_table(struct cli_env *env, const char *path, const struct eval_cli *c,
		     const struct eval_opts *eo, const char *calibration, int threads, struct out_eval_pass *p,
		     struct err *e)
{
	struct table_ctx tc = {env, c, eo, calibration, p};
	struct eval_table_in in = {path, c->where, c->gpu, c->base, env->data_dir, threads, table_prepare, &tc};
	struct eval_table_res r;
	int rc;

	if ((rc = eval_table_run(&in, &p->skips, &r, e)) < 0)
		return rc;
	p->table_rows += r.kept;
	p->table_total += r.total;
	p->table_sim += r.simulated;
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
static void fail_input(struct out_eval_pass *p, const char *file, const struct err *e)
{
	size_t n = strlen(file);

	if (p->nfailed == 0)
		p->first_failure = *e;
	if (p->nfailed < OUT_EVAL_MAX_FAILED) {
		if (strncmp(e->msg, file, n) == 0)
			snprintf(p->failed[p->nfailed], sizeof(p->failed[0]), "%.399s", e->msg);
		else
			snprintf(p->failed[p->nfailed], sizeof(p->failed[0]), "%.150s: %.240s", file, e->msg);
	}
	p->nfailed++;
}

/* Simulate the batch, then print and append in order; an experiment that
 * failed (loading, resolving or simulating) is counted in p, not fatal. */
static void batch_flush(struct cli_env *env, struct batch *b, struct out_eval_pass *p)
{
	struct eval_job *jobs = xcalloc(b->n ? b->n : 1, sizeof(*jobs));
	size_t i, nj = 0, k;

	/* an entry that failed before its simulation, or was skipped, has
	 * no job */
	for (i = 0; i < b->n; i++)
		if (b->q[i].rc == 0 && b->q[i].job.x)
			jobs[nj++] = b->q[i].job;
	eval_run_jobs(jobs, nj, b->threads, env->data_dir);
	for (i = 0, nj = 0; i < b->n; i++) {
		struct pend *q = &b->q[i];
		fclose(q->df);
		q->df = NULL;
		if (q->ndiag)
			fwrite(q->diag, 1, q->ndiag, stderr);
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
static int run_pass(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
		    const struct eval_opts *eo, const char *calibration, struct out_eval_pass *p,
		    struct err *e)
{
	struct batch *b = xcalloc(1, sizeof(*b));
	long ncpu = c->jobs > 0 ? c->jobs : sysconf(_SC_NPROCESSORS_ONLN);
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
			size_t nrows, rows, total, sim;
			struct skip_tally skips;
			struct err te;
			batch_flush(env, b, p);
			nrows = p->nrows;
			rows = p->table_rows;
			total = p->table_total;
			sim = p->table_sim;
			skips = p->skips;
			p->ntables++;
			err_clear(&te);
			if (run_table(env, files[i], c, eo, calibration, b->threads, p, &te) < 0) {
				p->ntables--;
				p->nrows = nrows;
				p->table_rows = rows;
				p->table_total = total;
				p->table_sim = sim;
				p->skips = skips;
				fail_input(p, files[i], &te);
			}
			continue;
		}
		/* a few experiments per thread: loaded ones wait in memory */
		if (b->n == BATCH_MAX || b->n >= 4 * (size_t)b->threads)
			batch_flush(env, b, p);
		q = batch_add(b);
		q->file = files[i];
		if ((q->rc = experiment_load_with(files[i], c->gpu, c->base, q->x, &q->e)) < 0)
			continue;
		q->loaded = true;
		if (q->x->warning[0])
			fprintf(q->df, "servesim eval: warning: %s\n", q->x->warning);
		if ((q->rc = resolve(env, q->x, q->m, &g, &gf, &q->e)) < 0 && q->x->skippable) {
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
		if ((q->rc = prepare_loaded(env, c, eo, calibration, p, q->x, q->m, g, q->df, &q->job.o,
					    &q->e)) < 0)
			continue;
		q->job.x = q->x;
		q->job.m = q->m;
		q->job.g = g;
	}
	batch_flush(env, b, p);
	if (c->where && p->ntables == 0 && p->nfailed == 0)
		rc = err_set(e, SS_EUSAGE, "--where filters the rows of aiconfigurator silicon CSVs, and no path holds one");
	note_workloads(p);
	free(b);
	return rc;
}

/* The status of a pass with failed inputs: 0 when none failed; the one
 * input's own error when it was the only one; else each failure named on
 * stderr, then -SS_EPARTIAL (some evaluated) or the first failure's status
 * (none evaluated). */
static int pass_status(const struct out_eval_pass *p, struct err *e)
{
	size_t i;

	if (p->nfailed == 0)
		return 0;
	if (p->ninputs == 1) {
		*e = p->first_failure;
		return -e->code;
	}
	for (i = 0; i < p->nfailed && i < OUT_EVAL_MAX_FAILED; i++)
		fprintf(stderr, "servesim eval: not evaluated: %s\n", p->failed[i]);
	if (p->nfailed > OUT_EVAL_MAX_FAILED)
		fprintf(stderr, "servesim eval: not evaluated: %zu more inputs\n", p->nfailed - OUT_EVAL_MAX_FAILED);
	if (p->nfailed == p->ninputs)
		return err_set(e, p->first_failure.code, "none of the %zu inputs could be evaluated",
			       p->ninputs);
	return err_set(e, SS_EPARTIAL, "%zu of %zu inputs not evaluated (named above); the other %zu are reported (exit 4: partial)",
		       p->nfailed, p->ninputs, p->ninputs - p->nfailed);
}

/* The failed inputs of src, for the caller's status. */
static void copy_failures(struct out_eval_pass *dst, const struct out_eval_pass *src)
{
	dst->ninputs = src->ninputs;
	dst->nfailed = src->nfailed;
	memcpy(dst->failed, src->failed, sizeof(dst->failed));
	dst->first_failure = src->first_failure;
}

/* --- per model x GPU (silicon tables) --- */

/* --- the ablation and the seed spread: the passes, then their reports --- */

/* --ablate: the passes of 002's ablation (ablation.h), then the reports */
static int ablate(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
		  FILE *md, struct out_eval_pass *status, struct err *e)
{
	struct out_eval_pass full, offs[ABL_NOFF], ms;
	struct abl_design d;
	int gqa[OUT_EVAL_MAX_MODELS];
	int h, k, rc;

	memset(&full, 0, sizeof(full));
	memset(offs, 0, sizeof(offs));
	memset(&ms, 0, sizeof(ms));
	abl_design(&c->eo, &d);
	if ((rc = run_pass(env, files, nf, c, &d.full, "none", &full, e)) < 0)
		goto out;
	/* every pass fails the same inputs: the first one's count for all */
	copy_failures(status, &full);
	if (full.nfailed == full.ninputs)
		goto out;
	for (h = 0; h < ABL_NOFF; h++)
		if ((rc = run_pass(env, files, nf, c, &d.off[h], "none", &offs[h], e)) < 0)
			goto out;
	if ((rc = run_pass(env, files, nf, c, &d.infersim, "none", &ms, e)) < 0)
		goto out;
	for (k = 0; k < full.nmodels && k < OUT_EVAL_MAX_MODELS; k++) {
		struct model_cfg *m = xcalloc(1, sizeof(*m));
		gqa[k] = -1;
		if (cli_load_model(env, full.models[k], NULL, m, e) == 0)
			gqa[k] = abl_model_gqa(m);
		err_clear(e);
		free(m);
	}
	out_eval_ablation(stdout, md, &full, offs);
	out_eval_criteria(stdout, md, &full, offs, &ms, gqa);
out:
	for (h = 0; h < ABL_NOFF; h++)
		free(offs[h].rows);
	free(full.rows);
	free(ms.rows);
	return rc;
}

/* --cv: the pass at every scale of the fitted host terms (cv_scales), then
 * the leave-one-group-out refits (eval_cv) */
static int cross_validate(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
			  struct out_eval_pass *status, struct err *e)
{
	struct out_eval_pass q[CV_NSCALES];
	struct cv_pass cp[CV_NSCALES];
	struct cv_result *r = xcalloc(1, sizeof(*r));
	int k, rc = 0;

	memset(q, 0, sizeof(q));
	for (k = 0; k < CV_NSCALES && rc == 0; k++) {
		struct eval_opts eo = c->eo;
		eo.host_scaled = true;
		eo.host_scale = cv_scales[k];
		if ((rc = run_pass(env, files, nf, c, &eo, c->calibration, &q[k], e)) < 0)
			break;
		cp[k] = (struct cv_pass){cv_scales[k], q[k].rows, q[k].nrows};
		if (k == 0) {
			/* every pass fails the same inputs: the first one's count */
			copy_failures(status, &q[0]);
			if (q[0].nfailed == q[0].ninputs)
				break;
		}
	}
	if (rc == 0 && k == CV_NSCALES && (rc = eval_cv(cp, CV_NSCALES, c->cv_by, r, e)) == 0) {
		if (c->fmt == FMT_JSON) {
			/* the shipped pass's record with every row held out */
			struct out_eval_pass held = q[0];
			size_t i;
			held.rows = xmalloc(xmul(r->n ? r->n : 1, sizeof(*held.rows)));
			for (i = 0; i < r->n; i++)
				held.rows[i] = q[r->held_pass[i]].rows[i];
			out_cv_json(stdout, r, &held, c->eo.tier0_off);
			free(held.rows);
		} else {
			out_cv_text(stdout, r);
		}
	}
	for (k = 0; k < CV_NSCALES; k++)
		free(q[k].rows);
	cv_result_release(r);
	free(r);
	return rc;
}

/* --seeds K (002: 3-5 seeds): the pass again with K workload seeds; the
 * spread of each metric's median and mean APE over all steady rows */
static int seed_spread(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
		       FILE *md, struct err *e)
{
	double med[64][EM__COUNT], mean[64][EM__COUNT];
	int s, k, rc = 0;

	for (s = 0; s < c->seeds && s < 64; s++) {
		struct eval_cli cs = *c;
		struct out_eval_pass q;
		size_t cnt;
		cs.seed_add = (uint64_t)s;
		if ((rc = run_pass(env, files, nf, &cs, &c->eo, c->calibration, &q, e)) < 0) {
			free(q.rows);
			return rc;
		}
		for (k = 0; k < EM__COUNT; k++)
			eval_ape_stats(q.rows, q.nrows, (enum ev_metric)k, false, NULL, NULL, &med[s][k],
				       &mean[s][k], &cnt);
		free(q.rows);
	}
	out_eval_seed_spread(stdout, md, c->seeds, (const double (*)[EM__COUNT])med,
			     (const double (*)[EM__COUNT])mean);
	return 0;
}

int cmd_eval(int argc, char **argv, struct err *e)
{
	enum { O_OFF = 256, O_FMT, O_GPU, O_CAL, O_ABL, O_SYN, O_MODEL, O_REP, O_PLOTS, O_T2, O_SEEDS, O_HTML,
	       O_WHERE, O_JOBS, O_CV };
	static const struct option lo[] = {
		{"tier0-off", required_argument, 0, O_OFF}, {"format", required_argument, 0, O_FMT},
		CLI_OVERHEAD_OPTIONS,
		{"gpu", required_argument, 0, O_GPU}, {"calibration", required_argument, 0, O_CAL},
		{"ablate", no_argument, 0, O_ABL}, {"synthetic", required_argument, 0, O_SYN},
		{"model", required_argument, 0, O_MODEL}, {"report", required_argument, 0, O_REP},
		{"html", required_argument, 0, O_HTML},
		{"plots", required_argument, 0, O_PLOTS}, {"tier2", required_argument, 0, O_T2},
		{"seeds", required_argument, 0, O_SEEDS},
		{"where", required_argument, 0, O_WHERE},
		{"jobs", required_argument, 0, O_JOBS},
		{"cv", required_argument, 0, O_CV},
		{"help", no_argument, 0, 'h'}, CLI_SETTINGS_OPTIONS_NO_MODEL, {0, 0, 0, 0}};
	struct cli_settings cs = {0};
	struct experiment *bx = NULL;
	bool have_base = false;
	struct eval_cli c;
	struct tier2 t2;
	struct cli_env env;
	struct out_eval_pass p;
	struct afile af;
	FILE *md = NULL;
	char *files[MAX_EXP];
	size_t nf = 0, i;
	int opt, rc = 0;

	memset(&c, 0, sizeof(c));
	memset(&p, 0, sizeof(p));
	cost_default_overheads(&c.eo.ov);
	c.gpu = "h100";
	c.model = "llama-3.1-8b";
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'h': fputs(eval_usage, stdout); fputs(eval_usage2, stdout); return 0;
		case O_OFF: rc = cost_parse_off(optarg, &c.eo.tier0_off, e); break;
		case O_FMT: rc = cli_format(optarg, true, &c.fmt, e); break;
		case O_GPU: c.gpu = optarg; break;
		case O_CAL: c.calibration = optarg; break;
		case O_ABL: c.ablate = true; break;
		case O_SYN: c.synthetic = optarg; break;
		case O_MODEL: c.model = cs.model = optarg; break;
		case O_REP: c.report = optarg; break;
		case O_HTML: c.html = optarg; break;
		case O_PLOTS: c.plots = optarg; break;
		case O_SEEDS: {
			int64_t v;
			if ((rc = cli_int("--seeds", optarg, 1, 64, &v, e)) == 0)
				c.seeds = (int)v;
			break;
		}
		case O_WHERE: c.where = optarg; break;
		case O_CV:
			c.cv = true;
			rc = cv_by_parse(optarg, &c.cv_by, e);
			break;
		case O_JOBS: {
			int64_t v;
			if ((rc = cli_int("--jobs", optarg, 1, 1024, &v, e)) == 0)
				c.jobs = (int)v;
			break;
		}
		case O_T2:
			if ((rc = tier2_load(optarg, &t2, e)) == 0)
				c.eo.tier2 = &t2;
			break;
		default:
			if ((rc = cli_settings_option(opt, optarg, &cs, e)) != 0)
				break;
			if ((rc = cli_overhead_option(opt, optarg, &c.eo.ov, e)) == 0)
				return cli_bad_option("eval", argv[optind - 1], e);
			if (rc > 0) {
				c.ov_flags = true;
				rc = 0;
			}
		}
		if (rc < 0)
			return rc;
	}
	cli_env_init(&env);
	memset(&af, 0, sizeof(af));
	if (c.synthetic) {
		struct model_cfg m;
		const struct gpu_spec *g;
		struct synth_result sr;
		if ((rc = cli_load_model(&env, c.model, NULL, &m, e)) == 0 &&
		    (rc = cli_find_gpu(&env, c.gpu, &g, e)) == 0)
			rc = synth_run(c.synthetic, &m, g, env.data_dir, stdout, &sr, e);
		cli_env_release(&env);
		return rc;
	}
	if (optind >= argc) {
		rc = err_set(e, SS_EUSAGE, "give at least one experiment folder (see 'servesim eval --help')");
		goto out;
	}
	bx = xcalloc(1, sizeof(*bx));
	if ((rc = cli_settings_base(&cs, c.gpu, bx, &have_base, e)) < 0)
		goto out;
	c.base = have_base ? bx : NULL;
	for (; optind < argc; optind++)
		if ((rc = cli_collect_experiments(argv[optind], files, &nf, MAX_EXP, e)) < 0)
			goto out;
	if (nf == 0) {
		rc = err_set(e, SS_EUSAGE,
			     "no experiment under the given paths (experiment.json, inference-perf, GuideLLM or OTel folders)");
		goto out;
	}
	{
		static const int shown[4] = {EM_TTFT_MEAN, EM_ITL_MEAN, EM_E2E_MEAN, EM_E2E_P90};
		char dat[4][64], svg[4][64];
		const char *plot_files[12] = {"ape.dat", "ape.svg", "plots.gp", dat[0], dat[1], dat[2], dat[3],
					      svg[0], svg[1], svg[2], svg[3], NULL};
		const char *in[MAX_EXP + 2];
		size_t nin = 0;
		for (i = 0; i < 4; i++) {
			snprintf(dat[i], sizeof(dat[i]), "%s.dat", ev_metric_name((enum ev_metric)shown[i]));
			snprintf(svg[i], sizeof(svg[i]), "%s.svg", ev_metric_name((enum ev_metric)shown[i]));
		}
		for (i = 0; i < nf; i++)
			in[nin++] = files[i];
		in[nin++] = c.calibration;
		const struct afile_out outs[3] = {{"--report", c.report, NULL}, {"--html", c.html, NULL},
						  {"--plots", c.plots, (const char *const *)plot_files}};
		if ((rc = afile_check_outputs(outs, 3, in, nin, 0, e)) < 0)
			goto out;
	}
	if (c.report) {
		if ((rc = afile_open(&af, c.report, e)) < 0)
			goto out;
		md = af.f;
	}
	c.eo.cache = mfu_cache_new(); /* each GPU's tables parsed once for all experiments */
	if (c.ablate) {
		rc = ablate(&env, files, nf, &c, md, &p, e);
	} else if (c.cv) {
		rc = cross_validate(&env, files, nf, &c, &p, e);
	} else {
		if ((rc = run_pass(&env, files, nf, &c, &c.eo, c.calibration, &p, e)) < 0)
			goto out;
		if (p.nfailed && p.nfailed == p.ninputs) /* nothing to report */
			goto status;
		if (c.html) {
			/* the page is built from the JSON result, as `servesim report` builds it */
			struct cli_html h;
			out_eval_json(cli_html_open(&h), &p, c.eo.tier0_off);
			if ((rc = cli_html_close(&h, c.html, e)) < 0)
				goto out;
		}
		if (c.fmt == FMT_JSON)
			out_eval_json(stdout, &p, c.eo.tier0_off);
		else if (c.fmt == FMT_CSV)
			out_eval_csv(stdout, &p);
		else
			out_eval_text(stdout, &p, c.eo.tier0_off);
		if (md) {
			out_eval_md_rows(md, &p, c.eo.tier0_off);
			if (c.plots && (rc = out_eval_plots(&p, c.plots, md, e)) < 0)
				goto out;
		}
		if (c.seeds > 1 && c.fmt == FMT_TEXT && (rc = seed_spread(&env, files, nf, &c, md, e)) < 0)
			goto out;
	}
	if (rc == 0 && md) {
		md = NULL;
		rc = afile_commit(&af, e);
	}
status:
	if (rc == 0)
		rc = pass_status(&p, e);
out:
	if (md)
		afile_abort(&af);
	for (i = 0; i < nf; i++)
		free(files[i]);
	free(p.rows);
	free(bx);
	mfu_cache_free(c.eo.cache);
	cli_env_release(&env);
	return rc;
}
