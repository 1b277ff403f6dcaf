/* toolenv.h - what the check tools share (tools/csacheck.c, dsacheck.c,
 * mlacheck.c, kerncheck.c, swacheck.c): the GPU and the model named on
 * their command line, read from DATA_DIR; the cost configuration they
 * price with; the cost models of one model at several head counts per GPU.
 * Built with each tool by scripts/mfu/checktool.py, not part of `make`. */
#ifndef SERVESIM_TOOLENV_H
#define SERVESIM_TOOLENV_H
#include <stddef.h>

#include "cost/cost.h"

/* DATA_DIR/gpus.json loaded into db and gpu found in it: 0, or -1 after
 * "TOOL: message" on stderr. */
int tool_load_gpu(const char *tool, const char *data_dir, const char *gpu, struct gpu_db *db,
		  const struct gpu_spec **g);

/* DATA_DIR/models loaded into reg and model read from it into m: 0, or -1
 * after "TOOL: message" on stderr. */
int tool_load_model(const char *tool, const char *data_dir, const char *model, struct model_registry *reg,
		    struct model_cfg *m);

/* The check tools' cost configuration: zeroed, the engine's tables and
 * terms, weights wdt, KV cache kvdt, default overheads, steps of up to 8192
 * tokens and 1024 sequences; -1 after a message on stderr for an engine
 * servesim does not know. */
int tool_cost_cfg(struct cost_cfg *cc, const char *engine, enum dtype wdt, enum dtype kvdt);

/* A cost model of the tool's model at one head count per GPU, made at the
 * first query of that count (the tables' emulated TP ranks). */
struct tool_heads {
	int heads;
	struct model_cfg m;
	struct cost_model c;
};

#define TOOL_MAX_HEADS 8

/* A tool's model and GPU, and its cost models by head count. */
struct tool_models {
	struct model_registry reg;
	struct model_cfg base;  /* the model as read */
	struct gpu_db db;
	const struct gpu_spec *g;
	struct tool_heads ph[TOOL_MAX_HEADS];
	size_t n;
};

/* tool_load_model and tool_load_gpu into t (no cost models yet): 0 or -1. */
int tool_models_load(struct tool_models *t, const char *tool, const char *data_dir, const char *model,
		     const char *gpu);

/* The entry of `heads`, or NULL (the caller adds one at t->ph[t->n++] while
 * t->n < TOOL_MAX_HEADS and makes its cost model). */
struct tool_heads *tool_models_find(struct tool_models *t, int heads);

/* The cost models, the registry and the GPU list released. */
void tool_models_release(struct tool_models *t);

#endif
