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
	{"gpu", required_argument, 0, SCF + 2}, {"router", required_argument, 0, SCF + 3}, \
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
	{"mem-fraction-static", required_argument, 0, SCF + 24}, \
	{"schedule-policy", required_argument, 0, SCF + 25}, \
	{"disable-overlap-schedule", no_argument, 0, SCF + 26}, \
	{"replicas", required_argument, 0, SCF + 27}, \
	{"kv-offloading-size", required_argument, 0, SCF + 32}, \
	{"kv-offloading-backend", required_argument, 0, SCF + 33}, \
	{"enable-hierarchical-cache", no_argument, 0, SCF + 34}, \
	{"hicache-ratio", required_argument, 0, SCF + 35}, \
	{"hicache-size", required_argument, 0, SCF + 36}, \
	{"enable-lora", no_argument, 0, SCF + 37}, \
	{"max-loras", required_argument, 0, SCF + 38}, \
	{"max-lora-rank", required_argument, 0, SCF + 39}, \
	{"max-cpu-loras", required_argument, 0, SCF + 40}, \
	{"max-loras-per-batch", required_argument, 0, SCF + 41}, \
	{"max-loaded-loras", required_argument, 0, SCF + 42}, \
	{"scheduler-recv-interval", required_argument, 0, SCF + 43}, \
	{"enable-mixed-chunk", no_argument, 0, SCF + 44}, \
	{"max-prefill-tokens", required_argument, 0, SCF + 45}, \
	{"enable-eplb", no_argument, 0, SCF + 46}, \
	{"eplb-config", required_argument, 0, SCF + 47}, \
	{"num-redundant-experts", required_argument, 0, SCF + 48}, \
	{"ep-num-redundant-experts", required_argument, 0, SCF + 49}, \
	{"eplb-rebalance-num-iterations", required_argument, 0, SCF + 50}, \
	CLI_PARALLEL_OPTIONS, CLI_PP_OPTIONS, CLI_OVERHEAD_OPTIONS

/* The flags' --help (capacity, search, sweep, serve): the model and
 * hardware flags, the deployment field table's lines, SGLang's own flags
 * and SCENFLAGS_OFFLOAD_HELP. */
void scenopts_help(FILE *f);

/* (run's help prints this too: KV offload, LoRA, EPLB) */
#define SCENFLAGS_OFFLOAD_HELP \
	"KV offload to host memory (docs/engines.md, \"KV offload\"):\n" \
	"  --kv-offloading-size GiB  vLLM: a host KV tier of GiB over the TP ranks (LRU; blocks\n" \
	"                            the GPU prefix cache evicts go there, prefix hits load back)\n" \
	"  --kv-offloading-backend native|lmcache  vLLM's OffloadingConnector (loads beside the\n" \
	"                            step, default) or LMCache's (synchronous load and store)\n" \
	"  --enable-hierarchical-cache  SGLang HiCache: a host tier of --hicache-ratio R x the\n" \
	"                            device pool (default 2) or --hicache-size GB per GPU\n" \
	"LoRA adapters (docs/engines.md, \"LoRA\"; the workload's 'lora' block names them):\n" \
	"  --enable-lora             serve adapters: at most --max-loras N per step (vLLM,\n" \
	"                            default 1) or --max-loras-per-batch N (SGLang, default 8,\n" \
	"                            the base model one of them), of --max-lora-rank R (16);\n" \
	"                            --max-cpu-loras M (vLLM, default N) / --max-loaded-loras M\n" \
	"                            (SGLang, default all) adapters in host memory\n" \
	"expert-parallel load balancing (EP > 1; docs/engines.md, \"EPLB\"):\n" \
	"  --enable-eplb             redundant experts placed by DeepSeek's EPLB: vLLM's\n" \
	"                            --eplb-config JSON (num_redundant_experts, step_interval 3000,\n" \
	"                            use_async) or --num-redundant-experts N; SGLang's\n" \
	"                            --ep-num-redundant-experts N, --eplb-rebalance-num-iterations N\n" \
	"                            (1000)\n"

/* 1 handled, 0 not ours, <0 error. */
int scenflags_option(int code, const char *arg, struct scenflags *f, struct err *e);
#endif
