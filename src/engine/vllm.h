/* vllm.h - what other engines borrow from vLLM's file (vllm.c). */
#ifndef SERVESIM_ENGINE_VLLM_H
#define SERVESIM_ENGINE_VLLM_H
#include <stddef.h>

#include "cost/cost.h"
#include "sim/sim.h"

struct replica;

/* vLLM v1's step (its walk over the running requests, then admissions
 * through the running policy's admit): an engine that keeps vLLM's step
 * loop and changes only whom it admits. */
void vllm_schedule(struct sim *s, struct replica *rp);
/* vLLM's run-header sentence on its scheduling, with how chunked prefill
 * runs ("on") and what its admission adds ("" or "; ..."). */
void vllm_describe(const struct sim_cfg *c, const char *chunked, const char *admission, char *out, size_t n);

/* DeepSeek-V4's parts model fitted on vLLM's blocks, [decode, prefill] x
 * [CSA, HCA and window-only]: the engines without blocks of their own. */
extern const struct cost_csa_fit vllm_csa_fits[2][2];

struct scenario;
struct scenario_state;
struct parallel;
struct err;
/* vLLM's memory plan (vllmmem.c): memplan_compute's, with the profile's
 * sampler run as the activation peak when larger, and the hybrid pool of a
 * model with sliding-window layers (st->sc.kv_window) */
int vllm_plan_memory(const struct scenario *s, const struct parallel *rep, struct scenario_state *st,
		     struct err *e);

#endif
