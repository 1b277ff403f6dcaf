/* config.c - normalise published HF config.json files into struct model_cfg.
 *
 * Published configs carry many keys we do not need, so unknown keys are
 * ignored here (unlike our own formats); the keys we do read are typed and
 * range-checked, and a missing required key is an SS_EDATA error naming it. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "servesim/model.h"

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
};

const char *model_family_name(enum model_family f)
{
	static const char *names[FAM__COUNT] = {
		"llama", "mistral", "mixtral", "qwen2", "qwen3", "qwen3_moe", "llama4_text",
		"deepseek_v2", "deepseek_v3", "kimi_k2", "deepseek_v32", "glm_moe_dsa",
		"minimax_m2",
	};
	return (unsigned)f < FAM__COUNT ? names[f] : "?";
}

const char *model_supported_types(void)
{
	return "llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, llama4_text, deepseek_v2, "
	       "deepseek_v3, kimi_k2, deepseek_v32, glm_moe_dsa, minimax_m2";
}

const char *attn_kind_name(enum attn_kind a)
{
	switch (a) {
	case ATTN_MHA: return "MHA";
	case ATTN_GQA: return "GQA";
	case ATTN_MLA: return "MLA";
	}
	return "?";
}

static bool is_mla_family(enum model_family f)
{
	return f == FAM_DEEPSEEK_V2 || f == FAM_DEEPSEEK_V3 || f == FAM_KIMI_K2 ||
	       f == FAM_DEEPSEEK_V32 || f == FAM_GLM_MOE_DSA;
}

#define REQ(key, lo, out) \
	do { if ((rc = json_req_int(c, key, src, lo, INT64_MAX, out, e)) < 0) return rc; } while (0)
#define OPT(key, lo, out, pres) \
	do { if ((rc = json_opt_int(c, key, src, lo, INT64_MAX, out, pres, e)) < 0) return rc; } while (0)

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
	case FAM_QWEN3_MOE:
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
	case FAM_DEEPSEEK_V32: case FAM_GLM_MOE_DSA:
		OPT("moe_layer_freq", 1, &freq, &pres);
		for (i = 0; i < m->layers; i++)
			m->is_moe[i] = i >= m->first_k_dense && i % freq == 0;
		break;
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
	case FAM_QWEN3_MOE:
		REQ("num_experts", 1, &m->n_experts);
		REQ("num_experts_per_tok", 1, &m->top_k);
		REQ("moe_intermediate_size", 1, &m->moe_intermediate);
		OPT("shared_expert_intermediate_size", 0, &m->shared_intermediate, &pres);
		m->n_shared_experts = m->shared_intermediate > 0;
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
	case FAM_DEEPSEEK_V2: case FAM_DEEPSEEK_V3: case FAM_KIMI_K2:
	case FAM_DEEPSEEK_V32: case FAM_GLM_MOE_DSA: {
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
		REQ("index_n_heads", 1, &m->index_heads);
		REQ("index_head_dim", 1, &m->index_head_dim);
		REQ("index_topk", 1, &m->index_topk);
	}
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
	snprintf(m->model_type, sizeof(m->model_type), "%s", type);

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
	if (m->heads % m->kv_heads != 0)
		return err_set(e, SS_EDATA,
			       "%s: 'num_attention_heads' (%lld) must be a multiple of 'num_key_value_heads' (%lld)",
			       src, (long long)m->heads, (long long)m->kv_heads);
	m->attn = m->kv_heads == m->heads ? ATTN_MHA : ATTN_GQA;
	m->rope_dim = m->head_dim;

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
	if ((rc = read_moe(c, src, m, e)) < 0)
		return rc;
	if (m->n_moe_layers < m->layers && m->intermediate == 0)
		return err_set(e, SS_EDATA, "%s: missing required key 'intermediate_size'", src);
	OPT("num_nextn_predict_layers", 0, &m->mtp_layers, &pres);
	OPT("max_position_embeddings", 1, &m->max_positions, &pres);
	if (m->family == FAM_MINIMAX_M2)
		OPT("num_mtp_modules", 0, &m->mtp_layers, &pres);
	q = json_get(c, "quantization_config");
	if (!q)
		q = json_get(root, "quantization_config");
	if (q && json_type_of(q) == JSON_OBJECT) {
		const char *qm = NULL;
		if ((rc = json_opt_str(q, "quant_method", src, &qm, e)) < 0)
			return rc;
		if (qm)
			snprintf(m->quant, sizeof(m->quant), "%s", qm);
	}
	return 0;
}

int model_load_file(const char *path, const char *id, struct model_cfg *m, struct err *e)
{
	struct json *root;
	int rc = json_parse_file(path, &root, e);

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
