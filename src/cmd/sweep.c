/* sweep.c - `servesim sweep`: a grid of run configurations (list and range
 * flags) simulated on threads and MPI ranks, one long-format row per point. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report/html.h"
#include "cmds.h"
#include "report/progress.h"
#include "engine/scenopts.h"
#include "engine/registry.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "plan/grid.h"
#include "plan/parmap.h"
#include "plan/sweep.h"
#include "report/sweepreport.h"
#include "workload/workload.h"

struct sweep_opts {
	struct sweep_plan p;       /* settings, grid and row format */
	const char *workload, *out, *svg, *html;
	int64_t nreq, jobs;
};

enum { O_RATE = 1, O_SEED, O_FMT, O_CONC, O_GPU, O_DTYPE, O_ENGINE };
#define O(m) offsetof(struct sweep_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim sweep [list flags] [run flags] [--jobs N] [--format csv|jsonl] [--out FILE]\n"
	       "                      [--svg FILE] [--html FILE]\n"
	       "\n"
	       "Simulate every point of a grid and write one row per point: every configuration\n"
	       "field and every result a column (long format).  Rows come in grid order (the last\n"
	       "list flag below varies fastest) and are the same bytes for any --jobs and any\n"
	       "number of MPI ranks (mpirun -np K build-mpi/servesim sweep ...).\n"
	       "\n"
	       "list flags (each a comma list of values or START:STOP:STEP ranges, inclusive):\n"
	       "  --gpu LIST --engine LIST --dtype LIST --tp LIST --pp LIST --dp LIST --ep LIST\n"
	       "  every engine flag below that takes a value (--max-num-seqs LIST\n"
	       "  --max-num-batched-tokens LIST --max-model-len LIST --block-size LIST ...)\n"
	       "  --rate LIST --concurrency LIST --seed LIST\n"
	       "  e.g. --tp 1,2,4 --max-num-seqs 64,256,1024 --rate 10:40:2\n"
	       "workload:\n"),
	{AT_O("--rate", "LIST", O_RATE, NULL)},
	{AT_O("--seed", "LIST", O_SEED, NULL)},
	{AT_O("--concurrency", "LIST", O_CONC, NULL)},
	{AT_S("--workload", "FILE", O(workload), "spec (default workloads/default.json, chat); --rate and\n"
	      "--seed replace its rate and seed, --concurrency makes it\n"
	      "a closed loop of that many clients")},
	{AT_I("--num-requests", "N", O(nreq), 1, INT64_MAX, "replace its request count")},
	AT_TXT("parallel:\n"),
	{AT_I("--jobs", "N", O(jobs), 1, PARMAP_MAX_JOBS, "threads, 1 to " PFOR_MAX_THREADS_TEXT " (default 1); under mpirun, threads per\n"
	      "rank")},
	AT_TXT("output:\n"),
	{AT_O("--format", "csv|jsonl", O_FMT, "(default csv)")},
	{AT_S("--out", "FILE", O(out), "write there (default standard output)")},
	{AT_S("--svg", "FILE", O(svg), "charts of TTFT p90, ITL mean, E2E p90, queueing, output\n"
	      "tokens/s and served req/s against the last numeric list\n"
	      "flag with two or more values, one line per combination\n"
	      "of the other list flags")},
	{AT_S("--html", "FILE", O(html), "one self-contained page: those charts and every point in\n"
	      "a sortable, filterable table (as `servesim report` makes\n"
	      "from the JSONL rows)")},
	AT_TXT("\n"
	       "A point whose configuration servesim refuses (memory plan, start-up checks) is a\n"
	       "row with status 'refused: REASON'; an overloaded run (as `run` judges it) is\n"
	       "'overloaded (offered X req/s, served Y req/s, queue grew Z s)'; none completed:\n"
	       "'no completions' (its latency columns are empty / null).  A progress bar goes to\n"
	       "a terminal's stderr.\n"
	       "\n"),
	/* list flags of the shared table's spellings */
	{AT_O("--gpu", "LIST", O_GPU, NULL)}, {AT_O("--dtype", "LIST", O_DTYPE, NULL)},
	{AT_O("--engine", "LIST", O_ENGINE, NULL)},
	{AT_TQ(&par_flags_list_tab, 0)},
	{AT_T(&scenflags_tab, O(p.sf))},
};
static const struct argtab table = ARGTAB(flag_rows, 28);

static int own(void *base, int c, const char *arg, const char *spelled, struct err *e)
{
	struct sweep_opts *o = base;
	struct grid *g = &o->p.g;
	int rc, row;

	(void)spelled;
	switch (c) {
	case O_RATE: rc = grid_add_numbers(g, "rate", "--rate", arg, false, 1e-9, 1e9, e); break;
	case O_SEED: rc = grid_add_numbers(g, "seed", "--seed", arg, true, 0, 9007199254740992.0, e); break;
	case O_CONC: rc = grid_add_numbers(g, "concurrency", "--concurrency", arg, true, 1, 1 << 20, e); break;
	case O_FMT: rc = sweep_fmt_parse(arg, &o->p.fmt, e); break;
	case O_GPU: rc = grid_add_words(g, "gpu", "--gpu", arg, e); break;
	case O_DTYPE: rc = grid_add_words(g, "dtype", "--dtype", arg, e); break;
	case O_ENGINE: rc = grid_add_words(g, "engine", "--engine", arg, e); break;
	case PAR_LIST_TP: rc = grid_add_numbers(g, "tp", "--tp", arg, true, 1, 4096, e); break;
	case PAR_LIST_DP: rc = grid_add_numbers(g, "dp", "--dp", arg, true, 1, 4096, e); break;
	case PAR_LIST_EP:
		rc = grid_add_numbers(g, "ep", "--ep", arg, true, 1, 4096, e);
		o->p.sf.pf.ep_given = true;
		break;
	case PAR_LIST_PP: rc = grid_add_numbers(g, "pp", "--pp", arg, true, 1, 4096, e); break;
	default:
		if ((row = deploy_option_row(&deploy_table, c)) < 0 || !deploy_table.row[row].axis)
			return 0; /* (the table's flags into the knobs) */
		rc = sweep_axis_add(g, &deploy_table, (size_t)row, deploy_option_flag(&deploy_table, c), arg, e);
	}
	return rc < 0 ? rc : 1;
}

static int parse_sweep(int argc, char **argv, struct sweep_opts *o, struct err *e)
{
	const struct cli_spec spec = {"sweep", &table, o, ARGTAB_GIVEN(struct sweep_opts, p.sf.k), true, own};
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	return sweep_plan_axes_check(&o->p, e);
}

int cmd_sweep(int argc, char **argv, struct err *e)
{
	struct sweep_opts o;
	struct ranks rk;
	struct wl_spec wl;
	struct catalog cat;
	struct sbuf *rows = NULL;
	struct progress_bar pg;
	size_t n = 0, i;
	bool joined = false;
	int rc;

	memset(&o, 0, sizeof(o));
	scenflags_defaults(&o.p.sf);
	grid_init(&o.p.g);
	o.jobs = 1;
	wl_spec_defaults(&wl);
	if ((rc = ranks_init(&rk, &argc, &argv, e)) < 0)
		goto out;
	joined = true;
	if ((rc = parse_sweep(argc, argv, &o, e)) != 0) {
		rc = rc > 0 ? 0 : rc;
		goto out;
	}
	if ((rc = sweep_plan_size(&o.p, &n, e)) < 0)
		goto out;
	{
		const char *in[2] = {o.workload, o.p.sf.config};
		const struct afile_out outs[3] = {{"--out", o.out, NULL}, {"--svg", o.svg, NULL},
						  {"--html", o.html, NULL}};
		if ((rc = afile_check_outputs(outs, 3, in, 2, 0, e)) < 0)
			goto out;
		if (o.svg && !grid_numeric_varies(&o.p.g)) {
			rc = err_set(e, SS_EUSAGE,
				     "--svg charts each metric against a swept numeric axis: give one with two or more values (--rate 5:30:5, --tp 1,2,4, --max-num-seqs ...)");
			goto out;
		}
	}
	catalog_init(&cat);
	rc = catalog_load_workload(&cat, o.workload, &wl, e);
	catalog_release(&cat);
	if (rc < 0)
		goto out;
	if (o.nreq)
		wl.num_requests = o.nreq;
	o.p.wl = &wl;
	o.p.row = sweep_point_row; /* (report/sweepreport.c) */
	if ((rc = sweep_plan_check(&o.p, e)) < 0)
		goto out;
	rows = xcalloc(n, sizeof(*rows));
	for (i = 0; i < n; i++)
		sb_init(&rows[i]);
	progress_init(&pg, "sweep", "points", rk.rank == 0);
	rc = sweep_plan_run(&o.p, &rk, (int)o.jobs, n, progress_update, &pg, rows, e);
	progress_done(&pg);
	if (rc < 0 || rk.rank != 0)
		goto out;
	rc = html_sweep_outputs(rows, n, o.p.fmt, o.out, o.svg, o.html, o.p.sf.model ? o.p.sf.model : o.p.sf.config,
				e);
out:
	if (rows)
		for (i = 0; i < n; i++)
			sb_release(&rows[i]);
	free(rows);
	wl_spec_release(&wl);
	grid_release(&o.p.g);
	if (joined) {
		/* only rank 0 reports; the others end quietly */
		if (rk.rank != 0)
			rc = 0;
		ranks_finalize(&rk);
	}
	return rc;
}
