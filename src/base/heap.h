/* heap.h - the two sifts of a binary min-heap in an array, for any element
 * type: HEAP_SIFT_DEFINE(name, T, before) defines name_sift_up and
 * name_sift_down, static inline so that each heap (the event queue, a
 * replica's decoder completions) compiles to its own loop with its own
 * comparison, as if written out.  before(a, b) (const T *) is true when a
 * pops first; ties must be broken (by a sequence number) for a total
 * order, so the heap's pops do not depend on its layout. */
#ifndef SERVESIM_BASE_HEAP_H
#define SERVESIM_BASE_HEAP_H
#include <stddef.h>

/* name_sift_up(h, i, e): e placed in the heap h[0, i] at the hole i (its
 * callers have grown the heap by one there).
 * name_sift_down(h, n): h[n], the old last element, placed in the heap
 * h[0, n) at the hole 0 (its callers took the top and shrank the heap):
 * the hole goes down to a leaf along the lesser children, one comparison
 * a level, and the element rises from there (Floyd's bottom-up sift: the
 * last element is most often a late one, which rises a level or none,
 * where the top-down sift compared it with both children at every level).
 * The heap's layout differs from the top-down sift's; its pops do not. */
#define HEAP_SIFT_DEFINE(name, T, before)                                        \
	static inline void name##_sift_up(T *h, size_t i, T e)                   \
	{                                                                        \
		while (i > 0) {                                                  \
			size_t p = (i - 1) / 2;                                  \
			if (!before(&e, &h[p]))                                  \
				break;                                           \
			h[i] = h[p];                                             \
			i = p;                                                   \
		}                                                                \
		h[i] = e;                                                        \
	}                                                                        \
	static inline void name##_sift_down(T *h, size_t n)                      \
	{                                                                        \
		/* (byte offsets: a child's is 2 o + sizeof(T), one add, where   \
		 * an index's element took a multiply or two leas a level) */    \
		char *b = (char *)h;                                             \
		const size_t z = sizeof(T), end = n * sizeof(T);                 \
		size_t o = 0, c, i;                                              \
		T e;                                                             \
		if (n == 0)                                                      \
			return;                                                  \
		e = h[n];                                                        \
		/* c: o's left child; both children there, then a lone left     \
		 * child at the array's end */                                   \
		for (c = z; c + z < end; c = 2 * c + z) {                        \
			/* (the lesser child by arithmetic, not a branch: which \
			 * child is lesser is a coin toss, and a mispredicted   \
			 * branch a level was most of a pop's time) */          \
			c += z & ((size_t)0 - (size_t)(before((T *)(b + c + z), (T *)(b + c)) != 0)); \
			*(T *)(b + o) = *(T *)(b + c);                           \
			o = c;                                                   \
		}                                                                \
		if (c < end) {                                                   \
			*(T *)(b + o) = *(T *)(b + c);                           \
			o = c;                                                   \
		}                                                                \
		for (i = o / z; i > 0;) {                                        \
			size_t p = (i - 1) / 2;                                  \
			if (!before(&e, &h[p]))                                  \
				break;                                           \
			h[i] = h[p];                                             \
			i = p;                                                   \
		}                                                                \
		h[i] = e;                                                        \
	}

#endif
