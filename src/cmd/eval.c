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
		       const char *calibration, struct pass *p, const struct experiment *x,
		       const struct model_cfg *m, const struct gpu_spec *g, struct err *e)
{
	struct eval_opts xo = *eo;
	struct calib_file cf;
	bool found = false;
	char dir[1200];
	int rc = 0;

	note_model(p, m->id);
	if (calibration && strcmp(calibration, "none") == 0) {
		found = false;
	} else if (calibration) {
		if ((rc = calib_load(calibration, &cf, e)) == 0)
			found = cf.accepted;
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

/* --- ablation --- */

static int ablate(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
		  FILE *md, struct err *e)
{
	static const char *const names[6] = {"H1 bandwidth term", "H2 overheads", "H3 fused shapes",
		"H4 per-component pricing", "H5 additive mixed batches", "H6 interpolated tables"};
	struct pass full, off;
	double base[EM__COUNT], med, mean;
	size_t cnt;
	int h, k, rc;

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
		if ((rc = run_pass(env, files, nf, c, &eo, "none", &off, e)) < 0) {
			free(off.rows);
			break;
		}
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
		free(off.rows);
	}
	free(full.rows);
	if (md)
		fprintf(md, "\nCells: median APE with the correction off (change in percentage points against full tier 0; positive = the correction helps).\n\n");
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
	FILE *f;
	size_t i;
	int k;
	static const int shown[4] = {EM_TTFT_MEAN, EM_ITL_MEAN, EM_E2E_MEAN, EM_E2E_P90};

	if (paths_mkdir_p(dir) != 0)
		return err_set(e, SS_ERUNTIME, "%s: cannot create the plots folder", dir);
	for (k = 0; k < 4; k++) {
		int mk = shown[k];
		snprintf(path, sizeof(path), "%s/%s.dat", dir, ev_metric_name((enum ev_metric)mk));
		if (!(f = fopen(path, "w")))
			return err_set(e, SS_ERUNTIME, "%s: cannot write", path);
		fprintf(f, "# measured predicted overloaded experiment\n");
		for (i = 0; i < p->nrows; i++)
			if (!isnan(p->rows[i].meas[mk]) && !isnan(p->rows[i].pred[mk]))
				fprintf(f, "%.6g %.6g %d %s\n", p->rows[i].meas[mk], p->rows[i].pred[mk],
					p->rows[i].overloaded, p->rows[i].experiment);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/ape.dat", dir);
	if (!(f = fopen(path, "w")))
		return err_set(e, SS_ERUNTIME, "%s: cannot write", path);
	fprintf(f, "# row ttft_ape itl_ape e2e_ape\n");
	for (i = 0; i < p->nrows; i++)
		if (!p->rows[i].overloaded)
			fprintf(f, "%zu %.6g %.6g %.6g\n", i, 100 * p->rows[i].ape[EM_TTFT_MEAN],
				100 * p->rows[i].ape[EM_ITL_MEAN], 100 * p->rows[i].ape[EM_E2E_MEAN]);
	fclose(f);
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	if (!(f = fopen(path, "w")))
		return err_set(e, SS_ERUNTIME, "%s: cannot write", path);
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
	fclose(f);
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
}

int cmd_eval(int argc, char **argv, struct err *e)
{
	enum { O_OFF = 256, O_FMT, O_GPU, O_CAL, O_ABL, O_SYN, O_MODEL, O_REP, O_PLOTS, O_T2,
	       O_WHERE };
	static const struct option lo[] = {
		{"tier0-off", required_argument, 0, O_OFF}, {"format", required_argument, 0, O_FMT},
		CLI_OVERHEAD_OPTIONS,
		{"gpu", required_argument, 0, O_GPU}, {"calibration", required_argument, 0, O_CAL},
		{"ablate", no_argument, 0, O_ABL}, {"synthetic", required_argument, 0, O_SYN},
		{"model", required_argument, 0, O_MODEL}, {"report", required_argument, 0, O_REP},
		{"plots", required_argument, 0, O_PLOTS}, {"tier2", required_argument, 0, O_T2},
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
	if (c.report) {
		if ((rc = afile_open(&af, c.report, e)) < 0)
			goto out;
		md = af.f;
	}
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
	cli_env_release(&env);
	return rc;
}
