/* blocks.h - KV blocks of the running requests (blocks.c): filled blocks
 * named in the prefix cache inline (every block a step fills); private to
 * src/sim/. */
#ifndef SERVESIM_SIM_BLOCKS_H
#define SERVESIM_SIM_BLOCKS_H
#include <stdint.h>

#include "sim/core.h"
#include "sim/prefix.h"

/* r's blocks freed; r leaves the running list for good, its blocks freed;
 * the decoders of class cls crossing a block boundary given their blocks. */
void blocks_free(const struct sim *s, struct replica *rp, struct req *r);
void blocks_leave(struct sim *s, struct replica *rp, struct req *r);
void blocks_take_crossing(struct sim *s, struct replica *rp, int32_t cls);

static SCHED_STEP_INLINE void blocks_register_full(struct sim *s, struct replica *rp, struct req *r, int64_t computed)
{
	int64_t full = full_blocks(s, computed);

	int32_t named = full < r->nnamed ? (int32_t)full : r->nnamed;

	if (full > r->nblocks)
		full = r->nblocks;
	/* anonymous blocks have nothing to register */
	for (; r->nhashed < named; r->nhashed++) {
		uint64_t h = prefix_chain_at(s, r, r->nhashed);
		kvc_register(&rp->kv, r->blocks[r->nhashed], h);
		r->last_hash = h;
	}
	if (r->nhashed < full)
		r->nhashed = (int32_t)full;
}

#endif
