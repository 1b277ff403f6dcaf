/* models.c - `servesim models` and `servesim gpus`: what data/ knows. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "report/listreport.h"

static const struct argtab_row models_rows[] = {
	AT_TXT("usage: servesim models [--format text|json]\n"
	       "\n"
	       "Lists the models in data/models/index.json: id, HF name, aliases, family,\n"
	       "layers, parameters (total / active per token), and whether servesim supports\n"
	       "the architecture.  Any config.json can also be used with --config PATH.\n"),
	{AT_W("--format", "text|json", 0, NULL)},
};
static const struct argtab_row gpus_rows[] = {
	AT_TXT("usage: servesim gpus [--format text|json]\n"
	       "\n"
	       "Lists the GPUs in data/gpus.json: id, aliases, dense peak TFLOP/s per dtype,\n"
	       "HBM capacity (GB) and bandwidth (TB/s), default bandwidth efficiency,\n"
	       "interconnect GB/s, SM count, board power and idle power (W; - where no\n"
	       "figure is published: such GPUs report no energy, docs/energy.md) and the\n"
	       "measured kernel tables that price it: the data/mfu/ folder (a lender's, named\n"
	       "after it, where the GPU borrows another's; + the GPU's own measurements), -\n"
	       "where none (defaults); JSON lists each folder's collections (docs/hardware.md).\n"
	       "Sources: data/PROVENANCE.md.\n"),
	{AT_W("--format", "text|json", 0, NULL)},
};
static const struct argtab models_table = ARGTAB(models_rows, 0), gpus_table = ARGTAB(gpus_rows, 0);

static int parse_list(int argc, char **argv, const char *cmd, const struct argtab *t, enum out_format *fmt,
		      struct err *e)
{
	const struct cli_spec spec = {cmd, t, fmt, 0, false, NULL};
	int rc;

	*fmt = FMT_TEXT;
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "%s: unexpected argument '%s'", cmd, argv[optind]);
	return 0;
}

int list_models(bool json, struct err *e)
{
	struct catalog env;
	struct catalog_model_row *rows = NULL;
	size_t n;
	int rc;

	catalog_init(&env);
	if ((rc = catalog_model_rows(&env, &rows, &n, e)) == 0) {
		if (json)
			out_models_json(stdout, rows, n);
		else
			out_models_text(stdout, rows, n);
	}
	free(rows);
	catalog_release(&env);
	return rc;
}

int list_gpus(bool json, struct err *e)
{
	struct catalog env;
	int rc;

	catalog_init(&env);
	if ((rc = catalog_load_gpus(&env, e)) == 0) {
		if (json)
			out_gpus_json(stdout, &env.gpus, env.data_dir);
		else
			out_gpus_text(stdout, &env.gpus);
	}
	catalog_release(&env);
	return rc;
}

int cmd_models(int argc, char **argv, struct err *e)
{
	enum out_format fmt;
	int rc = parse_list(argc, argv, "models", &models_table, &fmt, e);

	return rc != 0 ? (rc > 0 ? 0 : rc) : list_models(fmt == FMT_JSON, e);
}

int cmd_gpus(int argc, char **argv, struct err *e)
{
	enum out_format fmt;
	int rc = parse_list(argc, argv, "gpus", &gpus_table, &fmt, e);

	return rc != 0 ? (rc > 0 ? 0 : rc) : list_gpus(fmt == FMT_JSON, e);
}
