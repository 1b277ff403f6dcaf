/* scenopts.h - the option table, help and parser of the model / hardware /
 * engine / cost flags (engine/scenflags.h) shared by run, capacity, search,
 * sweep and serve: same names, defaults and messages everywhere. */
#ifndef SERVESIM_CMD_SCENOPTS_H
#define SERVESIM_CMD_SCENOPTS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "engine/scenflags.h"
#include "report/out.h"

enum { SCF = 1100 };
#define SCENFLAGS_OPTIONS \
	{"model", required_argument, 0, SCF}, {"config", required_argument, 0, SCF + 1}, \
	{"gpu", required_argument, 0, SCF + 2}, \
	{"dtype", required_argument, 0, SCF + 4}, {"kv-dtype", required_argument, 0, SCF + 5}, \
	{"tier0-off", required_argument, 0, SCF + 14}, {"tier2", required_argument, 0, SCF + 15}, \
	{"engine", required_argument, 0, SCF + 16}, \
	{"engine-version", required_argument, 0, SCF + 17}, \
	{"moe-dtype", required_argument, 0, SCF + 18}, \
	{"moe-distribution", required_argument, 0, SCF + 19}, \
	{"moe-format", required_argument, 0, SCF + 20}, \
	{"allow-invalid", no_argument, 0, SCF + 21}, \
	{"calibration", required_argument, 0, SCF + 22}, \
	{"force-calibration", no_argument, 0, SCF + 23}, \
	CLI_PARALLEL_OPTIONS, CLI_PP_OPTIONS, CLI_OVERHEAD_OPTIONS

/* The flags' --help (capacity, search, sweep, serve): the model and
 * hardware flags, the deployment field table's lines, SGLang's own flags
 * and the offload, LoRA and EPLB sections. */
void scenopts_help(FILE *f);

/* The help's sections of SGLang's own flags, and of KV offload, LoRA and
 * EPLB (run's help prints them too): the field table's lines and the
 * flags outside it. */
void scenopts_help_sglang(FILE *f);
void scenopts_help_offload(FILE *f);

/* 1 handled, 0 not ours, <0 error. */
int scenflags_option(int code, const char *arg, struct scenflags *f, struct err *e);
#endif
