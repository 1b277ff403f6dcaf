/* ablation: design document 002's ablation of the tier-0 corrections, as
 * the evaluation passes it runs (`servesim eval --ablate`).  The passes run
 * without tier-1 terms; the report (evalreport.h: out_eval_ablation,
 * out_eval_criteria) compares their median APE. */
#ifndef SERVESIM_EVAL_ABLATION_H
#define SERVESIM_EVAL_ABLATION_H

#include <stdbool.h>

#include "eval/experiment.h"
#include "eval/pass.h"
#include "model/model.h"

#define ABL_NOFF 6 /* H1..H6 */

/* InferSim's overheads, which 002's H2 first proposed: a fixed host time
 * per decode step and a fixed addition to TTFT. */
#define ABL_INFERSIM_STEP_US 5000.0
#define ABL_INFERSIM_TTFT_MS 30.0

/* The options of each pass, from the options given (`base`):
 *   full:     base as given (tier 0 in full unless --tier0-off says else);
 *   off[h]:   base with correction H(h+1) alone switched off;
 *   infersim: base with tier 0 in full and H2's terms at InferSim's scale
 *             (ABL_INFERSIM_*; no per-layer or per-request terms). */
struct abl_design {
	struct eval_opts full, off[ABL_NOFF], infersim;
};

void abl_design(const struct eval_opts *base, struct abl_design *d);

/* Whether m shares each KV head among several query heads (GQA or MQA):
 * 002's H3 criterion compares the gain on such models with the others'. */
bool abl_model_gqa(const struct model_cfg *m);

/* The study: the full pass, one pass with each correction off and the
 * InferSim pass, all without tier-1 terms; gqa[k] for models[k] of full
 * (abl_model_gqa: 1, 0, or -1 for a model the catalog cannot load).  When
 * no input of the full pass was evaluated the others are not run
 * (eval_pass_any).  abl_run_release frees the passes. */
struct abl_run {
	struct eval_pass full, off[ABL_NOFF], infersim;
	int gqa[EVAL_MAX_MODELS];
};
int abl_run(const struct eval_inputs *in, const struct eval_opts *base, struct abl_run *r, struct err *e);
void abl_run_release(struct abl_run *r);

#endif
