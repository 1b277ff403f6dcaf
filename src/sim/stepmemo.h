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
 * exponential.  The table is direct-mapped (a new step replaces the one in
 * its slot): 32 Ki slots keep 5 in 6 of those repeats.  Where steps rarely
 * repeat (lengths drawn from a distribution) the memo switches itself off
 * after a trial, so such a run pays only for the trial.
 *
 * One memo per replica and simulation: the cost model must not change
 * while a memo is in use (tests change overheads between runs).
 * Library-internal: sched.c is its only user. */
#ifndef SERVESIM_SIM_STEPMEMO_H
#define SERVESIM_SIM_STEPMEMO_H
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* slots: 2^10 during the trial's first part (its memory is cleared at
 * every run: a run whose steps do not repeat pays little), then 2^15 */
#define STEPMEMO_TRIAL_BITS 10
#define STEPMEMO_BITS 15

struct stepmemo_ent {
	uint64_t ctx;         /* decode_ctx_sum's bits */
	uint32_t ndecode;     /* 0: an empty slot */
	uint32_t nlogits;
	double price_s;
};

struct stepmemo {
	struct stepmemo_ent *e;   /* [1 << bits], made at the first lookup */
	int shift;                /* 64 - bits */
	bool off;                 /* given up: too few repeats */
	uint64_t lookups, hits, check_at;
};

void stepmemo_init(struct stepmemo *m);
void stepmemo_release(struct stepmemo *m);
/* The trial (out of line): make the table, or switch the memo off when too
 * few lookups hit; false when it is off. */
bool stepmemo_check(struct stepmemo *m);

/* A decode-only step's price (moe_tokens 0): true and *price_s when it is
 * kept, else false and *slot where stepmemo_put keeps it (NULL: the memo is
 * off, or the step is not one it keeps). */
static inline bool stepmemo_get(struct stepmemo *m, int64_t ndecode, int64_t nlogits, double ctx_sum,
				double *price_s, struct stepmemo_ent **slot)
{
	struct stepmemo_ent *x;
	uint64_t ctx;

	*slot = NULL;
	if (m->off || ndecode <= 0 || ndecode > INT32_MAX || nlogits < 0 || nlogits > INT32_MAX)
		return false;
	if (m->lookups++ == m->check_at && !stepmemo_check(m))
		return false;
	memcpy(&ctx, &ctx_sum, sizeof(ctx));
	/* multiplicative hashing: the product's top bits depend on every bit */
	x = &m->e[((ctx ^ (uint64_t)ndecode * 0x9e3779b97f4a7c15ULL ^ (uint64_t)nlogits << 40) *
		   0xbf58476d1ce4e5b9ULL) >> m->shift];
	if (x->ctx == ctx && x->ndecode == (uint32_t)ndecode && x->nlogits == (uint32_t)nlogits) {
		m->hits++;
		*price_s = x->price_s;
		return true;
	}
	*slot = x;
	return false;
}

/* Keep the price of the step that stepmemo_get did not find, at its slot. */
static inline void stepmemo_put(struct stepmemo_ent *slot, int64_t ndecode, int64_t nlogits,
				double ctx_sum, double price_s)
{
	if (!slot)
		return;
	memcpy(&slot->ctx, &ctx_sum, sizeof(slot->ctx));
	slot->ndecode = (uint32_t)ndecode;
	slot->nlogits = (uint32_t)nlogits;
	slot->price_s = price_s;
}

#endif
