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
#include "base/pfor.h"
#include "calib/study.h"
#include "report/calibreport.h"

struct cal_opts {
	struct exp_settings cs;
	const char *out, *gpu, *check;
	bool in_loop, force;
	int64_t seed, jobs;
};

#define O(m) offsetof(struct cal_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim calibrate PATH... [-o FILE] [--in-loop] [--seed S] [--gpu G]\n"
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
	       "\n"),
	{AT_S("-o", "FILE", O(out), "write the calibration file (atomically), e.g.\n"
	      "calibration/tier1/h100-codellama-34b.json")},
	{AT_A("--output")},
	{AT_B("--in-loop", O(in_loop), "also fit the four terms by non-linear least squares with the\n"
	      "simulator in the loop (queueing makes latency non-linear in\n"
	      "step time); both fits are reported and stored in the file\n"
	      "(\"candidates\") with their verdicts; the file applies the\n"
	      "accepted one that does better once applied, else the in-loop one")},
	{AT_B("--force", O(force), "apply the chosen fit even when it is rejected (the file says\n"
	      "\"forced\": true)")},
	{AT_I("--seed", "S", O(seed), 0, INT64_MAX, "split seed (default 42)")},
	{AT_S("--gpu", "G", O(gpu), "GPU of runs that do not record it (default h100)")},
	{AT_S("--check", "FILE", O(check), "MAPE of FILE's terms on the PATHs; stale above 30 %")},
	{AT_I("--jobs", "N", O(jobs), 1, PFOR_MAX_THREADS, "simulations run at once on threads, 1 to " PFOR_MAX_THREADS_TEXT "\n"
	      "(default: the online cores); the results are the same\n"
	      "bytes for any N")},
	{AT_T(&exp_settings_tab, O(cs))},
	AT_TXT("\n"
	       "exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n"),
};
static const struct argtab table = ARGTAB(flag_rows, 17);

int cmd_calibrate(int argc, char **argv, struct err *e)
{
	struct cal_opts o = {.gpu = "h100", .seed = 42,
			     .jobs = pfor_default_threads()};
	const struct cli_spec spec = {"calibrate", &table, &o, 0, false, NULL};
	struct experiment *bx = NULL;
	bool have_base = false, studied = false;
	struct catalog env;
	struct calib_runs l;
	struct calib_study s;
	char *paths[256];
	size_t npaths = 0, pi;
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc > 0 ? 0 : rc;
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
		const struct afile_out outs[1] = {{"-o", o.out, NULL}};
		if ((rc = afile_check_outputs(outs, 1, (const char *const *)paths, npaths, AFILE_CALIBRATION,
					      e)) < 0)
			goto out;
	}
	bx = xcalloc(1, sizeof(*bx));
	if ((rc = exp_settings_base(&o.cs, o.gpu, bx, &have_base, e)) < 0 ||
	    (rc = calib_runs_load(&env, paths, npaths, o.gpu, have_base ? bx : NULL, stderr, &l, e)) < 0 ||
	    (!o.check && (rc = calib_runs_one_deployment(&l, e)) < 0))
		goto out;
	calib_study_init(&s, &l, env.data_dir, (int)o.jobs);
	studied = true;
	if (o.check) {
		struct calib_check ck;
		if ((rc = calib_check_file(&s, &l, o.check, stderr, &ck, e)) == 0)
			out_calib_check(stdout, o.check, &ck, l.n);
		goto out;
	}
	if ((rc = calib_study_linear(&s, (uint64_t)o.seed, e)) < 0)
		goto out;
	out_calib_linear(stdout, &s, l.n, (uint64_t)o.seed);
	if (o.in_loop) {
		if ((rc = calib_study_in_loop(&s, e)) < 0)
			goto out;
		out_calib_in_loop(stdout, &s);
	}
	calib_study_choose(&s, o.in_loop, o.force);
	out_calib_choice(stdout, &s);
	if (o.out) {
		struct tier1_result cand[2] = {s.r, s.rl};
		if ((rc = calib_write(o.out, &s.chosen, cand, o.in_loop ? 2 : 1, s.forced, &s.cc, l.names, l.n, e)) < 0)
			goto out;
		printf("wrote %s\n", o.out);
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
