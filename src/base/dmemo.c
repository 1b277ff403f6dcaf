/* dmemo.c - a fixed-size direct-mapped memo of doubles (see dmemo.h). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/dmemo.h"

void dmemo_init(struct dmemo *m, int bits)
{
	m->e = xcalloc((size_t)1 << bits, sizeof(*m->e));
	m->shift = 64 - bits;
	m->mask = ((uint64_t)1 << bits) - 1;
}

void dmemo_release(struct dmemo *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}
