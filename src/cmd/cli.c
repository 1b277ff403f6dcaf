/* cli.c - flag parsing and shared registries for the subcommands. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "cli.h"
#include "base/argval.h"
#include "engine/registry.h"
#include "eval/experiment.h"

int cli_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out,
	    struct err *e)
{
	return argval_int(flag, arg, lo, hi, out, e);
}

int cli_double(const char *flag, const char *arg, double lo, bool lo_open, double *out,
	       struct err *e)
{
	return argval_num(flag, arg, lo, lo_open, out, e);
}

int cli_format(const char *arg, bool allow_csv, enum out_format *out, struct err *e)
{
	if (strcmp(arg, "text") == 0)
		*out = FMT_TEXT;
	else if (strcmp(arg, "json") == 0)
		*out = FMT_JSON;
	else if (allow_csv && strcmp(arg, "csv") == 0)
		*out = FMT_CSV;
	else
		return err_set(e, SS_EUSAGE, "--format must be %s, got '%s'",
			       allow_csv ? "text, json or csv" : "text or json", arg);
	return 0;
}

double cli_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_bad_option(const char *cmd, const char *arg, struct err *e)
{
	return err_set(e, SS_EUSAGE, "unknown option or missing value: '%s' (see 'servesim %s --help')",
		       arg ? arg : "?", cmd);
}

void cli_options(const struct option *own, const struct deploy_table *t, struct option *out, size_t cap)
{
	size_t n = 0, i, k;

	for (; own[n].name; n++) {
		assert(n + 1 < cap);
		out[n] = own[n];
	}
	for (i = 0; i < t->n; i++)
		for (k = 0; k < DEPLOY_SPELLINGS && t->row[i].flag[k]; k++) {
			assert(n + 1 < cap);
			out[n++] = (struct option){t->row[i].flag[k] + 2,
						   t->row[i].type == DEPLOY_OFF || t->row[i].type == DEPLOY_ON ? no_argument
												     : required_argument, 0,
						   CLI_DEPLOY + (int)(i * DEPLOY_SPELLINGS + k)};
		}
	out[n] = (struct option){0, 0, 0, 0};
}

int cli_deploy_row(const struct deploy_table *t, int code)
{
	if (code < CLI_DEPLOY || code >= CLI_DEPLOY + (int)(t->n * DEPLOY_SPELLINGS))
		return -1;
	return (code - CLI_DEPLOY) / DEPLOY_SPELLINGS;
}

const char *cli_deploy_flag(const struct deploy_table *t, int code)
{
	int row = cli_deploy_row(t, code);

	return row < 0 ? NULL : t->row[row].flag[(code - CLI_DEPLOY) % DEPLOY_SPELLINGS];
}

int cli_deploy_option(const struct deploy_table *t, int code, const char *arg, void *base, struct err *e)
{
	int row = cli_deploy_row(t, code), rc;

	if (row < 0)
		return 0;
	rc = deploy_parse(t, (size_t)row, cli_deploy_flag(t, code), arg, base, e);
	return rc < 0 ? rc : 1;
}

int cli_parse(const struct cli_spec *s, int argc, char **argv, struct err *e)
{
	static const struct option help[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct option lo[CLI_MAX_OPTIONS];
	char shorts[32] = "h";
	size_t n = 0;
	int c, code, rc;

	argtab_options(s->tab, lo, &n, CLI_MAX_OPTIONS, shorts, sizeof(shorts));
	assert(n + 1 < CLI_MAX_OPTIONS);
	lo[n++] = help[0];
	lo[n] = help[1];
	if (s->knobs) {
		struct option all[CLI_MAX_OPTIONS];
		cli_options(lo, &deploy_table, all, CLI_MAX_OPTIONS);
		memcpy(lo, all, sizeof(lo));
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 'h') {
			argtab_help(s->tab, stdout);
			return 1;
		}
		if (c == '?' || c == ':')
			return cli_bad_option(s->cmd, argv[optind - 1], e);
		code = c;
		if ((rc = argtab_parse(s->tab, c, optarg, s->base, &code, e)) < 0)
			return rc;
		if (rc == 1)
			continue;
		rc = s->own ? s->own(s->base, code, optarg, argv[optind - 1], e) : 0;
		if (rc == 0 && s->knobs)
			rc = cli_deploy_option(&deploy_table, code, optarg, (char *)s->base + s->knobs - 1, e);
		if (rc == 0)
			return cli_bad_option(s->cmd, argv[optind - 1], e);
		if (rc < 0)
			return rc;
	}
	if (s->no_args && optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	return 0;
}
