/* opgraph.c - operator sequence per layer kind, with FLOPs and bytes.
 *
 * Conventions (cited where they are choices):
 * - GEMM FLOPs 2mnk; weight bytes n*k*wbytes; activation bytes (mk + mn)*2.
 * - Engines fuse q/k/v into one QKV GEMM and gate/up into one gate_up GEMM
 *   (vLLM QKVParallelLinear, MergedColumnParallelLinear): one op each.
 * - Attention core counts the two matmuls only: 2*pairs*heads*(d_qk + d_v).
 * - Elementwise FLOPs per element: RMSNorm 4, RoPE 3, residual add 1,
 *   SiLU-and-mul 5 (silu as x/(1+e^-x) ~ 4, times up 1).
 * - TP column/row splits as vLLM: QKV, gate_up, q_b, kv_b column-parallel;
 *   o_proj, down_proj row-parallel (one all-reduce after each);
 *   q_a / kv_a (MLA) and the DSA indexer replicated; embedding and LM head
 *   vocab-parallel; router replicated.
 * - MoE with EP: the tp x dp GPUs of a stage each hold E/ep experts, split
 *   (tp*dp)/ep ways; without EP every expert is split tp*dp ways; either way
 *   every rank computes the tokens of all DP ranks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "model/opgraph.h"

/* query tokens per request up to which a step with a cache is priced as
 * decode (see opgraph_build) */
#define OPG_DECODE_MAX_Q 8

#define ACT_BYTES 2.0 /* activations in bf16 */

const char *op_cat_name(enum op_cat c)
{
	static const char *n[OPC__COUNT] = {"attention", "ffn", "moe", "norm", "residual",
					    "comm", "embed", "lm_head", "other"};
	return (unsigned)c < OPC__COUNT ? n[c] : "?";
}

const char *op_kind_name(enum op_kind k)
{
	switch (k) {
	case OPK_GEMM: return "gemm";
	case OPK_ATTN: return "attn";
	case OPK_ELEMENTWISE: return "elementwise";
	case OPK_COMM: return "comm";
	case OPK_OTHER: return "other";
	}
	return "?";
}

double attn_causal_pairs(int64_t s, int64_t c)
{
	return (double)s * (double)c + (double)s * (double)(s + 1) / 2.0;
}

double attn_capped_pairs(int64_t s, int64_t c, int64_t cap)
{
	/* queries q = 1..s see c+q keys; the first q0 stay under the cap */
	int64_t q0 = cap - c;

	if (q0 < 0)
		q0 = 0;
	if (q0 > s)
		q0 = s;
	return (double)q0 * (double)c + (double)q0 * (double)(q0 + 1) / 2.0 +
	       (double)(s - q0) * (double)cap;
}

double attn_chunked_pairs(int64_t s, int64_t c, int64_t chunk)
{
	/* sum over positions p = c+1 .. c+s of ((p-1) mod chunk) + 1, via the
	 * sum of f(p) over p = 1..n: full chunks plus the partial one */
	double tot[2];
	int64_t n[2] = {c + s, c}, i;

	if (chunk <= 0)
		return attn_causal_pairs(s, c);
	for (i = 0; i < 2; i++) {
		int64_t q = n[i] / chunk, r = n[i] % chunk;
		tot[i] = (double)q * (double)chunk * (double)(chunk + 1) / 2.0 +
			 (double)r * (double)(r + 1) / 2.0;
	}
	return tot[0] - tot[1];
}

double moe_expected_experts(double e_local, double e_total, double assignments)
{
	if (e_total <= 0 || assignments <= 0)
		return 0;
	return e_local * (1.0 - pow(1.0 - 1.0 / e_total, assignments));
}

static struct op *push(struct layer_kind *lk, const char *name, enum op_cat cat,
		       enum op_kind kind)
{
	struct op *o;

	XGROW(lk->ops, lk->cap, lk->nops + 1);
	o = &lk->ops[lk->nops++];
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->cat = cat;
	o->kind = kind;
	o->batch = 1;
	return o;
}

struct ctx {
	const struct model_cfg *m;
	const struct parallel *p;
	const struct pass_shape *s;
	double wb, kvb;
	int64_t B, T;    /* local requests, local new tokens */
	int64_t tp;
	bool decode;
};

/* A linear the checkpoint stores unquantised: a bf16 GEMM over 2 B weights,
 * whatever --dtype, as the engines load an excluded module (unquantised
 * linear) */
static void stored_bf16(struct op *o)
{
	o->low_precision = false;
	o->weight_bytes = (double)o->n * (double)o->k * (double)o->batch * ACT_BYTES;
}

static void gemm(struct ctx *c, struct layer_kind *lk, const char *name, enum op_cat cat,
		 int64_t m, int64_t n, int64_t k, int64_t batch)
{
	struct op *o = push(lk, name, cat, OPK_GEMM);

	o->m = m;
	o->n = n;
	o->k = k;
	o->batch = batch;
	o->flops = 2.0 * (double)m * (double)n * (double)k * (double)batch;
	o->weight_bytes = (double)n * (double)k * (double)batch * c->wb;
	o->act_bytes = ((double)m * (double)k + (double)m * (double)n) * (double)batch * ACT_BYTES;
	o->low_precision = true;
	/* an attention projection a quantised checkpoint stores unquantised
	 * (model_attn_stored_bf16: gpt-oss's, Kimi-K2.5's and GLM-5.1-NVFP4's
	 * whole self_attn blocks, nvidia/DeepSeek-R1-0528-FP4-v2's q/kv) runs
	 * in bf16 whatever --dtype, as the engines load an excluded module
	 * (unquantised linear); the absorbed W_UK / W_UV products are
	 * kv_b_proj's weights */
	if (cat == OPC_ATTENTION && model_attn_stored_bf16(c->m, strcmp(name, "o_proj") == 0))
		stored_bf16(o);
	if (batch > 1) {
		snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld,%lld]", (long long)batch,
			 (long long)m, (long long)k);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld,%lld]", (long long)batch,
			 (long long)m, (long long)n);
	} else {
		snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld]", (long long)m, (long long)k);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)m, (long long)n);
	}
}

static void elem(struct layer_kind *lk, const char *name, enum op_cat cat, int64_t rows,
		 int64_t width, double flops_per_elem, double reads, double writes)
{
	struct op *o = push(lk, name, cat, OPK_ELEMENTWISE);
	double n = (double)rows * (double)width;

	o->flops = n * flops_per_elem;
	o->act_bytes = n * (reads + writes) * ACT_BYTES;
	snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld]", (long long)rows, (long long)width);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)rows,
		 (long long)width);
}

static void allreduce(struct ctx *c, struct layer_kind *lk, const char *name, int64_t rows,
		      int64_t width)
{
	struct op *o;

	if (c->tp <= 1)
		return;
	o = push(lk, name, OPC_COMM, OPK_COMM);
	/* ring all-reduce moves 2(tp-1)/tp of the message through each GPU */
	o->act_bytes = (double)rows * (double)width * ACT_BYTES * 2.0 * (double)(c->tp - 1) /
		       (double)c->tp;
	snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld]", (long long)rows, (long long)width);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)rows,
		 (long long)width);
}

/* Attention core over the KV cache: flops from pairs, bytes from cache reads. */
static struct op *attn_core(struct layer_kind *lk, const char *name, double pairs,
			    double heads, double dqk, double dv, double kv_read, double kv_write)
{
	struct op *o = push(lk, name, OPC_ATTENTION, OPK_ATTN);

	o->flops = 2.0 * pairs * heads * (dqk + dv);
	o->score_elems = pairs * heads;
	o->kv_read_bytes = kv_read;
	o->kv_write_bytes = kv_write;
	return o;
}

/* Attention layout of one GQA layer kind. */
struct gqa_layout {
	int64_t heads, kv_heads, head_dim, v_head_dim;
	bool gate, k_eq_v;
};

/* kv_shared: the layer reads the K/V an earlier layer of its kind wrote
 * (Gemma 4 num_kv_shared_layers): its projection emits queries only and
 * nothing is written to the cache */
static void gqa_block(struct ctx *c, struct layer_kind *lk, enum layer_mixer kind, bool kv_shared)
{
	const struct model_cfg *m = c->m;
	struct gqa_layout L = {m->heads, m->kv_heads, m->head_dim, m->v_head_dim, m->attn_gate,
			       m->k_eq_v};
	int64_t nh, nkv, hd, vd, T = c->T, B = c->B, S = c->s->seq_len, C = c->s->context_len;
	double pairs, kv_tok, keys;
	struct op *o;

	if (kind == LM_SLIDING) {
		L.heads = m->window.heads;
		L.kv_heads = m->window.kv_heads;
		L.head_dim = m->window.head_dim;
		L.v_head_dim = m->window.v_head_dim;
		L.k_eq_v = false;
	}
	nh = L.heads / c->tp;
	nkv = L.kv_heads / c->tp;
	hd = L.head_dim;
	vd = L.v_head_dim;
	if (nkv < 1)
		nkv = 1; /* fewer KV heads than ranks: each rank keeps one */
	kv_tok = (double)nkv * (double)(hd + (L.k_eq_v ? 0 : vd)) * c->kvb;
	/* keys each request reads from the cache, and query-key pairs */
	if (kind == LM_SLIDING) {
		pairs = (double)B * attn_capped_pairs(S, C, m->window.size);
		/* a query sees itself and the window.size - 1 tokens before it */
		keys = (double)(C < m->window.size - 1 ? C : m->window.size - 1) + (double)S;
	} else if (kind == LM_CHUNKED) {
		pairs = (double)B * attn_chunked_pairs(S, C, m->chunk);
		keys = (double)(C % m->chunk) + (double)S;
		if (keys > (double)m->chunk + (double)S)
			keys = (double)m->chunk + (double)S;
	} else {
		pairs = (double)B * attn_causal_pairs(S, C);
		keys = (double)(C + S);
	}
	elem(lk, "input_norm", OPC_NORM, T, m->hidden, 4, 1, 1);
	if (kv_shared) {
		gemm(c, lk, "q_proj", OPC_ATTENTION, T, nh * hd * (L.gate ? 2 : 1), m->hidden, 1);
		nkv = 0; /* no keys of its own to normalise or rotate */
	} else {
		gemm(c, lk, "qkv_proj", OPC_ATTENTION, T,
		     nh * hd * (L.gate ? 2 : 1) + nkv * (hd + (L.k_eq_v ? 0 : vd)), m->hidden, 1);
	}
	if (m->qk_norm)
		elem(lk, "qk_norm", OPC_NORM, T, (nh + nkv) * hd, 4, 1, 1);
	elem(lk, "rope", OPC_ATTENTION, T, (nh + nkv) * (kind == LM_SLIDING ? hd : m->rope_dim), 3, 1, 1);
	o = attn_core(lk, c->decode ? "attn_decode" : "attn_prefill", pairs, (double)nh,
		      (double)hd, (double)vd, (double)B * keys * kv_tok,
		      kv_shared ? 0 : (double)T * kv_tok);
	o->act_bytes = (double)T * (double)(nh * (hd + vd)) * ACT_BYTES;
	snprintf(o->shape_in, sizeof(o->shape_in), "q[%lld,%lld,%lld]", (long long)T,
		 (long long)nh, (long long)hd);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T,
		 (long long)(nh * vd));
	if (L.gate) /* sigmoid(gate) * attention output */
		elem(lk, "attn_gate", OPC_ATTENTION, T, nh * vd, 5, 2, 1);
	gemm(c, lk, "o_proj", OPC_ATTENTION, T, m->hidden, nh * vd, 1);
	allreduce(c, lk, "allreduce_attn", T, m->hidden);
	elem(lk, "residual_attn", OPC_RESIDUAL, T, m->hidden, 1, 2, 1);
}

/* Recurrent state bytes of one linear layer for one sequence on this GPU. */
static double linear_state_bytes(const struct ctx *c)
{
	const struct model_cfg *m = c->m;
	double vh = (double)m->lin.v_heads / (double)c->tp;

	return vh * (double)(m->lin.v_dim * m->lin.k_dim) * m->lin.state_elem_bytes;
}

/* Linear attention (Gated DeltaNet, Mamba2, KDA): projections, causal conv,
 * a recurrent update over a fixed-size state per sequence, gated norm, out.
 * KDA (vLLM kimi_linear KimiDeltaAttention): q, k, v (heads x head_dim each,
 * a short conv over each) and beta (one per head) from the hidden state; a
 * per-channel forget gate and an output gate, each hidden -> heads x
 * head_dim (use_full_rank_gate) or through a head_dim bottleneck (a
 * replicated hidden -> head_dim GEMM, then head_dim -> heads x head_dim). */
static void linear_block(struct ctx *c, struct layer_kind *lk)
{
	const struct model_cfg *m = c->m;
	int64_t T = c->T, B = c->B, h = m->hidden;
	int64_t vh = m->lin.v_heads / c->tp, kh = m->lin.k_heads / c->tp;
	int64_t kd = kh * m->lin.k_dim, vd = vh * m->lin.v_dim, conv = 2 * kd + vd, in_n;
	double st = linear_state_bytes(c), elems = (double)vh * (double)(m->lin.v_dim * m->lin.k_dim);
	struct op *o;

	if (kh < 1) {
		kh = 1;
		kd = m->lin.k_dim;
		conv = 2 * kd + vd;
	}
	/* GDN: q k v z + b a per value head; Mamba2: x z B C + dt per head;
	 * KDA: q k v + beta per head, then the two gates (full rank: in the
	 * same GEMM; else their bottleneck inputs, one head_dim each) */
	if (m->lin.kind == LIN_KDA)
		in_n = 2 * kd + vd + vh + (m->lin.full_rank_gate ? 2 * vd : 0);
	else
		in_n = m->lin.kind == LIN_GDN ? 2 * kd + 2 * vd + 2 * vh : 2 * kd + 2 * vd + vh;
	elem(lk, "input_norm", OPC_NORM, T, h, 4, 1, 1);
	gemm(c, lk, "in_proj", OPC_ATTENTION, T, in_n, h, 1);
	if (m->lin.kind == LIN_KDA && !m->lin.full_rank_gate) {
		gemm(c, lk, "gate_a_proj", OPC_ATTENTION, T, 2 * m->lin.v_dim, h, 1);
		gemm(c, lk, "gate_b_proj", OPC_ATTENTION, T, vd, m->lin.v_dim, 2);
	}
	elem(lk, "causal_conv1d", OPC_ATTENTION, T, conv, 2.0 * (double)m->lin.conv_kernel, 1, 1);
	o = push(lk, m->lin.kind == LIN_GDN ? "gated_delta_rule" : m->lin.kind == LIN_KDA ? "kda" : "ssm_scan",
		 OPC_ATTENTION, OPK_ATTN);
	o->flops = (double)T * elems * LINEAR_FLOPS_PER_STATE_ELEM;
	/* the state is read and written once per sequence per step */
	o->kv_read_bytes = (double)B * st;
	o->kv_write_bytes = (double)B * st;
	o->act_bytes = (double)T * (double)(conv + vd) * ACT_BYTES;
	snprintf(o->shape_in, sizeof(o->shape_in), "state[%lld,%lld,%lld]", (long long)vh,
		 (long long)m->lin.k_dim, (long long)m->lin.v_dim);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T, (long long)vd);
	elem(lk, "gated_norm", OPC_NORM, T, vd, 9, 2, 1);
	gemm(c, lk, "out_proj", OPC_ATTENTION, T, h, vd, 1);
	allreduce(c, lk, "allreduce_attn", T, h);
	elem(lk, "residual_attn", OPC_RESIDUAL, T, h, 1, 2, 1);
}

/* own_index: the layer runs its own DSA indexer (else it reuses an earlier
 * layer's top-k selection and only the capped attention remains) */
static void mla_block(struct ctx *c, struct layer_kind *lk, bool own_index)
{
	const struct model_cfg *m = c->m;
	int64_t nh = m->heads / c->tp, h = m->hidden, T = c->T, B = c->B;
	int64_t S = c->s->seq_len, C = c->s->context_len;
	int64_t nope = m->qk_nope_dim, rope = m->qk_rope_dim, vd = m->v_head_dim;
	int64_t kvl = m->kv_lora_rank, qin = m->q_lora_rank > 0 ? m->q_lora_rank : h;
	double kv_tok = (double)(kvl + rope) * c->kvb;
	double pairs_full = (double)B * attn_causal_pairs(S, C);
	double pairs = pairs_full;
	struct op *o;

	elem(lk, "input_norm", OPC_NORM, T, h, 4, 1, 1);
	if (m->q_lora_rank > 0) {
		gemm(c, lk, "q_a_proj", OPC_ATTENTION, T, m->q_lora_rank, h, 1);
		elem(lk, "q_a_norm", OPC_NORM, T, m->q_lora_rank, 4, 1, 1);
		gemm(c, lk, "q_b_proj", OPC_ATTENTION, T, nh * (nope + rope), m->q_lora_rank, 1);
	} else {
		gemm(c, lk, "q_proj", OPC_ATTENTION, T, nh * (nope + rope), h, 1);
	}
	gemm(c, lk, "kv_a_proj", OPC_ATTENTION, T, kvl + rope, h, 1);
	elem(lk, "kv_a_norm", OPC_NORM, T, kvl, 4, 1, 1);
	elem(lk, "rope", OPC_ATTENTION, T, (nh + 1) * rope, 3, 1, 1);
	if (m->index_topk > 0 && !own_index)
		pairs = (double)B * attn_capped_pairs(S, C, m->index_topk);
	if (m->index_topk > 0 && own_index) {
		/* DeepSeek sparse attention: a lightweight indexer scores every
		 * cached token, keeps the top index_topk per query; the main
		 * attention then covers at most index_topk keys per query. */
		int64_t ih = m->index_heads, ihd = m->index_head_dim;
		double ik_tok = (double)ihd * c->kvb;
		gemm(c, lk, "indexer_q_proj", OPC_ATTENTION, T, ih * ihd, qin, 1);
		gemm(c, lk, "indexer_k_proj", OPC_ATTENTION, T, ihd, h, 1);
		elem(lk, "indexer_k_norm", OPC_NORM, T, ihd, 4, 1, 1);
		gemm(c, lk, "indexer_weights_proj", OPC_ATTENTION, T, ih, h, 1);
		o = attn_core(lk, "indexer_scores", pairs_full, (double)ih, (double)ihd, 0,
			      (double)B * (double)(C + S) * ik_tok, (double)T * ik_tok);
		snprintf(o->shape_in, sizeof(o->shape_in), "q[%lld,%lld,%lld]", (long long)T,
			 (long long)ih, (long long)ihd);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T,
			 (long long)(C + S));
		o = push(lk, "indexer_topk", OPC_ATTENTION, OPK_OTHER);
		o->flops = pairs_full; /* one comparison per scored key */
		o->act_bytes = pairs_full * 4.0;
		snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld]", (long long)T,
			 (long long)(C + S));
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T,
			 (long long)m->index_topk);
		pairs = (double)B * attn_capped_pairs(S, C, m->index_topk);
	}
	if (c->decode) {
		/* absorbed: fold W_UK into q, attend in latent space, W_UV after */
		gemm(c, lk, "q_absorb_uk", OPC_ATTENTION, T, kvl, nope, nh);
		o = attn_core(lk, "attn_decode_mla", pairs, (double)nh, (double)(kvl + rope),
			      (double)kvl, (double)B * (double)(C + S) * kv_tok, (double)T * kv_tok);
		snprintf(o->shape_in, sizeof(o->shape_in), "q[%lld,%lld,%lld]", (long long)T,
			 (long long)nh, (long long)(kvl + rope));
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld,%lld]", (long long)T,
			 (long long)nh, (long long)kvl);
		o->act_bytes = (double)T * (double)nh * (double)(2 * kvl + rope) * ACT_BYTES;
		gemm(c, lk, "out_absorb_uv", OPC_ATTENTION, T, vd, kvl, nh);
	} else {
		/* expanded: up-project the latent of every context token */
		int64_t ctx_tokens = B * (C + S);
		gemm(c, lk, "kv_b_proj", OPC_ATTENTION, ctx_tokens, nh * (nope + vd), kvl, 1);
		o = attn_core(lk, "attn_prefill_mla", pairs, (double)nh, (double)(nope + rope),
			      (double)vd, (double)B * (double)(C + S) * kv_tok, (double)T * kv_tok);
		snprintf(o->shape_in, sizeof(o->shape_in), "q[%lld,%lld,%lld]", (long long)T,
			 (long long)nh, (long long)(nope + rope));
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T,
			 (long long)(nh * vd));
		o->act_bytes = (double)T * (double)nh * (double)(nope + rope + vd) * ACT_BYTES;
	}
	if (m->attn_out_gate) { /* sigmoid(g_proj(x)) * attention output (Kimi Linear) */
		gemm(c, lk, "gate_proj", OPC_ATTENTION, T, nh * vd, h, 1);
		elem(lk, "attn_gate", OPC_ATTENTION, T, nh * vd, 5, 2, 1);
	}
	gemm(c, lk, "o_proj", OPC_ATTENTION, T, h, nh * vd, 1);
	allreduce(c, lk, "allreduce_attn", T, h);
	elem(lk, "residual_attn", OPC_RESIDUAL, T, h, 1, 2, 1);
}

/* Sum over query positions p = 1..n of min(floor(p / r), cap) (cap < 0:
 * uncapped): the compressed entries a query at p sees (HF DeepseekV4: entry
 * w is visible once p >= (w + 1) r), capped at the indexer's top-k. */
static double compressed_seen(int64_t n, int64_t r, int64_t cap);

double attn_compressed_pairs(int64_t s, int64_t c, int64_t ratio, int64_t cap)
{
	return compressed_seen(c + s, ratio, cap) - compressed_seen(c, ratio, cap);
}

static double compressed_seen(int64_t n, int64_t r, int64_t cap)
{
	int64_t lim = cap >= 0 && cap <= n / r ? r * cap : n, q = lim / r, rem = lim % r;
	double s = (double)r * (double)q * (double)(q - 1) / 2.0 + (double)q * (double)(rem + 1);

	if (lim < r)
		s = 0;
	return s + (lim < n ? (double)cap * (double)(n - lim) : 0.0);
}

/* Hyper-connections (DeepSeek-V4 mHC, hc_mult streams of hidden): before a
 * sub-block the streams are RMS-normed together, projected to the
 * (2 + hc) x hc mixing weights (Sinkhorn-normalised) and collapsed to one
 * row (FLOPs a stream element: norm 4, projection 2 (2 + hc) hc, collapse
 * 2); after it the output is spread back and the streams mixed (2 hc + 2 a
 * stream element).  vLLM fuses a post with the next pre (mhc_fused_post_pre);
 * the mixing weights (fp32, a few MB a layer) are read once a step and left
 * out of the per-token bytes. */
static void hc_pre(struct ctx *c, struct layer_kind *lk, const char *name)
{
	double hc = (double)c->m->hc_mult;

	elem(lk, name, OPC_RESIDUAL, c->T, c->m->hc_mult * c->m->hidden, 6.0 + 2.0 * (2.0 + hc) * hc, 1,
	     1.0 / hc);
	snprintf(lk->ops[lk->nops - 1].shape_out, sizeof(lk->ops[0].shape_out), "[%lld,%lld]", (long long)c->T,
		 (long long)c->m->hidden);
}

static void hc_post(struct ctx *c, struct layer_kind *lk, const char *name)
{
	double hc = (double)c->m->hc_mult;

	elem(lk, name, OPC_RESIDUAL, c->T, c->m->hc_mult * c->m->hidden, 2.0 * hc + 2.0, 1.0 + 1.0 / hc, 1);
	snprintf(lk->ops[lk->nops - 1].shape_in, sizeof(lk->ops[0].shape_in), "[%lld,%lld]", (long long)c->T,
		 (long long)c->m->hidden);
}

/* One DeepSeek-V4 attention block (layers of ratio 0, 4 and 128; see
 * model/csa.c for the architecture).  TP splits the heads (q_b), the output
 * groups (o_a) and o_b's input, vLLM's layout; the q_a/kv projection, the
 * compressors and the indexer are replicated.  The attention core counts its
 * pairs as the model computes them: the window (the query and up to
 * window.size - 1 earlier tokens) plus the compressed entries (CSA: the
 * indexer's top-k of those visible, HCA: all visible); QK and PV over the
 * full head_dim (K = V).  FlashMLA's sparse kernel pads the heads of a rank
 * to 64 (vLLM), so below 64 heads a GPU does more work than these FLOPs. */
static void csa_block(struct ctx *c, struct layer_kind *lk, enum layer_mixer mix)
{
	const struct model_cfg *m = c->m;
	int64_t T = c->T, B = c->B, S = c->s->seq_len, C = c->s->context_len, h = m->hidden;
	int64_t nh = m->heads / c->tp, hd = m->head_dim, ql = m->q_lora_rank;
	int64_t og = m->o_groups / c->tp, r = mix == LM_CSA ? 4 : mix == LM_HCA ? 128 : 0;
	int64_t W = m->window.size, coff = mix == LM_CSA ? 2 : 1;
	double ent = model_csa_entry_bytes(m, c->kvb), wkeys, wpairs, cpairs = 0, cread = 0, cwrite = 0;
	const char *core = mix == LM_CSA ? "attn_csa" : mix == LM_HCA ? "attn_hca" : "attn_swa";
	char name[32];
	struct op *o;

	if (og < 1)
		og = 1;
	wpairs = (double)B * attn_capped_pairs(S, C, W);
	wkeys = (double)(C < W - 1 ? C : W - 1) + (double)S;
	if (m->hc_mult > 1)
		hc_pre(c, lk, "hc_attn_pre");
	elem(lk, "input_norm", OPC_NORM, T, h, 4, 1, 1);
	gemm(c, lk, "wqa_wkv", OPC_ATTENTION, T, ql + hd, h, 1);
	elem(lk, "q_kv_norm", OPC_NORM, T, ql + hd, 4, 1, 1);
	gemm(c, lk, "wq_b", OPC_ATTENTION, T, nh * hd, ql, 1);
	/* per-head q norm, RoPE on q and kv, kv quantised into the window */
	elem(lk, "q_norm_rope_kv_insert", OPC_ATTENTION, T, (nh + 1) * hd, 7, 1, 1);
	if (r > 0) {
		int64_t entries = (C + S) / r;
		gemm(c, lk, "compressor_wkv_gate", OPC_ATTENTION, T, 2 * coff * hd, h, 1);
		lk->ops[lk->nops - 1].low_precision = false; /* stored in bf16 */
		/* fp32 running state saved, windows pooled, normed, roped, quantised */
		elem(lk, "compress_state", OPC_ATTENTION, T, 2 * coff * hd, 6, 2, 2);
		cpairs = (double)B * (compressed_seen(C + S, r, mix == LM_CSA ? m->index_topk : -1) -
				      compressed_seen(C, r, mix == LM_CSA ? m->index_topk : -1));
		cread = (double)B * (mix == LM_CSA && (double)entries > (double)m->index_topk * (double)S
					     ? (double)m->index_topk * (double)S : (double)entries) * ent;
		cwrite = (double)B * (double)(entries - C / r) * ent;
	}
	if (mix == LM_CSA) {
		int64_t ih = m->index_heads, id = m->index_head_dim, entries = (C + S) / 4;
		double ient = model_csa_index_entry_bytes(m, c->kvb);
		double ipairs = (double)B * (compressed_seen(C + S, 4, -1) - compressed_seen(C, 4, -1));
		gemm(c, lk, "indexer_weights_proj", OPC_ATTENTION, T, ih, h, 1);
		lk->ops[lk->nops - 1].low_precision = false;
		gemm(c, lk, "indexer_wkv_gate", OPC_ATTENTION, T, 4 * id, h, 1);
		lk->ops[lk->nops - 1].low_precision = false;
		elem(lk, "indexer_compress", OPC_ATTENTION, T, 4 * id, 6, 2, 2);
		gemm(c, lk, "indexer_q_proj", OPC_ATTENTION, T, ih * id, ql, 1);
		elem(lk, "indexer_q_rope_quant", OPC_ATTENTION, T, ih * id, 4, 1, 0.5);
		o = attn_core(lk, "indexer_scores", ipairs, (double)ih, (double)id, 0,
			      (double)B * (double)entries * ient, (double)B * (double)(entries - C / 4) * ient);
		snprintf(o->shape_in, sizeof(o->shape_in), "q[%lld,%lld,%lld]", (long long)T, (long long)ih,
			 (long long)id);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T, (long long)entries);
		o = push(lk, "indexer_topk", OPC_ATTENTION, OPK_OTHER);
		o->flops = ipairs;
		o->act_bytes = ipairs * 4.0;
		snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld]", (long long)T, (long long)entries);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T,
			 (long long)m->index_topk);
	}
	snprintf(name, sizeof(name), "%s_%s", core, c->decode ? "decode" : "prefill");
	o = attn_core(lk, name, wpairs + cpairs, (double)nh, (double)hd, (double)hd,
		      (double)B * wkeys * ent + cread, (double)T * ent + cwrite);
	o->act_bytes = (double)T * (double)(nh * 2 * hd) * ACT_BYTES;
	snprintf(o->shape_in, sizeof(o->shape_in), "q[%lld,%lld,%lld]", (long long)T, (long long)nh,
		 (long long)hd);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T, (long long)(nh * hd));
	/* inverse RoPE on the output's rope dims, fp8 quantisation for o_a */
	elem(lk, "inv_rope_quant", OPC_ATTENTION, T, nh * hd, 4, 1, 0.5);
	gemm(c, lk, "wo_a", OPC_ATTENTION, T, m->o_lora_rank, nh / og * hd, og);
	gemm(c, lk, "wo_b", OPC_ATTENTION, T, h, og * m->o_lora_rank, 1);
	allreduce(c, lk, "allreduce_attn", T, h);
	if (m->hc_mult > 1)
		hc_post(c, lk, "hc_attn_post");
	else
		elem(lk, "residual_attn", OPC_RESIDUAL, T, h, 1, 2, 1);
}

/* A gated (or plain) FFN of width inter split tp ways: a dense FFN layer's
 * (prefix "") or the shared experts' ("shared_"), each in bf16 where the
 * checkpoint stores that part unquantised (model_dense_ffn_stored_bf16,
 * model_shared_experts_stored_bf16: Kimi-K2.5, GLM-5.1-NVFP4) */
static void dense_ffn(struct ctx *c, struct layer_kind *lk, int64_t inter, enum op_cat cat,
		      const char *prefix, int64_t tp)
{
	char n1[32], n2[32], n3[32];
	int64_t w = inter / tp;
	bool bf16 = prefix[0] ? model_shared_experts_stored_bf16(c->m) : model_dense_ffn_stored_bf16(c->m);

	snprintf(n1, sizeof(n1), c->m->ffn_mats == 2 ? "%sup_proj" : "%sgate_up_proj", prefix);
	snprintf(n2, sizeof(n2), "%sact_mul", prefix);
	snprintf(n3, sizeof(n3), "%sdown_proj", prefix);
	gemm(c, lk, n1, cat, c->T, (c->m->ffn_mats - 1) * w, c->m->hidden, 1);
	if (bf16)
		stored_bf16(&lk->ops[lk->nops - 1]);
	elem(lk, n2, cat, c->T, w, 5, c->m->ffn_mats - 1, 1);
	gemm(c, lk, n3, cat, c->T, c->m->hidden, w, 1);
	if (bf16)
		stored_bf16(&lk->ops[lk->nops - 1]);
}

static void moe_ffn(struct ctx *c, struct layer_kind *lk)
{
	const struct model_cfg *m = c->m;
	const struct parallel *p = c->p;
	/* latent MoE: tokens enter the experts at moe_latent width */
	int64_t h = m->moe_latent > 0 ? m->moe_latent : m->hidden, E = m->n_experts, k = m->top_k;
	int64_t up = m->ffn_mats - 1;
	bool ep = p->ep > 1;
	/* EP across attention-DP ranks moves tokens to their experts and back
	 * (dispatch / combine); with one DP rank the EP group is the TP group,
	 * every rank already holds every token, runs its local experts on
	 * them and the FFN all-reduce sums the partial outputs (vLLM's FusedMoE
	 * and TensorRT-LLM without attention DP: no all-to-all) */
	bool a2a = ep && p->dp > 1;
	/* without EP the experts are TP-sharded over tp x dp (vLLM) */
	int64_t mtp = (p->tp * p->dp) / (ep ? p->ep : 1);
	/* physical expert slots: the routed experts and any redundant copies
	 * (parallel.ep_redundant), each assignment served by one of them */
	int64_t Ep = ep ? E + p->ep_redundant : E;
	int64_t e_local = ep ? Ep / p->ep : E;
	int64_t w = m->moe_intermediate / mtp;
	/* tokens whose experts live here: all DP ranks' tokens */
	double tokens_in = (double)(c->T * p->dp);
	double assign = tokens_in * (double)k * (double)e_local / (double)Ep;
	double touched = moe_expected_experts((double)e_local, (double)Ep, tokens_in * (double)k);
	double avg_m;
	struct op *o;

	if (w < 1)
		w = 1;
	/* the router: an unquantised linear in every engine and checkpoint
	 * (model_quant: routers stay bf16; vLLM builds the gate with
	 * quant_config=None, deepseek_v2.py / qwen3_moe.py / mixtral.py /
	 * llama4.py; SGLang's MoEGate and TensorRT-LLM's DeepseekV3Gate hold
	 * plain bf16 / fp32 weights; the checkpoints' exclusion lists name it:
	 * gpt-oss mlp.router, MiniMax gate, Qwen3-FP8 mlp.gate, Llama-4 FP8
	 * feed_forward.router) */
	gemm(c, lk, "router", OPC_MOE, c->T, E, m->hidden, 1);
	stored_bf16(&lk->ops[lk->nops - 1]);
	if (m->moe_latent > 0)
		gemm(c, lk, "moe_latent_down", OPC_MOE, c->T, h, m->hidden, 1);
	o = push(lk, "topk_select", OPC_MOE, OPK_OTHER);
	o->flops = (double)c->T * (double)E;
	o->act_bytes = (double)c->T * (double)E * 4.0;
	snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld]", (long long)c->T, (long long)E);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)c->T, (long long)k);
	if (a2a) {
		o = push(lk, "ep_dispatch", OPC_COMM, OPK_COMM);
		o->act_bytes = (double)c->T * (double)k * (double)h * c->wb * (p->ep - 1) / p->ep;
		snprintf(o->shape_in, sizeof(o->shape_in), "[%lld,%lld]", (long long)c->T, (long long)h);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%.0f,%lld]", assign, (long long)h);
	}
	/* grouped GEMMs over the experts touched; m = assignments per touched expert */
	avg_m = touched > 0 ? assign / touched : 0;
	o = push(lk, "experts_gate_up", OPC_MOE, OPK_GEMM);
	o->m = (int64_t)ceil(avg_m);
	o->n = up * w;
	o->k = h;
	o->batch = (int64_t)ceil(touched);
	o->flops = 2.0 * assign * (double)(up * w) * (double)h;
	o->weight_bytes = touched * (double)(up * w) * (double)h * c->wb;
	o->act_bytes = assign * (double)(h + up * w) * ACT_BYTES;
	o->low_precision = true;
	snprintf(o->shape_in, sizeof(o->shape_in), "[%.0f,%lld]", assign, (long long)h);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%.0f,%lld]", assign, (long long)(up * w));
	elem(lk, "experts_act_mul", OPC_MOE, (int64_t)ceil(assign), w, 5, (double)up, 1);
	o = push(lk, "experts_down", OPC_MOE, OPK_GEMM);
	o->m = (int64_t)ceil(avg_m);
	o->n = h;
	o->k = w;
	o->batch = (int64_t)ceil(touched);
	o->flops = 2.0 * assign * (double)w * (double)h;
	o->weight_bytes = touched * (double)w * (double)h * c->wb;
	o->act_bytes = assign * (double)(h + w) * ACT_BYTES;
	o->low_precision = true;
	snprintf(o->shape_in, sizeof(o->shape_in), "[%.0f,%lld]", assign, (long long)w);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%.0f,%lld]", assign, (long long)h);
	if (a2a) {
		o = push(lk, "ep_combine", OPC_COMM, OPK_COMM);
		o->act_bytes = (double)c->T * (double)k * (double)h * ACT_BYTES * (p->ep - 1) / p->ep;
		snprintf(o->shape_in, sizeof(o->shape_in), "[%.0f,%lld]", assign, (long long)h);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)c->T,
			 (long long)h);
	}
	if (m->moe_latent > 0)
		gemm(c, lk, "moe_latent_up", OPC_MOE, c->T, m->hidden, h, 1);
	/* split over every GPU where the engine runs them on all DP ranks'
	 * tokens (parallel.dp_shard: priced with the routed experts) */
	if (m->shared_intermediate > 0)
		dense_ffn(c, lk, m->shared_intermediate, OPC_MOE, "shared_", par_part_tp(m, p, PAR_DPS_SHARED));
}

static void ffn_tail(struct ctx *c, struct layer_kind *lk, bool moe)
{
	/* a dense FFN split over every GPU of attention DP (parallel.dp_shard)
	 * runs on all ranks' tokens gathered, its output reduce-scattered
	 * back (priced with the MoE layers' DP gather, cost.c) */
	bool dense_split = !moe && par_part_tp(c->m, c->p, PAR_DPS_DENSE_FFN) > c->tp;
	bool shared_rank = c->m->shared_intermediate > 0 && par_part_tp(c->m, c->p, PAR_DPS_SHARED) == c->tp;

	if (c->m->hc_mult > 1)
		hc_pre(c, lk, "hc_ffn_pre");
	elem(lk, "post_attn_norm", OPC_NORM, c->T, c->m->hidden, 4, 1, 1);
	if (moe)
		moe_ffn(c, lk);
	else
		dense_ffn(c, lk, c->m->intermediate, OPC_FFN, "", par_part_tp(c->m, c->p, PAR_DPS_DENSE_FFN));
	/* with EP over DP ranks the combine already returns reduced rows; the
	 * shared expert / dense path is row-parallel and needs the all-reduce,
	 * as EP within one TP group does (moe_ffn) */
	if (!dense_split && (!moe || c->p->ep <= 1 || c->p->dp <= 1 || shared_rank))
		allreduce(c, lk, "allreduce_ffn", c->T, c->m->hidden);
	if (c->m->hc_mult > 1)
		hc_post(c, lk, "hc_ffn_post");
	else
		elem(lk, "residual_ffn", OPC_RESIDUAL, c->T, c->m->hidden, 1, 2, 1);
}

/* FFN part of a layer kind */
enum ffn_part { FP_DENSE, FP_MOE, FP_NONE };

/* Gemma 4 per-layer input after the FFN: gate hidden -> ple_dim, GELU
 * times the token's per-layer embedding, projection back, norm, residual. */
static void ple_tail(struct ctx *c, struct layer_kind *lk)
{
	const struct model_cfg *m = c->m;

	gemm(c, lk, "per_layer_input_gate", OPC_FFN, c->T, m->ple_dim, m->hidden, 1);
	elem(lk, "per_layer_gelu_mul", OPC_FFN, c->T, m->ple_dim, 9, 2, 1);
	gemm(c, lk, "per_layer_projection", OPC_FFN, c->T, m->hidden, m->ple_dim, 1);
	elem(lk, "post_per_layer_input_norm", OPC_NORM, c->T, m->hidden, 4, 1, 1);
	elem(lk, "residual_per_layer", OPC_RESIDUAL, c->T, m->hidden, 1, 2, 1);
}

/* Block Attention Residuals (Kimi Team, "Attention Residuals",
 * arXiv:2603.15031): the layers form blocks of attn_res_block_size; within a
 * block the sublayer outputs are summed as usual, and each sublayer (mixer,
 * FFN) takes as input a softmax over its sources: the token embedding, the
 * sum of every completed block and the current block's partial sum (once a
 * sublayer of the block has run), with a learned per-sublayer query against
 * RMS-normed sources.  The op reads the sources and writes one row; FLOPs a
 * source element: RMSNorm 4, the logit dot 2, the weighted sum 2.  The source
 * count varies with depth; every layer kind is given the model's mean over
 * all sublayers (the layer kinds group layers of different depths). */
#define ATTN_RES_FLOPS_PER_SRC_ELEM 8.0

static double attn_res_mean_sources(const struct model_cfg *m)
{
	int64_t l, S = m->attn_res_block, sum = 0;

	for (l = 0; l < m->layers; l++) {
		int64_t done = l / S, first = l % S == 0;
		sum += (1 + done + !first) + (1 + done + 1); /* mixer, then FFN */
	}
	return (double)sum / (double)(2 * m->layers);
}

static void attn_res(struct ctx *c, struct layer_kind *lk, const char *name)
{
	double src = attn_res_mean_sources(c->m);

	elem(lk, name, OPC_RESIDUAL, c->T, c->m->hidden, ATTN_RES_FLOPS_PER_SRC_ELEM * src, src, 1);
}

/* shared: an MLA layer reusing an earlier layer's DSA top-k, or a GQA
 * layer reading an earlier layer's KV (Gemma 4) */
static void build_layer(struct ctx *c, struct layer_kind *lk, enum layer_mixer mix,
			enum ffn_part ffn, bool shared)
{
	if (c->m->attn_res_block > 0 && mix != LM_NONE)
		attn_res(c, lk, "attn_res_mixer");
	if (mix == LM_LINEAR)
		linear_block(c, lk);
	else if (mix == LM_FULL && c->m->attn == ATTN_MLA)
		mla_block(c, lk, !shared);
	else if (c->m->attn == ATTN_CSA)
		csa_block(c, lk, mix);
	else if (mix != LM_NONE)
		gqa_block(c, lk, mix, shared);
	if (c->m->attn_res_block > 0 && ffn != FP_NONE)
		attn_res(c, lk, "attn_res_ffn");
	if (ffn != FP_NONE)
		ffn_tail(c, lk, ffn == FP_MOE);
	if (c->m->ple_dim > 0)
		ple_tail(c, lk);
}

static void kind_name(char *out, size_t n, enum layer_mixer mix, enum ffn_part ffn,
		      bool shared_index, bool mla)
{
	static const char *fn[] = {"dense", "moe", ""};

	if (shared_index && mix != LM_FULL) /* Gemma 4 layers reading another's KV */
		snprintf(out, n, "%s+%s/shared-kv", layer_mixer_name(mix), fn[ffn]);
	else if (shared_index && !mla) /* the same, full attention */
		snprintf(out, n, "%s/shared-kv", fn[ffn]);
	else if (shared_index) /* DSA layers reusing an earlier layer's top-k */
		snprintf(out, n, "%s/shared-idx", fn[ffn]);
	else if (mix == LM_FULL && ffn != FP_NONE)
		snprintf(out, n, "%s", fn[ffn]); /* the names of plain models */
	else if (ffn == FP_NONE)
		snprintf(out, n, "%s-only", mix == LM_FULL ? "attn" : layer_mixer_name(mix));
	else if (mix == LM_NONE)
		snprintf(out, n, "%s-only", fn[ffn]);
	else
		snprintf(out, n, "%s+%s", layer_mixer_name(mix), fn[ffn]);
}

static void build_head(struct ctx *c, struct layer_kind *lk)
{
	const struct model_cfg *m = c->m;
	int64_t rows = c->s->all_logits ? c->T : c->B;
	/* vocab-parallel over every GPU where the engine splits it so
	 * (parallel.dp_shard), else over the rank's TP group */
	int64_t vshard = m->vocab / par_part_tp(m, c->p, PAR_DPS_LM_HEAD);
	struct op *o = push(lk, "embedding", OPC_EMBED, OPK_OTHER);

	/* rows gathered, from a table no format quantises (bf16) */
	o->weight_bytes = (double)c->T * (double)m->hidden * ACT_BYTES;
	o->act_bytes = (double)c->T * (double)m->hidden * ACT_BYTES;
	snprintf(o->shape_in, sizeof(o->shape_in), "[%lld]", (long long)c->T);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)c->T,
		 (long long)m->hidden);
	if (m->ple_dim > 0) {
		/* Gemma 4 per-layer embeddings: each token's layers x ple_dim
		 * row, and the hidden state projected to the same width */
		int64_t w = m->layers * m->ple_dim;
		o = push(lk, "per_layer_embedding", OPC_EMBED, OPK_OTHER);
		o->weight_bytes = (double)c->T * (double)w * ACT_BYTES;
		o->act_bytes = (double)c->T * (double)w * ACT_BYTES;
		snprintf(o->shape_in, sizeof(o->shape_in), "[%lld]", (long long)c->T);
		snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)c->T, (long long)w);
		gemm(c, lk, "per_layer_model_projection", OPC_EMBED, c->T, w, m->hidden, 1);
		elem(lk, "per_layer_projection_norm", OPC_NORM, c->T, w, 4, 1, 1);
	}
	if (m->hc_mult > 1) /* the streams collapsed once for the head (HF DeepseekV4HyperHead) */
		elem(lk, "hc_head", OPC_NORM, rows, m->hc_mult * m->hidden,
		     6.0 + 2.0 * (double)m->hc_mult, 1, 1.0 / (double)m->hc_mult);
	if (m->hc_mult > 1)
		snprintf(lk->ops[lk->nops - 1].shape_out, sizeof(lk->ops[0].shape_out), "[%lld,%lld]",
			 (long long)rows, (long long)m->hidden);
	elem(lk, "final_norm", OPC_NORM, rows, m->hidden, 4, 1, 1);
	/* the head: bf16 in every checkpoint (each exclusion list names
	 * lm_head) and every engine (vLLM's fp8 / ModelOpt configs leave
	 * ParallelLMHead unquantised) */
	gemm(c, lk, "lm_head", OPC_LM_HEAD, rows, vshard, m->hidden, 1);
	stored_bf16(&lk->ops[lk->nops - 1]);
}

/* Layer i shares: an MLA layer's DSA top-k, or a GQA layer's KV. */
static bool layer_shared(const struct model_cfg *m, int64_t i)
{
	if (m->mixer[i] == LM_FULL && m->attn == ATTN_MLA)
		return m->shared_index[i];
	return m->kv_shared[i];
}

void opgraph_layer_kind_name(const struct model_cfg *m, int64_t i, char *out, size_t n)
{
	kind_name(out, n, (enum layer_mixer)m->mixer[i],
		  m->no_ffn[i] ? FP_NONE : m->is_moe[i] ? FP_MOE : FP_DENSE, layer_shared(m, i),
		  m->attn == ATTN_MLA);
}

int opgraph_build(const struct model_cfg *m, const struct parallel *p,
		  const struct pass_shape *s, enum dtype wdt, enum dtype kvdt,
		  struct opgraph *g, struct err *e)
{
	struct ctx c;
	int64_t count[LM__COUNT][3][2], i;
	int rc, mix, f, sh;

	memset(g, 0, sizeof(*g));
	if (s->batch < 1)
		return err_set(e, SS_EUSAGE, "--batch-size must be >= 1, got %lld", (long long)s->batch);
	if (s->seq_len < 1)
		return err_set(e, SS_EUSAGE, "--seq-len must be >= 1, got %lld", (long long)s->seq_len);
	if (s->context_len < 0)
		return err_set(e, SS_EUSAGE, "--context-len must be >= 0, got %lld",
			       (long long)s->context_len);
	if ((rc = model_check_parallel(m, p, e)) < 0)
		return rc;
	memset(&c, 0, sizeof(c));
	c.m = m;
	c.p = p;
	c.s = s;
	c.wb = dtype_bytes(wdt);
	c.kvb = dtype_bytes(kvdt);
	c.tp = p->tp;
	c.B = (s->batch + p->dp - 1) / p->dp;
	c.T = c.B * s->seq_len;
	/* A step of a few new tokens on top of a cache is decode with several
	 * query tokens (MTP / speculative verify: SGLang's target_verify runs
	 * the absorbed MLA decode path), not a prefill over the cache.  At most
	 * OPG_DECODE_MAX_Q query tokens: DeepSeek-V3's MTP adds 1 (2 per step);
	 * EAGLE-style verify steps use up to a handful of draft tokens. */
	c.decode = s->seq_len == 1 || (s->context_len > 0 && s->seq_len <= OPG_DECODE_MAX_Q);
	g->decode = c.decode;
	g->local_batch = c.B;
	g->tokens = c.T;
	memset(count, 0, sizeof(count));
	for (i = 0; i < m->layers; i++)
		count[m->mixer[i]][m->no_ffn[i] ? FP_NONE : m->is_moe[i] ? FP_MOE : FP_DENSE]
		     [layer_shared(m, i)]++;
	/* full-attention kinds first (dense, moe), then the others in enum order */
	for (mix = 0; mix < LM__COUNT; mix++) {
		for (f = 0; f < 3; f++) {
			for (sh = 0; sh < 2; sh++) {
				struct layer_kind *lk;
				if (count[mix][f][sh] == 0 || (mix == LM_NONE && f == FP_NONE))
					continue;
				lk = &g->kinds[g->nkinds++];
				kind_name(lk->name, sizeof(lk->name), (enum layer_mixer)mix,
					  (enum ffn_part)f, sh, m->attn == ATTN_MLA);
				lk->count = count[mix][f][sh];
				lk->mixer = (enum layer_mixer)mix;
				build_layer(&c, lk, (enum layer_mixer)mix, (enum ffn_part)f, sh);
			}
		}
	}
	{
		struct layer_kind *lk = &g->kinds[g->nkinds++];
		snprintf(lk->name, sizeof(lk->name), "embed+head");
		lk->count = 1;
		build_head(&c, lk);
	}
	if (m->attn == ATTN_CSA) /* a CSA layer's: window and the indexer's top-k entries */
		g->attn_pairs = (double)c.B * (attn_capped_pairs(s->seq_len, s->context_len, m->window.size) +
					       compressed_seen(s->context_len + s->seq_len, 4, m->index_topk) -
					       compressed_seen(s->context_len, 4, m->index_topk));
	else if (m->attn == ATTN_MLA && m->index_topk > 0)
		g->attn_pairs = (double)c.B * attn_capped_pairs(s->seq_len, s->context_len, m->index_topk);
	else
		g->attn_pairs = (double)c.B * attn_causal_pairs(s->seq_len, s->context_len);
	return 0;
}

/* One kind of `count` ViT blocks over T patches whose attention has
 * `pairs` query-key pairs (every image's own patches, or its windows). */
static void vit_blocks(struct ctx *c, struct opgraph *g, const char *name, int64_t count, int64_t T, double pairs)
{
	const struct model_vision *v = &c->m->vis;
	int64_t h = v->hidden, nh = v->heads / c->tp > 0 ? v->heads / c->tp : 1, hd = h / v->heads;
	int64_t inter = v->inter / c->tp > 0 ? v->inter / c->tp : 1;
	struct layer_kind *lk = &g->kinds[g->nkinds++];
	struct op *o;

	snprintf(lk->name, sizeof(lk->name), "%s", name);
	lk->count = count;
	elem(lk, "norm1", OPC_NORM, T, h, 4, 1, 1);
	gemm(c, lk, "vit_qkv", OPC_ATTENTION, T, 3 * nh * hd, h, 1);
	elem(lk, "vit_rope", OPC_ATTENTION, T, 2 * nh * hd, 3, 1, 1);
	o = attn_core(lk, "attn_vision", pairs, (double)nh, (double)hd, (double)hd, 0, 0);
	o->act_bytes = (double)T * (double)(4 * nh * hd) * ACT_BYTES;
	snprintf(o->shape_in, sizeof(o->shape_in), "q[%lld,%lld,%lld]", (long long)T, (long long)nh,
		 (long long)hd);
	snprintf(o->shape_out, sizeof(o->shape_out), "[%lld,%lld]", (long long)T, (long long)(nh * hd));
	gemm(c, lk, "vit_proj", OPC_ATTENTION, T, h, nh * hd, 1);
	allreduce(c, lk, "allreduce_vit_attn", T, h);
	elem(lk, "residual_attn", OPC_RESIDUAL, T, h, 1, 2, 1);
	elem(lk, "norm2", OPC_NORM, T, h, 4, 1, 1);
	gemm(c, lk, "vit_fc1", OPC_FFN, T, (v->mlp_mats == 3 ? 2 : 1) * inter, h, 1);
	elem(lk, "vit_act", OPC_FFN, T, inter, 5, v->mlp_mats == 3 ? 2 : 1, 1);
	gemm(c, lk, "vit_fc2", OPC_FFN, T, h, inter, 1);
	allreduce(c, lk, "allreduce_vit_mlp", T, h);
	elem(lk, "residual_mlp", OPC_RESIDUAL, T, h, 1, 2, 1);
}

int opgraph_vision(const struct model_cfg *m, const struct parallel *p, int64_t images, int64_t patches,
		   const struct vis_windows *win, struct opgraph *g, struct err *e)
{
	const struct model_vision *v = &m->vis;
	struct ctx c;
	struct layer_kind *lk;
	int64_t T, M, h, tp = p->tp, mh, full = v->depth;
	double wpairs = 0;
	size_t i;

	memset(g, 0, sizeof(*g));
	if (v->kind == VIS_NONE)
		return err_set(e, SS_EUSAGE, "%s has no image encoder", m->id);
	if (images < 1 || patches < 1)
		return err_set(e, SS_EUSAGE, "the image encoder needs >= 1 image of >= 1 patch, got %lld of %lld",
			       (long long)images, (long long)patches);
	memset(&c, 0, sizeof(c));
	c.m = m;
	c.p = p;
	c.wb = ACT_BYTES; /* the encoder's weights stay in bf16 */
	c.tp = tp;
	h = v->hidden;
	T = images * patches;
	M = v->kind == VIS_FIXED ? T / (v->pool * v->pool) : T / (v->merge * v->merge);
	mh = h * v->merge * v->merge;
	g->local_batch = images;
	g->tokens = T;
	g->attn_pairs = (double)images * (double)patches * (double)patches;

	lk = &g->kinds[g->nkinds++];
	snprintf(lk->name, sizeof(lk->name), "vit_embed");
	lk->count = 1;
	gemm(&c, lk, "patch_embed", OPC_EMBED, T, h, v->in_ch * v->tpatch * v->patch * v->patch, 1);
	elem(lk, "pos_embed", OPC_EMBED, T, h, 1, 2, 1);

	if (win && win->n > 0) {
		for (int k = 0; k < win->n; k++)
			wpairs += (double)images * (double)win->count[k] * (double)win->len[k] * (double)win->len[k];
		full = v->full_blocks;
	}
	if (full > 0)
		vit_blocks(&c, g, "vit_block", full, T, g->attn_pairs);
	if (full < v->depth)
		vit_blocks(&c, g, "vit_block_window", v->depth - full, T, wpairs);

	lk = &g->kinds[g->nkinds++];
	snprintf(lk->name, sizeof(lk->name), "vit_merger");
	lk->count = 1 + (v->deepstack > 0 ? v->deepstack : 0);
	if (v->kind == VIS_FIXED) {
		elem(lk, "pool", OPC_OTHER, T, h, 1, 1, 0);
		gemm(&c, lk, "mm_projector", OPC_OTHER, M, v->out_hidden, h, 1);
	} else {
		int64_t mt = mh / tp > 0 ? mh / tp : 1;
		elem(lk, "merger_norm", OPC_NORM, T, h, 4, 1, 1);
		gemm(&c, lk, "merger_fc1", OPC_OTHER, M, mt, mh, 1);
		elem(lk, "merger_act", OPC_OTHER, M, mt, 5, 1, 1);
		gemm(&c, lk, "merger_fc2", OPC_OTHER, M, v->out_hidden, mt, 1);
		allreduce(&c, lk, "allreduce_merger", M, v->out_hidden);
	}
	for (i = 0; i < g->nkinds; i++)
		for (size_t k = 0; k < g->kinds[i].nops; k++)
			g->kinds[i].ops[k].low_precision = false;
	return 0;
}

void opgraph_append(struct opgraph *dst, struct opgraph *src)
{
	size_t i;

	for (i = 0; i < src->nkinds && dst->nkinds < OPGRAPH_MAX_KINDS; i++)
		dst->kinds[dst->nkinds++] = src->kinds[i];
	for (; i < src->nkinds; i++)
		free(src->kinds[i].ops);
	memset(src, 0, sizeof(*src));
}

int opgraph_append_images(const struct model_cfg *m, const struct parallel *p, int64_t images, int64_t w,
			  int64_t h, const char *what, struct opgraph *g, int64_t *tokens, char *rule, size_t n,
			  struct err *e)
{
	struct opgraph v;
	struct vis_windows win;
	int64_t patches;
	int rc;

	if ((rc = model_image_tokens(m, w, h, what, &patches, tokens, rule, n, e)) < 0)
		return rc;
	model_image_windows(m, w, h, &win);
	if ((rc = opgraph_vision(m, p, images, patches, &win, &v, e)) < 0)
		return rc;
	opgraph_append(g, &v);
	return 0;
}

void opgraph_release(struct opgraph *g)
{
	size_t i;

	for (i = 0; i < g->nkinds; i++)
		free(g->kinds[i].ops);
	memset(g, 0, sizeof(*g));
}

double layer_kind_flops(const struct layer_kind *lk)
{
	double f = 0;
	size_t i;

	for (i = 0; i < lk->nops; i++)
		f += lk->ops[i].flops;
	return f;
}

double layer_kind_flops_cat(const struct layer_kind *lk, enum op_cat cat)
{
	double f = 0;
	size_t i;

	for (i = 0; i < lk->nops; i++)
		if (lk->ops[i].cat == cat)
			f += lk->ops[i].flops;
	return f;
}

double opgraph_total_flops(const struct opgraph *g)
{
	double f = 0;
	size_t i;

	for (i = 0; i < g->nkinds; i++)
		f += layer_kind_flops(&g->kinds[i]) * (double)g->kinds[i].count;
	return f;
}

double opgraph_total_bytes(const struct opgraph *g)
{
	double b = 0;
	size_t i, j;

	for (i = 0; i < g->nkinds; i++) {
		const struct layer_kind *lk = &g->kinds[i];
		for (j = 0; j < lk->nops; j++) {
			const struct op *o = &lk->ops[j];
			b += (o->weight_bytes + o->act_bytes + o->kv_read_bytes + o->kv_write_bytes) *
			     (double)lk->count;
		}
	}
	return b;
}
