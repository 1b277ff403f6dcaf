/* kvcache.c - block pool with a prefix cache (see kvcache.h).  Storage
 * grows by doubling with the blocks a run reaches (amortised O(1)) and
 * every operation is O(1): the table is a
 * linear-probe hash at load <= 1/2 with backward-shift deletion; the LRU order
 * of free cached blocks is a doubly linked list (a block taken back by a
 * prefix hit is unlinked, so eviction walks live entries only: with shared
 * prompts most freed blocks are taken back before they are evicted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/kvcache.h"

/* pools of fewer blocks than this get a table at load <= 1/4 (16 MiB of
 * 16-byte slots at most), larger ones <= 1/2 (kvc_init) */
#define KVC_SPARSE_MAX (1 << 18)

/* The table's first size (slots); it doubles up to tcap_max. */
#define KVC_TABLE_START 64u

/* The first size of the per-name and per-batch arrays (kvc_init); they
 * double as names and batch slots are first handed out, up to the pool's
 * size. */
#define KVC_NAMES_START 16

/* The load the table may reach before it doubles: a quarter of its slots
 * (half for a pool past KVC_SPARSE_MAX blocks), as kvc_init sizes the
 * whole pool's table; at that size it never grows. */
static void set_tgrow(struct kvc *c)
{
	uint32_t cap = c->tmask + 1;

	c->tgrow = cap >= c->tcap_max ? INT32_MAX
				      : (int32_t)(c->total < KVC_SPARSE_MAX ? cap / 4 : cap / 2);
}

/* The next capacity of an array by name or batch slot: twice, within
 * the pool (at least 1). */
static int32_t next_cap(const struct kvc *c, int32_t cap)
{
	int32_t n = cap ? (cap > c->total / 2 ? c->total : 2 * cap) : KVC_NAMES_START;

	return n < c->total ? n : c->total > 0 ? c->total : 1;
}

/* Room for the next name (names, blk, watch). */
static void grow_names(struct kvc *c)
{
	c->cap = next_cap(c, c->cap);
	c->names = xreallocarray(c->names, (size_t)c->cap, sizeof(int32_t));
	c->blk = xreallocarray(c->blk, (size_t)c->cap, sizeof(struct kvb));
	c->watch = xreallocarray(c->watch, (size_t)c->cap, sizeof(int32_t));
}

/* Room for the next batch slot (batch, batch_free, blink). */
static void grow_batches(struct kvc *c)
{
	c->bcap = next_cap(c, c->bcap);
	c->batch = xreallocarray(c->batch, (size_t)c->bcap, sizeof(uint32_t));
	c->batch_free = xreallocarray(c->batch_free, (size_t)c->bcap, sizeof(int32_t));
	c->blink = xreallocarray(c->blink, (size_t)c->bcap, sizeof(struct kvc_link));
}

void kvc_table_grow(struct kvc *c)
{
	uint32_t old = c->tmask + 1, cap = 2 * old, i;
	struct kvc_slot *t = c->tab;

	c->tab = xcalloc(cap, sizeof(*c->tab));
	c->tmask = cap - 1;
	for (i = 0; i < old; i++) /* lookups give the same block at any size */
		if (t[i].key) {
			uint32_t j = kvc_slot_of(c, t[i].key);
			while (c->tab[j].key)
				j = (j + 1) & c->tmask;
			c->tab[j] = t[i];
		}
	free(t);
	set_tgrow(c);
}

void kvc_init(struct kvc *c, int32_t blocks, bool caching)
{
	uint32_t cap = 16;

	memset(c, 0, sizeof(*c));
	c->total = blocks;
	c->caching = caching;
	c->nfree = blocks;
	/* names are handed out 0, 1, 2, ... as first needed, and a name's
	 * watch slot is set then: the arrays by name (names, blk, watch) and
	 * by batch slot (batch, batch_free, blink) grow as they are first
	 * handed out (name_take, kvc_put_anon), so that a pool of millions of
	 * blocks (SGLang's one-token pages on a large GPU), or a thousand
	 * replicas' pools, cost memory for the blocks a run reaches only.
	 * Not cleared: a block's record is set when its name is first handed
	 * out (name_take's callers), a node's link when it joins the list, and
	 * only those are read (a cleared array of a few hundred KiB per
	 * simulation was 0.6 % of `eval`'s instructions) */
	c->nnames = 0;
	c->fresh = 0;
	c->cap = 0;
	grow_names(c);
	/* LRU nodes: blocks 0 .. total-1, linked through blk[x].l, then
	 * batches, total + i linked through blink[i] (each live batch holds at
	 * least one of the blocks, so there are never more than `blocks` of
	 * them) */
	c->lru_head = c->lru_tail = -1;
	c->bcap = 0;
	grow_batches(c);
	/* load <= 1/4 (probes, and deletion's backward shifts, mostly end at
	 * the first slot: -5.5 % instructions, -12 % CPU time on the
	 * preemption-heavy Llama-2-7B reasoning experiment of
	 * eval/ground_truth/inference-perf), <= 1/2 for pools so large that
	 * the table would pass 16 MiB (SGLang's one-token pages); lookups give
	 * the same blocks at any size */
	while (cap < (uint32_t)blocks * (blocks < KVC_SPARSE_MAX ? 4u : 2u) + 4u)
		cap <<= 1;
	c->tcap_max = cap;
	cap = cap < KVC_TABLE_START ? cap : KVC_TABLE_START;
	c->tab = xcalloc(cap, sizeof(*c->tab));
	c->tmask = cap - 1;
	set_tgrow(c);
	c->watch_cut = INT32_MAX;
}

void kvc_release(struct kvc *c)
{
	free(c->names);
	free(c->blk);
	free(c->batch);
	free(c->batch_free);
	free(c->blink);
	free(c->tab);
	free(c->watch);
	memset(c, 0, sizeof(*c));
}

static uint32_t slot_of(const struct kvc *c, uint64_t h)
{
	return kvc_slot_of(c, h);
}


static void table_del(struct kvc *c, uint64_t h)
{
	uint32_t i = slot_of(c, h), j, k;

	while (c->tab[i].key && c->tab[i].key != h)
		i = (i + 1) & c->tmask;
	if (!c->tab[i].key)
		return;
	c->tab[i].key = 0;
	c->tcount--;
	/* backward-shift the cluster after the hole */
	j = i;
	for (;;) {
		j = (j + 1) & c->tmask;
		if (!c->tab[j].key)
			break;
		k = slot_of(c, c->tab[j].key);
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			c->tab[i].key = c->tab[j].key;
			c->tab[i].val = c->tab[j].val;
			c->tab[j].key = 0;
			i = j;
		}
	}
}

/* LRU node x: a block's (in its record) or batch x - total's. */
static inline struct kvc_link *lnk(const struct kvc *c, int32_t x)
{
	return x < c->total ? &c->blk[x].l : &c->blink[x - c->total];
}

static inline void lru_append(struct kvc *c, int32_t x)
{
	struct kvc_link *l = lnk(c, x);

	l->prev = c->lru_tail;
	l->next = -1;
	if (c->lru_tail >= 0)
		lnk(c, c->lru_tail)->next = x;
	else
		c->lru_head = x;
	c->lru_tail = x;
}

/* Join p and n on the LRU list (-1: the list's end), cutting out whatever
 * lay between them. */
static inline void lru_cut(struct kvc *c, int32_t p, int32_t n)
{
	if (p >= 0)
		lnk(c, p)->next = n;
	else
		c->lru_head = n;
	if (n >= 0)
		lnk(c, n)->prev = p;
	else
		c->lru_tail = p;
}

static inline void lru_unlink(struct kvc *c, int32_t x)
{
	const struct kvc_link *l = lnk(c, x);

	lru_cut(c, l->prev, l->next);
}

/* Evict up to n of the oldest cached blocks (their memory is about to be
 * reused); returns how many. */
static int32_t evict(struct kvc *c, int32_t n)
{
	int32_t done = 0;

	while (done < n && c->lru_head >= 0) {
		int32_t x = c->lru_head;
		struct kvb *k;
		if (x >= c->total) { /* a batch of anonymous blocks */
			uint32_t *left = &c->batch[x - c->total];
			int32_t m = (int32_t)*left < n - done ? (int32_t)*left : n - done;
			*left -= (uint32_t)m;
			if (c->lower)
				kvc_spill_anon(c->lower, m);
			if (*left == 0) {
				lru_unlink(c, x);
				c->batch_free[c->nbatch_free++] = x - c->total;
			}
			done += m;
			continue;
		}
		k = &c->blk[x];
		lru_unlink(c, x);
		if (c->lower)
			kvc_spill(c->lower, k->hash);
		table_del(c, k->hash);
		k->hash = 0;
		if (c->nwatched > 0 && c->watch[x] >= 0) {
			if (c->watch[x] < c->watch_cut)
				c->watch_cut = c->watch[x];
			c->watch[x] = -1;
			c->nwatched--;
		}
		c->names[c->nnames++] = x;
		done++;
	}
	c->nevict -= done;
	c->evictions += (uint64_t)done;
	return done;
}

/* An unused name: the last one returned, else the next never used. */
static int32_t name_take(struct kvc *c)
{
	int32_t b;

	if (c->nnames > 0)
		return c->names[--c->nnames];
	b = c->fresh++;
	if (b >= c->cap)
		grow_names(c);
	c->watch[b] = -1;
	return b;
}

/* n physical blocks for a new holder: free ones first, then evictions. */
static void take_physical(struct kvc *c, int32_t n)
{
	int32_t f = c->nfree < n ? c->nfree : n;

	c->nfree -= f;
	if (n > f)
		evict(c, n - f);
}

static inline int32_t alloc_named(struct kvc *c)
{
	int32_t b;

	take_physical(c, 1);
	b = name_take(c);
	c->blk[b].ref = 1;
	c->blk[b].hash = 0;
	return b;
}

int32_t kvc_alloc_named(struct kvc *c)
{
	return alloc_named(c);
}

void kvc_alloc_named_n(struct kvc *c, int32_t *out, int32_t n)
{
	int32_t i;

	/* the physical blocks in one go, then the names: the same blocks
	 * evicted in the same order as n single allocations, only the names
	 * (labels that nothing orders by) may be handed out in another order */
	take_physical(c, n);
	for (i = 0; i < n; i++) {
		int32_t b = name_take(c);
		c->blk[b].ref = 1;
		c->blk[b].hash = 0;
		out[i] = b;
	}
}

void kvc_evict_n(struct kvc *c, int32_t n)
{
	evict(c, n);
}

int32_t kvc_name_anon(struct kvc *c)
{
	int32_t b = name_take(c);

	c->anon_used--;
	c->blk[b].ref = 1;
	c->blk[b].hash = 0;
	return b;
}

void kvc_publish_anon(struct kvc *c, int32_t *out, const uint64_t *h, int32_t n)
{
	int32_t i;

	for (i = 0; i < n; i++) {
		out[i] = kvc_name_anon(c);
		kvc_register(c, out[i], h[i]);
	}
}

void kvc_acquire(struct kvc *c, int32_t b)
{
	if (c->blk[b].ref == 0) { /* cached: it leaves the LRU list */
		lru_unlink(c, b);
		c->nevict--;
		c->watch_touched |= c->nwatched > 0 && c->watch[b] >= 0;
	}
	c->blk[b].ref++;
}

/* kvc_put's body, inlined into kvc_put_rev's loop. */
static inline void put_one(struct kvc *c, int32_t b)
{
	struct kvb *k = &c->blk[b];

	if (--k->ref > 0)
		return;
	c->watch_touched |= c->nwatched > 0 && c->watch[b] >= 0;
	if (k->hash) {
		lru_append(c, b);
		c->nevict++;
	} else {
		c->names[c->nnames++] = b;
		c->nfree++;
	}
}

void kvc_put(struct kvc *c, int32_t b)
{
	put_one(c, b);
}

void kvc_acquire_n(struct kvc *c, const int32_t *b, int32_t n)
{
	struct kvb *blk = c->blk;
	int32_t i, taken = 0;

	if (c->nwatched > 0) { /* the watcher hears of every change */
		for (i = 0; i < n; i++)
			kvc_acquire(c, b[i]);
		return;
	}
	/* kvc_acquire's body with nothing watched, the count in a local (a
	 * store to a block's int32_t fields may alias the cache's).  The
	 * cached blocks leave the LRU list a run at a time: kvc_put_rev
	 * appended a request's blocks last first, so a prefix hit's blocks
	 * b[i], b[i + 1], ... are usually neighbours there, each the list's
	 * prev of the one before; such a run is cut out with one relink of
	 * its two outer neighbours, the list afterwards the same as after
	 * one lru_unlink each (roleplay's eval: 40 of a request's 46 blocks
	 * taken from the list, ~35 instructions a block with the unlinks) */
	i = 0;
	while (i < n) {
		struct kvb *k = &blk[b[i]];
		int32_t p, nx;
		if (k->ref > 0) {
			k->ref++;
			i++;
			continue;
		}
		p = k->l.prev;
		nx = k->l.next;
		k->ref = 1;
		taken++;
		/* the run goes on while the next block is its prev in the list
		 * (one there is cached, reference 0, and a named block) */
		while (++i < n && b[i] == p) {
			k = &blk[p];
			p = k->l.prev;
			k->ref = 1;
			taken++;
		}
		lru_cut(c, p, nx);
	}
	c->nevict -= taken;
}

void kvc_put_rev(struct kvc *c, const int32_t *b, int32_t n)
{
	struct kvb *blk = c->blk;
	int32_t cached = 0;

	if (c->nwatched > 0) { /* the watcher hears of every change */
		while (n-- > 0)
			put_one(c, b[n]);
		return;
	}
	/* put_one's body with nothing watched, the count and the list's tail
	 * in locals (stores to blocks, int32_t, may alias the cache's fields):
	 * lru_append's links, each block's `next` written once, by the block
	 * appended after it or at the end */
	{
		int32_t tail = c->lru_tail;
		while (n-- > 0) {
			struct kvb *k = &blk[b[n]];
			int32_t x;
			if (--k->ref > 0)
				continue;
			if (!k->hash) {
				c->names[c->nnames++] = b[n];
				c->nfree++;
				continue;
			}
			x = b[n];
			k->l.prev = tail;
			if (cached > 0) /* the tail one of these: a block, not a batch */
				blk[tail].l.next = x;
			else if (tail >= 0)
				lnk(c, tail)->next = x;
			else
				c->lru_head = x;
			tail = x;
			cached++;
		}
		if (cached > 0) {
			blk[tail].l.next = -1;
			c->lru_tail = tail;
		}
	}
	c->nevict += cached;
}

void kvc_put_anon(struct kvc *c, int32_t full, int32_t partial)
{
	c->anon_used -= full + partial;
	c->nfree += partial;
	if (full <= 0)
		return;
	if (!c->caching) { /* nothing is ever cached */
		c->nfree += full;
		return;
	}
	{
		int32_t slot = c->nbatch_free > 0 ? c->batch_free[--c->nbatch_free] : c->batch_fresh++;
		if (slot >= c->bcap)
			grow_batches(c);
		c->batch[slot] = (uint32_t)full;
		lru_append(c, c->total + slot);
	}
	c->nevict += full;
}

/* The lower tier's blocks are never held: each sits on the LRU list
 * (reference 0) from its write until it is evicted, so a write or a touch
 * is a reference taken and dropped (the block goes to the list's end). */
void kvc_spill(struct kvc *c, uint64_t h)
{
	int32_t b;

	if (c->total <= 0)
		return;
	if ((b = kvc_lookup(c, h)) >= 0) {
		kvc_touch(c, b);
		return;
	}
	b = alloc_named(c);
	kvc_register(c, b, h);
	put_one(c, b);
	c->stored++;
}

void kvc_spill_anon(struct kvc *c, int32_t n)
{
	if (n > c->total)
		n = c->total;
	if (n <= 0)
		return;
	kvc_alloc_anon(c, n);
	kvc_put_anon(c, n, 0);
	c->stored += (uint64_t)n;
}

void kvc_touch(struct kvc *c, int32_t b)
{
	kvc_acquire(c, b);
	put_one(c, b);
}

bool kvc_check(const struct kvc *c, char *why, int n)
{
	int32_t b, named_used = 0, hashed = 0, live = 0, nnamed = 0, listed = 0, evictable = 0;
	int32_t x, prev = -1, steps = 0;

	/* the list: linked both ways, live entries only, ending at the tail */
	for (x = c->lru_head; x >= 0; prev = x, x = lnk(c, x)->next) {
		if (++steps > 2 * c->total + 1 || lnk(c, x)->prev != prev) {
			snprintf(why, (size_t)n, "LRU list broken at node %d", x);
			return false;
		}
		if (x >= c->total) {
			if (c->batch[x - c->total] == 0) {
				snprintf(why, (size_t)n, "LRU list holds an empty batch");
				return false;
			}
			live += (int32_t)c->batch[x - c->total];
		} else if (c->blk[x].ref != 0 || !c->blk[x].hash) {
			snprintf(why, (size_t)n, "LRU list holds block %d (reference %d) that is not evictable", x,
				 c->blk[x].ref);
			return false;
		} else {
			live++;
			listed++;
		}
	}
	if (prev != c->lru_tail) {
		snprintf(why, (size_t)n, "LRU list ends at %d, tail says %d", prev, c->lru_tail);
		return false;
	}
	if (live != c->nevict) {
		snprintf(why, (size_t)n, "LRU list holds %d live blocks, counter says %d", live, c->nevict);
		return false;
	}
	for (b = 0; b < c->fresh; b++) { /* (names never handed out hold nothing) */
		const struct kvb *k = &c->blk[b];
		named_used += k->ref > 0;
		nnamed += k->ref > 0 || k->hash;
		evictable += k->ref == 0 && k->hash;
		if (k->hash) {
			hashed++;
			if (kvc_lookup(c, k->hash) != b) {
				snprintf(why, (size_t)n, "block %d hash not found in the table", b);
				return false;
			}
		}
	}
	if (evictable != listed) {
		snprintf(why, (size_t)n, "%d evictable named blocks, %d on the LRU list", evictable, listed);
		return false;
	}
	if (named_used + c->anon_used + c->nfree + c->nevict != c->total) {
		snprintf(why, (size_t)n, "blocks named %d + anonymous %d + free %d + evictable %d != total %d",
			 named_used, c->anon_used, c->nfree, c->nevict, c->total);
		return false;
	}
	if (nnamed + c->nnames + (c->total - c->fresh) != c->total) {
		snprintf(why, (size_t)n, "%d names in use + %d returned + %d never used != %d", nnamed, c->nnames,
			 c->total - c->fresh, c->total);
		return false;
	}
	/* only names handed out have a watch slot (name_take sets it) */
	for (b = 0, live = 0; b < c->fresh; b++)
		live += c->watch[b] >= 0;
	if (live != c->nwatched) {
		snprintf(why, (size_t)n, "%d watched blocks, counter says %d", live, c->nwatched);
		return false;
	}
	if (hashed != c->tcount) {
		snprintf(why, (size_t)n, "%d hashed blocks, table holds %d", hashed, c->tcount);
		return false;
	}
	return true;
}

int32_t kvc_cached_prefix(const struct kvc *c, const uint64_t *h, int32_t n)
{
	int32_t i;

	if (!c->caching)
		return 0;
	for (i = 0; i < n && kvc_lookup(c, h[i]) >= 0; i++)
		;
	return i;
}
