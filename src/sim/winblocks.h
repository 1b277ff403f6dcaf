/* winblocks.h - the sliding-window KV group that shares the block pool
 * with the full-attention layers (vLLM's hybrid KV cache manager, v1
 * engine 0.10+: sim_cfg.kv_window).
 *
 * vLLM groups gpt-oss's 18 full and 18 sliding-window layers into one full
 * group and kv_window.groups sliding groups whose pages are all blocks of
 * one pool (kv_cache_utils.py, the uniform-page-size hybrid config).  A
 * request's sliding group allocates blocks as its full group does (one per
 * block_size tokens scheduled) and frees, at each allocate_slots before it
 * counts what to allocate, the blocks wholly before token computed -
 * window + 1 (SlidingWindowManager.remove_skipped_blocks,
 * single_type_kv_cache_manager.py): a decoding request holds about
 * window / block_size + 1 of them, a prefill chunk of n tokens n /
 * block_size more until its next step.  Here r->nwin counts them, in the
 * simulator's blocks (each is `groups` of the pool's); they are
 * anonymous (never looked up: a prefix hit's window blocks are taken
 * anew, at most window / block_size + 1 of them).  A lazy decoder's
 * count stays what it was when it joined (dec_join: its window's blocks
 * after its next token's allocate_slots, where the pool has them), which
 * vLLM holds at every step but the one between a block's leaving the
 * window and the crossing that takes the next (`groups` fewer there). */
#ifndef SERVESIM_SIM_WINBLOCKS_H
#define SERVESIM_SIM_WINBLOCKS_H
#include <stdint.h>

#include "core.h"

/* The pool blocks wholly before token computed - window + 1: the ones
 * remove_skipped_blocks has freed once `computed` tokens are. */
static inline int64_t winblk_skipped(const struct sim *s, int64_t computed)
{
	int64_t first = computed - s->cfg.kv_window.tokens + 1;

	return first > 0 ? first / s->cfg.block_size : 0;
}

/* The window blocks r holds once it is scheduled n more tokens (its
 * skipped blocks freed first), in the simulator's blocks. */
static inline int32_t winblk_target(const struct sim *s, const struct req *r, int64_t n)
{
	return (int32_t)((blocks_for(s, r->computed + n) - winblk_skipped(s, r->computed)) *
			 s->cfg.kv_window.groups);
}

/* remove_skipped_blocks for r at its computed tokens: the window blocks
 * before its window back to the pool (never cached: free at once). */
void winblk_skip(const struct sim *s, struct replica *rp, struct req *r);

/* The window blocks r must take for n more tokens once winblk_skip has
 * run (0 when it holds them). */
static inline int32_t winblk_need(const struct sim *s, const struct req *r, int64_t n)
{
	int32_t d = winblk_target(s, r, n) - r->nwin;

	return d > 0 ? d : 0;
}

/* winblk_need as it will be once winblk_skip has run, r untouched (a
 * schedule that sums the step's demand before it takes anything). */
static inline int32_t winblk_need_skipped(const struct sim *s, const struct req *r, int64_t n)
{
	int64_t keep = ((int64_t)blocks_for(s, r->computed) - winblk_skipped(s, r->computed)) * s->cfg.kv_window.groups;
	int64_t held = r->nwin < keep ? r->nwin : (keep > 0 ? keep : 0), d = winblk_target(s, r, n) - held;

	return d > 0 ? (int32_t)d : 0;
}

/* Take k window blocks for r (the caller checked they are available). */
void winblk_take(const struct sim *s, struct replica *rp, struct req *r, int32_t k);

/* All of r's window blocks back to the pool (it leaves or is preempted). */
void winblk_free(const struct sim *s, struct replica *rp, struct req *r);

#endif
