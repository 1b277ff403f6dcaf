/* report.c - `servesim report RESULT`: the HTML page of a saved result
 * (html.h), the same page --html writes. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cmds.h"
#include "base/afile.h"
#include "base/gzread.h"
#include "report/html.h"

static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim report RESULT [-o FILE.html]\n"
	       "\n"
	       "One self-contained HTML page of a saved result: RESULT is what `run`, `search`,\n"
	       "`capacity` or `eval` wrote with --format json, or the rows of `sweep` (JSONL or CSV);\n"
	       "plain or gzipped.  The page is the one --html FILE writes on search, capacity,\n"
	       "sweep and eval: the result, inline SVG charts (the Pareto front, the capacity\n"
	       "probes, each sweep metric against the swept axis, predicted against measured and\n"
	       "the error by model and GPU, an autoscaling run's replicas and TTFT over time), and\n"
	       "tables that sort on a header click and filter on the words typed above them, each\n"
	       "row's whole configuration shown on a click.  No external file, font or script.\n"
	       "\n"
	       "  -o, --out FILE   write the page there, atomically (default standard output)\n"
	       "\n"
	       "exit codes: 0 ok, 1 runtime error, 2 usage error, 3 RESULT is not a servesim result\n"),
	{AT_S("-o", "FILE", 0, NULL)},
	{AT_A("--out")},
};
static const struct argtab table = ARGTAB(flag_rows, 0);

int cmd_report(int argc, char **argv, struct err *e)
{
	const char *out = NULL, *in;
	const struct cli_spec spec = {"report", &table, &out, 0, false, NULL};
	struct json *res = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc > 0 ? 0 : rc;
	if (optind + 1 != argc)
		return err_set(e, SS_EUSAGE, "report: give one result file (see 'servesim report --help')");
	in = argv[optind];
	if (out && (rc = afile_check(out, &in, 1, e)) < 0)
		return rc;
	if ((rc = gzr_read_file(in, (size_t)1 << 30, &buf, &len, e)) < 0)
		return rc;
	if ((rc = html_result_parse(buf, len, in, &res, e)) == 0) {
		if (out)
			rc = html_write(out, res, in, e);
		else
			rc = html_page(stdout, res, in, e);
	}
	json_free(res);
	free(buf);
	return rc;
}
