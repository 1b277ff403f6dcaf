/* kvcache.h - paged KV cache: a pool of fixed-size blocks, reference counts,
 * and a prefix cache keyed by content-chain hashes with LRU eviction of free
 * cached blocks (vLLM v1 semantics: only full blocks are cached; a freed
 * request's full blocks stay reusable until their memory is needed, oldest
 * first, a request's tail blocks before its head).
 *
 * Two kinds of blocks.  A *named* block has an id, a reference count and, once
 * full, a content hash others can look up: it holds shareable content (a
 * shared prefix or a repeated prompt).  An *anonymous* block holds content no
 * other request can ever look up (a unique prompt, an output): blocks like
 * that are interchangeable, so they are only counted, and a request frees its
 * full ones as one batch on the LRU list.  Eviction order is the same as if
 * every block were named.  An anonymous block can be named later
 * (kvc_name_anon) when its owner is preempted and may look it up again. */
#ifndef SERVESIM_KVCACHE_H
#define SERVESIM_KVCACHE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KVC_ANON (-1)   /* a request's block-list entry for an anonymous block */

struct kvc_link {         /* LRU list node: neighbours, -1 at either end */
	int32_t prev, next;
};

struct kvb {              /* per named block, packed: one cache line per touch */
	uint64_t hash;        /* 0: not registered */
	int32_t ref;
	/* its LRU node (while evictable): beside the count and hash that
	 * every release, hit and eviction reads, so that these touch one
	 * cache line of the block, not two */
	struct kvc_link l;
};

struct kvc {
	int32_t total;        /* physical blocks */
	int32_t nfree;        /* free and uncached */
	int32_t nevict;       /* free but cached (named + anonymous), evictable */
	int32_t anon_used;    /* anonymous blocks held by requests */
	int32_t *names;       /* names returned, reused first (a stack) */
	int32_t cap, bcap;    /* names and batch slots the arrays hold (kvc_init) */
	int32_t nnames;
	int32_t fresh;        /* names never handed out: fresh .. total-1, in order */
	struct kvb *blk;
	/* LRU order of the evictable cached blocks, oldest first: a doubly
	 * linked list of nodes 0 .. total-1 (named blocks with reference 0
	 * and content) and total + i (batch i of a request's freed anonymous
	 * blocks, batch[i] of them left), linked through blk[x].l and
	 * blink[x - total]; a block taken back by a prefix hit leaves it, so eviction never
	 * meets a stale entry */
	int32_t lru_head, lru_tail;
	uint32_t *batch;
	struct kvc_link *blink; /* the batches' LRU links */
	int32_t *batch_free;  /* batch slots returned (a stack) */
	int32_t nbatch_free, batch_fresh; /* slots never used: batch_fresh .. total-1 */
	/* open-addressing table hash -> named block; a slot's key and value
	 * side by side, so a hit reads one cache line */
	struct kvc_slot {
		uint64_t key;     /* 0: empty */
		int32_t val;
	} *tab;
	uint32_t tmask;
	int32_t tcount;
	/* the table starts small and doubles (kvc_table_grow) when tcount
	 * would pass tgrow, its load bound, up to the size the pool can
	 * need (INT32_MAX there): a run that registers few blocks clears and
	 * touches a few KiB, not a table for the whole pool */
	int32_t tgrow;
	uint32_t tcap_max;
	bool caching;
	uint64_t evictions;
	/* Watched blocks (one watcher per cache: the scheduler's memo of a
	 * waiting request's prefix hits, so a retry costs O(1)): watch[b] is
	 * b's position in the watched chain, or -1.  Evicting a watched block
	 * lowers watch_cut to its position (and unwatches it); a watched
	 * block's reference count reaching or leaving 0 sets watch_touched;
	 * `registered` counts content registrations. */
	int32_t *watch;
	int32_t nwatched;     /* blocks with watch[b] >= 0: while 0, no
			       * reference change needs to look at watch[] */
	int32_t watch_cut;    /* INT32_MAX: none since the watcher reset it */
	bool watch_touched;
	uint64_t registered;
	/* The tier below (KV offload: the host's pool, itself a kvc whose
	 * blocks are never held), or NULL: a cached block evicted here is
	 * written there (kvc_spill; anonymous ones as a batch, kvc_spill_anon),
	 * so a later lookup that misses here may find it there.  `stored`
	 * counts the blocks written into this cache as a lower tier (new
	 * content only: a block it holds already is only moved to the end of
	 * its LRU order). */
	struct kvc *lower;
	uint64_t stored;
};

void kvc_init(struct kvc *c, int32_t blocks, bool prefix_caching);
void kvc_release(struct kvc *c);
/* Blocks that can be handed out now (free + evictable cached). */
static inline int32_t kvc_available(const struct kvc *c) { return c->nfree + c->nevict; }
/* Blocks held by requests. */
static inline int32_t kvc_used(const struct kvc *c) { return c->total - c->nfree - c->nevict; }
/* Take a block (caller checked availability), evicting the oldest cached
 * block when no free one is left.  Named: returns its id; anonymous: KVC_ANON. */
int32_t kvc_alloc_named(struct kvc *c);
/* Evict the n oldest cached blocks (kvc_alloc_anon's slow path). */
void kvc_evict_n(struct kvc *c, int32_t n);
/* Write content h into the lower tier c (as the newest block; its
 * oldest is evicted when it is full), or mark it newest when c holds it. */
void kvc_spill(struct kvc *c, uint64_t h);
/* n anonymous blocks into the lower tier c (content nobody looks up,
 * which still takes its room). */
void kvc_spill_anon(struct kvc *c, int32_t n);
/* Mark block b (cached, unreferenced) of a lower tier as its newest. */
void kvc_touch(struct kvc *c, int32_t b);
/* n anonymous blocks.  Inline: with every block cached (a steady load),
 * each allocation evicts, usually part of the batch at the LRU head, which
 * is taken here without the call. */
static inline void kvc_alloc_anon(struct kvc *c, int32_t n)
{
	int32_t f = c->nfree < n ? c->nfree : n, x = c->lru_head;

	c->nfree -= f;
	c->anon_used += n;
	n -= f;
	if (n <= 0)
		return;
	if (x >= c->total && (int32_t)c->batch[x - c->total] > n) {
		/* as evict(): the head batch keeps some, nothing is unlinked */
		c->batch[x - c->total] -= (uint32_t)n;
		c->nevict -= n;
		c->evictions += (uint64_t)n;
		if (c->lower)
			kvc_spill_anon(c->lower, n);
		return;
	}
	kvc_evict_n(c, n);
}
/* n kvc_alloc_named calls in one, into out[0, n). */
void kvc_alloc_named_n(struct kvc *c, int32_t *out, int32_t n);
/* The table slot where a lookup of `h` starts. */
static inline uint32_t kvc_slot_of(const struct kvc *c, uint64_t h)
{
	return (uint32_t)(h ^ (h >> 29)) & c->tmask;
}
/* Cached named block holding content `h`, or -1.  (Inline, as
 * kvc_register: the scheduler calls both once per block.) */
static inline int32_t kvc_lookup(const struct kvc *c, uint64_t h)
{
	uint32_t i = kvc_slot_of(c, h);

	while (c->tab[i].key) {
		if (c->tab[i].key == h)
			return c->tab[i].val;
		i = (i + 1) & c->tmask;
	}
	return -1;
}
/* Start loading the slot a coming kvc_lookup(c, h) reads (a hint: the
 * table is larger than the caches and a lookup is one random access). */
static inline void kvc_prefetch(const struct kvc *c, uint64_t h)
{
#if defined(__GNUC__)
	__builtin_prefetch(&c->tab[kvc_slot_of(c, h)]);
#else
	(void)c;
	(void)h;
#endif
}
/* How many leading blocks of a content chain h[0, n) the cache holds (the
 * longest cached prefix, in blocks): lookups only, no reference taken and
 * no LRU position moved (a router's look at a replica's cache, engine.c). */
int32_t kvc_cached_prefix(const struct kvc *c, const uint64_t *h, int32_t n);
static inline int32_t kvc_ref(const struct kvc *c, int32_t b) { return c->blk[b].ref; }
/* Does block b (a name handed out) hold content h, that is, would
 * kvc_lookup(c, h) return b?  A block's hash is set exactly while the
 * table maps it to the block. */
static inline bool kvc_holds(const struct kvc *c, int32_t b, uint64_t h) { return c->blk[b].hash == h; }
/* Take a reference on a block found by lookup (it stops being evictable). */
void kvc_acquire(struct kvc *c, int32_t b);
/* Drop a reference on a named block; at zero it becomes evictable (if its
 * content is registered) or free. */
void kvc_put(struct kvc *c, int32_t b);
/* kvc_acquire of b[0], b[1], ... b[n-1]; kvc_put of b[n-1], ... b[0] (a
 * request's blocks, in one call: the loop runs where the cache's fields
 * stay in registers). */
void kvc_acquire_n(struct kvc *c, const int32_t *b, int32_t n);
void kvc_put_rev(struct kvc *c, const int32_t *b, int32_t n);
/* Free anonymous blocks: `full` of them go to the LRU as one batch, the
 * `partial` ones (never cached) straight back to the free pool. */
void kvc_put_anon(struct kvc *c, int32_t full, int32_t partial);
/* Double the table (kvc_register's slow path). */
void kvc_table_grow(struct kvc *c);
/* Register a full named block's content; no-op if caching is off or the
 * content is already cached in another block. */
static inline void kvc_register(struct kvc *c, int32_t b, uint64_t h)
{
	uint32_t i;

	if (!c->caching || c->blk[b].hash || !h)
		return;
	if (c->tcount >= c->tgrow)
		kvc_table_grow(c);
	i = kvc_slot_of(c, h);
	while (c->tab[i].key) {
		if (c->tab[i].key == h)
			return; /* same content already cached elsewhere */
		i = (i + 1) & c->tmask;
	}
	c->tab[i].key = h;
	c->tab[i].val = b;
	c->tcount++;
	c->registered++;
	c->blk[b].hash = h;
}
/* Give a held anonymous block a name (reference 1) so it can be registered. */
int32_t kvc_name_anon(struct kvc *c);
/* n held anonymous blocks named and registered with contents h[0, n)
 * (kvc_name_anon then kvc_register, block by block), names into out. */
void kvc_publish_anon(struct kvc *c, int32_t *out, const uint64_t *h, int32_t n);
/* Watch block b (a cached block) as position pos of a chain; unwatch it. */
static inline void kvc_watch(struct kvc *c, int32_t b, int32_t pos)
{
	c->nwatched += c->watch[b] < 0;
	c->watch[b] = pos;
}
static inline void kvc_unwatch(struct kvc *c, int32_t b, int32_t pos)
{
	if (c->watch[b] == pos) {
		c->watch[b] = -1;
		c->nwatched--;
	}
}
/* Consistency check for tests: counts, LRU list, table contents. */
bool kvc_check(const struct kvc *c, char *why, int n);

#endif
