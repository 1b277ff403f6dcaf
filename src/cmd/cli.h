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

/* getopt entries for the H2 overhead terms (codes CLI_OV..CLI_OV+6), shared
 * by run and eval; cli_overhead_option parses one (1 handled, 0 not ours,
 * <0 error). */
enum { CLI_OV = 900 };
#define CLI_OVERHEAD_OPTIONS \
	{"overhead-step-us", required_argument, 0, CLI_OV}, \
	{"overhead-layer-us", required_argument, 0, CLI_OV + 1}, \
	{"overhead-request-us", required_argument, 0, CLI_OV + 2}, \
	{"api-ttft-ms", required_argument, 0, CLI_OV + 3}, \
	{"stream-token-us", required_argument, 0, CLI_OV + 4}, \
	{"delivery-steps", required_argument, 0, CLI_OV + 5}, \
	{"eager-op-us", required_argument, 0, CLI_OV + 6}, \
	{"api-prompt-us", required_argument, 0, CLI_OV + 7}
int cli_overhead_option(int code, const char *arg, struct overheads *ov, struct err *e);

/* Settings for results that do not record them (a bare GuideLLM results or
 * OTel spans file, a results folder without exp-config.yaml), shared by
 * eval, calibrate and import: --experiment DIR takes another experiment's,
 * --model M with --tp and the engine limits gives them (codes CLI_SET..+8;
 * eval, whose --model also names the --synthetic model, passes
 * CLI_SETTINGS_OPTIONS_NO_MODEL and sets model itself). */
enum { CLI_SET = 920 };
#define CLI_SETTINGS_OPTIONS_NO_MODEL \
	{"experiment", required_argument, 0, CLI_SET}, \
	{"tp", required_argument, 0, CLI_SET + 2}, \
	{"max-num-batched-tokens", required_argument, 0, CLI_SET + 3}, \
	{"max-num-seqs", required_argument, 0, CLI_SET + 4}, \
	{"max-model-len", required_argument, 0, CLI_SET + 5}, \
	{"total-kv-blocks", required_argument, 0, CLI_SET + 6}, \
	{"engine-version", required_argument, 0, CLI_SET + 7}, \
	{"prefix-tokens", required_argument, 0, CLI_SET + 8}
#define CLI_SETTINGS_OPTIONS CLI_SETTINGS_OPTIONS_NO_MODEL, \
	{"model", required_argument, 0, CLI_SET + 1}
#define CLI_SETTINGS_HELP \
	"  --experiment DIR  for results that record no model or engine settings (a\n" \
	"                    bare guidellm-results.json[.gz] or traces.json[.gz], or a\n" \
	"                    folder without exp-config.yaml): use DIR's settings\n" \
	"  --model M --tp N [--max-num-batched-tokens N] [--max-num-seqs N]\n" \
	"  [--max-model-len N] [--total-kv-blocks N] [--engine-version V]\n" \
	"  [--prefix-tokens N]  ... or give them (defaults 8192, 256, 4096, KV from\n" \
	"                    memory, unknown, 0); with --experiment they override DIR's\n"
int cli_settings_option(int code, const char *arg, struct exp_settings *s, struct err *e);

/* getopt entries for the parallel layout, one parser and one set of
 * defaults for run, ops, roofline and trace (codes CLI_PAR..):
 *   --tp N, --tensor-parallel-size N (vLLM), --tp-size N (SGLang)
 *   --dp N, --data-parallel-size N (vLLM), --dp-size N (SGLang)
 *   --ep N, --ep-size N / --expert-parallel-size N (SGLang)
 *   --enable-expert-parallel (vLLM): EP = TP x DP
 *   --enable-dp-attention (SGLang): --tp-size counts every GPU of the
 *     engine, attention runs TP/DP-wide on each of DP ranks
 * (--pp N, --pipeline-parallel-size N, --pp-size N: run only,
 * CLI_PP_OPTIONS) and the pass shape of ops and trace (--batch-size
 * --seq-len --context-len).  cli_shape_option parses one (1 handled, 0 not
 * ours, <0 error; sh may be NULL when only the layout options are offered);
 * par_flags_resolve applies the defaults once every flag is read. */
enum { CLI_PAR = 960 };
#define CLI_PARALLEL_OPTIONS \
	{"tp", required_argument, 0, CLI_PAR}, \
	{"dp", required_argument, 0, CLI_PAR + 1}, \
	{"ep", required_argument, 0, CLI_PAR + 2}, \
	{"tensor-parallel-size", required_argument, 0, CLI_PAR}, \
	{"tp-size", required_argument, 0, CLI_PAR}, \
	{"data-parallel-size", required_argument, 0, CLI_PAR + 1}, \
	{"dp-size", required_argument, 0, CLI_PAR + 1}, \
	{"ep-size", required_argument, 0, CLI_PAR + 2}, \
	{"expert-parallel-size", required_argument, 0, CLI_PAR + 2}, \
	{"enable-expert-parallel", no_argument, 0, CLI_PAR + 6}, \
	{"enable-dp-attention", no_argument, 0, CLI_PAR + 7}
#define CLI_PP_OPTIONS \
	{"pp", required_argument, 0, CLI_PAR + 8}, \
	{"pipeline-parallel-size", required_argument, 0, CLI_PAR + 8}, \
	{"pp-size", required_argument, 0, CLI_PAR + 8}
#define CLI_SHAPE_OPTIONS CLI_PARALLEL_OPTIONS, \
	{"batch-size", required_argument, 0, CLI_PAR + 3}, \
	{"seq-len", required_argument, 0, CLI_PAR + 4}, \
	{"context-len", required_argument, 0, CLI_PAR + 5}, \
	{"batch", required_argument, 0, CLI_PAR + 3}, \
	{"seq", required_argument, 0, CLI_PAR + 4}, \
	{"kv-len", required_argument, 0, CLI_PAR + 5}
#define CLI_PARALLEL_HELP \
	"  --tp N --dp N --ep N      tensor, data and expert parallelism (default 1 each);\n" \
	"                            vLLM's --tensor-parallel-size, --data-parallel-size,\n" \
	"                            --enable-expert-parallel (EP = TP x DP) and SGLang's\n" \
	"                            --tp-size, --dp-size, --ep-size, --enable-dp-attention\n" \
	"                            (--tp-size then counts all GPUs: attention TP = tp/dp)\n" \
	"                            are accepted.  For an MoE model DP ranks run attention\n" \
	"                            on their own batches and share the MoE layers; without\n" \
	"                            EP the experts are TP-sharded over the TP x DP GPUs\n"
int cli_shape_option(int code, const char *arg, struct pass_shape *sh, struct parallel *p,
		     struct par_flags *f, struct err *e);

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
/* The --help lines of the rows of group g (deploy_help) to f. */
void cli_help_fields(const struct deploy_table *t, enum deploy_group g, FILE *f);

/* One command's flags: its table (argtab.h) into base, then the shared
 * getopt entries and the deployment table's flags when asked; own gets
 * the table's AT_OWN codes and every other code (1 handled, 0 not ours:
 * an unknown option, <0 error; spelled: the flag as given).  --help
 * prints the table's text. */
struct cli_spec {
	const char *cmd;             /* "capacity", for messages */
	const struct argtab *tab;
	void *base;
	const struct option *shared; /* {0}-ended, or NULL */
	bool deploy;                 /* the deployment field table's flags */
	bool no_args;                /* no positional argument */
	int (*own)(void *base, int code, const char *arg, const char *spelled, struct err *e);
};
/* 1 after --help, 0 parsed (optind: the first positional argument), <0
 * error. */
int cli_parse(const struct cli_spec *s, int argc, char **argv, struct err *e);
#endif
