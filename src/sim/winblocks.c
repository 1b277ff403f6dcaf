/* winblocks.c - the sliding-window group's blocks in the shared pool (see
 * winblocks.h). */
#include "sim/winblocks.h"

void winblk_skip(const struct sim *s, struct replica *rp, struct req *r)
{
	/* what it can still need: the blocks of its computed tokens from the
	 * first its window reaches (allocated ones past them stay) */
	int64_t keep = ((int64_t)blocks_for(s, r->computed) - winblk_skipped(s, r->computed)) *
		       s->cfg.kv_window.groups;

	if (keep < 0)
		keep = 0;
	if (r->nwin > keep) {
		kvc_put_anon(&rp->kv, 0, r->nwin - (int32_t)keep);
		r->nwin = (int32_t)keep;
	}
}

void winblk_take(const struct sim *s, struct replica *rp, struct req *r, int32_t k)
{
	(void)s;
	if (k <= 0)
		return;
	kvc_alloc_anon(&rp->kv, k);
	r->nwin += k;
}

void winblk_free(const struct sim *s, struct replica *rp, struct req *r)
{
	(void)s;
	if (r->nwin > 0)
		kvc_put_anon(&rp->kv, 0, r->nwin);
	r->nwin = 0;
}
