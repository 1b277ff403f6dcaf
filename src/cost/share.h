/* share.h - the tables of cost models built alike, filled once.
 *
 * A search prices deployments that differ only where the cost model's
 * tables do not look (MTP's draft tokens, whose deployments take other
 * host terms): each deployment's model filled its lazily priced tables
 * again (cost_lazy: the per-token prices, the attention-DP MoE tables, the
 * decode rows and terms; ~7 % of the README DeepSeek-V3 search's
 * instructions).  Through a share, cost_share_init builds the model as
 * cost_init does and, where the share's last model was built from equal
 * inputs, gives it that model's tables instead of its own: an entry is
 * filled by whichever model prices it first, with the value either would
 * compute (an entry is a function of the inputs and its index only: the
 * host terms are added at each step, memo.h).  A model's own parts stay its
 * own.  The share keeps the first model of a run (moved in whole) until the
 * run's last model is released and the share has moved on or been freed.
 * Above cost.c: the models it builds are cost.c's, released through
 * cost_share_release.
 *
 * Equal inputs: the same model and GPU records (addresses), the layout's
 * bytes, the cost_cfg's bytes but its host terms (ov, overlap_cpu,
 * host_src) and the same data folder.  Callers clear their cost_cfg before
 * filling it (scenario_prepare does), or the padding differs and nothing is
 * shared: never a wrong table.  Only models whose kernel tables are the
 * cache's (cfg.cache, no tier-2 tables) share: an entry may point into the
 * kernel tables.
 *
 * A model's tables are filled through const pointers without a lock
 * (costmodel.h): a share and its models serve one thread. */
#ifndef SERVESIM_COST_SHARE_H
#define SERVESIM_COST_SHARE_H
#include "cost/costmodel.h"

struct cost_share *cost_share_new(void);
/* The share's model goes now, or with its last model. */
void cost_share_free(struct cost_share *sh);

/* cost_init(c, ...) through share sh (NULL: cost_init itself). */
int cost_share_init(struct cost_share *sh, struct cost_model *c, const struct model_cfg *m,
		    const struct gpu_spec *g, const struct parallel *p, const struct cost_cfg *cfg,
		    const char *data_dir, struct err *e);
/* cost_release of a model cost_share_init built, through a share or not. */
void cost_share_release(struct cost_model *c);

#endif
