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
#include "base/mix64.h"

struct stepmemo {
	struct dmemo d;           /* made at the first lookup */
	bool off;                 /* given up: too few repeats */
	bool lanes;               /* the full table: runs of steps in neighbouring slots */
	uint64_t lookups, hits, check_at;
};

/* Where a replica's last lookup in a memo's lanes went: its key word,
 * decoders, summed contexts and slot (zeroed: none).  The same decoders a
 * step later (the key word and decoders the same, the contexts ndecode
 * more) take the next slot, found without the run's hash (stepmemo_get). */
struct stepmemo_lane {
	const struct dmemo_ent *e; /* the table it is in (NULL: none yet) */
	uint64_t k0, ix;
	int64_t ndecode;
	double ctx_sum;
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

/* stepmemo_slot, *ix its lane index (UINT64_MAX: not in a lane). */
static inline struct dmemo_ent *stepmemo_slot_ix(const struct stepmemo *m, uint64_t k0, int64_t ndecode,
						 double ctx_sum, uint64_t *ix)
{
	uint64_t k1;

	*ix = UINT64_MAX;
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
		h = mix64(h);
		*ix = h + q;
		return dmemo_slot_at(&m->d, h + q);
	}
	memcpy(&k1, &ctx_sum, sizeof(k1));
	return dmemo_slot(&m->d, k0, k1);
}

/* The slot of a decode-only step (key word k0, ndecode, summed contexts)
 * in m's table, which must be made. */
static inline struct dmemo_ent *stepmemo_slot(const struct stepmemo *m, uint64_t k0, int64_t ndecode,
					      double ctx_sum)
{
	uint64_t ix;

	return stepmemo_slot_ix(m, k0, ndecode, ctx_sum, &ix);
}

/* (the lookups are written into the step loop: a call would cost it more
 * than a lane's next slot saves; GCC and Clang) */
#if defined(__GNUC__)
#define STEPMEMO_INLINE inline __attribute__((always_inline))
#else
#define STEPMEMO_INLINE inline
#endif
/* The slot of a decode-only step (key word k0, ndecode, summed contexts)
 * in m's table (made), looked up from where lane ln's last lookup went
 * (and ln moved on; NULL: from the key alone, for a caller whose steps
 * seldom follow each other in a lane, such as speculative decoding's with
 * their drawn acceptances). */
static STEPMEMO_INLINE struct dmemo_ent *stepmemo_locate(const struct stepmemo *m, struct stepmemo_lane *ln,
							 uint64_t k0, int64_t ndecode, double ctx_sum)
{
	struct dmemo_ent *x;

	if (!ln) {
		x = stepmemo_slot(m, k0, ndecode, ctx_sum);
	} else if (ln->e == m->d.e && ln->k0 == k0 && ln->ndecode == ndecode && ctx_sum < 0x1p53 &&
	    ctx_sum == ln->ctx_sum + (double)ndecode) {
		/* the lane's next slot: ctx_sum / ndecode one more, the
		 * remainder and so the run's start the same (a lane's last
		 * slot holds only integer sums below 2^53, summed exactly) */
		x = dmemo_slot_at(&m->d, ++ln->ix);
		ln->ctx_sum = ctx_sum;
	} else {
		uint64_t ix;
		x = stepmemo_slot_ix(m, k0, ndecode, ctx_sum, &ix);
		/* (a slot outside the lanes starts none) */
		ln->e = ix == UINT64_MAX ? NULL : m->d.e;
		ln->k0 = k0;
		ln->ndecode = ndecode;
		ln->ctx_sum = ctx_sum;
		ln->ix = ix;
	}
	return x;
}

/* Where a lookup was located ahead (stepmemo_ahead): its key word, its
 * slot and the table it is in (NULL: none located). */
struct stepmemo_at {
	uint64_t k0;
	struct dmemo_ent *x;
	const struct dmemo_ent *tab;
};

/* stepmemo_get's lookup from at, located ahead by stepmemo_ahead with the
 * same arguments (and lane), or located now where it was not or the table
 * has been made or remade since (the trial): the same counts, trial,
 * lane and answer as stepmemo_get made at this point. */
static STEPMEMO_INLINE bool stepmemo_get_at(struct stepmemo *m, struct stepmemo_lane *ln, const struct stepmemo_at *at,
					    uint64_t k0, int64_t ndecode, double ctx_sum, double *price_s,
					    struct dmemo_ent **slot)
{
	struct dmemo_ent *x = at->x;
	uint64_t k1;

	*slot = NULL;
	if (m->off || k0 == 0)
		return false;
	if (m->lookups++ == m->check_at && !stepmemo_check(m))
		return false;
	memcpy(&k1, &ctx_sum, sizeof(k1));
	if (!x || at->tab != m->d.e)
		x = stepmemo_locate(m, ln, k0, ndecode, ctx_sum);
	if (dmemo_holds(x, k0, k1)) {
		m->hits++;
		*price_s = x->v;
		return true;
	}
	*slot = x;
	return false;
}

/* A decode-only step's price by its key word k0 (stepmemo_key; 0: not
 * kept), ndecode and summed contexts (lane ln as stepmemo_locate's): true
 * and *price_s when it is kept, else false and *slot where stepmemo_put
 * keeps it (NULL: the memo is off, or the step is not one it keeps). */
static STEPMEMO_INLINE bool stepmemo_get(struct stepmemo *m, struct stepmemo_lane *ln, uint64_t k0, int64_t ndecode,
				double ctx_sum, double *price_s, struct dmemo_ent **slot)
{
	const struct stepmemo_at none = {0, NULL, NULL};

	return stepmemo_get_at(m, ln, &none, k0, ndecode, ctx_sum, price_s, slot);
}

/* The first part of a coming stepmemo_get(m, ln, k0, ndecode, ctx_sum):
 * its key word and slot located (ln moved on as stepmemo_get moves it) into *at and
 * fetched into the cache, for stepmemo_get_at to finish -- for a caller
 * that knows several lookups before it makes them: an attention-DP group
 * plans all its ranks, then prices them (step.c group_start), and the
 * memos' 786 KB tables missed the caches at most lookups (`perf` of the
 * P/D eval: over half of group_start's samples on the slot loads).  Before
 * the table is made (the first lookup makes it) nothing is located.
 * Always written into its caller: a function that only prefetches has no
 * effect GCC sees, and it drops the call (core.h's req_prefetch). */
static STEPMEMO_INLINE void stepmemo_ahead(const struct stepmemo *m, struct stepmemo_lane *ln, uint64_t k0,
					   int64_t ndecode, double ctx_sum, struct stepmemo_at *at)
{
	at->k0 = k0;
	at->x = NULL;
	at->tab = m->d.e;
	if (m->off || k0 == 0 || !m->d.e)
		return;
	at->x = stepmemo_locate(m, ln, k0, ndecode, ctx_sum);
	/* (a slot of 24 bytes may cross a line) */
	__builtin_prefetch(at->x);
	__builtin_prefetch((const char *)at->x + sizeof(*at->x) - 1);
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
