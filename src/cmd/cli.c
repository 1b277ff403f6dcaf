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

int cli_bad_option(const char *cmd, const char *arg, struct err *e)
{
	return err_set(e, SS_EUSAGE, "unknown option or missing value: '%s' (see 'servesim %s --help')",
		       arg ? arg : "?", cmd);
}

int cli_parse(const struct cli_spec *s, int argc, char **argv, struct err *e)
{
	static const struct option help[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct option lo[CLI_MAX_OPTIONS];
	char shorts[32] = "h";
	size_t n = 0;
	int c, code, rc, idx;

	argtab_options(s->tab, lo, &n, CLI_MAX_OPTIONS, shorts, sizeof(shorts));
	assert(n + 1 < CLI_MAX_OPTIONS);
	lo[n++] = help[0];
	lo[n] = help[1];
	if (s->knobs)
		deploy_options(&deploy_table, lo, &n, CLI_MAX_OPTIONS);
	optind = 1;
	opterr = 0;
	while ((idx = -1, c = getopt_long(argc, argv, shorts, lo, &idx)) != -1) {
		if (idx >= 0 && c != '?' && c != ':' && (rc = argtab_whole_name(&lo[idx], argv, optind, optarg, e)) < 0)
			return rc;
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
			rc = deploy_option(&deploy_table, code, optarg, (char *)s->base + s->knobs - 1, e);
		if (rc == 0)
			return cli_bad_option(s->cmd, argv[optind - 1], e);
		if (rc < 0)
			return rc;
	}
	if (s->no_args && optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	return 0;
}
