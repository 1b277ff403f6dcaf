/* simkey.h - the same simulation once: rows of a table whose simulations
 * are the same (the same deployment, workload and seed: e.g. the silicon
 * tables' runs published twice, under two dates, with two ids and two
 * measurements) simulated once, the others' rows taken from its outcome
 * (eval_outcome, eval_experiment_from).
 *
 * Why: eval_experiment's simulation is a function of the experiment, its
 * model, GPU and options only (the data folder is one a table); its rows
 * add the experiment's name and measurements.  Of the 3,203 simulated
 * silicon rows 137 repeat an earlier row's simulation (mostly the
 * TensorRT-LLM P/D runs published under two ids, and the 2026-04-06 file's
 * repeats of 2026-03-25's with the same engine version): ~2.5 % of the
 * eval's CPU.  (Another ~60 rows print the same figures as another row
 * from other inputs, e.g. another engine version whose tables and terms
 * are the same: not the same simulation by its inputs, so simulated.)
 *
 * The key: two 64-bit hashes (splitmix64's finaliser over the words, two
 * seeds) of the bytes of the model, the options, the GPU's address and the
 * experiment with what is only its rows' blanked (name, source, path,
 * measured stages, warning), the strings its knobs point to hashed by
 * content.  Equal bytes are equal inputs; two different inputs share both
 * hashes with a chance of about n^2 / 2^129 (n keys): ~1e-32 for a table.
 * Only closed experiments without warm-up (their rows read no per-request
 * figure) and without records of their own have a key. */
#ifndef SERVESIM_EVAL_SIMKEY_H
#define SERVESIM_EVAL_SIMKEY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/experiment.h"

struct eval_simkey {
	uint64_t h[2];
};

/* j's key into *k; false when j's rows cannot take another run's outcome. */
bool eval_simkey_of(const struct eval_job *j, struct eval_simkey *k);

/* The outcomes kept so far, by key (one table pass). */
struct eval_simcache {
	struct eval_simcache_ent {
		struct eval_simkey k;
		struct eval_outcome oc;
	} *e;
	size_t n, cap;
};

void eval_simcache_init(struct eval_simcache *c);
void eval_simcache_release(struct eval_simcache *c);
/* The outcome kept under k, NULL when none. */
const struct eval_outcome *eval_simcache_find(const struct eval_simcache *c, const struct eval_simkey *k);
/* Keep oc under k (a key kept already keeps its first outcome). */
void eval_simcache_add(struct eval_simcache *c, const struct eval_simkey *k, const struct eval_outcome *oc);

#endif
