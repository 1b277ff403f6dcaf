/* kvcache.h - paged KV cache: fixed-size blocks, reference counts, and a
 * prefix cache keyed by content-chain hashes with LRU eviction of free
 * cached blocks (vLLM v1 semantics: only full blocks are cached, a freed
 * request's blocks stay reusable until their memory is needed). */
#ifndef SERVESIM_KVCACHE_H
#define SERVESIM_KVCACHE_H
#include <stdbool.h>
#include <stdint.h>

struct kvc {
	int32_t total;
	int32_t *free_stack;   /* blocks with no content worth keeping */
	int32_t nfree;
	int32_t *ref;
	uint64_t *hash;        /* 0: not registered */
	int32_t *lru_prev, *lru_next;
	int32_t lru_head, lru_tail, nevict;
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
/* Cached block holding content `h`, or -1. */
int32_t kvc_lookup(const struct kvc *c, uint64_t h);
/* Take a reference on a block found by lookup (leaves the LRU list). */
void kvc_acquire(struct kvc *c, int32_t b);
/* Drop a reference; at zero the block becomes evictable (cached) or free. */
void kvc_put(struct kvc *c, int32_t b);
/* Register a full block's content; no-op if caching is off or the content
 * is already cached in another block. */
void kvc_register(struct kvc *c, int32_t b, uint64_t h);
/* Blocks referenced by running requests. */
static inline int32_t kvc_used(const struct kvc *c) { return c->total - c->nfree - c->nevict; }
/* Consistency check for tests: counts, list links, table contents. */
bool kvc_check(const struct kvc *c, char *why, int n);

#endif
