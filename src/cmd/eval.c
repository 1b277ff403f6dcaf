/* eval.c - `servesim eval PATH...`: simulate every ground-truth experiment
 * found under the paths and report measured vs predicted, APE per metric and
 * stage, and median / mean APE overall and per model; `--ablate` measures
 * each tier-0 correction, `--synthetic` runs the cost-model experiments,
 * `--report` writes markdown with gnuplot plots. */
#define _GNU_SOURCE
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
	"recorded arrival times and lengths.  Folders above them are searched.  A bare\n"
	"results file needs --experiment or --model (below).\n"
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

/* One evaluation pass over every experiment. */
static int run_pass(struct cli_env *env, char **files, size_t nf, const struct eval_cli *c,
		    const struct eval_opts *eo, const char *calibration, struct pass *p,
		    struct err *e)
{
	struct experiment *x = xcalloc(1, sizeof(*x));
	struct model_cfg *m = xcalloc(1, sizeof(*m));
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->rows = xcalloc(MAX_ROWS, sizeof(*p->rows));
	for (i = 0; i < nf && rc == 0; i++) {
		const struct gpu_spec *g;
		struct eval_opts xo = *eo;
		struct calib_file cf;
		bool found = false;
		char dir[1200];
		if ((rc = experiment_load_with(files[i], c->gpu, c->base, x, e)) < 0)
			break;
		if (x->warning[0])
			fprintf(stderr, "servesim eval: warning: %s\n", x->warning);
		if ((rc = cli_load_model(env, x->model, NULL, m, e)) < 0 ||
		    (rc = cli_find_gpu(env, x->gpu, &g, e)) < 0) {
			err_prefix(e, "%s", files[i]);
			rc = -SS_EDATA;
			experiment_release(x);
			break;
		}
		/* rows and summaries use the registry id, whatever the file said */
		snprintf(x->model, sizeof(x->model), "%s", m->id);
		note_model(p, m->id);
		/* tier 1: --calibration FILE, none, or the matching accepted file */
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
		experiment_release(x);
	}
	note_workloads(p);
	free(x);
	free(m);
	return rc;
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
}

int cmd_eval(int argc, char **argv, struct err *e)
{
	enum { O_OFF = 256, O_FMT, O_GPU, O_CAL, O_ABL, O_SYN, O_MODEL, O_REP, O_PLOTS, O_T2 };
	static const struct option lo[] = {
		{"tier0-off", required_argument, 0, O_OFF}, {"format", required_argument, 0, O_FMT},
		CLI_OVERHEAD_OPTIONS,
		{"gpu", required_argument, 0, O_GPU}, {"calibration", required_argument, 0, O_CAL},
		{"ablate", no_argument, 0, O_ABL}, {"synthetic", required_argument, 0, O_SYN},
		{"model", required_argument, 0, O_MODEL}, {"report", required_argument, 0, O_REP},
		{"plots", required_argument, 0, O_PLOTS}, {"tier2", required_argument, 0, O_T2},
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
