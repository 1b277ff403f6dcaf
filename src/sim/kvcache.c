/* kvcache.c - block pool with a prefix cache.  All storage is allocated at
 * init; allocation, lookup and release are O(1) (the table is a linear-probe
 * hash at load <= 1/2 with backward-shift deletion; the LRU order of free
 * cached blocks is a FIFO ring with lazy removal, which touches memory
 * sequentially where a linked list would miss the cache on every link). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/kvcache.h"

void kvc_init(struct kvc *c, int32_t blocks, bool caching)
{
	uint32_t cap = 16;
	int32_t i;

	memset(c, 0, sizeof(*c));
	c->total = blocks;
	c->caching = caching;
	c->free_stack = xcalloc((size_t)blocks + 1, sizeof(int32_t));
	c->blk = xcalloc((size_t)blocks + 1, sizeof(struct kvb));
	c->ring_cap = (size_t)blocks * 2 + 16;
	c->ring_blk = xcalloc(c->ring_cap, sizeof(int32_t));
	c->ring_stamp = xcalloc(c->ring_cap, sizeof(uint32_t));
	/* pop order 0, 1, 2, ... */
	for (i = 0; i < blocks; i++)
		c->free_stack[i] = blocks - 1 - i;
	c->nfree = blocks;
	while (cap < (uint32_t)blocks * 2u + 2u)
		cap <<= 1;
	c->tkeys = xcalloc(cap, sizeof(uint64_t));
	c->tvals = xcalloc(cap, sizeof(int32_t));
	c->tmask = cap - 1;
}

void kvc_release(struct kvc *c)
{
	free(c->free_stack);
	free(c->blk);
	free(c->ring_blk);
	free(c->ring_stamp);
	free(c->tkeys);
	free(c->tvals);
	memset(c, 0, sizeof(*c));
}

static uint32_t slot_of(const struct kvc *c, uint64_t h)
{
	return (uint32_t)(h ^ (h >> 29)) & c->tmask;
}

int32_t kvc_lookup(const struct kvc *c, uint64_t h)
{
	uint32_t i = slot_of(c, h);

	while (c->tkeys[i]) {
		if (c->tkeys[i] == h)
			return c->tvals[i];
		i = (i + 1) & c->tmask;
	}
	return -1;
}

static void table_del(struct kvc *c, uint64_t h)
{
	uint32_t i = slot_of(c, h), j, k;

	while (c->tkeys[i] && c->tkeys[i] != h)
		i = (i + 1) & c->tmask;
	if (!c->tkeys[i])
		return;
	c->tkeys[i] = 0;
	c->tcount--;
	/* backward-shift the cluster after the hole */
	j = i;
	for (;;) {
		j = (j + 1) & c->tmask;
		if (!c->tkeys[j])
			break;
		k = slot_of(c, c->tkeys[j]);
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			c->tkeys[i] = c->tkeys[j];
			c->tvals[i] = c->tvals[j];
			c->tkeys[j] = 0;
			i = j;
		}
	}
}

static bool ring_live(const struct kvc *c, size_t i)
{
	const struct kvb *k = &c->blk[c->ring_blk[i]];
	return k->ref == 0 && k->hash && k->stamp == c->ring_stamp[i];
}

/* Drop stale entries: keeps the ring within its capacity. */
static void ring_compact(struct kvc *c)
{
	size_t i, j = 0;

	for (i = 0; i < c->ring_len; i++) {
		size_t k = (c->ring_head + i) % c->ring_cap;
		if (ring_live(c, k)) {
			int32_t b = c->ring_blk[k];
			uint32_t st = c->ring_stamp[k];
			size_t d = (c->ring_head + j) % c->ring_cap;
			c->ring_blk[d] = b;
			c->ring_stamp[d] = st;
			j++;
		}
	}
	c->ring_len = j;
}

static void lru_append(struct kvc *c, int32_t b)
{
	size_t k;

	if (c->ring_len == c->ring_cap)
		ring_compact(c);
	k = (c->ring_head + c->ring_len) % c->ring_cap;
	c->ring_blk[k] = b;
	c->ring_stamp[k] = ++c->blk[b].stamp;
	c->ring_len++;
	c->nevict++;
}

/* Oldest live evictable block, removed from the ring; -1 if none. */
static int32_t lru_pop(struct kvc *c)
{
	while (c->ring_len > 0) {
		size_t k = c->ring_head;
		bool live = ring_live(c, k);
		int32_t b = c->ring_blk[k];
		c->ring_head = (c->ring_head + 1) % c->ring_cap;
		c->ring_len--;
		if (live) {
			c->blk[b].stamp++;
			c->nevict--;
			return b;
		}
	}
	return -1;
}

int32_t kvc_alloc(struct kvc *c)
{
	int32_t b;

	if (c->nfree > 0) {
		b = c->free_stack[--c->nfree];
	} else {
		b = lru_pop(c);
		if (b < 0)
			return -1;
		if (c->blk[b].hash != KVC_PRIVATE)
			table_del(c, c->blk[b].hash);
		c->blk[b].hash = 0;
		c->evictions++;
	}
	c->blk[b].ref = 1;
	return b;
}

int32_t kvc_alloc_private(struct kvc *c)
{
	int32_t b = kvc_alloc(c);

	if (b >= 0 && c->caching)
		c->blk[b].hash = KVC_PRIVATE;
	return b;
}

void kvc_acquire(struct kvc *c, int32_t b)
{
	if (c->blk[b].ref == 0) {
		c->blk[b].stamp++; /* its ring entry goes stale */
		c->nevict--;
	}
	c->blk[b].ref++;
}

void kvc_put(struct kvc *c, int32_t b)
{
	if (--c->blk[b].ref > 0)
		return;
	if (c->blk[b].hash)
		lru_append(c, b);
	else
		c->free_stack[c->nfree++] = b;
}

void kvc_register(struct kvc *c, int32_t b, uint64_t h)
{
	uint32_t i;

	if (!c->caching || c->blk[b].hash || !h)
		return;
	i = slot_of(c, h);
	while (c->tkeys[i]) {
		if (c->tkeys[i] == h)
			return; /* same content already cached elsewhere */
		i = (i + 1) & c->tmask;
	}
	c->tkeys[i] = h;
	c->tvals[i] = b;
	c->tcount++;
	c->blk[b].hash = h;
}

void kvc_mark_private(struct kvc *c, int32_t b)
{
	if (c->caching && !c->blk[b].hash)
		c->blk[b].hash = KVC_PRIVATE;
}

void kvc_publish(struct kvc *c, int32_t b, uint64_t h)
{
	if (c->blk[b].hash != KVC_PRIVATE)
		return;
	c->blk[b].hash = 0;
	kvc_register(c, b, h);
	if (!c->blk[b].hash) /* same content cached elsewhere: stay private */
		c->blk[b].hash = KVC_PRIVATE;
}

bool kvc_check(const struct kvc *c, char *why, int n)
{
	int32_t b, cnt = 0, used = 0, hashed = 0;
	size_t i;

	for (i = 0; i < c->ring_len; i++)
		cnt += ring_live(c, (c->ring_head + i) % c->ring_cap);
	if (cnt != c->nevict) {
		snprintf(why, (size_t)n, "LRU ring holds %d live blocks, counter says %d", cnt, c->nevict);
		return false;
	}
	for (b = 0; b < c->total; b++) {
		used += c->blk[b].ref > 0;
		if (c->blk[b].hash && c->blk[b].hash != KVC_PRIVATE) {
			hashed++;
			if (kvc_lookup(c, c->blk[b].hash) != b) {
				snprintf(why, (size_t)n, "block %d hash not found in the table", b);
				return false;
			}
		}
	}
	if (used + c->nfree + c->nevict != c->total) {
		snprintf(why, (size_t)n, "blocks used %d + free %d + evictable %d != total %d", used,
			 c->nfree, c->nevict, c->total);
		return false;
	}
	if (hashed != c->tcount) {
		snprintf(why, (size_t)n, "%d hashed blocks, table holds %d", hashed, c->tcount);
		return false;
	}
	return true;
}
