/* pcg32.c - PCG-XSH-RR generator; constants from the reference implementation
 * (pcg-random.org, pcg_basic.c), written here from the published algorithm. */
#include "servesim/pcg32.h"

#define PCG32_MULT 6364136223846793005ULL

uint32_t pcg32_next(struct pcg32 *r)
{
	uint64_t old = r->state;
	uint32_t xorshifted, rot;

	r->state = old * PCG32_MULT + r->inc;
	xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
	rot = (uint32_t)(old >> 59u);
	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

void pcg32_seed(struct pcg32 *r, uint64_t initstate, uint64_t stream)
{
	r->state = 0;
	r->inc = (stream << 1u) | 1u;
	pcg32_next(r);
	r->state += initstate;
	pcg32_next(r);
}

uint32_t pcg32_bounded(struct pcg32 *r, uint32_t bound)
{
	uint32_t threshold = (-bound) % bound;

	for (;;) {
		uint32_t x = pcg32_next(r);
		if (x >= threshold)
			return x % bound;
	}
}

double pcg32_double(struct pcg32 *r)
{
	uint64_t hi = pcg32_next(r) >> 5;  /* 27 bits */
	uint64_t lo = pcg32_next(r) >> 6;  /* 26 bits */
	return (double)((hi << 26) | lo) * (1.0 / 9007199254740992.0);
}
