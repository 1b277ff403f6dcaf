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
};

/* n ranks, each with load 0. */
void loadtree_init(struct loadtree *t, int n);
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
/* Rank r's load is load (its path to the root re-decided). */
void loadtree_set(struct loadtree *t, int r, uint64_t load);
/* The rank of least load in [lo, hi) (lo < hi <= n), the lowest of equal
 * ones. */
int loadtree_min(const struct loadtree *t, int lo, int hi);

#endif
