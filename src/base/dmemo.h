/* dmemo.h - a fixed-size, direct-mapped memo of doubles keyed by two 64-bit
 * words: each key has one slot, and a new key takes it over.  For results
 * that are exact functions of their key and recur (a step's price, a
 * prefill chunk's attention): a repeat costs a multiply and two compares,
 * and the memory stays bounded however many keys a run meets.  (Tried:
 * 4-way sets keep a fifth more repeats of the step prices but cost more in
 * compares and moves than those repeats save.)  A key's first word must not
 * be 0: that marks an empty slot. */
#ifndef SERVESIM_DMEMO_H
#define SERVESIM_DMEMO_H
#include <stdbool.h>
#include <stdint.h>

struct dmemo_ent {
	uint64_t k0, k1;
	double v;
};

struct dmemo {
	struct dmemo_ent *e;    /* [2^bits] */
	int shift;              /* 64 - bits */
	uint64_t mask;          /* 2^bits - 1 */
};

/* 2^bits slots (1 <= bits <= 30), all empty. */
void dmemo_init(struct dmemo *m, int bits);
void dmemo_release(struct dmemo *m);

/* The slot of key (k0, k1). */
static inline struct dmemo_ent *dmemo_slot(const struct dmemo *m, uint64_t k0, uint64_t k1)
{
	/* multiplicative hashing: the product's top bits depend on every bit */
	return &m->e[((k0 * 0x9e3779b97f4a7c15ULL) ^ k1) * 0xbf58476d1ce4e5b9ULL >> m->shift];
}

/* Slot i (modulo the size): for a caller whose keys come in sequences
 * that it can place in neighbouring slots (a sequential walk of the table
 * instead of a cache miss per lookup). */
static inline struct dmemo_ent *dmemo_slot_at(const struct dmemo *m, uint64_t i)
{
	return &m->e[i & m->mask];
}

/* Does slot x hold key (k0, k1)?  Then x->v is its value. */
static inline bool dmemo_holds(const struct dmemo_ent *x, uint64_t k0, uint64_t k1)
{
	return x->k0 == k0 && x->k1 == k1;
}

/* Slot x (dmemo_slot's for the key) keeps v for (k0, k1). */
static inline void dmemo_keep(struct dmemo_ent *x, uint64_t k0, uint64_t k1, double v)
{
	x->k0 = k0;
	x->k1 = k1;
	x->v = v;
}

#endif
