/* pcg32.h - PCG-XSH-RR 32-bit generator (O'Neill, "PCG: A Family of Simple
 * Fast Space-Efficient Statistically Good Algorithms for Random Number
 * Generation", 2014).  One stream per source of randomness. */
#ifndef SERVESIM_PCG32_H
#define SERVESIM_PCG32_H
#include <stdint.h>

struct pcg32 {
	uint64_t state;
	uint64_t inc;
};

/* Seed with an initial state and a stream selector (the reference
 * pcg32_srandom_r). */
void pcg32_seed(struct pcg32 *r, uint64_t initstate, uint64_t stream);
/* (Inline, with pcg32_double: the workload and the acceptance draws take
 * one or more per request, a call costing about what the draw does.) */
#define PCG32_MULT 6364136223846793005ULL

/* The output of state (XSH-RR) without stepping: pcg32_next returns that
 * of the state it steps from. */
static inline uint32_t pcg32_output(uint64_t state)
{
	uint32_t xorshifted = (uint32_t)(((state >> 18u) ^ state) >> 27u), rot = (uint32_t)(state >> 59u);

	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

static inline uint32_t pcg32_next(struct pcg32 *r)
{
	uint64_t old = r->state;

	r->state = old * PCG32_MULT + r->inc;
	return pcg32_output(old);
}
/* Step past one output without computing it. */
static inline void pcg32_skip(struct pcg32 *r)
{
	r->state = r->state * PCG32_MULT + r->inc;
}
/* Uniform integer in [0, bound) without modulo bias; bound > 0. */
uint32_t pcg32_bounded(struct pcg32 *r, uint32_t bound);
/* Uniform double in [0, 1) with 53 random bits. */
static inline double pcg32_double(struct pcg32 *r)
{
	uint64_t hi = pcg32_next(r) >> 5; /* 27 bits */
	uint64_t lo = pcg32_next(r) >> 6; /* 26 bits */

	return (double)((hi << 26) | lo) * (1.0 / 9007199254740992.0);
}

#endif
