/* eval.c - `servesim eval PATH...`: simulate every ground-truth experiment
 * found under the paths and report measured vs predicted, APE per metric and
 * stage, and median / mean APE overall and per model. */
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
#include "servesim/alloc.h"
#include "servesim/calib.h"
#include "servesim/eval.h"
#include "servesim/json.h"

static const char eval_usage[] =
	"usage: servesim eval PATH... [options]\n"
	"\n"
	"Runs every ground-truth experiment under the PATHs and prints, per experiment\n"
	"and stage (or GuideLLM benchmark), measured vs predicted and the APE of TTFT\n"
	"mean and p90, ITL mean,\n"
	"E2E mean and p90 and throughput; then median and mean APE per metric, overall\n"
	"and per model.  Overloaded stages (queue growing without bound) are flagged\n"
	"and summarised apart.  ITL is compared as (E2E mean - TTFT mean)/(output - 1)\n"
	"because inference-perf <= 0.2 reports about half the true inter-token latency.\n"
	"\n"
	"An experiment is a folder holding servesim's experiment.json, an inference-perf\n"
	"result folder (exp-config.yaml, results/), GuideLLM results\n"
	"(guidellm-results.json[.gz] with exp-config.yaml, engine-facts.json) or vLLM\n"
	"OpenTelemetry spans (traces.json[.gz]); per-request data is replayed at its\n"
	"recorded arrival times and lengths.  Folders above them are searched.\n"
	"\n"
	"options:\n"
	"  --calibration FILE|none tier-1 file to apply; default: the file in\n"
	"                          calibration/tier1/ matching the GPU and engine version\n"
	"                          (closest version), none when flags below are given\n"
	"  --tier0-off LIST        switch tier-0 corrections off (H1..H6)\n"
	"  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	"  --api-ttft-ms X --stream-token-us X --delivery-steps X\n"
	"                          override the H2 overhead terms\n"
	"  --gpu G                 GPU of foreign-format runs that do not record it (default h100)\n"
	"  --format text|json|csv  (default text)\n"
	"\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n";

#define MAX_EXP 256
#define MAX_ROWS 2048

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect experiment.json files under path (sorted, depth-first). */
static int collect(const char *path, char **out, size_t *n, int depth, struct err *e)
{
	char f[1200];
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, cap = 0, i;
	int rc = 0;

	if (stat(path, &sb) != 0)
		return err_set(e, SS_EUSAGE, "%s: no such file or folder", path);
	if (S_ISREG(sb.st_mode) || experiment_detect(path)) {
		if (*n >= MAX_EXP)
			return err_set(e, SS_EUSAGE, "more than %d experiments", MAX_EXP);
		out[(*n)++] = xstrdup(path);
		return 0;
	}
	if (depth > 6 || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		XGROW(names, cap, nn + 1);
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, nn, sizeof(*names), cmp_str);
	for (i = 0; i < nn; i++) {
		snprintf(f, sizeof(f), "%s/%s", path, names[i]);
		if (rc == 0 && stat(f, &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = collect(f, out, n, depth + 1, e);
		free(names[i]);
	}
	free(names);
	return rc;
}

static void fmt_cell(char *b, size_t n, const struct eval_row *r, int k)
{
	if (isnan(r->meas[k]))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.4g/%.4g %.1f%%", r->meas[k], r->pred[k], 100 * r->ape[k]);
}

static void summary_lines(const struct eval_row *rows, size_t n, bool over, const char *model,
			  const char *label)
{
	int k;
	size_t c;
	double med, mean;

	printf("  %-28s", label);
	for (k = 0; k < EM__COUNT; k++) {
		eval_ape_stats(rows, n, (enum ev_metric)k, over, model, &med, &mean, &c);
		if (c)
			printf(" %6.1f%% %6.1f%% ", 100 * med, 100 * mean);
		else
			printf(" %15s ", "-");
	}
	printf("\n");
}

int cmd_eval(int argc, char **argv, struct err *e)
{
	enum { O_OFF = 256, O_FMT, O_OVS, O_OVL, O_OVR, O_API, O_STREAM, O_LAG, O_GPU, O_CAL };
	static const struct option lo[] = {
		{"tier0-off", required_argument, 0, O_OFF}, {"format", required_argument, 0, O_FMT},
		{"overhead-step-us", required_argument, 0, O_OVS},
		{"overhead-layer-us", required_argument, 0, O_OVL},
		{"overhead-request-us", required_argument, 0, O_OVR},
		{"api-ttft-ms", required_argument, 0, O_API},
		{"stream-token-us", required_argument, 0, O_STREAM},
		{"delivery-steps", required_argument, 0, O_LAG},
		{"gpu", required_argument, 0, O_GPU},
		{"calibration", required_argument, 0, O_CAL},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct eval_opts eo;
	enum out_format fmt = FMT_TEXT;
	struct cli_env env;
	char *files[MAX_EXP];
	size_t nf = 0, nrows = 0, i;
	struct eval_row *rows = NULL;
	struct experiment *x = NULL;
	struct model_cfg *m = NULL;
	char models[16][128];
	const char *gpu_default = "h100", *calibration = NULL;
	char used[4][700];
	int nused = 0;
	bool ov_flags = false;
	int nmodels = 0, c, rc = 0, k;

	memset(&eo, 0, sizeof(eo));
	cost_default_overheads(&eo.ov);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(eval_usage, stdout); return 0;
		case O_OFF: rc = cost_parse_off(optarg, &eo.tier0_off, e); break;
		case O_FMT: rc = cli_format(optarg, true, &fmt, e); break;
		case O_OVS: ov_flags = true; rc = cli_double("--overhead-step-us", optarg, 0, false, &eo.ov.step_us, e); break;
		case O_OVL: ov_flags = true; rc = cli_double("--overhead-layer-us", optarg, 0, false, &eo.ov.layer_us, e); break;
		case O_OVR: ov_flags = true; rc = cli_double("--overhead-request-us", optarg, 0, false, &eo.ov.req_us, e); break;
		case O_API: ov_flags = true; rc = cli_double("--api-ttft-ms", optarg, 0, false, &eo.ov.api_ttft_ms, e); break;
		case O_STREAM: ov_flags = true; rc = cli_double("--stream-token-us", optarg, 0, false, &eo.ov.stream_token_us, e); break;
		case O_GPU: gpu_default = optarg; break;
		case O_CAL: calibration = optarg; break;
		case O_LAG: ov_flags = true; rc = cli_double("--delivery-steps", optarg, 0, false, &eo.ov.delivery_steps, e); break;
		default: return cli_bad_option("eval", argv[optind - 1], e);
		}
		if (rc < 0)
			return rc;
	}
	if (optind >= argc)
		return err_set(e, SS_EUSAGE, "eval: give at least one experiment folder (see 'servesim eval --help')");
	for (; optind < argc; optind++)
		if ((rc = collect(argv[optind], files, &nf, 0, e)) < 0)
			goto out;
	if (nf == 0) {
		rc = err_set(e, SS_EUSAGE, "eval: no experiment.json found under the given paths");
		goto out;
	}
	cli_env_init(&env);
	rows = xcalloc(MAX_ROWS, sizeof(*rows));
	x = xcalloc(1, sizeof(*x));
	m = xcalloc(1, sizeof(*m));
	for (i = 0; i < nf && rc == 0; i++) {
		const struct gpu_spec *g;
		if ((rc = experiment_load_any(files[i], gpu_default, x, e)) < 0)
			break;
		if ((rc = cli_load_model(&env, x->model, NULL, m, e)) < 0 ||
		    (rc = cli_find_gpu(&env, x->gpu, &g, e)) < 0) {
			err_prefix(e, "%s", files[i]);
			rc = -SS_EDATA;
			experiment_release(x);
			break;
		}
		/* rows and summaries use the registry id, whatever the file said */
		snprintf(x->model, sizeof(x->model), "%s", m->id);
		{
			/* tier 1: --calibration FILE, none, or the matching file */
			struct eval_opts xo = eo;
			struct calib_file cf;
			bool found = false;
			char dir[1200];
			if (calibration && strcmp(calibration, "none") == 0) {
				found = false;
			} else if (calibration) {
				if ((rc = calib_load(calibration, &cf, e)) < 0)
					break;
				found = cf.accepted;
			} else if (!ov_flags && !eo.tier0_off) {
				snprintf(dir, sizeof(dir), "%s/../calibration/tier1", env.data_dir);
				if ((rc = calib_find(dir, g->id, x->engine_version, &cf, &found, e)) < 0)
					break;
			}
			if (found) {
				const char *shown = strstr(cf.path, "calibration/");
				xo.ov = cf.ov;
				shown = shown ? shown : cf.path;
				if (nused < 4) {
					int k2, seen = 0;
					for (k2 = 0; k2 < nused; k2++)
						seen |= strcmp(used[k2], shown) == 0;
					if (!seen)
						snprintf(used[nused++], sizeof(used[0]), "%s", shown);
				}
			}
			rc = eval_experiment(x, m, g, &xo, env.data_dir, rows, MAX_ROWS, &nrows, e);
		}
		experiment_release(x);
		if (nmodels < 16) {
			int j, seen = 0;
			for (j = 0; j < nmodels; j++)
				seen |= strcmp(models[j], x->model) == 0;
			if (!seen)
				snprintf(models[nmodels++], sizeof(models[0]), "%s", x->model);
		}
	}
	cli_env_release(&env);
	if (rc < 0)
		goto out;
	if (fmt == FMT_JSON) {
		struct jw w;
		jw_init(&w, stdout, true);
		jw_obj(&w, NULL);
		if (nused)
			jw_str(&w, "calibration", used[0]);
		else
			jw_null(&w, "calibration");
		jw_str(&w, "tier0_off", "");
		jw_arr(&w, "rows");
		for (i = 0; i < nrows; i++) {
			jw_obj(&w, NULL);
			jw_str(&w, "experiment", rows[i].experiment);
			jw_int(&w, "stage", rows[i].stage);
			jw_bool(&w, "overloaded", rows[i].overloaded);
			jw_obj(&w, "metrics");
			for (k = 0; k < EM__COUNT; k++) {
				if (isnan(rows[i].meas[k]))
					continue;
				jw_obj(&w, ev_metric_name((enum ev_metric)k));
				jw_num(&w, "measured", rows[i].meas[k]);
				jw_num(&w, "predicted", rows[i].pred[k]);
				jw_num(&w, "ape", rows[i].ape[k]);
				jw_end_obj(&w);
			}
			jw_end_obj(&w);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_obj(&w, "summary");
		for (k = 0; k < EM__COUNT; k++) {
			double med, mean;
			size_t cnt;
			eval_ape_stats(rows, nrows, (enum ev_metric)k, false, NULL, &med, &mean, &cnt);
			jw_obj(&w, ev_metric_name((enum ev_metric)k));
			jw_num(&w, "median_ape", med);
			jw_num(&w, "mean_ape", mean);
			jw_int(&w, "rows", (int64_t)cnt);
			jw_end_obj(&w);
		}
		jw_end_obj(&w);
		jw_end_obj(&w);
		jw_finish(&w);
	} else if (fmt == FMT_CSV) {
		printf("experiment,stage,overloaded");
		for (k = 0; k < EM__COUNT; k++)
			printf(",%s_measured,%s_predicted,%s_ape", ev_metric_name((enum ev_metric)k),
			       ev_metric_name((enum ev_metric)k), ev_metric_name((enum ev_metric)k));
		printf("\n");
		for (i = 0; i < nrows; i++) {
			printf("%s,%d,%d", rows[i].experiment, rows[i].stage, rows[i].overloaded);
			for (k = 0; k < EM__COUNT; k++)
				printf(",%.6g,%.6g,%.6g", rows[i].meas[k], rows[i].pred[k], rows[i].ape[k]);
			printf("\n");
		}
	} else {
		char b[64];
		if (nused) {
			printf("tier 1: calibration");
			for (k = 0; k < nused; k++)
				printf(" %s", used[k]);
			printf("; cells: measured/predicted APE\n");
		} else {
			printf("tier 0%s; cells: measured/predicted APE\n",
			       eo.tier0_off ? " with corrections switched off" : "");
		}
		printf("%-44s %2s  %-24s %-24s %-24s %-24s %-24s %-24s\n", "experiment", "st",
		       "TTFT mean ms", "TTFT p90 ms", "ITL mean ms", "E2E mean ms", "E2E p90 ms",
		       "throughput req/s");
		for (i = 0; i < nrows; i++) {
			char name[64];
			snprintf(name, sizeof(name), "%s%s%s", rows[i].experiment, rows[i].label[0] ? " " : "",
				 rows[i].label);
			printf("%-44.44s %2d%s", name, rows[i].stage, rows[i].overloaded ? "*" : " ");
			for (k = 0; k < EM__COUNT; k++) {
				fmt_cell(b, sizeof(b), &rows[i], k);
				printf(" %-24s", b);
			}
			printf("\n");
		}
		printf("\nAPE (median mean)            ");
		for (k = 0; k < EM__COUNT; k++)
			printf(" %-16s", ev_metric_name((enum ev_metric)k));
		printf("\n");
		summary_lines(rows, nrows, false, NULL, "all steady-state stages");
		for (k = 0; k < nmodels; k++)
			summary_lines(rows, nrows, false, models[k], models[k]);
		summary_lines(rows, nrows, true, NULL, "overloaded stages (*)");
	}
	rc = 0;
out:
	for (i = 0; i < nf; i++)
		free(files[i]);
	free(rows);
	free(x);
	free(m);
	return rc;
}
