/* params.c - parameter counts, weight bytes per GPU and KV bytes per token.
 *
 * Counts follow the published module shapes (HF modelling code): biases and
 * norm weights included, MTP modules excluded.  "Active" counts every weight a
 * token touches, the embedding table included (Mistral's and Qwen's
 * convention; DeepSeek quotes activated parameters without it). */
#include <math.h>
#include <string.h>

#include "model/model.h"

/* GQA attention weights of one layer with the given head layout. */
static double gqa_params(const struct model_cfg *m, int64_t heads, int64_t kvh, int64_t hd,
			 int64_t vd, bool gate, bool k_eq_v, bool sinks)
{
	double h = (double)m->hidden, q = (double)(heads * hd), k = (double)(kvh * hd);
	double v = k_eq_v ? 0 : (double)(kvh * vd), p;

	p = h * q * (gate ? 2.0 : 1.0) + h * (k + v) + (double)(heads * vd) * h;
	if (m->qkv_bias)
		p += q + k + v;
	if (m->qk_norm) {
		if (m->family == FAM_MINIMAX_M2)
			p += q + k; /* per-layer norm over all heads */
		else
			p += 2.0 * (double)hd;
	}
	if (sinks)
		p += (double)heads; /* one sink logit per head */
	return p;
}

/* Linear-attention layer weights (HF Qwen3NextGatedDeltaNet, NemotronHMamba2Mixer,
 * Kimi Linear KimiDeltaAttention):
 * in_proj, causal conv, per-head decay terms, gated norm, out_proj. */
static double linear_params(const struct model_cfg *m)
{
	double h = (double)m->hidden, kd = (double)(m->lin.k_heads * m->lin.k_dim);
	double vd = (double)(m->lin.v_heads * m->lin.v_dim), nv = (double)m->lin.v_heads;
	double conv = 2.0 * kd + vd, K = (double)m->lin.conv_kernel;

	if (m->lin.kind == LIN_GDN) /* q k v z, then b a per value head; dt_bias, A_log */
		return h * (2.0 * kd + 2.0 * vd + 2.0 * nv) + conv * K + 2.0 * nv +
		       (double)m->lin.v_dim + vd * h;
	if (m->lin.kind == LIN_KDA) { /* q k v, beta; three convs; gates; A_log, dt_bias; norm; o */
		double d = (double)m->lin.v_dim;
		double gates = m->lin.full_rank_gate ? 2.0 * h * vd : 2.0 * (h * d + d * vd);
		return h * (2.0 * kd + vd + nv) + gates + conv * K + nv + vd + d + vd * h;
	}
	/* Mamba2: x z B C dt; conv with bias; dt_bias, A_log, D; norm over d_inner */
	return h * (2.0 * vd + 2.0 * kd + nv) + conv * (K + 1.0) + 3.0 * nv + vd + vd * h;
}

/* Token-mixer weights of one layer of the given kind (norm excluded). */
static double mixer_params(const struct model_cfg *m, enum layer_mixer k)
{
	double h = (double)m->hidden, p;

	if (m->attn == ATTN_CSA)
		return model_csa_mixer_params(m, k, NULL, NULL);
	switch (k) {
	case LM_NONE: return 0;
	case LM_CSA: case LM_HCA: return 0; /* DeepSeek-V4 only, above */
	case LM_LINEAR: return linear_params(m);
	case LM_SLIDING:
		return gqa_params(m, m->window.heads, m->window.kv_heads, m->window.head_dim,
				  m->window.v_head_dim, m->attn_gate, false, m->window.sinks);
	case LM_FULL: case LM_CHUNKED: case LM__COUNT: break;
	}
	if (m->attn == ATTN_MLA) {
		double nh = (double)m->heads, qk = (double)(m->qk_nope_dim + m->qk_rope_dim);
		if (m->q_lora_rank > 0)
			p = h * m->q_lora_rank + m->q_lora_rank + (double)m->q_lora_rank * nh * qk;
		else
			p = h * nh * qk;
		p += h * (double)(m->kv_lora_rank + m->qk_rope_dim) + m->kv_lora_rank;
		p += (double)m->kv_lora_rank * nh * (double)(m->qk_nope_dim + m->v_head_dim);
		p += nh * (double)m->v_head_dim * h;
		if (m->attn_out_gate) /* Kimi Linear: g_proj hidden -> heads x v_head_dim */
			p += h * nh * (double)m->v_head_dim;
		return p;
	}
	return gqa_params(m, m->heads, m->kv_heads, m->head_dim, m->v_head_dim, m->attn_gate,
			  m->k_eq_v, m->attn_sinks);
}

/* The output projection's weights of one layer of mixer k (heads x
 * v_head_dim -> hidden); 0 for the kinds whose layout is their own
 * (linear attention, DeepSeek-V4's compressed layers). */
static double o_proj_params(const struct model_cfg *m, enum layer_mixer k)
{
	double h = (double)m->hidden;

	switch (k) {
	case LM_SLIDING: return (double)(m->window.heads * m->window.v_head_dim) * h;
	case LM_FULL: case LM_CHUNKED:
		if (m->attn == ATTN_CSA)
			return 0;
		return (double)(m->heads * m->v_head_dim) * h;
	default: return 0;
	}
}

/* DSA indexer of one layer: wq_b, wk, LayerNorm on k (weight + bias), head weights. */
static double indexer_params(const struct model_cfg *m)
{
	double h = (double)m->hidden;
	double ql = (double)(m->q_lora_rank > 0 ? m->q_lora_rank : m->hidden);

	if (m->index_heads <= 0)
		return 0;
	return ql * (double)(m->index_heads * m->index_head_dim) + h * (double)m->index_head_dim +
	       2.0 * (double)m->index_head_dim + h * (double)m->index_heads;
}

/* Weights of one routed expert. */
static double expert_params(const struct model_cfg *m)
{
	double w = (double)(m->moe_latent > 0 ? m->moe_latent : m->hidden);
	double p = (double)m->ffn_mats * w * (double)m->moe_intermediate;

	if (m->expert_bias) /* gate_up bias 2I, down bias h */
		p += (double)(m->ffn_mats - 1) * (double)m->moe_intermediate + w;
	return p;
}

int64_t model_dense_ffn_layers(const struct model_cfg *m)
{
	int64_t i, n = 0;

	for (i = 0; i < m->layers; i++)
		n += !m->is_moe[i] && !m->no_ffn[i];
	return n;
}

void model_params(const struct model_cfg *m, struct param_counts *pc)
{
	double h = (double)m->hidden, nmoe = (double)m->n_moe_layers, ndense = 0, mats;
	double expert = expert_params(m);
	double shared = (double)m->ffn_mats * h * (double)m->shared_intermediate;
	int64_t i;

	memset(pc, 0, sizeof(*pc));
	mats = (double)m->ffn_mats;
	for (i = 0; i < m->layers; i++) {
		enum layer_mixer k = (enum layer_mixer)m->mixer[i];
		double a = mixer_params(m, k);
		if (k == LM_FULL && m->attn == ATTN_MLA && !m->shared_index[i])
			a += indexer_params(m);
		pc->attention += a;
		pc->attn_o += o_proj_params(m, k);
		if (k == LM_LINEAR)
			pc->linear_attn += a;
		if (m->attn == ATTN_CSA) {
			double rep, wide;
			model_csa_mixer_params(m, k, &rep, &wide);
			pc->attn_replicated += rep;
			pc->attn_bf16 += wide;
		}
		/* one RMSNorm before each sub-block */
		pc->norms += h * ((k != LM_NONE) + !m->no_ffn[i]);
		if (!m->is_moe[i] && !m->no_ffn[i])
			ndense += 1;
	}
	pc->norms += h;
	pc->dense_ffn = ndense * mats * h * (double)m->intermediate;
	pc->experts = nmoe * (double)m->n_experts * expert;
	pc->shared_experts = nmoe * (shared + (m->shared_gate ? h : 0));
	if (m->moe_latent > 0) /* fc1/fc2 latent projections run for every token */
		pc->shared_experts += nmoe * 2.0 * h * (double)m->moe_latent;
	/* hash-routed layers (DeepSeek-V4) keep the gate weights, not the bias */
	pc->router = nmoe * h * (double)m->n_experts +
		     (m->router_bias ? (nmoe - (double)m->hash_layers) * (double)m->n_experts : 0);
	pc->hyper = model_csa_hyper_params(m);
	pc->norms += pc->hyper;
	pc->embedding = (double)m->vocab * h;
	if (m->ple_dim > 0) {
		/* HF Gemma4: embed_tokens_per_layer, per_layer_model_projection
		 * and its norm; per layer per_layer_input_gate,
		 * per_layer_projection, post_per_layer_input_norm */
		double lp = (double)m->layers * (double)m->ple_dim;
		pc->embedding += (double)m->ple_vocab * lp;
		pc->ple = h * lp + (double)m->ple_dim + (double)m->layers * (2.0 * h * (double)m->ple_dim + h);
	}
	pc->lm_head = m->tie_embeddings ? 0 : (double)m->vocab * h;
	pc->vision = m->vision_params;
	pc->total = pc->attention + pc->norms + pc->dense_ffn + pc->experts + pc->shared_experts +
		    pc->router + pc->embedding + pc->lm_head + pc->ple;
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
	if (m->n_mixer[LM_SLIDING] > 0 &&
	    (m->window.heads % p->tp != 0 ||
	     (m->window.kv_heads > p->tp && m->window.kv_heads % p->tp != 0)))
		return err_set(e, SS_EUSAGE,
			       "--tp %d must divide the sliding-window layers' %lld heads and %lld KV heads of %s",
			       p->tp, (long long)m->window.heads, (long long)m->window.kv_heads, m->id);
	if (m->n_mixer[LM_LINEAR] > 0 &&
	    (m->lin.v_heads % p->tp != 0 || (m->lin.k_heads > p->tp && m->lin.k_heads % p->tp != 0)))
		return err_set(e, SS_EUSAGE,
			       "--tp %d must divide the linear-attention layers' %lld value heads and %lld key heads of %s",
			       p->tp, (long long)m->lin.v_heads, (long long)m->lin.k_heads, m->id);
	if (m->attn == ATTN_CSA && m->o_groups % p->tp != 0)
		return err_set(e, SS_EUSAGE,
			       "--tp %d must divide the %lld output-projection groups (o_groups) of %s",
			       p->tp, (long long)m->o_groups, m->id);
	if (p->pp > m->layers)
		return err_set(e, SS_EUSAGE, "--pp %d exceeds the number of layers (%lld) of %s", p->pp,
			       (long long)m->layers, m->id);
	if (p->ep > 1) {
		if (m->n_experts == 0)
			return err_set(e, SS_EUSAGE, "--ep %d given but %s is a dense model (use --ep 1)",
				       p->ep, m->id);
		/* redundant copies may make up the difference (EPLB's own check
		 * of routed + redundant over EP is a start-up check) */
		if (m->n_experts % p->ep != 0 && p->ep_redundant > 0 &&
		    (m->n_experts + p->ep_redundant) % p->ep != 0)
			return err_set(e, SS_EUSAGE,
				       "--ep %d must divide the physical experts of %s: %lld routed + %d redundant = %lld",
				       p->ep, m->id, (long long)m->n_experts, p->ep_redundant,
				       (long long)(m->n_experts + p->ep_redundant));
		if (m->n_experts % p->ep != 0 && p->ep_redundant <= 0)
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

bool model_fp8_narrows(const struct model_cfg *m)
{
	/* (a part a quantised checkpoint stores unquantised stays bf16) */
	return (m->q.attn == Q_NONE && !model_attn_stored_bf16(m, false)) ||
	       (model_dense_ffn_layers(m) > 0 && m->q.mlp == Q_NONE && !model_dense_ffn_stored_bf16(m)) ||
	       (m->n_shared_experts > 0 && m->q.shared == Q_NONE && !model_shared_experts_stored_bf16(m)) ||
	       (m->n_experts > 0 && m->q.experts == Q_NONE);
}

/* Bytes per weight of one part: the narrower of the requested width and
 * the checkpoint's stored format. */
static double part_bytes(enum model_qfmt f, int64_t g, double wb)
{
	double sb = model_qfmt_bytes(f, g, wb);
	return sb < wb ? sb : wb;
}

int par_part_tp(const struct model_cfg *m, const struct parallel *p, unsigned part)
{
	if (!(p->dp_shard & part) || m->n_experts == 0 || p->dp <= 1)
		return p->tp;
	/* shared experts under EP's all-to-all stay whole on each rank */
	if (part == PAR_DPS_SHARED && p->ep > 1)
		return p->tp;
	return p->tp * p->dp;
}

double model_weight_bytes_per_gpu(const struct model_cfg *m, const struct parallel *p,
				  double wb)
{
	struct param_counts pc;
	double tp = p->tp, per_layer, L = (double)m->layers, layers_stage;
	double experts_per_gpu, head, ab, ob, fb, sb, eb, bb;
	/* attention DP: the parts the engine splits over all tp x dp GPUs */
	double tp_dense = par_part_tp(m, p, PAR_DPS_DENSE_FFN), tp_shared = par_part_tp(m, p, PAR_DPS_SHARED);
	double tp_head = par_part_tp(m, p, PAR_DPS_LM_HEAD);
	double ffn;
	int64_t g = m->q.group_size;

	model_params(m, &pc);
	ab = part_bytes(m->q.attn, g, wb);
	ob = part_bytes(m->q.attn_o, g, wb);
	/* the attention projections a quantised checkpoint excludes load
	 * unquantised (bf16), as opgraph.c prices them (model_attn_stored_bf16) */
	if (model_attn_stored_bf16(m, false))
		ab = 2.0;
	if (model_attn_stored_bf16(m, true))
		ob = 2.0;
	/* the dense FFN layers and the shared experts likewise, each as
	 * stored (model_dense_ffn_stored_bf16, model_shared_experts_stored_bf16) */
	fb = model_dense_ffn_stored_bf16(m) ? 2.0 : part_bytes(m->q.mlp, g, wb);
	sb = model_shared_experts_stored_bf16(m) ? 2.0 : part_bytes(m->q.shared, g, wb);
	/* the dense FFN and shared experts' weights one GPU holds, in params at
	 * fb (written as before where the two parts share a width and nothing
	 * is split over the DP ranks) */
	if (sb == fb)
		ffn = tp_dense == tp && tp_shared == tp ? (pc.dense_ffn + pc.shared_experts) / tp
							: pc.dense_ffn / tp_dense + pc.shared_experts / tp_shared;
	else
		ffn = pc.dense_ffn / tp_dense + pc.shared_experts / tp_shared * (sb / fb);
	eb = part_bytes(m->q.experts, g, wb);
	/* the parts no format quantises: router, norms, embedding, LM head and
	 * the image encoder stay bf16 under an fp8 or fp4 --dtype (every
	 * checkpoint's exclusion list names lm_head and its routers; the
	 * engines build the gates and the head unquantised) */
	bb = wb > 2.0 ? wb : 2.0;
	experts_per_gpu = pc.experts / (p->ep > 1 ? p->ep : 1) / moe_tp(m, p);
	/* Weights of the layers, spread evenly; the heaviest stage holds
	 * ceil(L/pp) layers plus the embedding (first) or head (last). */
	/* DeepSeek-V4: some attention weights are whole on every rank, some
	 * stored bf16 whatever the format; the hyper-connections in fp32; the
	 * hash layers' token -> experts tables (int32, vLLM) */
	/* (the output projections in their own format: a checkpoint that
	 * quantises o_proj alone, model_quant.attn_o) */
	per_layer = (((pc.attention - pc.attn_replicated) / tp + pc.attn_replicated - pc.attn_bf16) * ab +
		     pc.attn_o / tp * (ob - ab) +
		     pc.attn_bf16 * 2.0 + ffn * fb +
		     experts_per_gpu * eb + (pc.router + pc.norms - pc.hyper) * bb + pc.ple * wb + pc.hyper * 4.0 +
		     (double)m->hash_layers * (double)m->vocab * (double)m->top_k * 4.0) / L;
	layers_stage = ceil(L / p->pp);
	head = tp_head == tp ? (pc.embedding + pc.lm_head) / tp : pc.embedding / tp + pc.lm_head / tp_head;
	if (p->pp > 1)
		head = tp_head == tp ? fmax(pc.embedding, pc.lm_head) / tp : fmax(pc.embedding / tp, pc.lm_head / tp_head);
	/* a multimodal encoder sits on the first stage, split tp ways */
	return per_layer * layers_stage + (head + pc.vision / tp) * bb;
}

double model_expert_bytes_per_gpu(const struct model_cfg *m, const struct parallel *p, double wb)
{
	struct param_counts pc;

	model_params(m, &pc);
	/* as model_weight_bytes_per_gpu spreads them: evenly over the layers,
	 * the heaviest stage holding ceil(L / pp) */
	return pc.experts / (p->ep > 1 ? p->ep : 1) / moe_tp(m, p) * part_bytes(m->q.experts, m->q.group_size, wb) /
	       (double)m->layers * ceil((double)m->layers / p->pp);
}

/* KV elements per token of one full (or chunked) attention layer, with
 * kv_heads KV heads. */
static double full_kv_elems(const struct model_cfg *m, double kvh)
{
	if (m->attn == ATTN_MLA)
		return (double)(m->kv_lora_rank + m->qk_rope_dim) + (double)m->index_head_dim;
	return kvh * (double)(m->head_dim + (m->k_eq_v ? 0 : m->v_head_dim));
}

static double local_kv_heads(int64_t kvh, int tp)
{
	double v = (double)kvh / tp;
	return v < 1 ? 1 : v; /* fewer KV heads than ranks: each rank keeps one */
}

/* Full-attention layers with a cache of their own (KV-shared ones read
 * another layer's). */
static double full_cache_layers(const struct model_cfg *m)
{
	return (double)(m->n_mixer[LM_FULL] - m->n_kv_shared[LM_FULL]);
}

double model_kv_bytes_per_token(const struct model_cfg *m, double kvb)
{
	if (m->attn == ATTN_CSA)
		return model_csa_kv_bytes_per_token(m, 1, kvb);
	return full_kv_elems(m, (double)m->kv_heads) * full_cache_layers(m) * kvb;
}

double model_kv_bytes_per_token_per_gpu(const struct model_cfg *m, const struct parallel *p,
					double kvb)
{
	/* MLA's latent cache is replicated across TP ranks; GQA heads are
	 * split, and replicated when there are fewer KV heads than ranks. */
	double per_layer = full_kv_elems(m, local_kv_heads(m->kv_heads, p->tp));

	if (m->attn == ATTN_CSA) /* one K=V head: replicated over TP, as MLA's latent */
		return model_csa_kv_bytes_per_token(m, p->pp, kvb);
	return per_layer * ceil(full_cache_layers(m) / p->pp) * kvb;
}

static double state_bytes(const struct model_cfg *m, int tp, int pp, double kvb)
{
	double b = 0;

	if (m->attn == ATTN_CSA)
		return model_csa_state_bytes_per_seq(m, pp, kvb);
	if (m->n_mixer[LM_SLIDING] > 0) {
		double kvh = local_kv_heads(m->window.kv_heads, tp);
		b += ceil((double)(m->n_mixer[LM_SLIDING] - m->n_kv_shared[LM_SLIDING]) / pp) *
		     (double)m->window.size * kvh *
		     (double)(m->window.head_dim + m->window.v_head_dim) * kvb;
	}
	if (m->n_mixer[LM_CHUNKED] > 0)
		b += ceil((double)m->n_mixer[LM_CHUNKED] / pp) * (double)m->chunk *
		     full_kv_elems(m, local_kv_heads(m->kv_heads, tp)) * kvb;
	if (m->n_mixer[LM_LINEAR] > 0) {
		double vh = (double)m->lin.v_heads / tp, kh = local_kv_heads(m->lin.k_heads, tp);
		double rec = vh * (double)(m->lin.v_dim * m->lin.k_dim) * m->lin.state_elem_bytes;
		double conv = (double)(m->lin.conv_kernel - 1) *
			      (2.0 * kh * (double)m->lin.k_dim + vh * (double)m->lin.v_dim) * kvb;
		b += ceil((double)m->n_mixer[LM_LINEAR] / pp) * (rec + conv);
	}
	return b;
}

double model_state_bytes_per_seq(const struct model_cfg *m, double kvb)
{
	return state_bytes(m, 1, 1, kvb);
}

double model_state_bytes_per_seq_per_gpu(const struct model_cfg *m, const struct parallel *p,
					 double kvb)
{
	return state_bytes(m, p->tp, p->pp, kvb);
}
