/* vllmmem.c - vLLM's memory plan: the profile's sampler run and the hybrid
 * KV pool of models with sliding-window layers (engine_type.plan_memory of
 * vllm.c).
 *
 * The sampler: gpu_model_runner.profile_run runs _dummy_sampler_run after
 * the forward pass, on max_num_seqs dummy requests with temperature, top-k
 * and top-p set, over the full vocabulary's logits on every TP rank (V1
 * all-gathers them: LogitsProcessor, use_all_gather on CUDA).  With
 * FlashInfer installed (a default dependency of vLLM's CUDA build) 0.10 and
 * 0.11.0 sample with FlashInfer's top_k_top_p_sampling_from_logits
 * (topk_topp_sampler.py forward_cuda -> flashinfer_sample): alive at its
 * peak are the model's bf16 logits (2 bytes a logit), the sampler's fp32
 * copy (4), the top-k masked logits (4) and their softmax (4): 14 bytes.
 * The forward pass's term stays memplan_compute's (fitted with its logits
 * term); the peak is the larger (memplan_profile_peak).  Only there: vLLM
 * 0.11.1 (PR 26859, 2025-10-15) turned that sampler off by default, and
 * the later logs of eval/memory show no such peak (Qwen3-32B at TP 2 on an
 * RTX PRO 6000, vLLM 0.27.1: 8.22 GiB of KV logged, 8.14 planned without
 * it, 7.30 with it); what those versions' profile holds for the sampler is
 * not modelled.
 *
 * The hybrid pool: vLLM 0.10+ (v1 HybridKVCacheCoordinator) groups a model
 * of full and sliding-window layers with one page size into groups of
 * min(full, sliding) layers, all of whose pages are blocks of one pool
 * (kv_cache_utils.py, _get_kv_cache_config_uniform_page_size): gpt-oss's
 * 18 + 18 layers are one full group and one sliding group, each block 18
 * layers' page; its log's "GPU KV cache size" is num_blocks // groups x
 * block_size.  No window KV is set aside per sequence: the sliding groups
 * take blocks as requests run and free those that leave the window
 * (sim/winblocks.h).  A layout other than full layers dividing the sliding
 * ones evenly (page sizes equal, no chunked or linear layers, no KV
 * sharing, PP 1) keeps memplan's per-sequence reservation. */
#include <math.h>
#include <stdbool.h>

#include "cost/memplan.h"
#include "engine/registry.h"
#include "engine/scenario.h"
#include "engine/vllm.h"

/* bytes a logit of the profile's sampler run holds at its peak (above) */
#define VLLM_SAMPLER_BYTES_PER_LOGIT 14.0

/* The sliding groups of m's hybrid pool at layout p, 0 when vLLM would
 * not share one pool or servesim does not model the layout (above). */
static int32_t window_groups(const struct scenario *s, const struct parallel *p)
{
	const struct model_cfg *m = s->model;
	int64_t nf = m->n_mixer[LM_FULL], ns = m->n_mixer[LM_SLIDING];
	int i;

	if (ns <= 0 || nf <= 0 || ns < nf || p->pp != 1 || m->attn == ATTN_MLA || m->attn == ATTN_CSA || m->k_eq_v)
		return 0;
	if (m->n_mixer[LM_CHUNKED] > 0 || m->n_mixer[LM_LINEAR] > 0 || m->n_mixer[LM_CSA] > 0 ||
	    m->n_mixer[LM_HCA] > 0)
		return 0;
	for (i = 0; i < LM__COUNT; i++)
		if (m->n_kv_shared[i] > 0)
			return 0;
	if (m->window.kv_heads * (m->window.head_dim + m->window.v_head_dim) !=
	    m->kv_heads * (m->head_dim + m->v_head_dim))
		return 0;
	if (engine_version_before(s->engine_version, "0.10.0"))
		return 0;
	return (int32_t)((ns + nf - 1) / nf);
}

int vllm_plan_memory(const struct scenario *s, const struct parallel *rep, struct scenario_state *st,
		     struct err *e)
{
	int32_t groups = window_groups(s, rep);
	double sampler = (double)s->k.max_num_seqs * (double)s->model->vocab * VLLM_SAMPLER_BYTES_PER_LOGIT;
	bool flashinfer_sampler = !engine_version_before(s->engine_version, "0.10.0") &&
				  engine_version_before(s->engine_version, "0.11.1");
	int rc;

	if (groups > 0) { /* the pool is shared whatever sizes it */
		st->sc.kv_window.tokens = s->model->window.size;
		st->sc.kv_window.groups = groups;
	}
	rc = memplan_compute(s->model, s->gpu, rep, s->wdt, s->kvdt, s->k.gpu_memory_utilization, s->k.block_size,
			     s->k.max_num_batched_tokens, s->k.max_num_seqs, &st->mp, e);
	if (rc < 0)
		return rc;
	if (groups > 0)
		memplan_share_windows(&st->mp, groups);
	return flashinfer_sampler ? memplan_profile_peak(&st->mp, sampler, e) : 0;
}
