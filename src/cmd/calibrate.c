/* calibrate.c - `servesim calibrate`: tier-1 fit from measured runs, with
 * cross-validation and an overfitting guard; `--check` tells whether a
 * calibration file still fits new data. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "engine/registry.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "calib/calib.h"
#include "hw/mfucache.h"

static const char calibrate_usage[] =
	"usage: servesim calibrate PATH... [-o FILE] [--in-loop] [--seed S] [--gpu G]\n"
	"                          [--experiment DIR | --model M --tp N ...]\n"
	"       servesim calibrate --check FILE PATH...\n"
	"\n"
	"Tier 1: replays the measured runs under the PATHs (experiment folders of any\n"
	"kind `servesim eval` reads), pairs measured and predicted TTFT and E2E per\n"
	"request (or per stage), and fits\n"
	"  E2E residual  = a * output_tokens + b * prompt_tokens + d\n"
	"  TTFT residual = d0 + b0 * prompt_tokens            (ms)\n"
	"by weighted least squares (relative error), cross-validated on a 70/30 split\n"
	"stratified by stage/benchmark and by 5-fold.  A fit whose validation MAPE\n"
	"exceeds twice its training MAPE is rejected (the file says so and eval falls\n"
	"back to tier 0).  The coefficients become overhead terms applied inside the\n"
	"simulator (per step += a, per prefill token += b0, API TTFT += d0, API E2E +=\n"
	"d - d0) and the runs are re-simulated with them.\n"
	"\n"
	"  -o FILE        write the calibration file (atomically), e.g.\n"
	"                 calibration/tier1/h100-codellama-34b.json\n"
	"  --in-loop      also fit the four terms by non-linear least squares with the\n"
	"                 simulator in the loop (queueing makes latency non-linear in\n"
	"                 step time); both fits are reported and stored in the file\n"
	"                 (\"candidates\") with their verdicts; the file applies the\n"
	"                 accepted one that does better once applied, else the in-loop one\n"
	"  --force        apply the chosen fit even when it is rejected (the file says\n"
	"                 \"forced\": true)\n"
	"  --seed S       split seed (default 42)\n"
	"  --gpu G        GPU of runs that do not record it (default h100)\n"
	"  --check FILE   MAPE of FILE's terms on the PATHs; stale above 30 %\n"
	"  --jobs N       simulations run at once on threads (default: the online\n"
	"                 cores); the results are the same bytes for any N\n"
	CLI_SETTINGS_HELP
	"\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n";

struct loaded {
	struct experiment *x;
	struct model_cfg *mbuf;
	const struct model_cfg **m;
	const struct gpu_spec **g;
	const char **names;
	size_t n;
};

static void loaded_release(struct loaded *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		experiment_release(&l->x[i]);
	free(l->x);
	free(l->mbuf);
	free(l->m);
	free(l->g);
	free(l->names);
}

/* Room for one more run in l. */
static void loaded_grow(struct loaded *l, size_t *cap)
{
	size_t old = *cap, need = l->n + 1;

	if (need <= old)
		return;
	*cap = old ? old * 2 : 16;
	l->x = xreallocarray(l->x, *cap, sizeof(*l->x));
	l->mbuf = xreallocarray(l->mbuf, *cap, sizeof(*l->mbuf));
	l->m = xreallocarray(l->m, *cap, sizeof(*l->m));
	l->g = xreallocarray(l->g, *cap, sizeof(*l->g));
	l->names = xreallocarray(l->names, *cap, sizeof(*l->names));
	memset(l->x + old, 0, (*cap - old) * sizeof(*l->x));
}

/* The model and GPU of the run just loaded into l->x[l->n]. */
static int loaded_add(struct catalog *env, const char *path, struct loaded *l, struct err *e)
{
	size_t i = l->n++;
	int rc;

	if (l->x[i].warning[0])
		fprintf(stderr, "servesim calibrate: warning: %s\n", l->x[i].warning);
	if ((rc = catalog_load_model(env, l->x[i].model, NULL, &l->mbuf[i], e)) < 0 ||
	    (rc = catalog_find_gpu(env, l->x[i].gpu, &l->g[i], e)) < 0) {
		err_prefix(e, "%s", path);
		return -SS_EDATA;
	}
	return 0;
}

/* A serving benchmark's results file: one run per calibration unit (its
 * TTFT and E2E means at its mean lengths).  A silicon CSV is refused: its
 * rows mix models, GPUs and engines. */
static int load_table(struct catalog *env, const char *path, const char *gpu,
		      const struct experiment *base, struct loaded *l, size_t *cap, struct err *e)
{
	struct exp_table t;
	char why[200];
	size_t i;
	int rc;

	if ((rc = exp_table_open(path, NULL, &t, e)) < 0)
		return rc;
	if (t.fmt == RD_AIC) {
		exp_table_release(&t);
		return err_set(e, SS_EUSAGE,
			       "%s: an aiconfigurator silicon CSV holds rows of many models, GPUs and engines and a calibration file fits one: write the rows of one with `servesim import %s --where model_path=M,system=S,backend=B -o DIR` and calibrate DIR's experiments",
			       path, path);
	}
	for (i = 0; i < t.n; i++) {
		loaded_grow(l, cap);
		rc = exp_table_load(&t, i, gpu, base, &l->x[l->n], why, sizeof(why), e);
		if (rc == 0)
			rc = err_set(e, SS_EUSAGE, "%s run %zu: %s", path, i + 1, why);
		if (rc < 0 || (rc = loaded_add(env, path, l, e)) < 0)
			break;
	}
	exp_table_release(&t);
	return rc < 0 ? rc : 0;
}

static int load_all(struct catalog *env, char **paths, int np, const char *gpu,
		    const struct experiment *base, struct loaded *l, struct err *e)
{
	size_t cap = 0;
	char tf[1200];
	int i, rc;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < np; i++) {
		if (exp_table_detect(paths[i], tf, sizeof(tf))) {
			if ((rc = load_table(env, paths[i], gpu, base, l, &cap, e)) < 0)
				return rc;
			continue;
		}
		loaded_grow(l, &cap);
		if ((rc = experiment_load_with(paths[i], gpu, base, &l->x[l->n], e)) < 0)
			return rc;
		if ((rc = loaded_add(env, paths[i], l, e)) < 0)
			return rc;
	}
	/* the arrays have stopped moving */
	for (i = 0; i < (int)l->n; i++) {
		l->m[i] = &l->mbuf[i];
		l->names[i] = l->x[i].name;
	}
	return 0;
}

static void print_row(const char *what, double e2e, double ttft)
{
	printf("  %-26s %8.2f%% %8.2f%%\n", what, 100 * e2e, 100 * ttft);
}

/* a calibration file from another model, GPU or engine version than the
 * runs it is checked on: a warning per run kind (stderr) */
static void warn_mismatch(const struct calib_file *f, const struct loaded *l)
{
	char b[400], prev[400] = "";
	size_t i;

	for (i = 0; i < l->n; i++)
		if (calib_mismatch(f, l->m[i]->id, l->g[i]->id, l->x[i].engine_version, b, sizeof(b)) &&
		    strcmp(b, prev) != 0) {
			fprintf(stderr, "servesim calibrate: warning: %s was fitted on another %s\n", f->path, b);
			snprintf(prev, sizeof(prev), "%s", b);
		}
}

int cmd_calibrate(int argc, char **argv, struct err *e)
{
	enum { O_LOOP = 256, O_SEED, O_GPU, O_CHECK, O_JOBS, O_FORCE };
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'}, {"in-loop", no_argument, 0, O_LOOP},
		{"seed", required_argument, 0, O_SEED}, {"gpu", required_argument, 0, O_GPU},
		{"check", required_argument, 0, O_CHECK}, {"help", no_argument, 0, 'h'},
		{"jobs", required_argument, 0, O_JOBS},
		{"force", no_argument, 0, O_FORCE},
		CLI_SETTINGS_OPTIONS, {0, 0, 0, 0}};
	struct cli_settings cs = {0};
	struct experiment *bx = NULL;
	bool have_base = false;
	const char *out = NULL, *gpu = "h100", *check = NULL;
	bool in_loop = false;
	int64_t seed = 42;
	int64_t jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	struct catalog env;
	struct loaded l;
	struct calib_ctx cc;
	struct mfu_cache *cache = NULL;
	struct calib_set set;
	struct overheads base;
	struct tier1_result r, rl, chosen;
	bool force = false;
	char *paths[256];
	size_t npaths = 0, pi;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(calibrate_usage, stdout); return 0;
		case 'o': out = optarg; break;
		case O_LOOP: in_loop = true; break;
		case O_SEED:
			if ((rc = cli_int("--seed", optarg, 0, INT64_MAX, &seed, e)) < 0)
				return rc;
			break;
		case O_GPU: gpu = optarg; break;
		case O_CHECK: check = optarg; break;
		case O_JOBS:
			if ((rc = cli_int("--jobs", optarg, 1, 1024, &jobs, e)) < 0)
				return rc;
			break;
		case O_FORCE: force = true; break;
		default:
			if ((rc = cli_settings_option(c, optarg, &cs, e)) < 0)
				return rc;
			if (rc == 0)
				return cli_bad_option("calibrate", argv[optind - 1], e);
		}
	}
	if (optind >= argc)
		return err_set(e, SS_EUSAGE, "give at least one PATH (see 'servesim calibrate --help')");
	catalog_init(&env);
	memset(&set, 0, sizeof(set));
	memset(&l, 0, sizeof(l));
	for (; optind < argc; optind++)
		if ((rc = cli_collect_experiments(argv[optind], paths, &npaths, 256, e)) < 0)
			goto out;
	if (npaths == 0) {
		rc = err_set(e, SS_EUSAGE, "no experiment under the given paths");
		goto out;
	}
	{
		const struct afile_out outs[1] = {{"-o", out, NULL}};
		if ((rc = afile_check_outputs(outs, 1, (const char *const *)paths, npaths, AFILE_CALIBRATION,
					      e)) < 0)
			goto out;
	}
	bx = xcalloc(1, sizeof(*bx));
	if ((rc = cli_settings_base(&cs, gpu, bx, &have_base, e)) < 0)
		goto out;
	if ((rc = load_all(&env, paths, (int)npaths, gpu, have_base ? bx : NULL, &l, e)) < 0)
		goto out;
	/* a calibration file describes one model on one GPU */
	for (pi = 1; pi < l.n && !check; pi++) {
		if (strcmp(l.m[pi]->id, l.m[0]->id) != 0 || strcmp(l.g[pi]->id, l.g[0]->id) != 0) {
			rc = err_set(e, SS_EUSAGE,
				     "the runs mix models or GPUs (%s on %s in %s, %s on %s in %s): fit one model and GPU at a time",
				     l.m[0]->id, l.g[0]->id, l.x[0].name, l.m[pi]->id, l.g[pi]->id, l.x[pi].name);
			goto out;
		}
	}
	cc.x = l.x;
	cc.m = l.m;
	cc.g = l.g;
	cc.n = l.n;
	cc.data_dir = env.data_dir;
	cc.cache = cache = mfu_cache_new(); /* each GPU's tables parsed once for every simulation */
	cc.jobs = (int)jobs;
	/* the terms the fit starts from and falls back to: the engine's own */
	engine_host_terms(l.x[0].engine, l.x[0].engine_version, l.x[0].wl.harness, &base);
	if (check) {
		struct calib_file f;
		double me, mt;
		if ((rc = calib_load(check, &f, e)) < 0)
			goto out;
		warn_mismatch(&f, &l);
		if ((rc = calib_collect(&cc, &f.ov, &set, e)) < 0)
			goto out;
		calib_mape(&set, NULL, NULL, &me, &mt);
		printf("calibration %s (%s, fitted MAPE: training %.2f%%, validation %.2f%%)\n", check,
		       f.method, 100 * f.train_e2e, 100 * f.val_e2e);
		printf("on %zu units of %zu experiment%s: E2E MAPE %.2f%%, TTFT MAPE %.2f%%\n", set.n, l.n,
		       l.n > 1 ? "s" : "", 100 * me, 100 * mt);
		if (me > CALIB_STALE_MAPE || mt > CALIB_STALE_MAPE)
			printf("stale: MAPE above %.0f%%: recalibrate on data from this deployment\n",
			       100 * CALIB_STALE_MAPE);
		else
			printf("current: MAPE within %.0f%%\n", 100 * CALIB_STALE_MAPE);
		rc = 0;
		goto out;
	}
	if ((rc = calib_collect(&cc, &base, &set, e)) < 0)
		goto out;
	if (set.requests < CALIB_MIN_REQUESTS) {
		rc = err_set(e, SS_EDATA,
			     "the runs hold %lld requests; a tier-1 fit needs a trace of at least %d (design document 002, tier 1)",
			     (long long)set.requests, CALIB_MIN_REQUESTS);
		goto out;
	}
	if ((rc = tier1_fit(&set, (uint64_t)seed, &base, &r, e)) < 0)
		goto out;
	{
		struct calib_set s2;
		/* judged on what it fitted, whatever the validation verdict */
		if ((rc = calib_collect(&cc, &r.fitted, &s2, e)) < 0)
			goto out;
		calib_mape(&s2, NULL, NULL, &r.applied_e2e, &r.applied_ttft);
		calib_set_release(&s2);
	}
	/* judged where it acts: re-simulated, it must beat tier 0 */
	if (r.accepted && r.applied_e2e + r.applied_ttft > r.tier0_e2e + r.tier0_ttft) {
		r.accepted = false;
		snprintf(r.reason, sizeof(r.reason),
			 "applied in the simulator it does worse than tier 0 (E2E %.1f%% vs %.1f%%, TTFT %.1f%% vs %.1f%%)",
			 100 * r.applied_e2e, 100 * r.tier0_e2e, 100 * r.applied_ttft, 100 * r.tier0_ttft);
		r.ov = base;
	}
	printf("tier-1 calibration on %zu units from %zu experiment%s (seed %lld)\n", set.n, l.n,
	       l.n > 1 ? "s" : "", (long long)seed);
	printf("  %-26s %9s %9s\n", "MAPE", "E2E", "TTFT");
	print_row("tier 0", r.tier0_e2e, r.tier0_ttft);
	print_row("linear fit, training 70%", r.train_e2e, r.train_ttft);
	print_row("linear fit, validation 30%", r.val_e2e, r.val_ttft);
	print_row("linear fit, 5-fold", r.kfold_e2e, r.kfold_ttft);
	print_row("applied in the simulator", r.applied_e2e, r.applied_ttft);
	printf("coefficients: E2E a = %.4g ms/output token, b = %.4g ms/prompt token, d = %.4g ms;"
	       " TTFT d0 = %.4g ms, b0 = %.4g ms/prompt token\n",
	       r.coef.a_ms_per_output_token, r.coef.b_ms_per_prompt_token, r.coef.d_ms,
	       r.coef.ttft_d0_ms, r.coef.ttft_b0_ms_per_prompt_token);
	{
		struct tier1_tpot tp;
		if (tier1_fit_tpot(&set, (uint64_t)seed, &tp, e) == 0)
			printf("TPOT residual (002): a = %.4g ms/output token, b = %.4g ms/prompt token, d = %.4g ms on %zu units; "
			       "TPOT MAPE tier 0 %.2f%%, fit training %.2f%%, validation %.2f%% (reported; the simulator applies the E2E/TTFT terms)\n",
			       tp.a_ms_per_output_token, tp.b_ms_per_prompt_token, tp.d_ms, tp.units, 100 * tp.tier0,
			       100 * tp.train, 100 * tp.val);
		else
			printf("TPOT residual (002): not fitted: %s\n", e->msg);
		err_clear(e);
	}
	printf("fitted overhead terms: step %.1f us, prefill token %.3f us, API TTFT %.2f ms, API E2E %.2f ms\n",
	       r.fitted.step_us, r.fitted.prefill_token_us, r.fitted.api_ttft_ms, r.fitted.api_e2e_ms);
	printf("%s%s%s\n", r.accepted ? "accepted (validation MAPE <= 2 x training MAPE)" : "rejected: ",
	       r.accepted ? "" : r.reason, r.accepted ? "" : "; tier 0 stays in force");
	if (in_loop) {
		struct calib_set s3;
		rl = r;
		if ((rc = tier1_fit_in_loop(&cc, &base, &rl, e)) < 0)
			goto out;
		if ((rc = calib_collect(&cc, &rl.fitted, &s3, e)) < 0)
			goto out;
		calib_mape(&s3, NULL, NULL, &rl.applied_e2e, &rl.applied_ttft);
		calib_set_release(&s3);
		rl.tier0_e2e = r.tier0_e2e;
		rl.tier0_ttft = r.tier0_ttft;
		if (rl.accepted && rl.applied_e2e + rl.applied_ttft > rl.tier0_e2e + rl.tier0_ttft) {
			rl.accepted = false;
			snprintf(rl.reason, sizeof(rl.reason), "applied in the simulator it does worse than tier 0");
			rl.ov = base;
		}
		printf("in-loop fit (%d iterations): step %.1f us, prefill token %.3f us, API TTFT %.2f ms, API E2E %.2f ms\n",
		       rl.iterations, rl.fitted.step_us, rl.fitted.prefill_token_us, rl.fitted.api_ttft_ms,
		       rl.fitted.api_e2e_ms);
		printf("  %-26s %9s %9s\n", "MAPE", "E2E", "TTFT");
		print_row("in-loop, training groups", rl.train_e2e, rl.train_ttft);
		print_row("in-loop, held-out groups", rl.val_e2e, rl.val_ttft);
		print_row("linear, applied (all)", r.applied_e2e, r.applied_ttft);
		print_row("in-loop, applied (all)", rl.applied_e2e, rl.applied_ttft);
		printf("in-loop %s%s\n", rl.accepted ? "accepted" : "rejected: ", rl.accepted ? "" : rl.reason);
	}
	/* chosen: the accepted fit that does better once applied; with none
	 * accepted, the in-loop fit when asked for (as the help says), else
	 * the linear one; --force applies a rejected choice */
	chosen = r;
	if (in_loop && (!r.accepted || (rl.accepted && rl.applied_e2e + rl.applied_ttft <
						       r.applied_e2e + r.applied_ttft)))
		chosen = rl;
	if (!chosen.accepted && force) {
		chosen.ov = chosen.fitted;
		printf("forced: the rejected %s fit is applied (--force)\n",
		       strcmp(chosen.method, "nlls") == 0 ? "in-loop" : "linear");
	} else {
		printf("%s: %s%s\n", chosen.accepted ? "applied" : "not applied",
		       strcmp(chosen.method, "nlls") == 0 ? "the in-loop fit" : "the linear fit",
		       chosen.accepted ? "" : " is rejected; the file keeps tier 0's terms (--force applies the fit)");
	}
	if (out) {
		struct tier1_result cand[2];
		cand[0] = r;
		cand[1] = rl;
		if ((rc = calib_write(out, &chosen, cand, in_loop ? 2 : 1, !chosen.accepted && force, &cc,
				      l.names, l.n, e)) < 0)
			goto out;
		printf("wrote %s\n", out);
	}
	rc = 0;
out:
	for (pi = 0; pi < npaths; pi++)
		free(paths[pi]);
	calib_set_release(&set);
	loaded_release(&l);
	free(bx);
	mfu_cache_free(cache);
	catalog_release(&env);
	return rc;
}
