/* kvcache.h - paged KV cache: fixed-size blocks, reference counts, and a
 * prefix cache keyed by content-chain hashes with LRU eviction of free
 * cached blocks (vLLM v1 semantics: only full blocks are cached, a freed
 * request's blocks stay reusable until their memory is needed). */
#ifndef SERVESIM_KVCACHE_H
#define SERVESIM_KVCACHE_H
#include <stdbool.h>
#include <stdint.h>

/* Per-block state, packed so that touching a block touches one cache line. */
struct kvb {
	uint64_t hash;         /* 0: not registered; KVC_PRIVATE: kept out of the table */
	int32_t ref;
	uint32_t stamp;        /* matches its live LRU ring entry */
};

struct kvc {
	int32_t total;
	int32_t *free_stack;   /* blocks with no content worth keeping */
	int32_t nfree;
	struct kvb *blk;
	/* evictable cached blocks in the order they were freed: a ring of
	 * (block, stamp); an entry is live while the block is unreferenced and
	 * its stamp matches (taking a block back just leaves a stale entry) */
	int32_t *ring_blk;
	uint32_t *ring_stamp;
	size_t ring_cap, ring_head, ring_len;
	int32_t nevict;
	/* open-addressing table hash -> block */
	uint64_t *tkeys;
	int32_t *tvals;
	uint32_t tmask;
	int32_t tcount;
	bool caching;
	uint64_t evictions;
};

void kvc_init(struct kvc *c, int32_t blocks, bool prefix_caching);
void kvc_release(struct kvc *c);
/* Blocks that can be handed out now (free + evictable cached). */
static inline int32_t kvc_available(const struct kvc *c) { return c->nfree + c->nevict; }
/* Take a block (caller checked availability); evicts the LRU cached block
 * when no plain free block is left. */
int32_t kvc_alloc(struct kvc *c);
/* kvc_alloc for a block whose content will be private: marked at once (see
 * kvc_mark_private), so filling it costs nothing more; a block freed while
 * still partial must be unmarked with kvc_unmark first. */
int32_t kvc_alloc_private(struct kvc *c);
static inline void kvc_unmark(struct kvc *c, int32_t b)
{
	if (c->blk[b].hash == UINT64_MAX)
		c->blk[b].hash = 0;
}
/* Cached block holding content `h`, or -1. */
int32_t kvc_lookup(const struct kvc *c, uint64_t h);
/* Take a reference on a block found by lookup (leaves the LRU list). */
void kvc_acquire(struct kvc *c, int32_t b);
/* Drop a reference; at zero the block becomes evictable (cached) or free. */
void kvc_put(struct kvc *c, int32_t b);
/* Register a full block's content; no-op if caching is off or the content
 * is already cached in another block. */
void kvc_register(struct kvc *c, int32_t b, uint64_t h);
/* Mark a full block whose content nobody else can look up (a unique prompt's
 * or an output's): it is kept on the LRU list when freed, like any cached
 * block, but stays out of the table until kvc_publish. */
#define KVC_PRIVATE UINT64_MAX
void kvc_mark_private(struct kvc *c, int32_t b);
/* Put a private block's real content hash into the table (its owner was
 * preempted and may look it up when it comes back). */
void kvc_publish(struct kvc *c, int32_t b, uint64_t h);
/* Reference count of a block (0: free or evictable). */
static inline int32_t kvc_ref(const struct kvc *c, int32_t b) { return c->blk[b].ref; }
/* Blocks referenced by running requests. */
static inline int32_t kvc_used(const struct kvc *c) { return c->total - c->nfree - c->nevict; }
/* Consistency check for tests: counts, list links, table contents. */
bool kvc_check(const struct kvc *c, char *why, int n);

#endif
