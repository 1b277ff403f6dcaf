/* vllm.h - what other engines borrow from vLLM's file (vllm.c). */
#ifndef SERVESIM_ENGINE_VLLM_H
#define SERVESIM_ENGINE_VLLM_H
#include "servesim/cost.h"

/* DeepSeek-V4's parts model fitted on vLLM's blocks, [decode, prefill] x
 * [CSA, HCA and window-only]: the engines without blocks of their own. */
extern const struct cost_csa_fit vllm_csa_fits[2][2];

#endif
