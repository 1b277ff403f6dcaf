/* import.c - `servesim import PATH -o DIR`: any supported ground-truth
 * folder (inference-perf results, GuideLLM results, vLLM OTel spans) into
 * servesim's experiment format: experiment.json and, for per-request data,
 * requests.csv.  Figures only: no prompt or output text is kept. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "eval/table.h"
#include "cmds.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "eval/experiment.h"

struct import_opts {
	struct exp_settings cs;
	const char *out, *gpu, *name, *source, *wname, *where;
};

#define O(m) offsetof(struct import_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim import PATH -o DIR [--gpu G] [--name NAME] [--source TEXT]\n"
	       "                       [--workload-name LABEL] [--where COND,...]\n"
	       "                       [--experiment DIR | --model M ...]\n"
	       "\n"
	       "Converts a ground-truth folder (inference-perf results, GuideLLM results with\n"
	       "exp-config.yaml / engine-facts.json, vLLM OpenTelemetry spans, vLLM engine\n"
	       "request stats, vllm-vcr traces) into servesim's experiment format in DIR\n"
	       "(experiment.json, requests.csv), which `servesim eval` reads.  A file holding\n"
	       "many experiments (aiconfigurator silicon CSV: one per row, --where picks rows;\n"
	       "vLLM bench serve / SGLang bench_serving results: one per run) becomes one\n"
	       "folder per experiment under DIR; rows it cannot express are counted.  --gpu names the GPU when the folder does not say\n"
	       "(default h100); --source records where the data came from (default: PATH);\n"
	       "--workload-name labels the data set (\"codegen\") for eval's per-workload\n"
	       "summary (default: a description of the lengths).\n"
	       "\n"),
	{AT_T(&exp_settings_tab, O(cs))},
	AT_TXT("Files are written atomically.\n"
	       "\n"
	       "exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n"),
	{AT_S("-o", "DIR", O(out), NULL)},
	{AT_A("--output")},
	{AT_S("--gpu", "G", O(gpu), NULL)},
	{AT_S("--name", "NAME", O(name), NULL)},
	{AT_S("--source", "TEXT", O(source), NULL)},
	{AT_S("--workload-name", "LABEL", O(wname), NULL)},
	{AT_S("--where", "COND", O(where), NULL)},
};
static const struct argtab table = ARGTAB(flag_rows, 0);

/* One folder per experiment of a table (exp_table_import), then what was
 * imported and what was skipped, by reason. */
static int import_table(const char *path, const char *where, const char *gpu,
			const struct experiment *base, const char *out, struct err *e)
{
	struct skip_tally *sk = xcalloc(1, sizeof(*sk));
	const char *title = NULL;
	size_t done, total, i;
	int rc = exp_table_import(path, where, gpu, base, out, sk, &done, &total, &title, e);

	if (rc == 0) {
		printf("imported %zu of %zu %s rows into %s (%s)\n", done, total, title, out, where ? where : "all rows");
		for (i = 0; i < sk->n; i++)
			printf("  skipped %5zu  %s\n", sk->count[i], sk->reason[i]);
	}
	free(sk);
	return rc;
}

int cmd_import(int argc, char **argv, struct err *e)
{
	struct import_opts o = {.gpu = "h100"};
	const struct cli_spec spec = {"import", &table, &o, 0, false, NULL};
	struct experiment *bx;
	bool have_base;
	char tf[1200];
	struct experiment x;
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc > 0 ? 0 : rc;
	if (optind != argc - 1)
		return err_set(e, SS_EUSAGE, "give exactly one PATH (see 'servesim import --help')");
	if (!o.out)
		return err_set(e, SS_EUSAGE, "-o DIR is required");
	{
		static const char *const written[] = {"experiment.json", "requests.csv", NULL};
		const char *in[2] = {argv[optind], o.cs.experiment};
		const struct afile_out outs[1] = {{"-o", o.out, written}};
		if ((rc = afile_check_outputs(outs, 1, in, 2, 0, e)) < 0)
			return rc;
	}
	bx = xcalloc(1, sizeof(*bx));
	rc = exp_settings_base(&o.cs, o.gpu, bx, &have_base, e);
	if (rc == 0 && exp_table_detect(argv[optind], tf, sizeof(tf))) {
		rc = import_table(argv[optind], o.where, o.gpu, have_base ? bx : NULL, o.out, e);
		free(bx);
		return rc;
	}
	if (rc == 0 && o.where)
		rc = err_set(e, SS_EUSAGE, "--where picks rows of aiconfigurator silicon CSVs; %s is not one",
			     argv[optind]);
	if (rc == 0)
		rc = experiment_load_with(argv[optind], o.gpu, have_base ? bx : NULL, &x, e);
	free(bx);
	if (rc < 0)
		return rc;
	if (x.warning[0])
		fprintf(stderr, "servesim import: warning: %s\n", x.warning);
	if (o.name)
		snprintf(x.name, sizeof(x.name), "%s", o.name);
	if (o.source)
		snprintf(x.source, sizeof(x.source), "%s", o.source);
	if (o.wname) {
		if (strlen(o.wname) >= sizeof(x.workload_name)) {
			experiment_release(&x);
			return err_set(e, SS_EUSAGE, "--workload-name is longer than %zu characters",
				       sizeof(x.workload_name) - 1);
		}
		snprintf(x.workload_name, sizeof(x.workload_name), "%s", o.wname);
	}
	rc = experiment_write(&x, o.out, e);
	if (rc == 0)
		printf("imported %s (%s, %s) into %s: %zu %s\n", x.name, x.format, x.model, o.out,
		       x.kind == EXP_REQUESTS ? x.meas.n : x.nstages,
		       x.kind == EXP_REQUESTS ? "requests" : "stages");
	experiment_release(&x);
	return rc;
}
