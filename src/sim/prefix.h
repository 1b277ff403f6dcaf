/* prefix.h - block content hashes (prefix.c): a
 * request's kept chain of block hashes read inline (every block filled or
 * looked up); private to src/sim/.  The lookups themselves are admission's
 * (admit.c). */
#ifndef SERVESIM_SIM_PREFIX_H
#define SERVESIM_SIM_PREFIX_H
#include <stdint.h>

#include "sim/core.h"

/* r's kept chain grown to block b (prefix_chain_at's slow path). */
void prefix_chain_grow(const struct sim *s, struct req *r, int64_t b);
/* r leaves the scheduler for good: its kept chain dropped. */
void prefix_chain_drop(const struct sim *s, struct replica *rp, struct req *r);
/* The chain memo slot of r's content (its prompt hashed once). */
struct chain_memo *prefix_chain_memo(const struct sim *s, const struct req *r);

/* Hash of block b of r from its kept chain, extended as needed. */
static inline uint64_t prefix_chain_at(const struct sim *s, struct req *r, int64_t b)
{
	if (b < r->nchain)
		return r->chain[b];
	if (b == r->nchain && b > 0 && b < r->chain_cap) {
		/* the next block of a started chain (a decoder's block just
		 * filled): block_hash's value, as chain_grow's loop computes it */
		r->chain[b] = sched_block_hash(s, r, b, r->chain[b - 1]);
		r->nchain++;
		return r->chain[b];
	}
	prefix_chain_grow(s, r, b);
	return r->chain[b];
}

#endif
