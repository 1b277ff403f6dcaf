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


/* Report an unknown option or a missing value (getopt's optopt/argv). */
int cli_bad_option(const char *cmd, const char *arg, struct err *e);

enum { CLI_MAX_OPTIONS = 320 };

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
