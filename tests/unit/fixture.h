/* fixture.h - the set-up several unit tests share: the data folder with
 * the model registry and the GPU table loaded from it, a bf16 cost
 * configuration, and the workloads they build (a named default one, a rate
 * curve, inference-perf's shared-prefix generator). */
#ifndef SERVESIM_TEST_FIXTURE_H
#define SERVESIM_TEST_FIXTURE_H
#include <stddef.h>
#include <stdint.h>

#include "cost/cost.h"
#include "hw/gpu.h"
#include "model/model.h"
#include "workload/workload.h"

/* Fill datadir (n bytes) with the data folder and load from it the model
 * registry into *reg and the GPU table into *db (either may be NULL: not
 * loaded): 0, or -1 after printing "# why" (the caller exits 1). */
int fixture_load(char *datadir, size_t n, struct model_registry *reg, struct gpu_db *db);

/* A bf16 cost configuration (weights and KV) with the default overheads and
 * the default engine's terms, max_tokens and max_seqs a step, CUDA graphs up
 * to graph_max tokens (0: none); the rest zero. */
void fixture_cost_cfg(struct cost_cfg *cc, int64_t max_tokens, int64_t max_seqs, int64_t graph_max);

/* The default workload with source "test": n requests of `process` at
 * `rate`, drawn with `seed`. */
void fixture_wl(struct wl_spec *w, enum wl_process process, double rate, int64_t n, uint64_t seed);

/* The default workload arriving on a rate curve alone (num_requests 0) of
 * npts points: rate[i] req/s at t[i] s (t[0] = 0). */
void fixture_curve(struct wl_spec *w, size_t npts, const double *t, const double *rate);

/* The shared-prefix generator's five fields on w, the rest untouched:
 * `groups` x `prompts` prompts of a `system`-token group prefix and a
 * `question`-token question, `output` tokens out (groups 0: off). */
void fixture_sp(struct wl_spec *w, int64_t groups, int64_t prompts, int64_t system, int64_t question,
		int64_t output);

/* The default workload with the shared-prefix generator alone: n requests of
 * `process` at `rate`, the prompts as fixture_sp. */
void fixture_sp_spec(struct wl_spec *w, enum wl_process process, double rate, int64_t n, int64_t groups,
		     int64_t prompts, int64_t system, int64_t question, int64_t output);
#endif
