/* cli.h - helpers shared by the subcommands: flag value parsing with
 * messages naming the flag, number formatting, and loading of the shipped
 * registries (models, GPUs). */
#ifndef SERVESIM_CMD_CLI_H
#define SERVESIM_CMD_CLI_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <getopt.h>

#include "cost/cost.h"
#include "deploy/catalog.h"
#include "base/err.h"
#include "base/json.h"
#include "eval/experiment.h"
#include "eval/pass.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "model/opgraph.h"
#include "engine/scenflags.h"
#include "deploy/fields.h"
#include "base/argtab.h"

enum out_format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_VLLM_BENCH };

/* "--flag" values: integer >= lo, positive double, format names. */
int cli_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out,
	    struct err *e);
int cli_double(const char *flag, const char *arg, double lo, bool lo_open, double *out,
	       struct err *e);
int cli_format(const char *arg, bool allow_csv, enum out_format *out, struct err *e);

/* Seconds on the monotonic clock, for the wall times commands report on
 * stderr (never in results). */
double cli_wall_s(void);
/* Report an unknown option or a missing value (getopt's optopt/argv). */
int cli_bad_option(const char *cmd, const char *arg, struct err *e);

/* The deployment field table's flags (deploy/fields.h) as getopt entries:
 * code CLI_DEPLOY + row x DEPLOY_SPELLINGS + spelling.  cli_options
 * copies own (ending in {0}) into out (cap entries) and appends one entry
 * per spelling of every row of t, {0}-ended; cli_deploy_row gives a code's
 * row (-1: not a table flag) and cli_deploy_option parses one into base
 * (1 handled, 0 not a table flag, <0 error naming the flag as spelled). */
enum { CLI_DEPLOY = 2000, CLI_MAX_OPTIONS = 320 };
void cli_options(const struct option *own, const struct deploy_table *t, struct option *out, size_t cap);
int cli_deploy_row(const struct deploy_table *t, int code);
const char *cli_deploy_flag(const struct deploy_table *t, int code);
int cli_deploy_option(const struct deploy_table *t, int code, const char *arg, void *base, struct err *e);

/* One command's flags: its table (argtab.h, the shared option sets it
 * includes among its rows) into base, then the deployment table's flags
 * when asked; own gets the table's AT_OWN codes and the deployment
 * table's first (1 handled, 0 not ours: an unknown option, <0 error; spelled:
 * the flag as given).  --help prints the table's text. */
struct cli_spec {
	const char *cmd;             /* "capacity", for messages */
	const struct argtab *tab;
	void *base;
	size_t knobs;                /* ARGTAB_GIVEN(type, m): the deployment field
				      * table's flags, into the struct deploy_knobs m
				      * when own leaves them (0: none) */
	bool no_args;                /* no positional argument */
	int (*own)(void *base, int code, const char *arg, const char *spelled, struct err *e);
};
/* 1 after --help, 0 parsed (optind: the first positional argument), <0
 * error. */
int cli_parse(const struct cli_spec *s, int argc, char **argv, struct err *e);
#endif
