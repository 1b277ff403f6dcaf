/* cli.h - helpers shared by the subcommands: flag value parsing with
 * messages naming the flag, number formatting, and loading of the shipped
 * registries (models, GPUs). */
#ifndef SERVESIM_CMD_CLI_H
#define SERVESIM_CMD_CLI_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <getopt.h>

#include "servesim/cost.h"
#include "servesim/err.h"
#include "servesim/gpu.h"
#include "servesim/model.h"

enum out_format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct cli_env {
	char data_dir[1024];
	struct model_registry reg;
	struct gpu_db gpus;
	bool reg_loaded, gpus_loaded;
};

void cli_env_init(struct cli_env *env);
void cli_env_release(struct cli_env *env);
/* Model from --config PATH when given, else by registry name. */
int cli_load_model(struct cli_env *env, const char *name, const char *config_path,
		   struct model_cfg *m, struct err *e);
int cli_find_gpu(struct cli_env *env, const char *name, const struct gpu_spec **g,
		 struct err *e);
int cli_load_registry(struct cli_env *env, struct err *e);
int cli_load_gpus(struct cli_env *env, struct err *e);

/* "--flag" values: integer >= lo, positive double, format names. */
int cli_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out,
	    struct err *e);
int cli_double(const char *flag, const char *arg, double lo, bool lo_open, double *out,
	       struct err *e);
int cli_format(const char *arg, bool allow_csv, enum out_format *out, struct err *e);
/* Report an unknown option or a missing value (getopt's optopt/argv). */
int cli_bad_option(const char *cmd, const char *arg, struct err *e);

/* getopt entries for the H2 overhead terms (codes CLI_OV..CLI_OV+5), shared
 * by run and eval; cli_overhead_option parses one (1 handled, 0 not ours,
 * <0 error). */
enum { CLI_OV = 900 };
#define CLI_OVERHEAD_OPTIONS \
	{"overhead-step-us", required_argument, 0, CLI_OV}, \
	{"overhead-layer-us", required_argument, 0, CLI_OV + 1}, \
	{"overhead-request-us", required_argument, 0, CLI_OV + 2}, \
	{"api-ttft-ms", required_argument, 0, CLI_OV + 3}, \
	{"stream-token-us", required_argument, 0, CLI_OV + 4}, \
	{"delivery-steps", required_argument, 0, CLI_OV + 5}
int cli_overhead_option(int code, const char *arg, struct overheads *ov, struct err *e);

/* Experiments (folders `servesim eval` reads) at or under path, sorted,
 * appended to out (heap strings) up to max. */
int cli_collect_experiments(const char *path, char **out, size_t *n, size_t max, struct err *e);

/* Human formatting with SI prefixes: "12.3 G" + unit. */
void fmt_si(char *buf, size_t n, double v, const char *unit);
/* "6.74 B" style parameter counts. */
void fmt_count(char *buf, size_t n, double v);

#endif
