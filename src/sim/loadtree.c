/* loadtree.c - the least-loaded router's tournament tree (loadtree.h).
 *
 * A least-loaded choice used to sum every candidate rank's running,
 * waiting and inbox counts at every arrival: 64 replica records read (one
 * cache miss or more each) for DP 64, a fifth of such a run's
 * instructions.  The tree keeps each internal node's winner, the lesser
 * of its children's by (load, rank); a range's least is the least of the
 * O(log n) nodes that cover it, and since ranks break ties, the order the
 * nodes are visited in does not matter: the answer is the scan's, the
 * first of the least loaded. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/loadtree.h"

/* A rank's key: its load above its rank's bits, so that the lesser key is
 * the lesser (load, rank) -- one comparison, no branch (a tree's node held
 * the rank and each comparison read both ranks' loads: 108 instructions a
 * set at DP 64); past n, none (the largest key). */
static inline uint64_t key_of(const struct loadtree *t, int r, uint64_t load)
{
	return load << t->rbits | (uint64_t)r;
}

static inline uint64_t lesser(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The tree over the ranks' loads as they stand (t->n, t->load). */
static void tree_build(struct loadtree *t)
{
	int i;

	t->size = 1;
	t->rbits = 0;
	while (t->size < t->n) {
		t->size *= 2;
		t->rbits++;
	}
	t->win = xmalloc(xmul(2 * (size_t)t->size, sizeof(*t->win)));
	for (i = 0; i < t->size; i++)
		t->win[t->size + i] = i < t->n ? key_of(t, i, t->load[i]) : UINT64_MAX;
	for (i = t->size - 1; i >= 1; i--)
		t->win[i] = lesser(t->win[2 * i], t->win[2 * i + 1]);
	t->win[0] = UINT64_MAX;
}

/* n ranks at load 0, none marked: what the tree and the levels share. */
static void ranks_at_zero(struct loadtree *t, int n)
{
	memset(t, 0, sizeof(*t));
	t->n = n;
	t->load = xcalloc((size_t)n, sizeof(*t->load));
	t->nwords = ((size_t)n + 63) / 64;
	t->dirty = xcalloc(t->nwords, sizeof(*t->dirty));
}

void loadtree_init(struct loadtree *t, int n)
{
	ranks_at_zero(t, n);
	tree_build(t);
}

void loadtree_init_levels(struct loadtree *t, int n)
{
	ranks_at_zero(t, n);
	t->nlvl = 16;
	t->lvl = xcalloc(xmul((size_t)t->nlvl, t->nwords), sizeof(*t->lvl));
	t->cnt = xcalloc((size_t)t->nlvl, sizeof(*t->cnt));
	/* every rank at level 0 */
	for (size_t w = 0; w < t->nwords; w++)
		t->lvl[w] = (size_t)n - 64 * w >= 64 ? UINT64_MAX : ((uint64_t)1 << ((size_t)n - 64 * w)) - 1;
	t->cnt[0] = (uint32_t)n;
}

/* The levels' memory is one word per 64 ranks and a count per level up to
 * the largest load; an overloaded run's queues (hundreds of thousands of
 * requests a rank) would make that tens of MiB, so past LEVELS_MAX_BYTES
 * the ranks move to the tree (whose memory does not grow with the load):
 * the same choices, as both give the first of the least loaded. */
#define LEVELS_MAX_BYTES ((size_t)1 << 20)

void loadtree_levels_grow(struct loadtree *t, uint64_t load)
{
	uint64_t want = t->nlvl;

	while (want <= load)
		want *= 2;
	if (want > LEVELS_MAX_BYTES / (t->nwords * sizeof(*t->lvl) + sizeof(*t->cnt))) {
		free(t->lvl);
		free(t->cnt);
		t->lvl = NULL;
		t->cnt = NULL;
		t->nlvl = 0;
		t->minl = 0;
		tree_build(t);
		return;
	}
	t->lvl = xrealloc(t->lvl, xmul(xmul((size_t)want, t->nwords), sizeof(*t->lvl)));
	t->cnt = xrealloc(t->cnt, xmul((size_t)want, sizeof(*t->cnt)));
	memset(t->lvl + t->nlvl * t->nwords, 0, (size_t)(want - t->nlvl) * t->nwords * sizeof(*t->lvl));
	memset(t->cnt + t->nlvl, 0, (size_t)(want - t->nlvl) * sizeof(*t->cnt));
	t->nlvl = want;
}

/* loadtree_min on levels over a range short of every rank: a scan. */
static int levels_min(const struct loadtree *t, int lo, int hi)
{
	uint64_t best;
	int r, br;

	best = t->load[lo];
	br = lo;
	for (r = lo + 1; r < hi; r++)
		if (t->load[r] < best) {
			best = t->load[r];
			br = r;
		}
	return br;
}

void loadtree_release(struct loadtree *t)
{
	free(t->lvl);
	free(t->cnt);
	free(t->win);
	free(t->load);
	free(t->dirty);
	memset(t, 0, sizeof(*t));
}

void loadtree_mark_at(struct loadtree *t, int r, uint64_t **word, uint64_t *bit)
{
	*word = &t->dirty[(size_t)r / 64];
	*bit = (uint64_t)1 << (r % 64);
}

int loadtree_take_marked(struct loadtree *t)
{
	size_t w;

	for (w = 0; w < t->nwords; w++)
		if (t->dirty[w]) {
			int b = __builtin_ctzll(t->dirty[w]);
			t->dirty[w] &= t->dirty[w] - 1;
			return (int)(w * 64) + b;
		}
	return -1;
}

void loadtree_tree_set(struct loadtree *t, int r, uint64_t load)
{
	size_t i = (size_t)t->size + (size_t)r;

	/* (a load is a count of requests: far below 2^(64 - rbits)) */
	assert(load <= UINT64_MAX >> t->rbits >> 1);
	uint64_t k = key_of(t, r, load);

	t->load[r] = load;
	t->win[i] = k;
	/* up to the root, the lesser of the path's key and its sibling's (a
	 * set seldom stops early: the router's pick, the root's rank, takes
	 * the arrival, and its new key runs up the whole path) */
	for (; i > 1; i /= 2) {
		k = lesser(k, t->win[i ^ 1]);
		t->win[i / 2] = k;
	}
}

int loadtree_tree_min(const struct loadtree *t, int lo, int hi)
{
	size_t l = (size_t)t->size + (size_t)lo, h = (size_t)t->size + (size_t)hi;
	uint64_t best = UINT64_MAX;

	if (!t->win)
		return levels_min(t, lo, hi);
	if (lo == 0 && hi == t->n) /* every rank (the router's usual range): the root's */
		return (int)(t->win[1] & (((uint64_t)1 << t->rbits) - 1));
	for (; l < h; l /= 2, h /= 2) {
		if (l & 1)
			best = lesser(best, t->win[l++]);
		if (h & 1)
			best = lesser(best, t->win[--h]);
	}
	return (int)(best & (((uint64_t)1 << t->rbits) - 1));
}
