/* stepmemo.h - the prices of a replica's recent decode-only steps, kept by
 * their exact description (decode requests, their summed contexts, sampled
 * sequences), so that a step that repeats one priced before is not priced
 * again.
 *
 * Why: cost_step_s is a pure function of the cost model and the step (its
 * lazily filled tables give the same bits whenever they are filled), and
 * with fixed prompt and output lengths the same decode steps recur: in
 * `servesim eval eval/ground_truth/inference-perf` two decode-only steps in
 * three repeat an earlier one of the same simulation exactly (a request
 * alone, or a few together, replay the same contexts).  A repeat costs a
 * multiply and a probe instead of a logarithm, a table interpolation and an
 * exponential.  32 Ki slots (base/dmemo.h) keep 5 in 6 of those repeats.
 * Where steps rarely repeat (lengths drawn from a distribution) the memo
 * switches itself off after a trial, so such a run pays only for the trial.
 *
 * An attention-DP rank's step keeps the part of its price that its own
 * requests decide (cost_step_local_s), the same key for any MoE tokens of
 * its group: the whole price held one key for each group total, so that
 * a repeat needed every rank's batch to repeat with it (a quarter of the
 * lookups hit in the README DeepSeek-V3 search), and its runs of steps
 * did not take neighbouring slots.
 *
 * One memo per cost model and simulation, shared by the ranks and replicas
 * pricing with it (a price depends on the step and the model only): the
 * cost model must not change while a memo is in use (tests change
 * overheads between runs).
 * Library-internal: step.c is its only user. */
#ifndef SERVESIM_SIM_STEPMEMO_H
#define SERVESIM_SIM_STEPMEMO_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/dmemo.h"

struct stepmemo {
	struct dmemo d;           /* made at the first lookup */
	bool off;                 /* given up: too few repeats */
	bool lanes;               /* the full table: runs of steps in neighbouring slots */
	uint64_t lookups, hits, check_at;
};

void stepmemo_init(struct stepmemo *m);
void stepmemo_release(struct stepmemo *m);
/* The trial (out of line): make the table, or switch the memo off when too
 * few lookups hit; false when it is off. */
bool stepmemo_check(struct stepmemo *m);

/* The key word of a decode-only step's counts, 0 when the step is not one
 * a memo keeps: 1 <= ndecode, 0 <= nlogits, both below 2^31.  Never 0
 * otherwise (ndecode >= 1). */
static inline uint64_t stepmemo_key(int64_t ndecode, int64_t nlogits)
{
	return (uint64_t)ndecode - 1 >= INT32_MAX || (uint64_t)nlogits > INT32_MAX
		       ? 0 : (uint64_t)ndecode | (uint64_t)nlogits << 32;
}

/* The slot of a decode-only step (key word k0, ndecode, summed contexts)
 * in m's table, which must be made. */
static inline struct dmemo_ent *stepmemo_slot(const struct stepmemo *m, uint64_t k0, int64_t ndecode,
					      double ctx_sum)
{
	uint64_t k1;

	if (m->lanes && ctx_sum >= 0 && ctx_sum < 0x1p53 && (double)(uint64_t)ctx_sum == ctx_sum) {
		/* the same decoders a step later: summed contexts ndecode more.
		 * Such a run of steps, (ndecode, ctx_sum mod ndecode) fixed and
		 * ctx_sum / ndecode rising by one, takes consecutive slots: it
		 * walks the table rather than missing the caches at each step
		 * (the misses were a third of the step loop's time).  Not in
		 * the trial's small table, where runs would overwrite each
		 * other before they repeat */
		uint64_t c = (uint64_t)ctx_sum, q = c / (uint64_t)ndecode, h = k0 ^ (c - q * (uint64_t)ndecode) << 20;
		/* the run's start: splitmix64's finaliser (the table takes the
		 * low bits, which a product alone leaves to the low bits of the
		 * key) */
		h ^= h >> 30;
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 27;
		h *= 0x94d049bb133111ebULL;
		h ^= h >> 31;
		return dmemo_slot_at(&m->d, h + q);
	}
	memcpy(&k1, &ctx_sum, sizeof(k1));
	return dmemo_slot(&m->d, k0, k1);
}

/* A decode-only step's price by its key word k0 (stepmemo_key; 0: not
 * kept), ndecode and summed contexts: true and *price_s when it is kept,
 * else false and *slot where stepmemo_put keeps it (NULL: the memo is
 * off, or the step is not one it keeps). */
static inline bool stepmemo_get(struct stepmemo *m, uint64_t k0, int64_t ndecode, double ctx_sum,
				double *price_s, struct dmemo_ent **slot)
{
	struct dmemo_ent *x;
	uint64_t k1;

	*slot = NULL;
	if (m->off || k0 == 0)
		return false;
	if (m->lookups++ == m->check_at && !stepmemo_check(m))
		return false;
	memcpy(&k1, &ctx_sum, sizeof(k1));
	x = stepmemo_slot(m, k0, ndecode, ctx_sum);
	if (dmemo_holds(x, k0, k1)) {
		m->hits++;
		*price_s = x->v;
		return true;
	}
	*slot = x;
	return false;
}

/* Ask the caches for the slot that stepmemo_get will read for this step
 * (a caller that knows the step some work before it prices it: the
 * table's slots are seldom cached). */
static inline void stepmemo_prefetch(const struct stepmemo *m, uint64_t k0, int64_t ndecode, double ctx_sum)
{
	if (!m->off && k0 != 0 && m->d.e)
		__builtin_prefetch(stepmemo_slot(m, k0, ndecode, ctx_sum));
}

/* Keep the price of the step that stepmemo_get did not find, at its slot. */
static inline void stepmemo_put(struct dmemo_ent *slot, uint64_t k0, double ctx_sum, double price_s)
{
	uint64_t k1;

	if (!slot)
		return;
	memcpy(&k1, &ctx_sum, sizeof(k1));
	dmemo_keep(slot, k0, k1, price_s);
}

#endif
