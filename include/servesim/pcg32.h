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
uint32_t pcg32_next(struct pcg32 *r);
/* Uniform integer in [0, bound) without modulo bias; bound > 0. */
uint32_t pcg32_bounded(struct pcg32 *r, uint32_t bound);
/* Uniform double in [0, 1) with 53 random bits. */
double pcg32_double(struct pcg32 *r);

#endif
