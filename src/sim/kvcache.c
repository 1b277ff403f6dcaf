/* kvcache.c - block pool with a prefix cache.  All storage is allocated at
 * init; allocation, lookup and release are O(1) (the table is a linear-probe
 * hash at load <= 1/2 with backward-shift deletion). */
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
	c->ref = xcalloc((size_t)blocks + 1, sizeof(int32_t));
	c->hash = xcalloc((size_t)blocks + 1, sizeof(uint64_t));
	c->lru_prev = xcalloc((size_t)blocks + 1, sizeof(int32_t));
	c->lru_next = xcalloc((size_t)blocks + 1, sizeof(int32_t));
	/* pop order 0, 1, 2, ... */
	for (i = 0; i < blocks; i++)
		c->free_stack[i] = blocks - 1 - i;
	c->nfree = blocks;
	c->lru_head = c->lru_tail = -1;
	while (cap < (uint32_t)blocks * 2u + 2u)
		cap <<= 1;
	c->tkeys = xcalloc(cap, sizeof(uint64_t));
	c->tvals = xcalloc(cap, sizeof(int32_t));
	c->tmask = cap - 1;
}

void kvc_release(struct kvc *c)
{
	free(c->free_stack);
	free(c->ref);
	free(c->hash);
	free(c->lru_prev);
	free(c->lru_next);
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

static void lru_unlink(struct kvc *c, int32_t b)
{
	int32_t p = c->lru_prev[b], n = c->lru_next[b];

	if (p >= 0)
		c->lru_next[p] = n;
	else
		c->lru_head = n;
	if (n >= 0)
		c->lru_prev[n] = p;
	else
		c->lru_tail = p;
	c->nevict--;
}

static void lru_append(struct kvc *c, int32_t b)
{
	c->lru_prev[b] = c->lru_tail;
	c->lru_next[b] = -1;
	if (c->lru_tail >= 0)
		c->lru_next[c->lru_tail] = b;
	else
		c->lru_head = b;
	c->lru_tail = b;
	c->nevict++;
}

int32_t kvc_alloc(struct kvc *c)
{
	int32_t b;

	if (c->nfree > 0) {
		b = c->free_stack[--c->nfree];
	} else {
		b = c->lru_head;
		if (b < 0)
			return -1;
		lru_unlink(c, b);
		table_del(c, c->hash[b]);
		c->hash[b] = 0;
		c->evictions++;
	}
	c->ref[b] = 1;
	return b;
}

void kvc_acquire(struct kvc *c, int32_t b)
{
	if (c->ref[b] == 0)
		lru_unlink(c, b);
	c->ref[b]++;
}

void kvc_put(struct kvc *c, int32_t b)
{
	if (--c->ref[b] > 0)
		return;
	if (c->hash[b])
		lru_append(c, b);
	else
		c->free_stack[c->nfree++] = b;
}

void kvc_register(struct kvc *c, int32_t b, uint64_t h)
{
	uint32_t i;

	if (!c->caching || c->hash[b] || !h)
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
	c->hash[b] = h;
}

bool kvc_check(const struct kvc *c, char *why, int n)
{
	int32_t b, cnt = 0, used = 0, hashed = 0;

	for (b = c->lru_head; b >= 0; b = c->lru_next[b]) {
		if (c->ref[b] != 0 || !c->hash[b]) {
			snprintf(why, (size_t)n, "evictable block %d has ref %d hash %llu", b, c->ref[b],
				 (unsigned long long)c->hash[b]);
			return false;
		}
		if (++cnt > c->total)
			break;
	}
	if (cnt != c->nevict) {
		snprintf(why, (size_t)n, "LRU list holds %d blocks, counter says %d", cnt, c->nevict);
		return false;
	}
	for (b = 0; b < c->total; b++) {
		used += c->ref[b] > 0;
		if (c->hash[b]) {
			hashed++;
			if (kvc_lookup(c, c->hash[b]) != b) {
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
