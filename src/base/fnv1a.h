/* fnv1a.h - FNV-1a, 64 bits (Fowler, Noll and Vo; the offset basis and
 * prime of the published 64-bit parameters): a string's hash that depends
 * on its bytes only. Eval's written-folder look-up (eval/table.c) and the
 * accuracy report's halves (eval/accuracy.c), which chain several strings
 * by passing one call's result as the next one's start. */
#ifndef SERVESIM_FNV1A_H
#define SERVESIM_FNV1A_H
#include <stdint.h>

#define FNV1A64_BASIS 0xcbf29ce484222325ULL

static inline uint64_t fnv1a64(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#endif
