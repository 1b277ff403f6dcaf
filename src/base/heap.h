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
 * h[0, n) at the hole 0 (its callers took the top and shrank the heap). */
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
		const T *e = &h[n];                                              \
		size_t i = 0;                                                    \
		for (;;) {                                                       \
			size_t l = 2 * i + 1, m = i;                             \
			const T *best = e;                                       \
			if (l < n && before(&h[l], best)) {                      \
				m = l;                                           \
				best = &h[l];                                    \
			}                                                        \
			if (l + 1 < n && before(&h[l + 1], best))                \
				m = l + 1;                                       \
			if (m == i)                                              \
				break;                                           \
			h[i] = h[m];                                             \
			i = m;                                                   \
		}                                                                \
		if (n > 0)                                                       \
			h[i] = *e;                                               \
	}

#endif
