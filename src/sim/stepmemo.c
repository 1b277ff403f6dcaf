/* stepmemo.c - decode-only step prices by exact description (see
 * stepmemo.h): the table's making and the trial that may switch it off. */
#include <stdlib.h>
#include <string.h>

#include "stepmemo.h"

/* The trial: at 4096 lookups (in the small table) at least 1 in 200 must
 * have hit, at 65536 at least 1 in 12.  The ground-truth experiments of
 * inference-perf: 1.2 to 12 % at 4096, 30 to 82 % at 65536, rising as the
 * memo fills; lognormal lengths (the chat bench): 0.2 % and 3 %.  A hit
 * saves about ten times what a lookup costs. */
#define STEPMEMO_TRIAL1 4096u
#define STEPMEMO_TRIAL2 65536u
/* slots: 2^10 during the trial's first part (its memory is cleared at
 * every run: a run whose steps do not repeat pays little), then 2^15 */
#define STEPMEMO_TRIAL_BITS 10
#define STEPMEMO_BITS 15

void stepmemo_init(struct stepmemo *m)
{
	memset(m, 0, sizeof(*m));
}

void stepmemo_release(struct stepmemo *m)
{
	if (m->d.e)
		dmemo_release(&m->d);
	memset(m, 0, sizeof(*m));
}

bool stepmemo_check(struct stepmemo *m)
{
	/* (stepmemo_get has counted the lookup that called it) */
	uint64_t done = m->lookups - 1;

	if (!m->d.e) {
		dmemo_init(&m->d, STEPMEMO_TRIAL_BITS);
		m->check_at = STEPMEMO_TRIAL1;
		return true;
	}
	if ((done == STEPMEMO_TRIAL1 && m->hits * 200 < done) || (done == STEPMEMO_TRIAL2 && m->hits * 12 < done)) {
		m->off = true;
		dmemo_release(&m->d);
		return false;
	}
	if (done == STEPMEMO_TRIAL1) { /* the full table (what the small one kept is dropped) */
		dmemo_release(&m->d);
		dmemo_init(&m->d, STEPMEMO_BITS);
		m->lanes = true;
	}
	m->check_at = done == STEPMEMO_TRIAL1 ? STEPMEMO_TRIAL2 : UINT64_MAX;
	return true;
}
