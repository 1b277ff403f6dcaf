/* config.c - normalise published HF config.json files into struct model_cfg.
 *
 * Published configs carry many keys we do not need, so unknown keys are
 * ignored here (unlike our own formats); the keys we do read are typed and
 * range-checked, and a missing required key is an SS_EDATA error naming it. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/model.h"

static const struct {
	const char *type;
	enum model_family fam;
} family_types[] = {
	{"llama", FAM_LLAMA},           {"mistral", FAM_MISTRAL},
	{"mixtral", FAM_MIXTRAL},       {"qwen2", FAM_QWEN2},
	{"qwen3", FAM_QWEN3},           {"qwen3_moe", FAM_QWEN3_MOE},
	{"llama4_text", FAM_LLAMA4},    {"llama4", FAM_LLAMA4},
	{"deepseek_v2", FAM_DEEPSEEK_V2}, {"deepseek_v3", FAM_DEEPSEEK_V3},
	{"kimi_k2", FAM_KIMI_K2},       {"deepseek_v32", FAM_DEEPSEEK_V32},
	{"glm_moe_dsa", FAM_GLM_MOE_DSA}, {"minimax_m2", FAM_MINIMAX_M2},
	{"gpt_oss", FAM_GPT_OSS},       {"qwen3_next", FAM_QWEN3_NEXT},
	{"qwen3_5_text", FAM_QWEN3_5},  {"qwen3_5", FAM_QWEN3_5},
	{"qwen3_5_moe_text", FAM_QWEN3_5_MOE}, {"qwen3_5_moe", FAM_QWEN3_5_MOE},
	/* Qwen2.5-VL's language model is Qwen2's, Qwen3-VL's Qwen3-MoE's, inside
	 * a VL wrapper */
	{"qwen2_5_vl_text", FAM_QWEN2}, {"qwen2_5_vl", FAM_QWEN2},
	{"qwen3_vl_moe_text", FAM_QWEN3_MOE}, {"qwen3_vl_moe", FAM_QWEN3_MOE},
	{"mimo_v2_flash", FAM_MIMO_V2}, {"gemma4_text", FAM_GEMMA4},
	{"step3p7", FAM_STEP3P7},       {"nemotron_h", FAM_NEMOTRON_H},
	{"kimi_linear", FAM_KIMI_LINEAR}, {"deepseek_v4", FAM_DEEPSEEK_V4},
};

/* Published families we read but refuse, each naming the one feature that
 * servesim does not model (so a user knows what would be wrong); none at
 * present (DeepSeek-V4 was, until its compressed attention was modelled). */
static const struct {
	const char *type, *feature;
} refused_types[] = {
	{NULL, NULL},
};

const char *model_family_name(enum model_family f)
{
	static const char *names[FAM__COUNT] = {
		"llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "llama4_text",
		"deepseek_v2", "deepseek_v3", "kimi_k2", "deepseek_v32", "glm_moe_dsa",
		"minimax_m2", "gpt_oss", "qwen3_next", "qwen3_5", "qwen3_5_moe", "mimo_v2_flash",
		"gemma4_text", "step3p7", "nemotron_h", "kimi_linear", "deepseek_v4",
	};
	return (unsigned)f < FAM__COUNT ? names[f] : "?";
}

const char *model_supported_types(void)
{
	return "llama, mistral, mixtral, qwen2, qwen2_5_vl, qwen3, qwen3_moe, qwen3_vl_moe, llama4_text, "
	       "deepseek_v2, deepseek_v3, kimi_k2, deepseek_v32, glm_moe_dsa, minimax_m2, gpt_oss, "
	       "qwen3_next, qwen3_5, qwen3_5_moe, mimo_v2_flash, gemma4_text, step3p7, nemotron_h, "
	       "kimi_linear, deepseek_v4";
}

const char *layer_mixer_name(enum layer_mixer k)
{
	static const char *n[LM__COUNT] = {"full", "sliding", "chunked", "linear", "none", "csa", "hca"};
	return (unsigned)k < LM__COUNT ? n[k] : "?";
}

static bool is_mla_family(enum model_family f)
{
	return f == FAM_DEEPSEEK_V2 || f == FAM_DEEPSEEK_V3 || f == FAM_KIMI_K2 ||
	       f == FAM_DEEPSEEK_V32 || f == FAM_GLM_MOE_DSA || f == FAM_KIMI_LINEAR;
}

#define REQ(key, lo, out) \
	do { if ((rc = json_req_int(c, key, src, lo, INT64_MAX, out, e)) < 0) return rc; } while (0)
#define OPT(key, lo, out, pres) \
	do { if ((rc = json_opt_int(c, key, src, lo, INT64_MAX, out, pres, e)) < 0) return rc; } while (0)

/* A per-layer list of integers in [lo, hi] of exactly `n` entries, stored
 * as flags (v != 0) or small codes. */
static int int_list(const struct json *c, const char *key, const char *src, int64_t n, int lo,
		    int hi, bool *flags, unsigned char *codes, struct err *e)
{
	const struct json *a = json_get(c, key), *x;
	int64_t i = 0;

	if (!a || json_type_of(a) != JSON_ARRAY || (int64_t)json_size(a) != n)
		return err_set(e, SS_EDATA, "%s: '%s' must be a list of %lld integers (one per layer)",
			       src, key, (long long)n);
	for (x = json_first(a); x; x = json_next(x), i++) {
		double v = json_number(x);
		if (json_type_of(x) != JSON_NUMBER || !(v >= lo && v <= hi) || v != (double)(int)v)
			return err_set(e, SS_EDATA, "%s: '%s'[%lld] must be an integer in [%d, %d]",
				       src, key, (long long)i, lo, hi);
		if (flags)
			flags[i] = v != 0;
		if (codes)
			codes[i] = (unsigned char)v;
	}
	return 0;
}

/* MoE layer placement, per family. */
static int place_moe_layers(const struct json *c, const char *src, struct model_cfg *m,
			    struct err *e)
{
	int64_t i, step = 1, freq = 1;
	bool pres;
	int rc;
	const struct json *mlp_only;

	m->n_moe_layers = 0;
	if (m->n_experts == 0)
		return 0;
	switch (m->family) {
	case FAM_LLAMA4:
		OPT("interleave_moe_layer_step", 1, &step, &pres);
		for (i = 0; i < m->layers; i++)
			m->is_moe[i] = (i + 1) % step == 0;
		break;
	case FAM_QWEN3_MOE: case FAM_QWEN3_NEXT: case FAM_QWEN3_5_MOE:
		OPT("decoder_sparse_step", 1, &step, &pres);
		for (i = 0; i < m->layers; i++)
			m->is_moe[i] = (i + 1) % step == 0;
		mlp_only = json_get(c, "mlp_only_layers");
		if (mlp_only && json_type_of(mlp_only) == JSON_ARRAY) {
			const struct json *x;
			for (x = json_first(mlp_only); x; x = json_next(x)) {
				double v = json_number(x);
				if (json_type_of(x) != JSON_NUMBER || !(v >= 0 && v < (double)m->layers))
					return err_set(e, SS_EDATA,
						       "%s: 'mlp_only_layers' entries must be layer indices in [0, %lld)",
						       src, (long long)m->layers);
				m->is_moe[(int64_t)v] = false;
			}
		}
		break;
	case FAM_DEEPSEEK_V2: case FAM_DEEPSEEK_V3: case FAM_KIMI_K2:
	case FAM_DEEPSEEK_V32: case FAM_GLM_MOE_DSA: case FAM_KIMI_LINEAR:
		OPT("moe_layer_freq", 1, &freq, &pres);
		for (i = 0; i < m->layers; i++)
			m->is_moe[i] = i >= m->first_k_dense && i % freq == 0;
		break;
	case FAM_STEP3P7:
		for (i = 0; i < m->layers; i++)
			m->is_moe[i] = i >= m->first_k_dense;
		break;
	case FAM_MIMO_V2:
		if ((rc = int_list(c, "moe_layer_freq", src, m->layers, 0, 1, m->is_moe, NULL, e)) < 0)
			return rc;
		break;
	case FAM_NEMOTRON_H:
		break; /* set from hybrid_override_pattern */
	default:
		for (i = 0; i < m->layers; i++)
			m->is_moe[i] = true;
	}
	for (i = 0; i < m->layers; i++)
		m->n_moe_layers += m->is_moe[i];
	return 0;
}

static int read_moe(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	bool pres = false;
	int rc;
	int64_t v = 0;

	switch (m->family) {
	case FAM_MIXTRAL:
		REQ("num_local_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		m->moe_intermediate = m->intermediate;
		break;
	case FAM_QWEN3_MOE: case FAM_QWEN3_NEXT: case FAM_QWEN3_5_MOE:
		REQ("num_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		OPT("shared_expert_intermediate_size", 0, &m->shared_intermediate, &pres);
		m->n_shared_experts = m->shared_intermediate > 0;
		/* Qwen3-Next / Qwen3.5: shared_expert_gate, Linear(hidden, 1) */
		m->shared_gate = m->family != FAM_QWEN3_MOE && m->n_shared_experts > 0;
		break;
	case FAM_GPT_OSS:
		/* gpt-oss: experts' gate_up and down carry biases; the router
		 * is a Linear with bias (HF GptOssTopKRouter) */
		REQ("num_local_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		REQ("intermediate_size", 1, &m->moe_intermediate);
		m->expert_bias = true;
		m->router_bias = true;
		break;
	case FAM_GEMMA4: {
		/* Gemma 4 MoE layers run a dense MLP (intermediate_size) beside the
		 * routed experts on every token: modelled as one shared expert */
		bool moe = true;
		if ((rc = json_opt_bool(c, "enable_moe_block", src, &moe, e)) < 0)
			return rc;
		if (!moe)
			return 0;
		REQ("num_experts", 1, &m->n_experts);
		REQ("top_k_experts", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		m->shared_intermediate = m->intermediate;
		m->n_shared_experts = 1;
		break;
	}
	case FAM_MIMO_V2: {
		const char *method = NULL;
		REQ("n_routed_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		OPT("n_shared_experts", 0, &m->n_shared_experts, &pres);
		m->shared_intermediate = m->n_shared_experts * m->moe_intermediate;
		if ((rc = json_opt_str(c, "topk_method", src, &method, e)) < 0)
			return rc;
		m->router_bias = method && strcmp(method, "noaux_tc") == 0;
		break;
	}
	case FAM_STEP3P7:
		REQ("num_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		OPT("n_shared_experts", 0, &m->n_shared_experts, &pres);
		OPT("share_expert_dim", 0, &v, &pres);
		m->shared_intermediate = m->n_shared_experts * (pres ? v : m->moe_intermediate);
		OPT("first_k_dense_replace", 0, &m->first_k_dense, &pres);
		if ((rc = json_opt_bool(c, "use_moe_router_bias", src, &m->router_bias, e)) < 0)
			return rc;
		break;
	case FAM_NEMOTRON_H:
		/* latent MoE: relu2 experts at moe_latent_size, shared expert
		 * at full width; the router keeps e_score_correction_bias */
		REQ("n_routed_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		OPT("n_shared_experts", 0, &m->n_shared_experts, &pres);
		OPT("moe_shared_expert_intermediate_size", 0, &v, &pres);
		m->shared_intermediate = m->n_shared_experts * v;
		OPT("moe_latent_size", 0, &m->moe_latent, &pres);
		m->router_bias = true;
		break;
	case FAM_LLAMA4:
		REQ("num_local_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		/* Llama 4: intermediate_size is the expert (and shared expert)
		 * width; intermediate_size_mlp the dense layers' width. */
		m->moe_intermediate = m->intermediate;
		m->shared_intermediate = m->intermediate;
		m->n_shared_experts = 1;
		OPT("intermediate_size_mlp", 1, &v, &pres);
		if (pres)
			m->intermediate = v;
		break;
	case FAM_MINIMAX_M2:
		REQ("num_local_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		m->moe_intermediate = m->intermediate;
		OPT("shared_intermediate_size", 0, &m->shared_intermediate, &pres);
		m->n_shared_experts = m->shared_intermediate > 0;
		if ((rc = json_opt_bool(c, "use_routing_bias", src, &m->router_bias, e)) < 0)
			return rc;
		break;
	case FAM_KIMI_LINEAR: {
		/* Kimi Linear (HF KimiLinearConfig): num_experts,
		 * num_experts_per_token, num_shared_experts; Kimi-K3's experts run
		 * at routed_expert_hidden_size between a hidden -> latent and a
		 * latent -> hidden projection (latent MoE, as Nemotron-H) */
		const char *method = NULL;
		REQ("num_experts", 1, &m->n_experts);
		REQ("num_experts_per_token", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		OPT("num_shared_experts", 0, &m->n_shared_experts, &pres);
		OPT("first_k_dense_replace", 0, &m->first_k_dense, &pres);
		m->shared_intermediate = m->n_shared_experts * m->moe_intermediate;
		OPT("routed_expert_hidden_size", 1, &v, &pres);
		if (pres && v != m->hidden)
			m->moe_latent = v;
		if ((rc = json_opt_str(c, "topk_method", src, &method, e)) < 0)
			return rc;
		m->router_bias = method && strcmp(method, "noaux_tc") == 0;
		break;
	}
	case FAM_DEEPSEEK_V2: case FAM_DEEPSEEK_V3: case FAM_KIMI_K2:
	case FAM_DEEPSEEK_V32: case FAM_GLM_MOE_DSA: case FAM_DEEPSEEK_V4: {
		const char *method = NULL;
		REQ("n_routed_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		OPT("n_shared_experts", 0, &m->n_shared_experts, &pres);
		OPT("first_k_dense_replace", 0, &m->first_k_dense, &pres);
		m->shared_intermediate = m->n_shared_experts * m->moe_intermediate;
		if ((rc = json_opt_str(c, "topk_method", src, &method, e)) < 0)
			return rc;
		/* noaux_tc routing keeps a learned per-expert score bias */
		m->router_bias = method && strcmp(method, "noaux_tc") == 0;
		break;
	}
	default:
		return 0;
	}
	if (m->top_k > m->n_experts)
		return err_set(e, SS_EDATA, "%s: 'num_experts_per_tok' (%lld) exceeds the number of experts (%lld)",
			       src, (long long)m->top_k, (long long)m->n_experts);
	return place_moe_layers(c, src, m, e);
}

/* layer_types (HF): one string per layer */
static int layer_types(const struct json *c, const char *src, struct model_cfg *m, bool *found,
		       struct err *e)
{
	static const struct {
		const char *name;
		enum layer_mixer k;
	} names[] = {{"full_attention", LM_FULL}, {"sliding_attention", LM_SLIDING},
		     {"linear_attention", LM_LINEAR}, {"chunked_attention", LM_CHUNKED}};
	const struct json *a = json_get(c, "layer_types"), *x;
	int64_t i = 0;
	size_t k;

	*found = a != NULL && json_type_of(a) != JSON_NULL;
	if (!*found)
		return 0;
	if (json_type_of(a) != JSON_ARRAY || (int64_t)json_size(a) != m->layers)
		return err_set(e, SS_EDATA, "%s: 'layer_types' must be a list of %lld strings (one per layer)",
			       src, (long long)m->layers);
	for (x = json_first(a); x; x = json_next(x), i++) {
		const char *t = json_type_of(x) == JSON_STRING ? json_string(x) : "";
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(t, names[k].name) == 0)
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			return err_set(e, SS_EDATA,
				       "%s: 'layer_types'[%lld] is '%s' (expected full_attention, sliding_attention, linear_attention or chunked_attention)",
				       src, (long long)i, t);
		m->mixer[i] = (unsigned char)names[k].k;
	}
	return 0;
}

/* Recurrent-state dtype of linear layers: fp32 when the config says so
 * (mamba_ssm_dtype / mamba_ssm_cache_dtype), else bf16 (vLLM's "auto"). */
/* A checkpoint dtype as transformers names it (torch_dtype, dtype,
 * mamba_ssm_dtype): the value must be one it knows, as loading the
 * checkpoint would fail on any other.  *out NULL when absent. */
static int opt_dtype_name(const struct json *c, const char *key, const char *src, const char **out,
			  struct err *e)
{
	static const char *const known[] = {"float32", "fp32", "float",  "float16",       "fp16",       "half",
					    "bfloat16", "bf16", "auto", "float8_e4m3fn", "float8_e5m2"};
	size_t i;
	int rc;

	*out = NULL;
	if ((rc = json_opt_str(c, key, src, out, e)) < 0 || !*out)
		return rc;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(*out, known[i]) == 0)
			return 0;
	return err_set(e, SS_EDATA,
		       "%s: '%s' must be a dtype transformers knows (float32, float16, bfloat16, float8_e4m3fn, "
		       "float8_e5m2 or auto), got '%.40s'",
		       src, key, *out);
}

static int state_dtype(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	const char *t = NULL;
	int rc;

	m->lin.state_elem_bytes = 2.0;
	if ((rc = opt_dtype_name(c, "mamba_ssm_dtype", src, &t, e)) < 0)
		return rc;
	if (!t && (rc = opt_dtype_name(c, "mamba_ssm_cache_dtype", src, &t, e)) < 0)
		return rc;
	if (t && (strcmp(t, "float32") == 0 || strcmp(t, "fp32") == 0))
		m->lin.state_elem_bytes = 4.0;
	return 0;
}

/* One of Kimi Linear's 1-based layer lists in linear_attn_config
 * (kda_layers, full_attn_layers): each entry marks layer v - 1 as `k`; a
 * layer named twice is an error. */
static int kimi_layer_list(const struct json *la, const char *key, const char *src,
			   struct model_cfg *m, enum layer_mixer k, bool *seen, struct err *e)
{
	const struct json *a = json_get(la, key), *x;
	int64_t i = 0;

	if (!a || json_type_of(a) == JSON_NULL)
		return 0;
	if (json_type_of(a) != JSON_ARRAY)
		return err_set(e, SS_EDATA, "%s: 'linear_attn_config.%s' must be a list of layer numbers (1-based)",
			       src, key);
	for (x = json_first(a); x; x = json_next(x), i++) {
		double v = json_number(x);
		if (json_type_of(x) != JSON_NUMBER || !(v >= 1 && v <= (double)m->layers) ||
		    v != (double)(int64_t)v)
			return err_set(e, SS_EDATA,
				       "%s: 'linear_attn_config.%s'[%lld] must be a layer number in [1, %lld] (1-based)",
				       src, key, (long long)i, (long long)m->layers);
		if (seen[(int64_t)v - 1])
			return err_set(e, SS_EDATA,
				       "%s: 'linear_attn_config.%s'[%lld]: layer %lld is listed twice in kda_layers/full_attn_layers",
				       src, key, (long long)i, (long long)v);
		seen[(int64_t)v - 1] = true;
		m->mixer[(int64_t)v - 1] = (unsigned char)k;
	}
	return 0;
}

/* Kimi Linear (HF KimiLinearConfig, vLLM kimi_linear): MLA layers and KDA
 * (Kimi Delta Attention) layers named 1-based in linear_attn_config
 * (kda_layers, full_attn_layers; every layer in exactly one), KDA heads
 * num_heads x head_dim for q, k and v, a short conv of
 * short_conv_kernel_size over each; use_full_rank_gate: the forget and
 * output gates are hidden -> heads x head_dim (else through head_dim).
 * Without linear_attn_config every layer is MLA. */
static int kimi_linear_layers(const struct json *c, const char *src, struct model_cfg *m,
			      struct err *e)
{
	const struct json *la = json_get(c, "linear_attn_config");
	bool seen[MODEL_MAX_LAYERS] = {false}, pres = false;
	char ctx[300];
	int64_t i;
	int rc;

	OPT("attn_res_block_size", 0, &m->attn_res_block, &pres);
	if ((rc = json_opt_bool(c, "mla_use_output_gate", src, &m->attn_out_gate, e)) < 0)
		return rc;
	if (!la || json_type_of(la) == JSON_NULL)
		return 0;
	if (json_type_of(la) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: 'linear_attn_config' must be an object (kda_layers, num_heads, head_dim, ...)",
			       src);
	if ((rc = kimi_layer_list(la, "kda_layers", src, m, LM_LINEAR, seen, e)) < 0 ||
	    (rc = kimi_layer_list(la, "full_attn_layers", src, m, LM_FULL, seen, e)) < 0)
		return rc;
	for (i = 0; i < m->layers; i++)
		if (!seen[i])
			return err_set(e, SS_EDATA,
				       "%s: 'linear_attn_config': layer %lld (1-based) is in neither kda_layers nor full_attn_layers",
				       src, (long long)(i + 1));
	snprintf(ctx, sizeof(ctx), "%s: linear_attn_config", src);
	m->lin.kind = LIN_KDA;
	if ((rc = json_req_int(la, "num_heads", ctx, 1, INT64_MAX, &m->lin.v_heads, e)) < 0 ||
	    (rc = json_req_int(la, "head_dim", ctx, 1, INT64_MAX, &m->lin.v_dim, e)) < 0 ||
	    (rc = json_req_int(la, "short_conv_kernel_size", ctx, 1, INT64_MAX, &m->lin.conv_kernel, e)) < 0 ||
	    (rc = json_opt_bool(la, "use_full_rank_gate", ctx, &m->lin.full_rank_gate, e)) < 0)
		return rc;
	m->lin.k_heads = m->lin.v_heads;
	m->lin.k_dim = m->lin.v_dim;
	/* vLLM keeps the KDA recurrent state in fp32 whatever the cache dtype
	 * (MambaStateDtypeCalculator.kda_state_dtype); the conv state follows
	 * the KV dtype (memplan) */
	m->lin.state_elem_bytes = 4.0;
	return 0;
}

/* Per-layer token mixers and the attention layouts of hybrid families. */
static int read_layers(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	int64_t i, v = 0;
	bool pres = false, lt = false;
	int rc;

	for (i = 0; i < m->layers; i++)
		m->mixer[i] = LM_FULL;
	if ((rc = layer_types(c, src, m, &lt, e)) < 0)
		return rc;
	switch (m->family) {
	case FAM_GPT_OSS:
		/* sinks on every layer (HF GptOssAttention.sinks) */
		m->attn_sinks = true;
		m->window.sinks = true;
		break;
	case FAM_QWEN3_NEXT: case FAM_QWEN3_5: case FAM_QWEN3_5_MOE:
		if (!lt) {
			int64_t every = 4;
			OPT("full_attention_interval", 1, &every, &pres);
			for (i = 0; i < m->layers; i++)
				m->mixer[i] = (i + 1) % every == 0 ? LM_FULL : LM_LINEAR;
		}
		/* gated attention: q_proj emits query and a sigmoid gate */
		m->attn_gate = true;
		m->qk_norm = true;
		m->lin.kind = LIN_GDN;
		REQ("linear_num_key_heads", 1, &m->lin.k_heads);
		REQ("linear_key_head_dim", 1, &m->lin.k_dim);
		REQ("linear_num_value_heads", 1, &m->lin.v_heads);
		REQ("linear_value_head_dim", 1, &m->lin.v_dim);
		REQ("linear_conv_kernel_dim", 1, &m->lin.conv_kernel);
		if ((rc = state_dtype(c, src, m, e)) < 0)
			return rc;
		break;
	case FAM_MIMO_V2: {
		bool sink = false;
		unsigned char pat[MODEL_MAX_LAYERS];
		/* hybrid_layer_pattern: 1 sliding-window layer, 0 full */
		if ((rc = int_list(c, "hybrid_layer_pattern", src, m->layers, 0, 1, NULL, pat, e)) < 0)
			return rc;
		for (i = 0; i < m->layers; i++)
			m->mixer[i] = pat[i] ? LM_SLIDING : LM_FULL;
		OPT("v_head_dim", 1, &m->v_head_dim, &pres);
		REQ("swa_num_attention_heads", 1, &m->window.heads);
		REQ("swa_num_key_value_heads", 1, &m->window.kv_heads);
		REQ("swa_head_dim", 1, &m->window.head_dim);
		REQ("swa_v_head_dim", 1, &m->window.v_head_dim);
		if ((rc = json_opt_bool(c, "add_swa_attention_sink_bias", src, &sink, e)) < 0)
			return rc;
		m->window.sinks = sink;
		sink = false;
		if ((rc = json_opt_bool(c, "add_full_attention_sink_bias", src, &sink, e)) < 0)
			return rc;
		m->attn_sinks = sink;
		break;
	}
	case FAM_GEMMA4: {
		int64_t nshared = 0;
		/* sliding layers: head_dim / num_key_value_heads; global layers:
		 * global_head_dim / num_global_key_value_heads, keys = values */
		m->window.heads = m->heads;
		m->window.kv_heads = m->kv_heads;
		m->window.head_dim = m->window.v_head_dim = m->head_dim;
		OPT("num_global_key_value_heads", 1, &m->kv_heads, &pres);
		OPT("global_head_dim", 1, &m->head_dim, &pres);
		m->v_head_dim = m->head_dim;
		m->rope_dim = m->head_dim;
		if ((rc = json_opt_bool(c, "attention_k_eq_v", src, &m->k_eq_v, e)) < 0)
			return rc;
		m->qk_norm = true;
		/* per-layer embeddings and KV sharing (Gemma 4 E2B/E4B; 0 in
		 * the larger models) */
		OPT("hidden_size_per_layer_input", 0, &m->ple_dim, &pres);
		m->ple_vocab = m->vocab;
		OPT("vocab_size_per_layer_input", 1, &m->ple_vocab, &pres);
		OPT("num_kv_shared_layers", 0, &nshared, &pres);
		if (nshared >= m->layers)
			return err_set(e, SS_EDATA,
				       "%s: 'num_kv_shared_layers' is %lld, expected fewer than num_hidden_layers (%lld)",
				       src, (long long)nshared, (long long)m->layers);
		for (i = m->layers - nshared; i < m->layers; i++)
			m->kv_shared[i] = true;
		break;
	}
	case FAM_LLAMA4:
		/* local layers attend within attention_chunk_size blocks; every
		 * no_rope_layer_interval-th layer (NoPE) is global (HF Llama4TextConfig) */
		OPT("attention_chunk_size", 1, &m->chunk, &pres);
		if (m->chunk > 0 && !lt) {
			const struct json *nr = json_get(c, "no_rope_layers");
			int64_t every = 4;
			if (nr && json_type_of(nr) == JSON_ARRAY && json_size(nr) > 0) {
				bool rope[MODEL_MAX_LAYERS];
				if ((rc = int_list(c, "no_rope_layers", src, m->layers, 0, 1, rope, NULL, e)) < 0)
					return rc;
				for (i = 0; i < m->layers; i++)
					m->mixer[i] = rope[i] ? LM_CHUNKED : LM_FULL;
			} else {
				OPT("no_rope_layer_interval", 1, &every, &pres);
				for (i = 0; i < m->layers; i++)
					m->mixer[i] = (i + 1) % every != 0 ? LM_CHUNKED : LM_FULL;
			}
		}
		break;
	case FAM_NEMOTRON_H: {
		const char *pat = NULL;
		if ((rc = json_req_str(c, "hybrid_override_pattern", src, &pat, e)) < 0)
			return rc;
		if ((int64_t)strlen(pat) != m->layers)
			return err_set(e, SS_EDATA,
				       "%s: 'hybrid_override_pattern' has %zu characters, expected %lld (num_hidden_layers)",
				       src, strlen(pat), (long long)m->layers);
		/* M Mamba2 mixer, * attention, E MoE FFN, - dense FFN: one block each */
		for (i = 0; i < m->layers; i++) {
			char ch = pat[i];
			if (ch != 'M' && ch != '*' && ch != 'E' && ch != '-')
				return err_set(e, SS_EDATA,
					       "%s: 'hybrid_override_pattern'[%lld] is '%c' (expected M, *, E or -)",
					       src, (long long)i, ch);
			m->mixer[i] = ch == 'M' ? LM_LINEAR : ch == '*' ? LM_FULL : LM_NONE;
			m->no_ffn[i] = ch == 'M' || ch == '*';
			m->is_moe[i] = ch == 'E';
		}
		m->ffn_mats = 2; /* relu2 MLPs: up and down, no gate */
		m->lin.kind = LIN_MAMBA2;
		REQ("n_groups", 1, &m->lin.k_heads);
		REQ("ssm_state_size", 1, &m->lin.k_dim);
		REQ("mamba_num_heads", 1, &m->lin.v_heads);
		REQ("mamba_head_dim", 1, &m->lin.v_dim);
		REQ("conv_kernel", 1, &m->lin.conv_kernel);
		if ((rc = state_dtype(c, src, m, e)) < 0)
			return rc;
		break;
	}
	case FAM_KIMI_LINEAR:
		if ((rc = kimi_linear_layers(c, src, m, e)) < 0)
			return rc;
		break;
	case FAM_DEEPSEEK_V4:
		if ((rc = model_csa_read(c, src, m, e)) < 0)
			return rc;
		break;
	default:
		break;
	}
	for (i = 0; i < m->layers; i++) {
		m->n_mixer[m->mixer[i]]++;
		if (m->kv_shared[i])
			m->n_kv_shared[m->mixer[i]]++;
	}
	for (i = 0; i < LM__COUNT; i++)
		if (m->n_kv_shared[i] > 0 && m->n_kv_shared[i] == m->n_mixer[i])
			return err_set(e, SS_EDATA,
				       "%s: 'num_kv_shared_layers' leaves no earlier %s layer to share the KV of",
				       src, layer_mixer_name((enum layer_mixer)i));
	if (m->n_mixer[LM_SLIDING] > 0) {
		REQ("sliding_window", 1, &m->window.size);
		if (m->window.heads == 0) {
			m->window.heads = m->heads;
			m->window.kv_heads = m->kv_heads;
			m->window.head_dim = m->head_dim;
			m->window.v_head_dim = m->v_head_dim;
		}
		if (m->window.heads % m->window.kv_heads != 0)
			return err_set(e, SS_EDATA,
				       "%s: sliding-window layers' %lld heads must be a multiple of their %lld KV heads",
				       src, (long long)m->window.heads, (long long)m->window.kv_heads);
	}
	if (m->n_mixer[LM_CHUNKED] > 0 && m->chunk <= 0)
		return err_set(e, SS_EDATA, "%s: chunked attention layers need 'attention_chunk_size' >= 1", src);
	if (m->n_mixer[LM_LINEAR] > 0 && m->lin.kind == LIN_NONE)
		return err_set(e, SS_EDATA,
			       "%s: 'linear_attention' layers are modelled for qwen3_next and qwen3_5 (Gated DeltaNet), nemotron_h (Mamba2) and kimi_linear (KDA) only",
			       src);
	(void)v;
	return 0;
}

/* The model's maximum context, read as vLLM reads it (vllm/config/model.py,
 * _get_and_verify_max_len: the least of the keys present; its
 * model_max_length, a tokenizer setting that may be 1e30, is left out).
 * None at all: vLLM assumes 2048 with a warning; servesim refuses rather
 * than guess (it took 32768 without a word, issue 30). */
static int context_length(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	static const char *const keys[] = {"max_position_embeddings", "n_positions", "max_seq_len",
					   "seq_length", "max_sequence_length", "max_seq_length", "seq_len"};
	int64_t v;
	bool pres;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if ((rc = json_opt_int(c, keys[i], src, 1, INT32_MAX, &v, &pres, e)) < 0)
			return rc;
		if (pres && (m->max_positions == 0 || v < m->max_positions))
			m->max_positions = v;
	}
	if (m->max_positions == 0)
		return err_set(e, SS_EDATA, "%s: no maximum context length: give 'max_position_embeddings' "
			       "(or n_positions, max_seq_len, seq_length, max_sequence_length, max_seq_length, "
			       "seq_len, as vLLM reads them)", src);
	return 0;
}

/* One rope-scaling object (rope_scaling, rope_parameters or one of the
 * latter's per-layer-type entries): its factor and the original context
 * length, when given, positive. */
static int rope_object(const struct json *o, const char *src, const char *name, struct err *e)
{
	static const char *const keys[] = {"factor", "original_max_position_embeddings",
					   "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow"};
	double v;
	bool pres;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if ((rc = json_opt_num(o, keys[i], src, &v, &pres, e)) < 0)
			return rc;
		if (pres && !(v > 0 && isfinite(v)))
			return err_set(e, SS_EDATA, "%s: '%s.%s' must be a positive number, got %g", src, name,
				       keys[i], v);
	}
	return 0;
}

/* rope_scaling / rope_parameters (null or an object, per layer type or
 * not) and sliding_window (null or a window of >= 0 tokens): servesim
 * prices neither beyond the window, but a config that says "yes", -4 or -5
 * is not the model it claims to be (issue 30). */
static int rope_checks(const struct json *c, const char *src, struct err *e)
{
	static const char *const objs[] = {"rope_scaling", "rope_parameters"};
	const struct json *o, *sub;
	int64_t w;
	bool pres;
	size_t i;
	int rc;

	for (i = 0; i < 2; i++) {
		o = json_get(c, objs[i]);
		if (!o || json_type_of(o) == JSON_NULL)
			continue;
		if (json_type_of(o) != JSON_OBJECT)
			return err_set(e, SS_EDATA, "%s: '%s' must be an object or null", src, objs[i]);
		if ((rc = rope_object(o, src, objs[i], e)) < 0)
			return rc;
		for (sub = json_first(o); sub; sub = json_next(sub))
			if (json_type_of(sub) == JSON_OBJECT && (rc = rope_object(sub, src, objs[i], e)) < 0)
				return rc;
	}
	return json_opt_int(c, "sliding_window", src, 0, INT32_MAX, &w, &pres, e);
}

/* partial_rotary_factor (top level or in rope_parameters): rotary dims of
 * the full-attention layers' heads (the rope op's width). */
static int partial_rotary(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	const struct json *rp = json_get(c, "rope_parameters");
	double f = 0;
	bool pres = false;
	int rc;

	if ((rc = json_opt_num(c, "partial_rotary_factor", src, &f, &pres, e)) < 0)
		return rc;
	if (!pres && rp && json_type_of(rp) == JSON_OBJECT) {
		const struct json *full = json_get(rp, "full_attention");
		if (full && json_type_of(full) == JSON_OBJECT)
			rp = full; /* Gemma 4: per layer type */
		if ((rc = json_opt_num(rp, "partial_rotary_factor", src, &f, &pres, e)) < 0)
			return rc;
	}
	if (!pres)
		return 0;
	if (!(f > 0 && f <= 1))
		return err_set(e, SS_EDATA, "%s: 'partial_rotary_factor' must be in (0, 1], got %g", src, f);
	m->rope_dim = (int64_t)((double)m->head_dim * f);
	if (m->rope_dim < 1)
		m->rope_dim = 1;
	return 0;
}

static int read_mla(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	bool pres;
	int rc;

	m->attn = ATTN_MLA;
	OPT("q_lora_rank", 0, &m->q_lora_rank, &pres);
	REQ("kv_lora_rank", 1, &m->kv_lora_rank);
	REQ("qk_nope_head_dim", 1, &m->qk_nope_dim);
	REQ("qk_rope_head_dim", 1, &m->qk_rope_dim);
	REQ("v_head_dim", 1, &m->v_head_dim);
	m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
	m->rope_dim = m->qk_rope_dim;
	m->kv_heads = m->heads;
	if (m->family == FAM_DEEPSEEK_V32 || m->family == FAM_GLM_MOE_DSA) {
		const struct json *it = json_get(c, "indexer_types"), *x;
		int64_t i = 0;
		REQ("index_n_heads", 1, &m->index_heads);
		REQ("index_head_dim", 1, &m->index_head_dim);
		REQ("index_topk", 1, &m->index_topk);
		m->index_layers = m->layers;
		if (it && json_type_of(it) != JSON_NULL) {
			if (json_type_of(it) != JSON_ARRAY || (int64_t)json_size(it) != m->layers)
				return err_set(e, SS_EDATA,
					       "%s: 'indexer_types' must be a list of %lld strings (one per layer)",
					       src, (long long)m->layers);
			for (x = json_first(it); x; x = json_next(x), i++) {
				const char *t = json_type_of(x) == JSON_STRING ? json_string(x) : "";
				if (strcmp(t, "full") != 0 && strcmp(t, "shared") != 0)
					return err_set(e, SS_EDATA,
						       "%s: 'indexer_types'[%lld] is '%s' (expected full or shared)",
						       src, (long long)i, t);
				m->shared_index[i] = t[0] == 's';
				m->index_layers -= m->shared_index[i];
			}
		}
	}
	return 0;
}

/* DeepSeek-V4's expert_dtype: "fp4" experts are MXFP4 (fp4 e2m1, one ue8m0
 * scale per 32 weights: vLLM's DeepseekV4FP8Config routes them to its
 * Mxfp4MoEMethod), "fp8" ones (the Base checkpoints) block fp8 as the rest;
 * absent: fp4, as vLLM defaults. */
static int expert_dtype(const struct json *c, const char *src, struct model_cfg *m, struct err *e)
{
	const char *t = NULL;
	int rc;

	if ((rc = json_opt_str(c, "expert_dtype", src, &t, e)) < 0)
		return rc;
	if (t && strcmp(t, "fp8") == 0)
		return 0;
	if (t && strcmp(t, "fp4") != 0)
		return err_set(e, SS_EDATA, "%s: 'expert_dtype' is '%s' (expected fp4 or fp8)", src, t);
	m->q.experts = Q_MXFP4;
	if (m->q.method[0] == '\0')
		snprintf(m->q.method, sizeof(m->q.method), "fp8");
	return 0;
}

int model_from_json(const struct json *root, const char *src, struct model_cfg *m,
		    struct err *e)
{
	const struct json *c = root, *tc, *q;
	const char *type = NULL;
	bool pres;
	size_t i;
	int rc, found = 0;

	memset(m, 0, sizeof(*m));
	snprintf(m->source, sizeof(m->source), "%s", src);
	if (json_type_of(root) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected a JSON object (an HF config.json)", src);
	tc = json_get(root, "text_config");
	if (tc && json_type_of(tc) == JSON_OBJECT)
		c = tc;
	if ((rc = json_opt_str(c, "model_type", src, &type, e)) < 0)
		return rc;
	if (!type && c != root && (rc = json_opt_str(root, "model_type", src, &type, e)) < 0)
		return rc;
	if (!type)
		return err_set(e, SS_EDATA, "%s: missing required key 'model_type'", src);
	for (i = 0; refused_types[i].type; i++)
		if (strcmp(type, refused_types[i].type) == 0)
			return err_set(e, SS_EDATA,
				       "%s: model_type '%s' is refused: servesim does not model its %s",
				       src, type, refused_types[i].feature);
	for (i = 0; i < sizeof(family_types) / sizeof(family_types[0]); i++) {
		if (strcmp(type, family_types[i].type) == 0) {
			m->family = family_types[i].fam;
			found = 1;
		}
	}
	if (!found)
		return err_set(e, SS_EDATA,
			       "%s: model_type '%s' is not supported (supported families: %s)", src,
			       type, model_supported_types());
	/* shown without the "_text" of a wrapped language model (qwen3_5_moe,
	 * gemma4, llama4: the published wrapper's name) */
	snprintf(m->model_type, sizeof(m->model_type), "%s", type);
	{
		size_t n = strlen(m->model_type);
		if (n > 5 && strcmp(m->model_type + n - 5, "_text") == 0)
			m->model_type[n - 5] = '\0';
	}

	REQ("hidden_size", 1, &m->hidden);
	REQ("num_hidden_layers", 1, &m->layers);
	REQ("num_attention_heads", 1, &m->heads);
	REQ("vocab_size", 1, &m->vocab);
	if (m->layers > MODEL_MAX_LAYERS)
		return err_set(e, SS_EDATA, "%s: 'num_hidden_layers' must be <= %d, got %lld", src,
			       MODEL_MAX_LAYERS, (long long)m->layers);
	m->kv_heads = m->heads;
	OPT("num_key_value_heads", 1, &m->kv_heads, &pres);
	m->head_dim = m->hidden / m->heads;
	OPT("head_dim", 1, &m->head_dim, &pres);
	m->intermediate = 0;
	OPT("intermediate_size", 1, &m->intermediate, &pres);
	if ((rc = json_opt_bool(c, "tie_word_embeddings", src, &m->tie_embeddings, e)) < 0)
		return rc;
	/* the checkpoint's dtype (torch_dtype; transformers >= 5: dtype): 16-bit
	 * weights are served either way unless a quantization_config says
	 * otherwise (vLLM's --dtype auto: FP16 for FP32 and FP16 checkpoints,
	 * BF16 for BF16 ones), so it is only checked */
	{
		const char *dt;
		if ((rc = opt_dtype_name(c, "torch_dtype", src, &dt, e)) < 0 ||
		    (rc = opt_dtype_name(c, "dtype", src, &dt, e)) < 0)
			return rc;
	}
	if (m->heads % m->kv_heads != 0)
		return err_set(e, SS_EDATA,
			       "%s: 'num_attention_heads' (%lld) must be a multiple of 'num_key_value_heads' (%lld)",
			       src, (long long)m->heads, (long long)m->kv_heads);
	m->attn = m->kv_heads == m->heads ? ATTN_MHA : ATTN_GQA;
	m->rope_dim = m->head_dim;
	m->v_head_dim = m->head_dim;
	m->ffn_mats = 3;

	switch (m->family) {
	case FAM_QWEN2:
		m->qkv_bias = true; /* Qwen2 always carries q/k/v biases */
		break;
	case FAM_QWEN3: case FAM_QWEN3_MOE:
		m->qk_norm = true;
		break;
	case FAM_MINIMAX_M2:
		if ((rc = json_opt_bool(c, "use_qk_norm", src, &m->qk_norm, e)) < 0)
			return rc;
		OPT("rotary_dim", 1, &m->rope_dim, &pres);
		break;
	default:
		break;
	}
	if (m->family != FAM_QWEN2 &&
	    (rc = json_opt_bool(c, "attention_bias", src, &m->qkv_bias, e)) < 0)
		return rc;
	if (is_mla_family(m->family) && (rc = read_mla(c, src, m, e)) < 0)
		return rc;
	if ((rc = read_layers(c, src, m, e)) < 0)
		return rc;
	if (m->attn != ATTN_MLA && (rc = partial_rotary(c, src, m, e)) < 0)
		return rc;
	if ((rc = read_moe(c, src, m, e)) < 0)
		return rc;
	if (m->n_moe_layers < m->layers && m->intermediate == 0)
		return err_set(e, SS_EDATA, "%s: missing required key 'intermediate_size'", src);
	OPT("num_nextn_predict_layers", 0, &m->mtp_layers, &pres);
	if ((rc = context_length(c, src, m, e)) < 0 || (rc = rope_checks(c, src, e)) < 0)
		return rc;
	if (m->family == FAM_MINIMAX_M2)
		OPT("num_mtp_modules", 0, &m->mtp_layers, &pres);
	if (m->family == FAM_QWEN3_5 || m->family == FAM_QWEN3_5_MOE)
		OPT("mtp_num_hidden_layers", 0, &m->mtp_layers, &pres);
	q = json_get(c, "quantization_config");
	if (!q)
		q = json_get(root, "quantization_config");
	if (q && json_type_of(q) == JSON_OBJECT && (rc = model_quant_from_json(q, src, m, e)) < 0)
		return rc;
	if (m->family == FAM_DEEPSEEK_V4 && (rc = expert_dtype(c, src, m, e)) < 0)
		return rc;
	/* the image encoder; its weights count in the memory plan */
	if (c != root && (rc = model_vision_read(root, src, m, e)) < 0)
		return rc;
	m->vision_params = model_vision_params(&m->vis);
	return 0;
}

#define APPEND(...) \
	do { if (off < n) off += (size_t)snprintf(buf + off, n - off, __VA_ARGS__); } while (0)

void model_layers_text(const struct model_cfg *m, char *buf, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	if (m->attn == ATTN_CSA) {
		APPEND("CSA %lld (ratio 4, indexer %lld x %lld heads, top-%lld), HCA %lld (ratio 128), "
		       "window-only %lld; every layer a window of %lld, one K=V head of %lld",
		       (long long)m->n_mixer[LM_CSA], (long long)m->index_heads, (long long)m->index_head_dim,
		       (long long)m->index_topk, (long long)m->n_mixer[LM_HCA], (long long)m->n_mixer[LM_SLIDING],
		       (long long)m->window.size, (long long)m->head_dim);
		if (m->hc_mult > 1)
			APPEND("; hyper-connections x%lld", (long long)m->hc_mult);
		if (m->hash_layers > 0)
			APPEND("; %lld hash-routed MoE layers", (long long)m->hash_layers);
		return;
	}
	if (m->n_mixer[LM_FULL] == m->layers)
		return;
	APPEND("full attention %lld", (long long)m->n_mixer[LM_FULL]);
	if (m->n_mixer[LM_SLIDING])
		APPEND(", sliding window %lld (window %lld, %lld heads, %lld KV heads, head dim %lld/%lld%s)",
		       (long long)m->n_mixer[LM_SLIDING], (long long)m->window.size,
		       (long long)m->window.heads, (long long)m->window.kv_heads,
		       (long long)m->window.head_dim, (long long)m->window.v_head_dim,
		       m->window.sinks ? ", sinks" : "");
	if (m->n_mixer[LM_CHUNKED])
		APPEND(", chunked local %lld (chunk %lld)", (long long)m->n_mixer[LM_CHUNKED],
		       (long long)m->chunk);
	if (m->n_mixer[LM_LINEAR])
		APPEND(", linear %lld (%s: %lld x %lld key, %lld x %lld value heads, conv %lld, state %.0f B/elem)",
		       (long long)m->n_mixer[LM_LINEAR],
		       m->lin.kind == LIN_GDN ? "Gated DeltaNet" : m->lin.kind == LIN_KDA ? "KDA" : "Mamba2",
		       (long long)m->lin.k_heads,
		       (long long)m->lin.k_dim, (long long)m->lin.v_heads, (long long)m->lin.v_dim,
		       (long long)m->lin.conv_kernel, m->lin.state_elem_bytes);
	if (m->n_mixer[LM_NONE])
		APPEND(", FFN-only %lld", (long long)m->n_mixer[LM_NONE]);
	if (m->attn_res_block > 0)
		APPEND("; block attention residuals over blocks of %lld layers (%lld blocks)",
		       (long long)m->attn_res_block,
		       (long long)((m->layers + m->attn_res_block - 1) / m->attn_res_block));
}

int model_load_file(const char *path, const char *id, struct model_cfg *m, struct err *e)
{
	struct json *root;
	int rc = json_parse_file_max(path, MODEL_MAX_CONFIG_BYTES, &root, e);

	if (rc < 0)
		return rc;
	rc = model_from_json(root, path, m, e);
	json_free(root);
	if (rc < 0)
		return rc;
	if (id) {
		snprintf(m->id, sizeof(m->id), "%s", id);
	} else {
		const char *b = strrchr(path, '/');
		char *dot;
		snprintf(m->id, sizeof(m->id), "%s", b ? b + 1 : path);
		dot = strstr(m->id, ".json");
		if (dot)
			*dot = '\0';
	}
	return 0;
}
