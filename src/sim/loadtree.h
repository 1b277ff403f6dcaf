/* loadtree.h - the least-loaded router's choice without a scan of every
 * rank (loadtree.c): a tournament tree over the engine ranks keyed by
 * (load, rank), so the least-loaded rank of a range, the first of equal
 * ones as the router's scan took it, is found in O(log ranks).  A rank
 * whose load moves is only marked (loadtree_mark, from the waiting queue
 * and running list's updates); its leaf is set at the next choice. */
#ifndef SERVESIM_SIM_LOADTREE_H
#define SERVESIM_SIM_LOADTREE_H
#include <stddef.h>
#include <stdint.h>

struct loadtree {
	int n;            /* ranks (leaves) */
	int size;         /* leaves' base: a power of two >= n */
	int rbits;        /* log2(size): a key's rank bits */
	/* [2 size]: node i's least key, load << rbits | rank (leaves at
	 * size + rank, UINT64_MAX past n) */
	uint64_t *win;
	uint64_t *load;   /* [n] the leaves' loads */
	uint64_t *dirty;  /* [nwords] ranks whose load moved since their leaf was set */
	size_t nwords;
	/* levels (loadtree_init_levels; win NULL): the ranks by load, for
	 * choices over every rank */
	uint64_t *lvl;    /* [nlvl nwords]: level L's words, bit r: rank r's load is L */
	uint32_t *cnt;    /* [nlvl] ranks at each level */
	uint64_t nlvl;    /* levels held */
	uint64_t minl;    /* the least level that holds a rank */
};

/* n ranks, each with load 0. */
void loadtree_init(struct loadtree *t, int n);
/* The same, kept as levels rather than a tree, for a router whose choices
 * are over every rank ([0, n)): a set moves the rank's bit between two
 * levels and the least is the least level's first rank (a range short of
 * every rank is scanned).  The levels grow to the largest load, and past
 * 1 MiB of them the ranks move to the tree (loadtree.c). */
void loadtree_init_levels(struct loadtree *t, int n);
void loadtree_release(struct loadtree *t);

/* Where rank r's mark goes: the word (*word) and bit (*bit) that
 * loadtree_mark sets (a replica keeps them: sim/core.h rank_load_moved). */
void loadtree_mark_at(struct loadtree *t, int r, uint64_t **word, uint64_t *bit);
static inline void loadtree_mark(uint64_t *word, uint64_t bit)
{
	*word |= bit;
}
/* The next marked rank, its mark cleared; -1 when none is left. */
int loadtree_take_marked(struct loadtree *t);
/* The marks of ranks [64 w, 64 w + 64) (bit b: rank 64 w + b), cleared:
 * a router walks a word's marks without a call per rank. */
static inline uint64_t loadtree_take_word(struct loadtree *t, size_t w)
{
	uint64_t m = t->dirty[w];

	t->dirty[w] = 0;
	return m;
}
/* loadtree_set's and loadtree_min's out-of-line parts (the tree, a range
 * scan on levels, the levels grown). */
void loadtree_tree_set(struct loadtree *t, int r, uint64_t load);
int loadtree_tree_min(const struct loadtree *t, int lo, int hi);
void loadtree_levels_grow(struct loadtree *t, uint64_t load);

/* Rank r's load is load (its path to the root re-decided; on levels, its
 * bit moved from its old load's level to load's, the least level moved up
 * past levels left empty: inline, ~20 instructions where a call took ~60). */
static inline void loadtree_set(struct loadtree *t, int r, uint64_t load)
{
	uint64_t old, bit;
	size_t w;

	if (t->win) {
		loadtree_tree_set(t, r, load);
		return;
	}
	if (load >= t->nlvl) {
		loadtree_levels_grow(t, load);
		if (t->win) { /* grown past the levels' memory: the tree */
			loadtree_tree_set(t, r, load);
			return;
		}
	}
	old = t->load[r];
	bit = (uint64_t)1 << (r % 64);
	w = (size_t)r / 64;
	t->load[r] = load;
	t->lvl[old * t->nwords + w] &= ~bit;
	t->cnt[old]--;
	t->lvl[load * t->nwords + w] |= bit;
	t->cnt[load]++;
	if (load < t->minl)
		t->minl = load;
	else
		while (t->cnt[t->minl] == 0)
			t->minl++;
}

/* The rank of least load in [lo, hi) (lo < hi <= n), the lowest of equal
 * ones (on levels over every rank: the least level's first rank). */
static inline int loadtree_min(const struct loadtree *t, int lo, int hi)
{
	const uint64_t *v;
	size_t w;

	if (t->win || lo != 0 || hi != t->n)
		return loadtree_tree_min(t, lo, hi);
	v = t->lvl + t->minl * t->nwords;
	for (w = 0; !v[w]; w++)
		;
	return (int)(w * 64) + __builtin_ctzll(v[w]);
}

#endif
