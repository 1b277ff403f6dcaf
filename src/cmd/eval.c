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

#include "cli.h"
#include "cmds.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "base/pfor.h"
#include "base/paths.h"
#include "eval/cv.h"
#include "eval/experiment.h"
#include "report/evalreport.h"
#include "eval/synthetic.h"
#include "hw/tier2.h"
#include "cost/ovflags.h"

#include "eval/ablation.h"

#define MAX_EXP 256

struct eval_cli {
	struct eval_opts eo;
	enum out_format fmt;
	const char *gpu, *calibration, *report, *plots, *synthetic, *model, *html;
	bool ov_flags, ablate;
	const struct experiment *base; /* settings for bare results, or NULL */
	int seeds;             /* --seeds K: K workload seeds (0: the files' own) */
	const char *where;             /* --where: rows of silicon tables */
	int jobs;                      /* --jobs: experiments simulated at once (0: the online cores) */
	bool cv;                       /* --cv: held-out refits (cv.h) grouped by cv_by */
	enum cv_by cv_by;
	struct exp_settings cs;        /* --experiment, --model ...: settings for bare results */
	struct tier2 t2;               /* --tier2 */
};

enum { O_OFF = 1, O_MODEL, O_T2, O_CV };
#define O(m) offsetof(struct eval_cli, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim eval PATH... [options]\n"
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
	       "holding one) is one closed-loop experiment per row: the 10 C measured requests\n"
	       "at concurrency C from an idle server, as its harness (aiperf, vLLM's or\n"
	       "srt-slurm's bench client) ran them after 2 C warm-up requests it waited for;\n"
	       "rows servesim cannot run are counted by reason; a per model x GPU summary\n"
	       "follows.  Folders above them are searched.  A bare results file needs\n"
	       "--experiment or --model (below).\n"
	       "\n"
	       "options:\n"),
	{AT_S("--calibration", "FILE|none", O(calibration), "tier-1 file to apply; default: the accepted file in\n"
	      "calibration/tier1/ matching the GPU and engine version\n"
	      "(closest version); none when the flags below are given")},
	{AT_O("--tier0-off", "LIST", O_OFF, "switch tier-0 corrections off (H1..H6)")},
	AT_TXT("  --overhead-step-us X --overhead-layer-us X --overhead-request-us X\n"
	       "  --api-ttft-ms X --api-prompt-us X --stream-token-us X --delivery-steps X --eager-op-us X\n"
	       "  --api-loop-ms X --jit-compile-ms X\n"
	       "                          override the engine's host terms (each engine's\n"
	       "                          own by version otherwise: docs/engines.md)\n"),
	{AT_B("--ablate", O(ablate), "switch each of H1..H6 off in turn (tier 0, no\n"
	      "calibration) and print the change of median APE")},
	{AT_S("--synthetic", "h4|h5|h6", O(synthetic), "cost-model experiments for H4, H5, H6 (--model,\n"
	      "default llama-3.1-8b; --gpu)")},
	{AT_I32V("--seeds", "K", O(seeds), 1, 64, "also run K workload seeds (each experiment's seed +\n"
	      "0..K-1; design document 002 asks for 3-5) and print the\n"
	      "spread of the median and mean APE across them (text)")},
	{AT_O("--tier2", "FILE", O_T2, "tier-2 hardware file (measured bandwidth per pattern)")},
	{AT_S("--gpu", "G", O(gpu), "GPU of runs that do not record it (default h100)")},
	{AT_S("--where", "COND[,COND...]", O(where), "rows of aiconfigurator silicon CSVs to run: COL=V or\n"
	      "COL!=V on any column, comma = and (e.g.\n"
	      "backend=trtllm,mode=agg,system=h200_sxm)")},
	{AT_O("--cv", "model|gpu|engine", O_CV, "held-out accuracy: refit each engine's fitted host terms\n"
	      "leaving each model family, GPU or engine out in turn\n"
	      "and report every group's medians predicted by the\n"
	      "others' fit beside the shipped ones (7 passes: slow)")},
	{AT_I32V("--jobs", "N", O(jobs), 1, PFOR_MAX_THREADS, "experiments simulated at once on threads, 1 to " PFOR_MAX_THREADS_TEXT "\n"
	      "(default: the online cores; the output is the same for\n"
	      "any N)")},
	{AT_W("--format", "text|json|csv", O(fmt), "(default text)")},
	{AT_S("--report", "FILE.md", O(report), "also write a markdown report (atomically)")},
	{AT_S("--html", "FILE", O(html), "the report as one self-contained HTML page (charts,\n"
	      "sortable tables; as `servesim report` makes from --format json)")},
	{AT_S("--plots", "DIR", O(plots), "with --report: SVG charts (their data and an optional\n"
	      "gnuplot script beside them) in DIR")},
	{AT_O("--model", "M", O_MODEL, NULL)},
	{AT_T(&exp_settings_tab, O(cs))},
	{AT_TQ(&ov_flags_tab, O(eo.ov)), .given = ARGTAB_GIVEN(struct eval_cli, ov_flags)},
	AT_TXT("\n"
	       "exit codes: 0 ok (every input evaluated), 1 runtime error, 2 usage error,\n"
	       "3 bad input data (the only input, or every input, failed), 4 partial: some\n"
	       "inputs could not be evaluated (each named, counted in the summary), the\n"
	       "others are reported\n"),
};
static const struct argtab table = ARGTAB(flag_rows, 26);

static int own(void *base, int c, const char *arg, const char *spelled, struct err *e)
{
	struct eval_cli *o = base;
	int rc;

	(void)spelled;
	switch (c) {
	case O_OFF: rc = cost_parse_off(arg, &o->eo.tier0_off, e); break;
	case O_MODEL: o->model = o->cs.model = arg; return 1;
	case O_CV: o->cv = true; rc = cv_by_parse(arg, &o->cv_by, e); break;
	case O_T2:
		if ((rc = tier2_load(arg, &o->t2, e)) == 0)
			o->eo.tier2 = &o->t2;
		break;
	default: return 0;
	}
	return rc < 0 ? rc : 1;
}

/* --ablate: the passes of 002's ablation (ablation.h), then the reports */
static int ablate(const struct eval_inputs *in, const struct eval_cli *c, FILE *md, struct eval_pass *status,
		  struct err *e)
{
	struct abl_run *r = xcalloc(1, sizeof(*r));
	int rc;

	if ((rc = abl_run(in, &c->eo, r, e)) == 0) {
		eval_pass_failures(status, &r->full);
		if (eval_pass_any(&r->full)) {
			out_eval_ablation(stdout, md, &r->full, r->off);
			out_eval_criteria(stdout, md, &r->full, r->off, &r->infersim, r->gqa);
		}
	}
	abl_run_release(r);
	free(r);
	return rc;
}

/* --cv: the held-out refits (cv.h), then their report */
static int cross_validate(const struct eval_inputs *in, const struct eval_cli *c, struct eval_pass *status,
			  struct err *e)
{
	struct cv_run *run = xcalloc(1, sizeof(*run));
	int rc;

	if ((rc = cv_run(in, &c->eo, c->calibration, c->cv_by, run, e)) == 0) {
		eval_pass_failures(status, &run->pass[0]);
		if (run->done && c->fmt == FMT_JSON) {
			struct eval_pass held;
			cv_run_held(run, &held);
			out_cv_json(stdout, &run->r, &held, c->eo.tier0_off);
			eval_pass_release(&held);
		} else if (run->done) {
			out_cv_text(stdout, &run->r);
		}
	}
	cv_run_release(run);
	free(run);
	return rc;
}

int cmd_eval(int argc, char **argv, struct err *e)
{
	struct eval_cli c;
	const struct cli_spec spec = {"eval", &table, &c, 0, false, own};
	struct experiment *bx = NULL;
	bool have_base = false;
	struct catalog env;
	struct eval_pass p;
	struct eval_inputs in;
	struct afile_set outf; /* --report, --html and --plots' files, all or none */
	char made[1200] = "";  /* the first folder --plots created */
	FILE *md = NULL;
	char *files[MAX_EXP];
	size_t nf = 0, i;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	memset(&p, 0, sizeof(p));
	afile_set_init(&outf);
	cost_default_overheads(&c.eo.ov);
	c.gpu = "h100";
	c.model = "llama-3.1-8b";
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc > 0 ? 0 : rc;
	if (c.synthetic) {
		struct synth_result sr;
		return synth_run_named(c.synthetic, c.model, c.gpu, stdout, &sr, e);
	}
	catalog_init(&env);
	if (optind >= argc) {
		rc = err_set(e, SS_EUSAGE, "give at least one experiment folder (see 'servesim eval --help')");
		goto out;
	}
	bx = xcalloc(1, sizeof(*bx));
	if ((rc = exp_settings_base(&c.cs, c.gpu, bx, &have_base, e)) < 0)
		goto out;
	c.base = have_base ? bx : NULL;
	for (; optind < argc; optind++)
		if ((rc = eval_collect(argv[optind], files, &nf, MAX_EXP, e)) < 0)
			goto out;
	if (nf == 0) {
		rc = err_set(e, SS_EUSAGE,
			     "no experiment under the given paths (experiment.json, inference-perf, GuideLLM or OTel folders)");
		goto out;
	}
	{
		char names[8][64];
		const char *plot_files[12];
		out_eval_plot_files(names, plot_files);
		const struct afile_out outs[3] = {{"--report", c.report, NULL}, {"--html", c.html, NULL},
						  {"--plots", c.plots, (const char *const *)plot_files}};
		if ((rc = eval_check_outputs(outs, 3, files, nf, c.calibration, e)) < 0)
			goto out;
	}
	if ((rc = afile_set_open(&outf, c.report, &md, e)) < 0)
		goto out;
	c.eo.cache = mfu_cache_new(); /* each GPU's tables parsed once for all experiments */
	in = (struct eval_inputs){&env, files, nf, c.gpu, c.base, c.where, c.jobs, c.ov_flags, 0, stderr};
	if (c.ablate) {
		rc = ablate(&in, &c, md, &p, e);
	} else if (c.cv) {
		rc = cross_validate(&in, &c, &p, e);
	} else {
		if ((rc = eval_pass_run(&in, &c.eo, c.calibration, &p, e)) < 0)
			goto out;
		if (!eval_pass_any(&p)) /* nothing to report */
			goto status;
		{
			const struct out_eval_page x = {&p, c.eo.tier0_off};
			const struct afile_job page = {c.html, out_eval_html, &x};
			if ((rc = afile_set_write(&outf, &page, e)) < 0)
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
			if (c.plots && (rc = out_eval_plots(&p, c.plots, md, &outf, made, sizeof(made), e)) < 0)
				goto out;
		}
		if (c.seeds > 1 && c.fmt == FMT_TEXT) {
			double med[64][EM__COUNT], mean[64][EM__COUNT];
			if ((rc = eval_seed_spread(&in, &c.eo, c.calibration, c.seeds, med, mean, e)) < 0)
				goto out;
			out_eval_seed_spread(stdout, md, c.seeds, (const double (*)[EM__COUNT])med,
					     (const double (*)[EM__COUNT])mean);
		}
	}
	if (rc == 0)
		rc = afile_set_commit(&outf, e);
status:
	if (rc == 0)
		rc = eval_pass_status(&p, stderr, e);
out:
	afile_set_abort(&outf); /* (nothing left after a commit) */
	if (rc < 0 && made[0]) /* nor a plots folder it made */
		paths_rmdir_made(c.plots, made);
	for (i = 0; i < nf; i++)
		free(files[i]);
	free(p.rows);
	free(bx);
	mfu_cache_free(c.eo.cache);
	catalog_release(&env);
	return rc;
}
