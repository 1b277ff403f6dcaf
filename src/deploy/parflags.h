/* parflags.h - the parallel layout as the engines' flags give it: what
 * they say beyond the numbers of struct parallel, and the engines'
 * defaults applied once every flag is read (run, ops, roofline, trace and
 * the commands that simulate). */
#ifndef SERVESIM_DEPLOY_PARFLAGS_H
#define SERVESIM_DEPLOY_PARFLAGS_H
#include <stdbool.h>

#include "base/err.h"
#include "model/model.h"

/* What the parallel flags said beyond the numbers in struct parallel. */
struct par_flags {
	bool ep_given, enable_ep, dp_attention;
};
/* Apply the engines' defaults once all flags are read: EP off unless --ep
 * or --enable-expert-parallel (vLLM's enable_expert_parallel=False and
 * SGLang's ep_size=1 defaults); --enable-expert-parallel gives EP = TP x DP;
 * --enable-dp-attention turns SGLang's --tp-size (all GPUs) into attention
 * TP = tp / dp.  SS_EUSAGE when they do not combine. */
int par_flags_resolve(const struct par_flags *f, const struct model_cfg *m, struct parallel *p,
		      struct err *e);

#endif
