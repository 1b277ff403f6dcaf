/* calibrate.c - `servesim calibrate`: tier-1 fit from measured runs, with
 * cross-validation and an overfitting guard; `--check` tells whether a
 * calibration file still fits new data. */
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
#include "calib/study.h"
#include "report/calibreport.h"

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
	struct exp_settings cs = {0};
	struct experiment *bx = NULL;
	bool have_base = false, studied = false;
	const char *out = NULL, *gpu = "h100", *check = NULL;
	bool in_loop = false;
	int64_t seed = 42;
	int64_t jobs = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	struct catalog env;
	struct calib_runs l;
	struct calib_study s;
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
	memset(&l, 0, sizeof(l));
	for (; optind < argc; optind++)
		if ((rc = eval_collect(argv[optind], paths, &npaths, 256, e)) < 0)
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
	if ((rc = exp_settings_base(&cs, gpu, bx, &have_base, e)) < 0 ||
	    (rc = calib_runs_load(&env, paths, npaths, gpu, have_base ? bx : NULL, stderr, &l, e)) < 0 ||
	    (!check && (rc = calib_runs_one_deployment(&l, e)) < 0))
		goto out;
	calib_study_init(&s, &l, env.data_dir, (int)jobs);
	studied = true;
	if (check) {
		struct calib_check ck;
		if ((rc = calib_check_file(&s, &l, check, stderr, &ck, e)) == 0)
			out_calib_check(stdout, check, &ck, l.n);
		goto out;
	}
	if ((rc = calib_study_linear(&s, (uint64_t)seed, e)) < 0)
		goto out;
	out_calib_linear(stdout, &s, l.n, (uint64_t)seed);
	if (in_loop) {
		if ((rc = calib_study_in_loop(&s, e)) < 0)
			goto out;
		out_calib_in_loop(stdout, &s);
	}
	calib_study_choose(&s, in_loop, force);
	out_calib_choice(stdout, &s);
	if (out) {
		struct tier1_result cand[2] = {s.r, s.rl};
		if ((rc = calib_write(out, &s.chosen, cand, in_loop ? 2 : 1, s.forced, &s.cc, l.names, l.n, e)) < 0)
			goto out;
		printf("wrote %s\n", out);
	}
	rc = 0;
out:
	for (pi = 0; pi < npaths; pi++)
		free(paths[pi]);
	if (studied)
		calib_study_release(&s);
	calib_runs_release(&l);
	free(bx);
	catalog_release(&env);
	return rc;
}
