/* memplan.c - KV-cache capacity from the memory plan (see memplan.h). */
#include <math.h>
#include <string.h>

#include "cost/memplan.h"

/* At most MEMPLAN_STATE_MAX_SHARE of kv_bytes for the per-sequence state:
 * state_seqs lowered to what fits, state_bytes counted again. */
static void cap_state(struct memplan *o)
{
	if (o->state_bytes_per_seq > 0 && o->kv_bytes > 0) {
		double cap = floor(o->kv_bytes * MEMPLAN_STATE_MAX_SHARE / o->state_bytes_per_seq);
		if ((double)o->state_seqs > cap)
			o->state_seqs = (int64_t)cap;
		o->state_bytes = (double)o->state_seqs * o->state_bytes_per_seq;
	}
}

/* The blocks kv_bytes holds beside the state. */
static void count_blocks(struct memplan *o)
{
	o->blocks = o->kv_bytes - o->state_bytes > 0 ? (int64_t)floor((o->kv_bytes - o->state_bytes) / o->block_bytes)
						     : 0;
}

/* The part both plans share: per-sequence state, block count and the
 * refusals, once budget, weights, activations and reserve are set. */
static int plan_finish(const struct model_cfg *m, const struct gpu_spec *g,
		       const struct parallel *p, enum dtype kvdt, double util, int64_t block_size,
		       int64_t max_seqs, const char *flag, struct memplan *o, struct err *e)
{
	o->kv_bytes = o->budget_bytes - o->weight_bytes - o->activation_bytes - o->reserve_bytes;
	o->block_bytes = model_kv_bytes_per_token_per_gpu(m, p, dtype_bytes(kvdt)) * (double)block_size;
	o->state_bytes_per_seq = model_state_bytes_per_seq_per_gpu(m, p, dtype_bytes(kvdt));
	o->state_seqs = max_seqs;
	cap_state(o);
	if (o->block_bytes <= 0)
		return err_set(e, SS_EDATA,
			       "%s has no full-attention layer: the paged KV cache needs one (not modelled)",
			       m->id);
	if (o->weight_bytes > o->budget_bytes)
		return err_set(e, SS_EUSAGE,
			       "%s does not fit: weights need %.1f GB per GPU but %s offers %.1f GB x %.2f = %.1f GB at TP %d PP %d (raise --tp/--pp%s)",
			       m->id, o->weight_bytes / 1e9, g->id, (o->mem_bytes - o->preload_bytes) / 1e9, util,
			       o->budget_bytes / 1e9, p->tp, p->pp, model_fp8_narrows(m) ? " or use --dtype fp8" : "");
	if (o->state_bytes_per_seq > 0 && o->state_seqs < 1)
		return err_set(e, SS_EUSAGE,
			       "no memory left for the per-sequence state of %s: %.1f MB per sequence (sliding-window KV and recurrent state) (raise %s or --tp)",
			       m->id, o->state_bytes_per_seq / 1e6, flag);
	count_blocks(o);
	if (o->blocks < 1)
		return err_set(e, SS_EUSAGE,
			       "no memory left for the KV cache: %.1f GB budget - %.1f GB weights - %.2f GB activations - %.2f GB reserve (lower --max-num-batched-tokens, raise %s or --tp)",
			       o->budget_bytes / 1e9, o->weight_bytes / 1e9, o->activation_bytes / 1e9,
			       o->reserve_bytes / 1e9, flag);
	return 0;
}

int memplan_compute(const struct model_cfg *m, const struct gpu_spec *g,
		    const struct parallel *p, enum dtype wdt, enum dtype kvdt,
		    double util, int64_t block_size, int64_t mbt, int64_t max_seqs,
		    struct memplan *o, struct err *e)
{
	double inter = (double)(m->intermediate > m->moe_intermediate ? m->intermediate
								      : m->moe_intermediate);

	memset(o, 0, sizeof(*o));
	o->mem_bytes = g->mem_bytes;
	o->budget_bytes = g->mem_bytes * util;
	o->weight_bytes = model_weight_bytes_per_gpu(m, p, dtype_bytes(wdt));
	o->activation_bytes = (double)mbt * (3.0 * inter / p->tp + 4.0 * (double)m->hidden) * 2.0 +
			      (double)max_seqs * (double)m->vocab / p->tp * 4.0;
	o->forward_bytes = o->activation_bytes;
	o->reserve_bytes = MEMPLAN_RESERVE_BYTES;
	return plan_finish(m, g, p, kvdt, util, block_size, max_seqs, "--gpu-memory-utilization", o, e);
}

int memplan_compute_static(const struct model_cfg *m, const struct gpu_spec *g,
			   const struct parallel *p, enum dtype wdt, enum dtype kvdt,
			   double preload_bytes, double mem_fraction_static, int64_t block_size,
			   int64_t max_seqs, struct memplan *o, struct err *e)
{
	memset(o, 0, sizeof(*o));
	o->mem_bytes = g->mem_bytes;
	o->preload_bytes = preload_bytes;
	o->budget_bytes = (g->mem_bytes - preload_bytes) * mem_fraction_static;
	o->weight_bytes = model_weight_bytes_per_gpu(m, p, dtype_bytes(wdt));
	return plan_finish(m, g, p, kvdt, mem_fraction_static, block_size, max_seqs,
			   "--mem-fraction-static", o, e);
}

/* bytes off kv_bytes, counted in *into; the blocks counted again. */
static int take(struct memplan *o, double bytes, double *into, const char *what, struct err *e)
{
	*into += bytes;
	o->kv_bytes -= bytes;
	count_blocks(o);
	if (o->blocks < 1)
		return err_set(e, SS_EUSAGE, "no memory left for the KV cache once %s take %.2f GB per GPU (%.2f GB were left)",
			       what, bytes / 1e9, (o->kv_bytes + bytes) / 1e9);
	return 0;
}

int memplan_take(struct memplan *o, double bytes, const char *what, struct err *e)
{
	return take(o, bytes, &o->lora_bytes, what, e);
}

int memplan_take_experts(struct memplan *o, double bytes, struct err *e)
{
	return take(o, bytes, &o->eplb_bytes, "EPLB's redundant experts", e);
}

int memplan_add_weights(struct memplan *o, double bytes, const char *what, struct err *e)
{
	o->weight_bytes += bytes;
	o->kv_bytes -= bytes;
	cap_state(o);
	count_blocks(o);
	if (o->blocks < 1 || (o->state_bytes_per_seq > 0 && o->state_seqs < 1))
		return err_set(e, SS_EUSAGE, "no memory left for the KV cache once %s take %.2f GB per GPU (%.2f GB were left)",
			       what, bytes / 1e9, (o->kv_bytes + bytes) / 1e9);
	return 0;
}

int memplan_profile_peak(struct memplan *o, double sampler_bytes, struct err *e)
{
	if (sampler_bytes <= o->activation_bytes)
		return 0;
	o->sampler_bytes = sampler_bytes;
	o->kv_bytes -= sampler_bytes - o->activation_bytes;
	o->activation_bytes = sampler_bytes;
	cap_state(o);
	count_blocks(o);
	if (o->blocks < 1 || (o->state_bytes_per_seq > 0 && o->state_seqs < 1))
		return err_set(e, SS_EUSAGE,
			       "no memory left for the KV cache once the sampler's profile run takes %.2f GB per GPU (lower --max-num-seqs or raise --gpu-memory-utilization)",
			       sampler_bytes / 1e9);
	return 0;
}

void memplan_share_windows(struct memplan *o, int32_t groups)
{
	o->window_groups = groups;
	o->state_bytes_per_seq = 0;
	o->state_bytes = 0;
	count_blocks(o);
}
