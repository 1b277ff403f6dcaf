/* mix64.h - splitmix64's finaliser (Steele, Lea and Flood's SplitMix64
 * output function): every bit of the word moves every bit of the result.
 * The hash of the prefix cache's block chains (sim/prefix.c), the decode
 * memo's run starts (sim/stepmemo.h) and eval's simulation keys
 * (eval/simkey.c). */
#ifndef SERVESIM_MIX64_H
#define SERVESIM_MIX64_H
#include <stdint.h>

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

#endif
