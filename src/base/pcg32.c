/* pcg32.c - PCG-XSH-RR generator; constants from the reference implementation
 * (pcg-random.org, pcg_basic.c), written here from the published algorithm. */
#include "base/pcg32.h"

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
