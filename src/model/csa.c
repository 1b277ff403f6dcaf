/* csa.c - DeepSeek-V4's compressed attention: its config keys, weights and
 * KV-cache bytes (see model.h, "DeepSeek-V4 compressed attention").
 *
 * The architecture as the public implementations build it (HF transformers
 * models/deepseek_v4, vLLM model_executor/models/deepseek_v4.py and
 * layers/deepseek_v4_attention.py, layers/deepseek_compressor.py): every
 * layer projects the hidden state to a q_lora_rank latent (q_a, RMSNorm) and
 * up to heads x head_dim queries (q_b, a weightless per-head RMSNorm), and
 * to one head_dim K=V vector (kv, RMSNorm) that is cached for the last
 * sliding_window tokens; RoPE on the last qk_rope_head_dim dims; one learned
 * sink logit per head; the output (heads x head_dim) is projected per group
 * of heads to o_lora_rank (o_a, o_groups groups) and then to hidden (o_b).
 * Layers with compress_ratios[i] = 4 (CSA) also compress every 4 tokens into
 * one cached entry (a softmax-gated pool over two overlapping windows: a
 * hidden -> 2 x 2 x head_dim kv/gate projection) and run a lightning indexer
 * (queries from the q latent, index_n_heads x index_head_dim; keys from its
 * own compressor at index_head_dim; per-head weights from the hidden state)
 * that keeps index_topk compressed entries a query; layers with 128 (HCA)
 * compress every 128 tokens (one window, a hidden -> 2 x head_dim
 * projection) and attend every entry; layers with 0 keep the window only.
 * compress_ratios may carry one more entry for the MTP layer (published
 * configs do). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"

/* sizes past 2^24 are no published model's and would overflow the
 * operator graph's products */
#define CSA_MAX_DIM (1LL << 24)
#define REQD(key, out) \
	do { if ((rc = json_req_int(c, key, src, 1, CSA_MAX_DIM, out, e)) < 0) return rc; } while (0)
#define OPT(key, lo, out, pres) \
	do { if ((rc = json_opt_int(c, key, src, lo, INT64_MAX, out, pres, e)) < 0) return rc; } while (0)

/* compress_ratios: one integer per layer (the MTP layers' trailing entries
 * allowed and ignored), each 0, 4 or 128 */
static int read_ratios(const struct json *c, const char *src, struct model_cfg *m, int64_t mtp,
		       struct err *e)
{
	const struct json *a = json_get(c, "compress_ratios"), *x;
	int64_t i = 0, n;

	if (!a)
		return err_set(e, SS_EDATA, "%s: missing required key 'compress_ratios' (one KV compression ratio per layer)",
			       src);
	n = json_type_of(a) == JSON_ARRAY ? (int64_t)json_size(a) : -1;
	if (n != m->layers && n != m->layers + mtp)
		return err_set(e, SS_EDATA,
			       "%s: 'compress_ratios' must be a list of %lld integers (one per layer%s)", src,
			       (long long)m->layers, mtp > 0 ? ", optionally one more per MTP layer" : "");
	for (x = json_first(a); x && i < m->layers; x = json_next(x), i++) {
		double v = json_number(x);
		if (json_type_of(x) != JSON_NUMBER || !(v == 0 || v == 4 || v == 128))
			return err_set(e, SS_EDATA,
				       "%s: 'compress_ratios'[%lld] must be 0 (sliding window only), 4 (CSA) or 128 (HCA)",
				       src, (long long)i);
		m->compress[i] = (unsigned short)v;
		m->mixer[i] = v == 4 ? LM_CSA : v == 128 ? LM_HCA : LM_SLIDING;
	}
	return 0;
}

int model_csa_read(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	int64_t mtp = 0, i, ncsa = 0;
	bool pres;
	int rc;

	OPT("num_nextn_predict_layers", 0, &mtp, &pres);
	if ((rc = read_ratios(c, src, m, mtp, e)) < 0)
		return rc;
	m->attn = ATTN_CSA;
	REQD("sliding_window", &m->window.size);
	REQD("q_lora_rank", &m->q_lora_rank);
	REQD("o_lora_rank", &m->o_lora_rank);
	REQD("o_groups", &m->o_groups);
	REQD("qk_rope_head_dim", &m->qk_rope_dim);
	if (m->head_dim > CSA_MAX_DIM || m->hidden > CSA_MAX_DIM || m->heads > CSA_MAX_DIM)
		return err_set(e, SS_EDATA, "%s: head_dim, hidden_size and num_attention_heads must be <= %lld", src,
			       (long long)CSA_MAX_DIM);
	if (m->qk_rope_dim >= m->head_dim || m->qk_rope_dim % 2 != 0)
		return err_set(e, SS_EDATA,
			       "%s: 'qk_rope_head_dim' must be even and below head_dim (%lld), got %lld", src,
			       (long long)m->head_dim, (long long)m->qk_rope_dim);
	if (m->heads % m->o_groups != 0)
		return err_set(e, SS_EDATA, "%s: 'num_attention_heads' (%lld) must be a multiple of 'o_groups' (%lld)",
			       src, (long long)m->heads, (long long)m->o_groups);
	if (m->kv_heads != 1)
		return err_set(e, SS_EDATA,
			       "%s: 'num_key_value_heads' must be 1 (DeepSeek-V4 shares one K=V head), got %lld", src,
			       (long long)m->kv_heads);
	m->rope_dim = m->qk_rope_dim;
	m->qk_nope_dim = m->head_dim - m->qk_rope_dim;
	m->v_head_dim = m->head_dim;
	m->k_eq_v = true;
	m->attn_sinks = true;
	m->window.heads = m->heads;
	m->window.kv_heads = 1;
	m->window.head_dim = m->window.v_head_dim = m->head_dim;
	m->window.sinks = true;
	for (i = 0; i < m->layers; i++)
		ncsa += m->mixer[i] == LM_CSA;
	if (ncsa > 0) {
		REQD("index_n_heads", &m->index_heads);
		REQD("index_head_dim", &m->index_head_dim);
		REQD("index_topk", &m->index_topk);
		m->index_layers = ncsa;
	}
	m->hc_mult = 1;
	if ((rc = json_opt_int(c, "hc_mult", src, 1, 64, &m->hc_mult, &pres, e)) < 0)
		return rc;
	OPT("hc_sinkhorn_iters", 0, &m->hc_sinkhorn_iters, &pres);
	OPT("num_hash_layers", 0, &m->hash_layers, &pres);
	if (m->hash_layers > m->layers)
		return err_set(e, SS_EDATA, "%s: 'num_hash_layers' (%lld) exceeds num_hidden_layers (%lld)", src,
			       (long long)m->hash_layers, (long long)m->layers);
	return 0;
}

double model_csa_entry_bytes(const struct model_cfg *m, double kvb)
{
	double nope = (double)(m->head_dim - m->qk_rope_dim);

	if (kvb < 2) /* fp8 nope, bf16 rope, a ue8m0 scale per 64 nope dims, one pad byte */
		return nope + 2.0 * (double)m->qk_rope_dim + floor(nope / 64.0) + 1.0;
	return (double)m->head_dim * kvb;
}

double model_csa_index_entry_bytes(const struct model_cfg *m, double kvb)
{
	if (kvb < 2) /* fp8 key and its fp32 scale */
		return (double)m->index_head_dim + 4.0;
	return (double)m->index_head_dim * kvb;
}

/* Compressor weights of a layer of ratio r at width d (CSA's overlapping
 * pool: two series, 2 x d each for kv and gate; HCA: d each), its learned
 * per-position bias (r x width) and its RMSNorm (d). */
static double compressor_params(const struct model_cfg *m, double r, double d, bool overlap, double *bf16)
{
	double h = (double)m->hidden, coff = overlap ? 2.0 : 1.0;
	double proj = h * 2.0 * coff * d;

	*bf16 += proj;
	return proj + r * coff * d + d;
}

double model_csa_mixer_params(const struct model_cfg *m, enum layer_mixer k, double *replicated,
			      double *bf16)
{
	double h = (double)m->hidden, nh = (double)m->heads, hd = (double)m->head_dim;
	double ql = (double)m->q_lora_rank, ol = (double)m->o_lora_rank, og = (double)m->o_groups;
	double rep, wide = 0, split, p;

	/* q_a + q_a_norm, kv + kv_norm: replicated (vLLM fused_wqa_wkv) */
	rep = h * ql + ql + h * hd + hd;
	/* q_b, o_a (heads x head_dim -> o_groups x o_lora_rank in groups),
	 * o_b, sinks: split over TP */
	split = ql * nh * hd + nh * hd * ol + og * ol * h + nh;
	if (k == LM_CSA) {
		double ih = (double)m->index_heads, id = (double)m->index_head_dim;
		rep += compressor_params(m, 4, hd, true, &wide);
		/* the indexer: q from the latent, head weights, its compressor */
		rep += ql * ih * id + h * ih + compressor_params(m, 4, id, true, &wide);
		wide += h * ih;
	} else if (k == LM_HCA) {
		rep += compressor_params(m, 128, hd, false, &wide);
	}
	p = rep + split;
	if (replicated)
		*replicated = rep;
	if (bf16)
		*bf16 = wide;
	return p;
}

double model_csa_hyper_params(const struct model_cfg *m)
{
	double hc = (double)m->hc_mult, w = hc * (double)m->hidden, mix = (2.0 + hc) * hc;

	if (m->hc_mult <= 1)
		return 0;
	/* per layer two mixers (fn, base, three scales); the head's collapse */
	return (double)m->layers * 2.0 * (mix * w + mix + 3.0) + hc * w + hc + 1.0;
}

/* Layers of mixer k on the heaviest of pp stages. */
static double stage_layers(const struct model_cfg *m, enum layer_mixer k, int pp)
{
	return ceil((double)m->n_mixer[k] / (double)pp);
}

double model_csa_kv_bytes_per_token(const struct model_cfg *m, int pp, double kvb)
{
	double ent = model_csa_entry_bytes(m, kvb);

	if (m->attn != ATTN_CSA)
		return 0;
	return stage_layers(m, LM_CSA, pp) * (ent + model_csa_index_entry_bytes(m, kvb)) / 4.0 +
	       stage_layers(m, LM_HCA, pp) * ent / 128.0;
}

double model_csa_state_bytes_per_seq(const struct model_cfg *m, int pp, double kvb)
{
	double ent = model_csa_entry_bytes(m, kvb), hd = (double)m->head_dim, id = (double)m->index_head_dim;
	double win = ceil((double)m->layers / (double)pp) * (double)m->window.size * ent;
	/* fp32 running state: (kv, score) x coff x dim for coff x ratio tokens */
	double csa = 8.0 * (2.0 * 2.0 * hd) * 4.0 + 8.0 * (2.0 * 2.0 * id) * 4.0;
	double hca = 128.0 * (2.0 * hd) * 4.0;

	if (m->attn != ATTN_CSA)
		return 0;
	return win + stage_layers(m, LM_CSA, pp) * csa + stage_layers(m, LM_HCA, pp) * hca;
}
