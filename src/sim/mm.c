/* mm.c - image inputs in the simulated engine (sim.h, sim_cfg.mm): the
 * encoder cache, the encoder's budget per step and its time on the step.
 *
 * vLLM v1 (v1/core/sched/scheduler.py _try_schedule_encoder_inputs, and
 * v1/core/encoder_cache_manager.py): a request's multimodal inputs are
 * encoded in the step whose prefill chunk first reaches them, within an
 * encoder compute budget and an encoder cache, both of
 * max(max_num_batched_tokens, the largest item's tokens) tokens
 * (SchedulerConfig: max_num_encoder_input_tokens = encoder_cache_size =
 * max_num_batched_tokens; compute_mm_encoder_budget); an input whose
 * budget is spent is left to a later step (the chunk stops before it).
 * Cached outputs are keyed by the item's content hash (mm_hash): an
 * item a running or recent request encoded is not encoded again while
 * the cache holds it; unreferenced entries are evicted as room is needed.
 * Here: every image starts the request's own tokens, so its encoding goes
 * with its first chunk; the cache is LRU over whole images; an image is
 * referenced only by the step that encodes it (the chunk that follows
 * reads its embeddings at once). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "cost/vision.h"
#include "core.h"

void mm_cache_init(struct mm_rep *M, int64_t mbt, int64_t image_tokens)
{
	int64_t per;
	size_t i;

	memset(M, 0, sizeof(*M));
	/* the compute budget and the cache: max(max_num_batched_tokens, the
	 * image's tokens) each, in whole images */
	M->budget = mbt > image_tokens ? mbt : image_tokens;
	per = M->budget / image_tokens;
	M->cap = (size_t)per;
	M->ids = xcalloc(M->cap, sizeof(int64_t));
	M->used = xcalloc(M->cap, sizeof(int64_t));
	/* a step encodes at most the budget's images, or one request's
	 * (admitted into an empty budget) */
	M->enc_n = (size_t)(per > WL_MAX_IMAGES ? per : WL_MAX_IMAGES);
	M->enc_s = xcalloc(M->enc_n + 1, sizeof(double));
	for (i = 0; i <= M->enc_n; i++)
		M->enc_s[i] = NAN;
}

void mm_cache_release(struct mm_rep *M)
{
	free(M->ids);
	free(M->used);
	free(M->enc_s);
	memset(M, 0, sizeof(*M));
}

void mm_replica_init(struct sim *s, struct replica *rp)
{
	mm_cache_init(&rp->mm, rp->mbt, s->cfg.mm.image_tokens);
}

void mm_replica_release(struct replica *rp)
{
	mm_cache_release(&rp->mm);
}

/* The slot of image id in the cache, -1 when absent. */
static ptrdiff_t cache_find(const struct mm_rep *M, int64_t id)
{
	size_t i;

	for (i = 0; i < M->n; i++)
		if (M->ids[i] == id)
			return (ptrdiff_t)i;
	return -1;
}

int32_t mm_misses(const struct mm_rep *M, int32_t images, int64_t image_id, uint64_t image_new)
{
	int32_t k, n = 0;
	int64_t prev = -1;

	for (k = 0; k < images; k++) {
		int64_t id = wl_image_id(image_id, image_new, k);
		if (id != prev && cache_find(M, id) < 0)
			n++;
		prev = id;
	}
	return n;
}

bool mm_fits(const struct sim *s, const struct replica *rp, const struct req *r)
{
	return rp->mm.pending == 0 ||
	       (int64_t)(rp->mm.pending + mm_misses(&rp->mm, r->images, r->image_id, r->image_new)) *
			       s->cfg.mm.image_tokens <= rp->mm.budget;
}

int32_t mm_take(struct sim *s, struct mm_rep *M, int32_t images, int64_t image_id, uint64_t image_new)
{
	int32_t k, n = 0;

	for (k = 0; k < images; k++) {
		int64_t id = wl_image_id(image_id, image_new, k);
		ptrdiff_t at = cache_find(M, id);
		size_t i, lru;
		s->tot.mm_images++;
		if (at >= 0) {
			M->used[at] = ++M->clock;
			s->tot.mm_cache_hits++;
			continue;
		}
		if (M->n < M->cap) {
			lru = M->n++;
		} else {
			for (lru = 0, i = 1; i < M->n; i++)
				if (M->used[i] < M->used[lru])
					lru = i;
		}
		M->ids[lru] = id;
		M->used[lru] = ++M->clock;
		n++;
		s->tot.mm_encoded++;
	}
	return n;
}

void mm_admit(struct sim *s, struct replica *rp, struct req *r)
{
	rp->mm.pending += mm_take(s, &rp->mm, r->images, r->image_id, r->image_new);
	r->mm_done = true;
}

double mm_encode_s(struct sim *s, struct mm_rep *M, const struct cost_model *c, int32_t images)
{
	size_t n = (size_t)images;
	double u;

	if (n <= M->enc_n) {
		if (isnan(M->enc_s[n]))
			M->enc_s[n] = cost_vision_s(c, (int64_t)n, s->cfg.mm.patches, &s->cfg.mm.win);
		u = M->enc_s[n];
	} else {
		u = cost_vision_s(c, (int64_t)n, s->cfg.mm.patches, &s->cfg.mm.win);
	}
	s->tot.mm_encoder_s += u;
	return u;
}

double mm_step_s(struct sim *s, struct replica *rp, double t)
{
	double u = mm_encode_s(s, &rp->mm, rp->cost, rp->mm.pending);

	rp->mm.pending = 0;
	return t + u;
}
