/* parflags.h - the parallel layout as the engines' flags give it: what
 * they say beyond the numbers of struct parallel, and the engines'
 * defaults applied once every flag is read (run, ops, roofline, trace and
 * the commands that simulate). */
#ifndef SERVESIM_DEPLOY_PARFLAGS_H
#define SERVESIM_DEPLOY_PARFLAGS_H
#include <stdbool.h>

#include "base/argtab.h"
#include "base/err.h"
#include "model/model.h"
#include "model/opgraph.h"

/* What the parallel flags said beyond the numbers in struct parallel. */
struct par_flags {
	bool ep_given, enable_ep, dp_attention;
};
/* Apply the engines' defaults once all flags are read: EP off unless --ep
 * or --enable-expert-parallel (vLLM's enable_expert_parallel=False and
 * SGLang's ep_size=1 defaults); --enable-expert-parallel gives EP = TP x DP;
 * --enable-dp-attention turns SGLang's --tp-size (all GPUs) into attention
 * TP = tp / dp.  SS_EUSAGE when they do not combine. */
/* The parallel flags as shared flag tables (argtab.h), one set of
 * spellings and ranges for run, ops, roofline, trace and the commands that
 * simulate:
 *   --tp N, --tensor-parallel-size N (vLLM), --tp-size N (SGLang)
 *   --dp N, --data-parallel-size N (vLLM), --dp-size N (SGLang)
 *   --ep N, --ep-size N / --expert-parallel-size N (SGLang)
 *   --enable-expert-parallel (vLLM): EP = TP x DP
 *   --enable-dp-attention (SGLang): --tp-size counts every GPU of the
 *     engine, attention runs TP/DP-wide on each of DP ranks
 * values in a struct parallel, marks in a struct par_flags (the including
 * row's .off and .marks); par_flags_pp_tab: --pp N,
 * --pipeline-parallel-size N, --pp-size N; par_flags_shape_tab: the pass
 * shape of ops and trace (struct pass_shape: --batch-size, --seq-len,
 * --context-len, or roofline's --batch, --seq, --kv-len). */
extern const struct argtab par_flags_tab, par_flags_pp_tab, par_flags_shape_tab;
/* The same spellings of --tp, --dp, --ep and --pp for a command that takes
 * lists of them (sweep's axes, search's space): AT_OWN rows handing back
 * PAR_LIST_TP .. PAR_LIST_PP. */
enum { PAR_LIST_TP = 900, PAR_LIST_DP, PAR_LIST_EP, PAR_LIST_PP };
extern const struct argtab par_flags_list_tab;
#define PAR_FLAGS_INCLUDE(type, par, pf) \
	AT_TQ(&par_flags_tab, offsetof(type, par)), .marks = ARGTAB_GIVEN(type, pf)

int par_flags_resolve(const struct par_flags *f, const struct model_cfg *m, struct parallel *p,
		      struct err *e);

#endif
