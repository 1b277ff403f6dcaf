/* params.c - parameter counts, weight bytes per GPU and KV bytes per token.
 *
 * Counts follow the published module shapes (HF modelling code): biases and
 * norm weights included, MTP modules excluded.  "Active" counts every weight a
 * token touches, the embedding table included (Mistral's and Qwen's
 * convention; DeepSeek quotes activated parameters without it). */
#include <math.h>
#include <string.h>

#include "servesim/model.h"

/* Attention block weights of one layer (norm before attention excluded). */
static double attn_params(const struct model_cfg *m)
{
	double h = (double)m->hidden, p;

	if (m->attn == ATTN_MLA) {
		double nh = (double)m->heads, qk = (double)(m->qk_nope_dim + m->qk_rope_dim);
		if (m->q_lora_rank > 0)
			p = h * m->q_lora_rank + m->q_lora_rank + (double)m->q_lora_rank * nh * qk;
		else
			p = h * nh * qk;
		p += h * (double)(m->kv_lora_rank + m->qk_rope_dim) + m->kv_lora_rank;
		p += (double)m->kv_lora_rank * nh * (double)(m->qk_nope_dim + m->v_head_dim);
		p += nh * (double)m->v_head_dim * h;
		if (m->index_heads > 0) {
			/* indexer: wq_b, wk, LayerNorm on k (weight + bias), head weights */
			double ql = (double)(m->q_lora_rank > 0 ? m->q_lora_rank : m->hidden);
			p += ql * (double)(m->index_heads * m->index_head_dim);
			p += h * (double)m->index_head_dim + 2.0 * (double)m->index_head_dim;
			p += h * (double)m->index_heads;
		}
		return p;
	}
	{
		double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
		p = h * q + 2.0 * h * kv + q * h;
		if (m->qkv_bias)
			p += q + 2.0 * kv;
		if (m->qk_norm) {
			if (m->family == FAM_MINIMAX_M2)
				p += q + kv; /* per-layer norm over all heads */
			else
				p += 2.0 * (double)m->head_dim;
		}
	}
	return p;
}

void model_params(const struct model_cfg *m, struct param_counts *pc)
{
	double h = (double)m->hidden, L = (double)m->layers, nmoe = (double)m->n_moe_layers;
	double ndense = L - nmoe;
	double expert = 3.0 * h * (double)m->moe_intermediate;
	double shared = 3.0 * h * (double)m->shared_intermediate;

	memset(pc, 0, sizeof(*pc));
	pc->attention = L * attn_params(m);
	pc->norms = L * 2.0 * h + h;
	pc->dense_ffn = ndense * 3.0 * h * (double)m->intermediate;
	pc->experts = nmoe * (double)m->n_experts * expert;
	pc->shared_experts = nmoe * shared;
	pc->router = nmoe * (h * (double)m->n_experts + (m->router_bias ? (double)m->n_experts : 0));
	pc->embedding = (double)m->vocab * h;
	pc->lm_head = m->tie_embeddings ? 0 : (double)m->vocab * h;
	pc->total = pc->attention + pc->norms + pc->dense_ffn + pc->experts + pc->shared_experts +
		    pc->router + pc->embedding + pc->lm_head;
	pc->active = pc->total - pc->experts + nmoe * (double)m->top_k * expert;
}

int model_check_parallel(const struct model_cfg *m, const struct parallel *p, struct err *e)
{
	if (p->tp < 1 || p->pp < 1 || p->dp < 1 || p->ep < 1)
		return err_set(e, SS_EUSAGE, "--tp, --pp, --dp and --ep must be >= 1");
	if (m->heads % p->tp != 0)
		return err_set(e, SS_EUSAGE,
			       "--tp %d must divide the number of attention heads (%lld) of %s",
			       p->tp, (long long)m->heads, m->id);
	if (m->kv_heads > p->tp && m->kv_heads % p->tp != 0)
		return err_set(e, SS_EUSAGE, "--tp %d must divide the number of KV heads (%lld) of %s",
			       p->tp, (long long)m->kv_heads, m->id);
	if (p->pp > m->layers)
		return err_set(e, SS_EUSAGE, "--pp %d exceeds the number of layers (%lld) of %s", p->pp,
			       (long long)m->layers, m->id);
	if (p->ep > 1) {
		if (m->n_experts == 0)
			return err_set(e, SS_EUSAGE, "--ep %d given but %s is a dense model (use --ep 1)",
				       p->ep, m->id);
		if (m->n_experts % p->ep != 0)
			return err_set(e, SS_EUSAGE, "--ep %d must divide the number of experts (%lld) of %s",
				       p->ep, (long long)m->n_experts, m->id);
		if ((p->tp * p->dp) % p->ep != 0)
			return err_set(e, SS_EUSAGE,
				       "--ep %d must divide tp x dp = %d (experts are spread over the tp x dp GPUs of a stage)",
				       p->ep, p->tp * p->dp);
	}
	return 0;
}

/* Tensor-parallel degree of the expert FFNs: with expert parallelism the
 * tp x dp GPUs of a stage hold E/ep experts each, split moe_tp ways;
 * without it every expert is TP-sharded over the tp x dp GPUs (vLLM's
 * FusedMoEParallelConfig flattens TP across DP). */
static double moe_tp(const struct model_cfg *m, const struct parallel *p)
{
	if (m->n_experts == 0)
		return p->tp;
	return (double)(p->tp * p->dp) / (p->ep > 1 ? p->ep : 1);
}

double model_weight_bytes_per_gpu(const struct model_cfg *m, const struct parallel *p,
				  double wb)
{
	struct param_counts pc;
	double tp = p->tp, per_layer, L = (double)m->layers, layers_stage;
	double experts_per_gpu, head;

	model_params(m, &pc);
	experts_per_gpu = pc.experts / (p->ep > 1 ? p->ep : 1) / moe_tp(m, p);
	/* Weights of the layers, spread evenly; the heaviest stage holds
	 * ceil(L/pp) layers plus the embedding (first) or head (last). */
	per_layer = (pc.attention / tp + pc.dense_ffn / tp + experts_per_gpu + pc.shared_experts / tp +
		     pc.router + pc.norms) / L;
	layers_stage = ceil(L / p->pp);
	head = (pc.embedding + pc.lm_head) / tp;
	if (p->pp > 1)
		head = fmax(pc.embedding, pc.lm_head) / tp;
	return (per_layer * layers_stage + head) * wb;
}

static double kv_elems_per_token_layer(const struct model_cfg *m)
{
	if (m->attn == ATTN_MLA)
		return (double)(m->kv_lora_rank + m->qk_rope_dim) + (double)m->index_head_dim;
	return 2.0 * (double)(m->kv_heads * m->head_dim);
}

double model_kv_bytes_per_token(const struct model_cfg *m, double kvb)
{
	return kv_elems_per_token_layer(m) * (double)m->layers * kvb;
}

double model_kv_bytes_per_token_per_gpu(const struct model_cfg *m, const struct parallel *p,
					double kvb)
{
	double per_layer = kv_elems_per_token_layer(m);

	/* MLA's latent cache is replicated across TP ranks; GQA heads are
	 * split, and replicated when there are fewer KV heads than ranks. */
	if (m->attn != ATTN_MLA) {
		double kvh = (double)m->kv_heads / p->tp;
		if (kvh < 1)
			kvh = 1;
		per_layer = 2.0 * kvh * (double)m->head_dim;
	}
	return per_layer * ceil((double)m->layers / p->pp) * kvb;
}
