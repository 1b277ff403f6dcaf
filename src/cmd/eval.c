/* eval.c - `servesim eval PATH...`: simulate every ground-truth experiment
 * found under the paths and report measured vs predicted, APE per metric and
 * stage, and median / mean APE overall and per model; `--ablate` measures
 * each tier-0 correction, `--synthetic` runs the cost-model experiments,
 * `--report` writes markdown with gnuplot plots. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmds.h"
#include "servesim/afile.h"
#include "servesim/alloc.h"
#include "servesim/calib.h"
#include "servesim/eval.h"
#include "servesim/json.h"
#include "servesim/paths.h"
#include "servesim/synthetic.h"
#include "servesim/tier2.h"

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
	"\n"
	"options:\n"
	"  --calibration FILE|none tier-1 file to apply; default: the accepted file in\n"
	"                          calibration/tier1/ matching the GPU and engine version\n"
	"                          (closest version); none when the flags below are given\n"
	"  --tier0-off LIST        switch tier-0 corrections off (H1..H6)\n"
	"  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	"  --api-ttft-ms X --stream-token-us X --delivery-steps X\n"
	"                          override the H2 overhead terms\n"
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
	"  --format text|json|csv  (default text)\n"
	"  --report FILE.md        also write a markdown report (atomically)\n"
	"  --plots DIR             with --report: gnuplot SVGs (and their data) in DIR\n"
	CLI_SETTINGS_HELP
	"\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n";

#define MAX_EXP 256
#define MAX_ROWS 2048

struct eval_cli {
	struct eval_opts eo;
	enum out_format fmt;
	const char *gpu, *calibration, *report, *plots, *synthetic, *model;
	bool ov_flags, ablate;
	const struct experiment *base; /* settings for bare results, or NULL */
	int seeds;             /* --seeds K: K workload seeds (0: the files' own) */
	uint64_t seed_add;     /* added to each experiment's workload seed */
	const char *where;             /* --where: rows of silicon tables */
};

struct pass {
	struct eval_row *rows;
	size_t nrows;
	char used[4][700];
	int nused;
	char models[16][128];
	int nmodels;
	char workloads[32][64]; /* in row order */
	int nworkloads;
	char warned[400];       /* the last calibration mismatch warned about */
	bool warned_rejected;   /* --calibration names a rejected file (said once) */
	/* aiconfigurator silicon tables */
	int ntables;
	size_t table_rows, table_total, table_sim;
	struct skip_tally skips;
};

static void note_used(struct pass *p, const char *path)
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

static void note_model(struct pass *p, const char *id)
{
	int k;

	for (k = 0; k < p->nmodels; k++)
		if (strcmp(p->models[k], id) == 0)
			return;
	if (p->nmodels < 16)
		snprintf(p->models[p->nmodels++], sizeof(p->models[0]), "%s", id);
}

static void note_workloads(struct pass *p)
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
	if (rc == 0 && (rc = cli_find_gpu(env, x->gpu, g, e)) < 0) {
		/* result files write GPUs as vendors do (H200, RTXPRO6000,
		 * h100_sxm): retry lower case with '-' for '_' */
		char low[48];
		size_t k2;
		for (k2 = 0; x->gpu[k2] && k2 + 1 < sizeof(low); k2++)
			low[k2] = x->gpu[k2] == '_' ? '-' : (char)tolower((unsigned char)x->gpu[k2]);
		low[k2] = '\0';
		if (cli_find_gpu(env, low, g, &e2) == 0)
			rc = 0;
		else
			*gpu_failed = true;
	}
	if (rc == 0) {
		snprintf(x->model, sizeof(x->model), "%s", m->id);
		snprintf(x->gpu, sizeof(x->gpu), "%s", (*g)->id);
	}
	return rc;
}

/* Tier 1 for x (--calibration FILE, none, or the matching accepted file),
 * then simulate and append its rows. */
static int eval_loaded(struct cli_env *env, const struct eval_cli *c, const struct eval_opts *eo,
		       const char *calibration, struct pass *p, struct experiment *x,
		       const struct model_cfg *m, const struct gpu_spec *g, struct err *e)
{
	struct eval_opts xo = *eo;
	struct calib_file cf;
	bool found = false;
	char dir[1200];
	int rc = 0;

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
			fprintf(stderr, "servesim eval: warning: %s is marked rejected (its fit did worse than tier 0): not applied, tier 0 stays\n",
				calibration);
			p->warned_rejected = true;
		}
		if (rc == 0 && calib_mismatch(&cf, m->id, g->id, x->engine_version, why, sizeof(why)) &&
		    strcmp(why, p->warned) != 0) {
			fprintf(stderr, "servesim eval: warning: %s was fitted on another %s\n", calibration, why);
			snprintf(p->warned, sizeof(p->warned), "%s", why);
		}
	} else if (!c->ov_flags && !eo->tier0_off) {
		snprintf(dir, sizeof(dir), "%s/../calibration/tier1", env->data_dir);
		rc = calib_find(dir, g->id, x->engine_version, &cf, &found, e);
	}
	if (rc == 0 && found) {
		xo.ov = cf.ov;
		note_used(p, cf.path);
	}
	if (rc == 0)
		rc = eval_experiment(x, m, g, &xo, env->data_dir, p->rows, MAX_ROWS, &p->nrows, e);
	return rc;
}

/* Every row of an aiconfigurator silicon table that --where keeps; rows
 * servesim cannot run are counted by reason in p->skips, never dropped
 * silently. */
static int run_table(struct cli_env *env, const char *path, const struct eval_cli *c,
		     const struct eval_opts *eo, const char *calibration, struct pass *p,
		     struct experiment *x, struct model_cfg *m, struct err *e)
{
	struct exp_table t;
	size_t i;
	int rc;

	if ((rc = exp_table_open(path, c->where, &t, e)) < 0)
		return rc;
	p->table_rows += t.n;
	p->table_total += t.total;
	for (i = 0; i < t.n && rc == 0; i++) {
		const struct gpu_spec *g;
		char why[120];
		struct err e2;
		bool gf;
		if ((rc = exp_table_load(&t, i, c->gpu, c->base, x, why, sizeof(why), e)) < 0)
			break;
		if (rc == 0) {
			skip_tally_add(&p->skips, why);
			continue;
		}
		rc = 0;
		if (resolve(env, x, m, &g, &gf, &e2) < 0) {
			snprintf(why, sizeof(why), "%s %.90s unknown to servesim", gf ? "GPU" : "model",
				 gf ? x->gpu : x->model);
			skip_tally_add(&p->skips, why);
		} else if (eval_loaded(env, c, eo, calibration, p, x, m, g, &e2) == 0) {
			p->table_sim++;
		} else {
			/* a deployment the simulator refuses (does not fit, heads
			 * not divisible, ...): counted with the first words of why */
			const char *msg = e2.msg;
			size_t nl = strlen(x->name), o = 0, k;
			char norm[80];
			if (strncmp(msg, x->name, nl) == 0 && msg[nl] == ':')
				msg += nl + 1 + (msg[nl + 1] == ' ');
			/* one reason per kind of refusal: figures (numbers after a
			 * space) become N */
			for (k = 0; msg[k] && o + 1 < sizeof(norm); k++) {
				if ((k == 0 || msg[k - 1] == ' ') && msg[k] >= '0' && msg[k] <= '9') {
					norm[o++] = 'N';
					while (msg[k + 1] && (msg[k + 1] == '.' || (msg[k + 1] >= '0' && msg[k + 1] <= '9')))
						k++;
				} else {
					norm[o++] = msg[k];
				}
			}
			norm[o] = '\0';
			snprintf(why, sizeof(why), "%.30s %.16s: %.70s", m->id, g->id, norm);
			skip_tally_add(&p->skips, why);
		}
		experiment_release(x);
	}
	exp_table_release(&t);
	return rc;
}

static const char *base_name_of(const char *path)
{
	const char *b = strrchr(path, '/');
	return b && b[1] ? b + 1 : path;
}

/* One evaluation pass over every experiment. */
static int run_pass(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
		    const struct eval_opts *eo, const char *calibration, struct pass *p,
		    struct err *e)
{
	struct experiment *x = xcalloc(1, sizeof(*x));
	struct model_cfg *m = xcalloc(1, sizeof(*m));
	char tf[1200];
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->rows = xcalloc(MAX_ROWS, sizeof(*p->rows));
	for (i = 0; i < nf && rc == 0; i++) {
		const struct gpu_spec *g;
		bool gf;
		if (exp_table_detect(files[i], tf, sizeof(tf))) {
			p->ntables++;
			rc = run_table(env, files[i], c, eo, calibration, p, x, m, e);
			continue;
		}
		if ((rc = experiment_load_with(files[i], c->gpu, c->base, x, e)) < 0)
			break;
		if (x->warning[0])
			fprintf(stderr, "servesim eval: warning: %s\n", x->warning);
		if ((rc = resolve(env, x, m, &g, &gf, e)) < 0 && x->skippable) {
			/* results that name their model / GPU (engine request
			 * stats, vcr traces): counted, the others still run */
			char why[200];
			snprintf(why, sizeof(why), "%.60s: %s %.90s unknown to servesim", base_name_of(files[i]),
				 gf ? "GPU" : "model", gf ? x->gpu : x->model);
			skip_tally_add(&p->skips, why);
			experiment_release(x);
			rc = 0;
			continue;
		}
		if (rc < 0) {
			err_prefix(e, "%s", files[i]);
			rc = -SS_EDATA;
			experiment_release(x);
			break;
		}
		rc = eval_loaded(env, c, eo, calibration, p, x, m, g, e);
		experiment_release(x);
	}
	if (rc == 0 && c->where && p->ntables == 0)
		rc = err_set(e, SS_EUSAGE, "eval: --where filters the rows of aiconfigurator silicon CSVs, and no path holds one");
	note_workloads(p);
	free(x);
	free(m);
	return rc;
}

/* --- per model x GPU (silicon tables) --- */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median and mean APE of metric k over the steady rows of one model and GPU. */
static size_t group_ape(const struct pass *p, const char *model, const char *gpu, int k,
			double *med, double *mean)
{
	double *v = xmalloc(xmul(p->nrows ? p->nrows : 1, sizeof(double))), sum = 0;
	size_t i, n = 0;

	for (i = 0; i < p->nrows; i++) {
		const struct eval_row *r = &p->rows[i];
		if (r->overloaded || isnan(r->ape[k]) || strcmp(r->model, model) != 0 ||
		    strcmp(r->gpu, gpu) != 0)
			continue;
		v[n++] = r->ape[k];
		sum += r->ape[k];
	}
	qsort(v, n, sizeof(double), cmp_dbl);
	*med = n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*mean = n ? sum / (double)n : NAN;
	free(v);
	return n;
}

/* Distinct (model, GPU) pairs in row order; returns how many (<= max). */
static size_t group_pairs(const struct pass *p, size_t (*idx)[1], size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < p->nrows; i++) {
		for (j = 0; j < n; j++)
			if (strcmp(p->rows[idx[j][0]].model, p->rows[i].model) == 0 &&
			    strcmp(p->rows[idx[j][0]].gpu, p->rows[i].gpu) == 0)
				break;
		if (j == n && n < max)
			idx[n++][0] = i;
	}
	return n;
}

#define MAX_GROUPS 64

static void print_tables_text(const struct pass *p)
{
	static const int ks[3] = {EM_TTFT_MEAN, EM_ITL_MEAN, EM_E2E_MEAN};
	size_t idx[MAX_GROUPS][1], ng, i;
	char name[200];
	int k;

	if (p->ntables)
		printf("\ntable rows (silicon CSV rows, benchmark runs): %zu of %zu kept by --where; %zu simulated, %zu skipped\n",
		       p->table_rows, p->table_total, p->table_sim, p->table_rows - p->table_sim);
	else
		printf("\nskipped %zu experiments\n", p->skips.total);
	for (i = 0; i < p->skips.n; i++)
		printf("  skipped %5zu  %s\n", p->skips.count[i], p->skips.reason[i]);
	if (p->skips.other)
		printf("  skipped %5zu  (other reasons)\n", p->skips.other);
	printf("\n%-37s %5s", "APE by model x GPU (median mean)", "rows");
	for (k = 0; k < 3; k++)
		printf(" %-16s", ev_metric_name((enum ev_metric)ks[k]));
	printf("\n");
	ng = group_pairs(p, idx, MAX_GROUPS);
	for (i = 0; i < ng; i++) {
		const struct eval_row *r = &p->rows[idx[i][0]];
		double med, mean;
		size_t n = group_ape(p, r->model, r->gpu, EM_TTFT_MEAN, &med, &mean);
		snprintf(name, sizeof(name), "%s %s", r->model, r->gpu);
		printf("  %-35.35s %5zu", name, n);
		for (k = 0; k < 3; k++) {
			if (group_ape(p, r->model, r->gpu, ks[k], &med, &mean))
				printf(" %6.1f%% %6.1f%% ", 100 * med, 100 * mean);
			else
				printf(" %15s ", "-");
		}
		printf("\n");
	}
}

static void json_tables(struct jw *w, const struct pass *p)
{
	static const int ks[3] = {EM_TTFT_MEAN, EM_ITL_MEAN, EM_E2E_MEAN};
	size_t idx[MAX_GROUPS][1], ng, i;
	char name[200];
	int k;

	jw_obj(w, "tables");
	jw_int(w, "rows_total", (int64_t)p->table_total);
	jw_int(w, "rows_kept", (int64_t)p->table_rows);
	jw_int(w, "rows_simulated", (int64_t)p->table_sim);
	jw_int(w, "skipped_total", (int64_t)p->skips.total);
	jw_obj(w, "skipped");
	for (i = 0; i < p->skips.n; i++)
		jw_int(w, p->skips.reason[i], (int64_t)p->skips.count[i]);
	if (p->skips.other)
		jw_int(w, "(other reasons)", (int64_t)p->skips.other);
	jw_end_obj(w);
	jw_obj(w, "by_model_gpu");
	ng = group_pairs(p, idx, MAX_GROUPS);
	for (i = 0; i < ng; i++) {
		const struct eval_row *r = &p->rows[idx[i][0]];
		snprintf(name, sizeof(name), "%s %s", r->model, r->gpu);
		jw_obj(w, name);
		jw_str(w, "model", r->model);
		jw_str(w, "gpu", r->gpu);
		for (k = 0; k < 3; k++) {
			double med, mean;
			size_t n = group_ape(p, r->model, r->gpu, ks[k], &med, &mean);
			jw_obj(w, ev_metric_name((enum ev_metric)ks[k]));
			jw_num(w, "median_ape", med);
			jw_num(w, "mean_ape", mean);
			jw_int(w, "rows", (int64_t)n);
			jw_end_obj(w);
		}
		jw_end_obj(w);
	}
	jw_end_obj(w);
	jw_end_obj(w);
}

static void fmt_cell(char *b, size_t n, const struct eval_row *r, int k)
{
	if (isnan(r->meas[k]))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.4g/%.4g %.1f%%", r->meas[k], r->pred[k], 100 * r->ape[k]);
}

static void row_name(char *b, size_t n, const struct eval_row *r)
{
	snprintf(b, n, "%s%s%s", r->experiment, r->label[0] ? " " : "", r->label);
}

static void summary_line(FILE *f, const struct pass *p, bool over, const char *model,
			 const char *workload, const char *label, bool md)
{
	size_t c;
	double med, mean;
	int k;

	fprintf(f, md ? "| %s |" : "  %-36.36s", label);
	for (k = 0; k < EM__COUNT; k++) {
		eval_ape_stats(p->rows, p->nrows, (enum ev_metric)k, over, model, workload, &med, &mean,
			       &c);
		if (md)
			fprintf(f, c ? " %.1f%% / %.1f%% |" : " - |", 100 * med, 100 * mean);
		else if (c)
			fprintf(f, " %6.1f%% %6.1f%% ", 100 * med, 100 * mean);
		else
			fprintf(f, " %15s ", "-");
	}
	fprintf(f, "\n");
}

static const char *metric_title(int k)
{
	static const char *t[EM__COUNT] = {"TTFT mean ms", "TTFT p90 ms", "ITL mean ms",
					   "E2E mean ms", "E2E p90 ms", "throughput req/s"};
	return t[k];
}

/* per-request APE (002 compares per request): each benchmark with
 * per-request data, mean and standard deviation over its requests */
static void print_per_request(FILE *f, const struct pass *p, bool md)
{
	static const char *const nm[EV_REQ__N] = {"TTFT", "TPOT", "E2E"};
	char name[200];
	size_t i, n = 0;
	int k;

	for (i = 0; i < p->nrows; i++)
		n += p->rows[i].nreq > 0;
	if (!n)
		return;
	if (md) {
		fprintf(f, "Per-request APE (each request against its own prediction; mean ± standard deviation over the benchmark's requests):\n\n");
		fprintf(f, "| benchmark | requests | TTFT | TPOT | E2E |\n|---|---:|---:|---:|---:|\n");
	} else {
		printf("\nper-request APE, mean +- sd over each benchmark's requests\n%-44s %8s", "benchmark", "requests");
		for (k = 0; k < EV_REQ__N; k++)
			printf("  %-16s", nm[k]);
		printf("\n");
	}
	for (i = 0; i < p->nrows; i++) {
		const struct eval_row *r = &p->rows[i];
		if (r->nreq <= 0)
			continue;
		row_name(name, sizeof(name), r);
		if (md)
			fprintf(f, "| %s | %lld |", name, (long long)r->nreq);
		else
			printf("%-44.44s %8lld", name, (long long)r->nreq);
		for (k = 0; k < EV_REQ__N; k++) {
			char b[48];
			if (isnan(r->req_ape_mean[k]))
				snprintf(b, sizeof(b), "-");
			else
				snprintf(b, sizeof(b), "%.1f%% +- %.1f%%", 100 * r->req_ape_mean[k],
					 isnan(r->req_ape_var[k]) ? 0 : 100 * sqrt(r->req_ape_var[k]));
			if (md)
				fprintf(f, " %s |", b);
			else
				printf("  %-16s", b);
		}
		fprintf(f, "\n");
	}
	if (md)
		fprintf(f, "\n");
}

static void print_text(const struct pass *p, const struct eval_opts *eo)
{
	char b[64], name[200];
	size_t i;
	int k;

	if (p->nused) {
		printf("tier 1: calibration");
		for (k = 0; k < p->nused; k++)
			printf(" %s", p->used[k]);
		printf("; cells: measured/predicted APE\n");
	} else {
		printf("tier 0%s; cells: measured/predicted APE\n",
		       eo->tier0_off ? " with corrections switched off" : "");
	}
	printf("%-44s %2s ", "experiment", "st");
	for (k = 0; k < EM__COUNT; k++)
		printf(" %-24s", metric_title(k));
	printf("\n");
	for (i = 0; i < p->nrows; i++) {
		row_name(name, sizeof(name), &p->rows[i]);
		printf("%-44.44s %2d%s", name, p->rows[i].stage, p->rows[i].overloaded ? "*" : " ");
		for (k = 0; k < EM__COUNT; k++) {
			fmt_cell(b, sizeof(b), &p->rows[i], k);
			printf(" %-24s", b);
		}
		printf("\n");
	}
	printf("\n%-37s", "APE (median mean)");
	for (k = 0; k < EM__COUNT; k++)
		printf(" %-16s", ev_metric_name((enum ev_metric)k));
	printf("\n");
	summary_line(stdout, p, false, NULL, NULL, "all steady-state stages", false);
	for (k = 0; k < p->nmodels; k++)
		summary_line(stdout, p, false, p->models[k], NULL, p->models[k], false);
	for (k = 0; k < p->nworkloads; k++) {
		snprintf(name, sizeof(name), "workload %s", p->workloads[k]);
		summary_line(stdout, p, false, NULL, p->workloads[k], name, false);
	}
	summary_line(stdout, p, true, NULL, NULL, "overloaded stages (*)", false);
	print_per_request(stdout, p, false);
	if (p->ntables || p->skips.total)
		print_tables_text(p);
}

/* {metric: {median_ape, mean_ape, rows}} over steady rows of one group */
static void json_summary(struct jw *w, const struct pass *p, const char *model,
			 const char *workload)
{
	int k;

	for (k = 0; k < EM__COUNT; k++) {
		double med, mean;
		size_t cnt;
		eval_ape_stats(p->rows, p->nrows, (enum ev_metric)k, false, model, workload, &med,
			       &mean, &cnt);
		jw_obj(w, ev_metric_name((enum ev_metric)k));
		jw_num(w, "median_ape", med);
		jw_num(w, "mean_ape", mean);
		jw_int(w, "rows", (int64_t)cnt);
		jw_end_obj(w);
	}
}

static void print_json(const struct pass *p, const struct eval_opts *eo)
{
	struct jw w;
	size_t i;
	int k;

	jw_init(&w, stdout, true);
	jw_obj(&w, NULL);
	if (p->nused)
		jw_str(&w, "calibration", p->used[0]);
	else
		jw_null(&w, "calibration");
	{
		char off[32] = "";
		int h;
		for (h = 0; h < 6; h++)
			if (eo->tier0_off & (1u << h))
				snprintf(off + strlen(off), sizeof(off) - strlen(off), "%sH%d", off[0] ? "," : "", h + 1);
		jw_str(&w, "tier0_off", off);
	}
	jw_arr(&w, "rows");
	for (i = 0; i < p->nrows; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "experiment", p->rows[i].experiment);
		jw_str(&w, "model", p->rows[i].model);
		jw_str(&w, "workload", p->rows[i].workload);
		jw_int(&w, "stage", p->rows[i].stage);
		if (p->rows[i].label[0])
			jw_str(&w, "benchmark", p->rows[i].label);
		jw_bool(&w, "overloaded", p->rows[i].overloaded);
		if (p->rows[i].nreq > 0) {
			static const char *const nm[EV_REQ__N] = {"ttft", "tpot", "e2e"};
			jw_obj(&w, "per_request");
			jw_int(&w, "requests", p->rows[i].nreq);
			for (k = 0; k < EV_REQ__N; k++) {
				jw_obj(&w, nm[k]);
				jw_num(&w, "ape_mean", p->rows[i].req_ape_mean[k]);
				jw_num(&w, "ape_variance", p->rows[i].req_ape_var[k]);
				jw_end_obj(&w);
			}
			jw_end_obj(&w);
		}
		jw_obj(&w, "metrics");
		for (k = 0; k < EM__COUNT; k++) {
			if (isnan(p->rows[i].meas[k]))
				continue;
			jw_obj(&w, ev_metric_name((enum ev_metric)k));
			jw_num(&w, "measured", p->rows[i].meas[k]);
			jw_num(&w, "predicted", p->rows[i].pred[k]);
			jw_num(&w, "ape", p->rows[i].ape[k]);
			jw_end_obj(&w);
		}
		jw_end_obj(&w);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_obj(&w, "summary");
	json_summary(&w, p, NULL, NULL);
	jw_end_obj(&w);
	jw_obj(&w, "by_model");
	for (k = 0; k < p->nmodels; k++) {
		jw_obj(&w, p->models[k]);
		json_summary(&w, p, p->models[k], NULL);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_obj(&w, "by_workload");
	for (k = 0; k < p->nworkloads; k++) {
		jw_obj(&w, p->workloads[k]);
		json_summary(&w, p, NULL, p->workloads[k]);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	if (p->ntables || p->skips.total)
		json_tables(&w, p);
	jw_end_obj(&w);
	jw_finish(&w);
}

/* a CSV field, quoted (RFC 4180) when it holds a comma, quote or newline */
static void csv_put(const char *v)
{
	if (!strpbrk(v, ",\"\n")) {
		fputs(v, stdout);
		return;
	}
	putchar('"');
	for (; *v; v++) {
		if (*v == '"')
			putchar('"');
		putchar(*v);
	}
	putchar('"');
}

static void print_csv(const struct pass *p)
{
	size_t i;
	int k;

	printf("experiment,stage,benchmark,overloaded");
	for (k = 0; k < EM__COUNT; k++)
		printf(",%s_measured,%s_predicted,%s_ape", ev_metric_name((enum ev_metric)k),
		       ev_metric_name((enum ev_metric)k), ev_metric_name((enum ev_metric)k));
	printf(",model,workload\n");
	for (i = 0; i < p->nrows; i++) {
		csv_put(p->rows[i].experiment);
		printf(",%d,", p->rows[i].stage);
		csv_put(p->rows[i].label);
		printf(",%d", p->rows[i].overloaded);
		for (k = 0; k < EM__COUNT; k++)
			printf(",%.6g,%.6g,%.6g", p->rows[i].meas[k], p->rows[i].pred[k], p->rows[i].ape[k]);
		putchar(',');
		csv_put(p->rows[i].model);
		putchar(',');
		csv_put(p->rows[i].workload);
		putchar('\n');
	}
}

/* --- design document 002's criteria --- */

/* MAPE (mean APE) of metric k over the steady rows of model (NULL: all)
 * whose workload is one of wl (NULL: all) */
static double mape(const struct pass *p, int k, const char *model, const char *const *wl)
{
	double s = 0;
	size_t i, n = 0;

	for (i = 0; i < p->nrows; i++) {
		const struct eval_row *r = &p->rows[i];
		const char *const *w;
		if (r->overloaded || isnan(r->ape[k]) || (model && strcmp(model, r->model) != 0))
			continue;
		for (w = wl; w && *w && strcmp(*w, r->workload) != 0; w++)
			;
		if (wl && !*w)
			continue;
		s += r->ape[k];
		n++;
	}
	return n ? s / (double)n : NAN;
}

/* mean over benchmarks of the per-request E2E APE variance */
static double req_var(const struct pass *p)
{
	double s = 0;
	size_t i, n = 0;

	for (i = 0; i < p->nrows; i++)
		if (p->rows[i].nreq > 1 && !isnan(p->rows[i].req_ape_var[EV_REQ_E2E])) {
			s += p->rows[i].req_ape_var[EV_REQ_E2E];
			n++;
		}
	return n ? s / (double)n : NAN;
}

#define TAM_GATE_PP 0.01 /* 002 section 4.1: a metric more than 1 pp worse reverts a correction */

static void verdict(FILE *md, const char *h, const char *criterion, bool met, const char *figures)
{
	printf("%-4s %-62s %-8s %s\n", h, criterion, met ? "met" : "NOT met", figures);
	if (md)
		fprintf(md, "| %s | %s | %s | %s |\n", h, criterion, met ? "met" : "**not met**", figures);
}

/* Each hypothesis against 002's own accept criterion (its aggregate Part B
 * where it has two parts; the synthetic Part A is `eval --synthetic`), and
 * 002's regression gate per model.  MAPE = mean APE over the steady rows.
 * 002's ground truth (14 GuideLLM experiments, 4 families) is not ours
 * (README: inference-perf and GuideLLM runs of Llama-2-7B and CodeLlama-34B);
 * codegen stands for 002's codesweep, general + roleplay for its chatsweep. */
static int tam_criteria(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
			const struct pass *full, const struct pass *offs, FILE *md, struct err *e)
{
	static const char *const chat[] = {"general", "roleplay", NULL}, *const code[] = {"codegen", NULL};
	static const char *const hn[6] = {"H1", "H2", "H3", "H4", "H5", "H6"};
	struct pass ms;
	struct eval_opts eo = c->eo;
	char fig[400];
	double g, gc, gh, t, t2, v0, v1;
	bool gqa[16] = {false}, any_gqa = false, any_mha = false;
	double gq = 0, gm = 0;
	int k, h, rc, ngq = 0, nmh = 0;

	/* H2 as 002 states it: InferSim-scale overheads (5 ms per decode step,
	 * 30 ms added to TTFT) against none */
	eo.tier0_off = 0;
	eo.ov.step_us = 5000;
	eo.ov.layer_us = eo.ov.req_us = 0;
	eo.ov.api_ttft_ms = 30;
	if ((rc = run_pass(env, files, nf, c, &eo, "none", &ms, e)) < 0) {
		free(ms.rows);
		return rc;
	}
	for (k = 0; k < full->nmodels && k < 16; k++) {
		struct model_cfg *m = xcalloc(1, sizeof(*m));
		if (cli_load_model(env, full->models[k], NULL, m, e) == 0) {
			gqa[k] = m->kv_heads < m->heads;
			any_gqa |= gqa[k];
			any_mha |= !gqa[k];
		}
		err_clear(e);
		free(m);
	}
	printf("\ndesign document 002's criteria (MAPE = mean APE over the steady rows; gain = MAPE with the correction off - with it on, in pp)\n");
	if (md)
		fprintf(md, "### Against design document 002's criteria\n\n"
			    "MAPE = mean APE over the steady-state rows; gain = MAPE with the correction off minus with it on (pp). "
			    "002's ground truth (14 GuideLLM experiments of 4 families) is not this one: codegen stands for its "
			    "codesweep, general + roleplay for its chatsweep, CodeLlama-34B (48 query / 8 KV heads) for its GQA "
			    "models and Llama-2-7B (32 / 32) for its multi-head ones; there is no held-out split, every row counts. "
			    "Part A of H4-H6 is in section 5.\n\n"
			    "| | criterion (002) | verdict | figures |\n|---|---|---|---|\n");
	/* H1 */
	g = mape(&offs[0], EM_ITL_MEAN, NULL, NULL) - mape(full, EM_ITL_MEAN, NULL, NULL);
	gc = mape(&offs[0], EM_ITL_MEAN, NULL, code) - mape(full, EM_ITL_MEAN, NULL, code);
	gh = mape(&offs[0], EM_ITL_MEAN, NULL, chat) - mape(full, EM_ITL_MEAN, NULL, chat);
	snprintf(fig, sizeof(fig), "TPOT MAPE gain %+.1f pp; codegen %+.1f pp vs chat %+.1f pp%s", 100 * g, 100 * gc,
		 100 * gh, gc > gh ? "" : " (direction reversed: chat gains more)");
	verdict(md, "H1", "TPOT MAPE >= 3 pp better; codegen improves more than chat", g >= 0.03 && gc > gh, fig);
	/* H2 */
	t = mape(&offs[1], EM_ITL_MEAN, NULL, NULL) - mape(&ms, EM_ITL_MEAN, NULL, NULL);
	t2 = mape(&ms, EM_TTFT_MEAN, NULL, NULL) - mape(&offs[1], EM_TTFT_MEAN, NULL, NULL);
	snprintf(fig, sizeof(fig), "InferSim scale (5 ms/step, +30 ms TTFT) vs none: TPOT MAPE gain %+.1f pp, TTFT MAPE change %+.1f pp (positive = worse)",
		 100 * t, 100 * t2);
	verdict(md, "H2", "TPOT MAPE >= 3 pp better; TTFT MAPE not > 1 pp worse", t >= 0.03 && t2 <= 0.01, fig);
	t = mape(&offs[1], EM_ITL_MEAN, NULL, NULL) - mape(full, EM_ITL_MEAN, NULL, NULL);
	t2 = mape(full, EM_TTFT_MEAN, NULL, NULL) - mape(&offs[1], EM_TTFT_MEAN, NULL, NULL);
	snprintf(fig, sizeof(fig), "servesim's H2 (fitted us-scale step/layer/request terms + client API and delivery terms, eval/H2_SWEEP.md) vs none: TPOT MAPE gain %+.1f pp, TTFT MAPE change %+.1f pp (positive = worse)",
		 100 * t, 100 * t2);
	verdict(md, "H2'", "(what replaced it) the same criterion", t >= 0.03 && t2 <= 0.01, fig);
	/* H3 */
	for (k = 0; k < full->nmodels && k < 16; k++) {
		double d = mape(&offs[2], EM_E2E_MEAN, full->models[k], NULL) - mape(full, EM_E2E_MEAN, full->models[k], NULL);
		if (isnan(d))
			continue;
		if (gqa[k]) {
			gq += d;
			ngq++;
		} else {
			gm += d;
			nmh++;
		}
	}
	gq = ngq ? gq / ngq : NAN;
	gm = nmh ? gm / nmh : NAN;
	snprintf(fig, sizeof(fig), "E2E MAPE gain: GQA models %+.1f pp, multi-head models %+.1f pp%s", 100 * gq, 100 * gm,
		 any_gqa && any_mha ? "" : " (one kind missing)");
	verdict(md, "H3", "E2E MAPE >= 2 pp better on GQA models; GQA gain > non-GQA gain",
		gq >= 0.02 && (isnan(gm) || gq > gm), fig);
	/* H4, H5 Part B */
	g = mape(&offs[3], EM_E2E_MEAN, NULL, NULL) - mape(full, EM_E2E_MEAN, NULL, NULL);
	snprintf(fig, sizeof(fig), "E2E MAPE gain %+.1f pp", 100 * g);
	verdict(md, "H4", "Part B: E2E MAPE >= 1 pp better", g >= 0.01, fig);
	g = mape(&offs[4], EM_E2E_MEAN, NULL, NULL) - mape(full, EM_E2E_MEAN, NULL, NULL);
	snprintf(fig, sizeof(fig), "E2E MAPE gain %+.1f pp (the QPS split is not judged: rows carry no per-step batch mix)", 100 * g);
	verdict(md, "H5", "Part B: E2E MAPE >= 2 pp better, concentrated at high QPS", g >= 0.02, fig);
	/* H6 Part B */
	v0 = req_var(&offs[5]);
	v1 = req_var(full);
	g = mape(full, EM_E2E_MEAN, NULL, NULL) - mape(&offs[5], EM_E2E_MEAN, NULL, NULL);
	snprintf(fig, sizeof(fig), "per-request E2E APE variance %.3g (nearest) -> %.3g (interpolated); E2E MAPE %+.1f pp worse", v0,
		 v1, 100 * g);
	verdict(md, "H6", "Part B: per-request E2E variance decreases; MAPE not > 1 pp worse",
		!(v1 >= v0) && g <= 0.01, fig);
	/* the regression gate, per model */
	printf("\nregression gate (002 section 4.1: a correction that makes a metric more than 1 pp worse is reverted), per model, TTFT / TPOT / E2E MAPE with the correction on minus off:\n");
	if (md)
		fprintf(md, "\nRegression gate (002 section 4.1: a correction that makes a metric more than 1 pp worse is reverted), per model: "
			    "MAPE with the correction on minus off (pp; positive = worse with it), TTFT / TPOT / E2E.\n\n| correction | model | TTFT | TPOT | E2E | gate |\n|---|---|---:|---:|---:|---|\n");
	for (h = 0; h < 6; h++)
		for (k = 0; k < full->nmodels; k++) {
			static const int ms3[3] = {EM_TTFT_MEAN, EM_ITL_MEAN, EM_E2E_MEAN};
			double d[3];
			bool trip = false;
			int j;
			for (j = 0; j < 3; j++) {
				d[j] = mape(full, ms3[j], full->models[k], NULL) - mape(&offs[h], ms3[j], full->models[k], NULL);
				trip |= d[j] > TAM_GATE_PP;
			}
			printf("  %-3s %-16s %+6.1f %+6.1f %+6.1f  %s\n", hn[h], full->models[k], 100 * d[0], 100 * d[1],
			       100 * d[2], trip ? "trips: off for this model kind under 002's gate" : "passes");
			if (md)
				fprintf(md, "| %s | %s (%s) | %+.1f | %+.1f | %+.1f | %s |\n", hn[h], full->models[k],
					k < 16 && gqa[k] ? "GQA" : "multi-head", 100 * d[0], 100 * d[1], 100 * d[2],
					trip ? "**trips**" : "passes");
		}
	if (md)
		fprintf(md, "\nThe defaults are unchanged: a tripped gate is reported, not applied (the corrections are switched in the cost model, src/cost/, which another change owns; `--tier0-off` switches them off).\n\n");
	free(ms.rows);
	return 0;
}

/* --- ablation --- */

static int ablate(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
		  FILE *md, struct err *e)
{
	static const char *const names[6] = {"H1 bandwidth term", "H2 overheads", "H3 fused shapes",
		"H4 per-component pricing", "H5 additive mixed batches", "H6 interpolated tables"};
	struct pass full, off, offs[6];
	double base[EM__COUNT], med, mean;
	size_t cnt;
	int h, k, rc;

	memset(offs, 0, sizeof(offs));
	if ((rc = run_pass(env, files, nf, c, &c->eo, "none", &full, e)) < 0) {
		free(full.rows);
		return rc;
	}
	for (k = 0; k < EM__COUNT; k++)
		eval_ape_stats(full.rows, full.nrows, (enum ev_metric)k, false, NULL, NULL, &base[k], &mean, &cnt);
	printf("ablation over %zu steady-state rows (tier 0, no calibration): median APE with each correction off, and the change\n",
	       cnt);
	printf("%-28s", "configuration");
	for (k = 0; k < EM__COUNT; k++)
		printf(" %-18s", ev_metric_name((enum ev_metric)k));
	printf("\n%-28s", "full tier 0");
	for (k = 0; k < EM__COUNT; k++)
		printf(" %6.1f%%           ", 100 * base[k]);
	printf("\n");
	if (md) {
		fprintf(md, "| configuration |");
		for (k = 0; k < EM__COUNT; k++)
			fprintf(md, " %s |", ev_metric_name((enum ev_metric)k));
		fprintf(md, "\n|---|");
		for (k = 0; k < EM__COUNT; k++)
			fprintf(md, "---:|");
		fprintf(md, "\n| full tier 0 |");
		for (k = 0; k < EM__COUNT; k++)
			fprintf(md, " %.1f%% |", 100 * base[k]);
		fprintf(md, "\n");
	}
	for (h = 0; h < 6; h++) {
		struct eval_opts eo = c->eo;
		eo.tier0_off = 1u << h;
		if ((rc = run_pass(env, files, nf, c, &eo, "none", &offs[h], e)) < 0)
			break;
		off = offs[h];
		printf("%-28s", names[h]);
		if (md)
			fprintf(md, "| %s off |", names[h]);
		for (k = 0; k < EM__COUNT; k++) {
			eval_ape_stats(off.rows, off.nrows, (enum ev_metric)k, false, NULL, NULL, &med, &mean, &cnt);
			printf(" %6.1f%% (%+6.1f) ", 100 * med, 100 * (med - base[k]));
			if (md)
				fprintf(md, " %.1f%% (%+.1f) |", 100 * med, 100 * (med - base[k]));
		}
		printf("\n");
		if (md)
			fprintf(md, "\n");
	}
	if (md)
		fprintf(md, "\nCells: median APE with the correction off (change in percentage points against full tier 0; positive = the correction helps).\n\n");
	if (rc == 0)
		rc = tam_criteria(env, files, nf, c, &full, offs, md, e);
	for (h = 0; h < 6; h++)
		free(offs[h].rows);
	free(full.rows);
	return rc;
}

/* --- report --- */

static const char *base_dir_name(const char *dir)
{
	const char *b = strrchr(dir, '/');
	return b && b[1] ? b + 1 : dir;
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static int write_plots(const struct pass *p, const char *dir, FILE *md, struct err *e)
{
	char path[1200], cmd[2600];
	struct afile af;
	FILE *f;
	int rc;
	size_t i;
	int k;
	static const int shown[4] = {EM_TTFT_MEAN, EM_ITL_MEAN, EM_E2E_MEAN, EM_E2E_P90};

	if (paths_mkdir_p(dir) != 0)
		return err_set(e, SS_ERUNTIME, "%s: cannot create the plots folder", dir);
	for (k = 0; k < 4; k++) {
		int mk = shown[k];
		snprintf(path, sizeof(path), "%s/%s.dat", dir, ev_metric_name((enum ev_metric)mk));
		if ((rc = afile_open(&af, path, e)) < 0)
			return rc;
		f = af.f;
		fprintf(f, "# measured predicted overloaded experiment\n");
		for (i = 0; i < p->nrows; i++)
			if (!isnan(p->rows[i].meas[mk]) && !isnan(p->rows[i].pred[mk]))
				fprintf(f, "%.6g %.6g %d %s\n", p->rows[i].meas[mk], p->rows[i].pred[mk],
					p->rows[i].overloaded, p->rows[i].experiment);
		if ((rc = afile_commit(&af, e)) < 0)
			return rc;
	}
	snprintf(path, sizeof(path), "%s/ape.dat", dir);
	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	f = af.f;
	fprintf(f, "# row ttft_ape itl_ape e2e_ape\n");
	for (i = 0; i < p->nrows; i++)
		if (!p->rows[i].overloaded)
			fprintf(f, "%zu %.6g %.6g %.6g\n", i, 100 * p->rows[i].ape[EM_TTFT_MEAN],
				100 * p->rows[i].ape[EM_ITL_MEAN], 100 * p->rows[i].ape[EM_E2E_MEAN]);
	if ((rc = afile_commit(&af, e)) < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	f = af.f;
	fprintf(f, "set terminal svg size 520,460 font 'sans,11'\nset logscale xy\nset key top left\n"
		   "set grid\nset xlabel 'measured'\nset ylabel 'predicted'\n");
	for (k = 0; k < 4; k++) {
		const char *n = ev_metric_name((enum ev_metric)shown[k]);
		fprintf(f, "set output '%s.svg'\nset title '%s: predicted vs measured'\n"
			   "plot '%s.dat' using 1:($3==0?$2:1/0) with points pt 7 title 'steady', "
			   "'%s.dat' using 1:($3==1?$2:1/0) with points pt 6 title 'overloaded', x with lines lt 0 title 'y = x'\n",
			n, metric_title(shown[k]), n, n);
	}
	fprintf(f, "unset logscale\nset output 'ape.svg'\nset title 'APE per steady-state row'\n"
		   "set xlabel 'row'\nset ylabel 'APE %%'\nset style data histograms\n"
		   "set style fill solid 0.8\nset boxwidth 0.9\n"
		   "plot 'ape.dat' using 2 title 'TTFT mean', '' using 3 title 'ITL mean', '' using 4 title 'E2E mean'\n");
	if ((rc = afile_commit(&af, e)) < 0)
		return rc;
	if (have_gnuplot()) {
		snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot plots.gp 2>/dev/null", dir);
		if (system(cmd) != 0)
			fprintf(md, "gnuplot failed on %s/plots.gp; the data files are there.\n\n", dir);
		else
			for (k = 0; k < 4; k++)
				fprintf(md, "![%s](%s/%s.svg) ", metric_title(shown[k]), base_dir_name(dir),
					ev_metric_name((enum ev_metric)shown[k]));
		fprintf(md, "![APE per row](%s/ape.svg)\n\n", base_dir_name(dir));
	} else {
		fprintf(md, "gnuplot is not installed: plot data and the script are in %s/ (run `gnuplot plots.gp` there).\n\n",
			dir);
	}
	return 0;
}

static void write_report_rows(FILE *md, const struct pass *p)
{
	char b[64], name[200];
	size_t i;
	int k;

	fprintf(md, "| experiment | stage |");
	for (k = 0; k < EM__COUNT; k++)
		fprintf(md, " %s |", metric_title(k));
	fprintf(md, "\n|---|---:|");
	for (k = 0; k < EM__COUNT; k++)
		fprintf(md, "---:|");
	fprintf(md, "\n");
	for (i = 0; i < p->nrows; i++) {
		row_name(name, sizeof(name), &p->rows[i]);
		fprintf(md, "| %s | %d%s |", name, p->rows[i].stage, p->rows[i].overloaded ? " *" : "");
		for (k = 0; k < EM__COUNT; k++) {
			fmt_cell(b, sizeof(b), &p->rows[i], k);
			fprintf(md, " %s |", b);
		}
		fprintf(md, "\n");
	}
	fprintf(md, "\nCells: measured / predicted, APE. `*`: overloaded stage, summarised apart.\n\n");
	fprintf(md, "| APE (median / mean) |");
	for (k = 0; k < EM__COUNT; k++)
		fprintf(md, " %s |", ev_metric_name((enum ev_metric)k));
	fprintf(md, "\n|---|");
	for (k = 0; k < EM__COUNT; k++)
		fprintf(md, "---:|");
	fprintf(md, "\n");
	summary_line(md, p, false, NULL, NULL, "all steady-state rows", true);
	for (k = 0; k < p->nmodels; k++)
		summary_line(md, p, false, p->models[k], NULL, p->models[k], true);
	for (k = 0; k < p->nworkloads; k++) {
		snprintf(name, sizeof(name), "workload %s", p->workloads[k]);
		summary_line(md, p, false, NULL, p->workloads[k], name, true);
	}
	summary_line(md, p, true, NULL, NULL, "overloaded rows", true);
	fprintf(md, "\n");
	print_per_request(md, p, true);
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
		struct pass q;
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
	printf("\nacross %d seeds (each experiment's workload seed + 0..%d; replayed per-request runs have fixed arrivals): APE over all steady rows\n",
	       c->seeds, c->seeds - 1);
	printf("%-16s %-34s %-34s\n", "metric", "median APE: mean sd [min, max]", "mean APE: mean sd [min, max]");
	if (md)
		fprintf(md, "Across %d seeds (workload seed + 0..%d): APE over all steady-state rows, mean ± sd [min, max] over the seeds.\n\n| metric | median APE | mean APE |\n|---|---:|---:|\n",
			c->seeds, c->seeds - 1);
	for (k = 0; k < EM__COUNT; k++) {
		double a[2][4];
		int w;
		for (w = 0; w < 2; w++) {
			double sum = 0, ss = 0, lo = INFINITY, hi = -INFINITY;
			for (s = 0; s < c->seeds; s++) {
				double v = w ? mean[s][k] : med[s][k];
				sum += v;
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
			a[w][0] = sum / c->seeds;
			for (s = 0; s < c->seeds; s++) {
				double v = (w ? mean[s][k] : med[s][k]) - a[w][0];
				ss += v * v;
			}
			a[w][1] = c->seeds > 1 ? sqrt(ss / (c->seeds - 1)) : 0;
			a[w][2] = lo;
			a[w][3] = hi;
		}
		printf("%-16s %5.2f%% %5.2f%% [%5.2f%%, %5.2f%%]   %5.2f%% %5.2f%% [%5.2f%%, %5.2f%%]\n",
		       ev_metric_name((enum ev_metric)k), 100 * a[0][0], 100 * a[0][1], 100 * a[0][2],
		       100 * a[0][3], 100 * a[1][0], 100 * a[1][1], 100 * a[1][2], 100 * a[1][3]);
		if (md)
			fprintf(md, "| %s | %.2f%% ± %.2f [%.2f, %.2f] | %.2f%% ± %.2f [%.2f, %.2f] |\n",
				ev_metric_name((enum ev_metric)k), 100 * a[0][0], 100 * a[0][1], 100 * a[0][2],
				100 * a[0][3], 100 * a[1][0], 100 * a[1][1], 100 * a[1][2], 100 * a[1][3]);
	}
	if (md)
		fprintf(md, "\n");
	return 0;
}

int cmd_eval(int argc, char **argv, struct err *e)
{
	enum { O_OFF = 256, O_FMT, O_GPU, O_CAL, O_ABL, O_SYN, O_MODEL, O_REP, O_PLOTS, O_T2, O_SEEDS,
	       O_WHERE };
	static const struct option lo[] = {
		{"tier0-off", required_argument, 0, O_OFF}, {"format", required_argument, 0, O_FMT},
		CLI_OVERHEAD_OPTIONS,
		{"gpu", required_argument, 0, O_GPU}, {"calibration", required_argument, 0, O_CAL},
		{"ablate", no_argument, 0, O_ABL}, {"synthetic", required_argument, 0, O_SYN},
		{"model", required_argument, 0, O_MODEL}, {"report", required_argument, 0, O_REP},
		{"plots", required_argument, 0, O_PLOTS}, {"tier2", required_argument, 0, O_T2},
		{"seeds", required_argument, 0, O_SEEDS},
		{"where", required_argument, 0, O_WHERE},
		{"help", no_argument, 0, 'h'}, CLI_SETTINGS_OPTIONS_NO_MODEL, {0, 0, 0, 0}};
	struct cli_settings cs = {0};
	struct experiment *bx = NULL;
	bool have_base = false;
	struct eval_cli c;
	struct tier2 t2;
	struct cli_env env;
	struct pass p;
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
		case 'h': fputs(eval_usage, stdout); return 0;
		case O_OFF: rc = cost_parse_off(optarg, &c.eo.tier0_off, e); break;
		case O_FMT: rc = cli_format(optarg, true, &c.fmt, e); break;
		case O_GPU: c.gpu = optarg; break;
		case O_CAL: c.calibration = optarg; break;
		case O_ABL: c.ablate = true; break;
		case O_SYN: c.synthetic = optarg; break;
		case O_MODEL: c.model = cs.model = optarg; break;
		case O_REP: c.report = optarg; break;
		case O_PLOTS: c.plots = optarg; break;
		case O_SEEDS: {
			int64_t v;
			if ((rc = cli_int("--seeds", optarg, 1, 64, &v, e)) == 0)
				c.seeds = (int)v;
			break;
		}
		case O_WHERE: c.where = optarg; break;
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
		rc = err_set(e, SS_EUSAGE, "eval: give at least one experiment folder (see 'servesim eval --help')");
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
			     "eval: no experiment under the given paths (experiment.json, inference-perf, GuideLLM or OTel folders)");
		goto out;
	}
	{
		static const int shown[4] = {EM_TTFT_MEAN, EM_ITL_MEAN, EM_E2E_MEAN, EM_E2E_P90};
		char dat[4][64];
		const char *plot_files[7] = {"ape.dat", "plots.gp", dat[0], dat[1], dat[2], dat[3], NULL};
		const char *in[MAX_EXP + 2];
		size_t nin = 0;
		for (i = 0; i < 4; i++)
			snprintf(dat[i], sizeof(dat[i]), "%s.dat", ev_metric_name((enum ev_metric)shown[i]));
		for (i = 0; i < nf; i++)
			in[nin++] = files[i];
		in[nin++] = c.calibration;
		if ((c.report && (rc = afile_check(c.report, in, nin, e)) < 0) ||
		    (c.plots && (rc = afile_check_dir(c.plots, plot_files, in, nin, e)) < 0))
			goto out;
	}
	if (c.report) {
		if ((rc = afile_open(&af, c.report, e)) < 0)
			goto out;
		md = af.f;
	}
	c.eo.cache = mfu_cache_new(); /* each GPU's tables parsed once for all experiments */
	if (c.ablate) {
		if (md)
			fprintf(md, "## 4. Ablation of the tier-0 corrections\n\n");
		rc = ablate(&env, files, nf, &c, md, e);
	} else {
		if ((rc = run_pass(&env, files, nf, &c, &c.eo, c.calibration, &p, e)) < 0)
			goto out;
		if (c.fmt == FMT_JSON)
			print_json(&p, &c.eo);
		else if (c.fmt == FMT_CSV)
			print_csv(&p);
		else
			print_text(&p, &c.eo);
		if (md) {
			if (p.nused) {
				fprintf(md, "Calibration:");
				for (i = 0; i < (size_t)p.nused; i++)
					fprintf(md, " `%s`", p.used[i]);
				fprintf(md, "\n\n");
			} else {
				fprintf(md, "Tier 0 (no calibration)%s.\n\n",
					c.eo.tier0_off ? ", some corrections switched off" : "");
			}
			write_report_rows(md, &p);
			if (c.plots && (rc = write_plots(&p, c.plots, md, e)) < 0)
				goto out;
		}
		if (c.seeds > 1 && c.fmt == FMT_TEXT && (rc = seed_spread(&env, files, nf, &c, md, e)) < 0)
			goto out;
	}
	if (rc == 0 && md) {
		md = NULL;
		rc = afile_commit(&af, e);
	}
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
