/* model.h - a model architecture normalised from a published HF config.json,
 * the model registry (data/models/index.json) and parameter / memory
 * accounting (total and active parameters, weight and KV bytes per GPU). */
#ifndef SERVESIM_MODEL_H
#define SERVESIM_MODEL_H
#include <stdbool.h>
#include <stdint.h>

#include "servesim/err.h"
#include "servesim/json.h"

#define MODEL_MAX_LAYERS 512

enum model_family {
	FAM_LLAMA, FAM_MISTRAL, FAM_MIXTRAL, FAM_QWEN2, FAM_QWEN3, FAM_QWEN3_MOE,
	FAM_LLAMA4, FAM_DEEPSEEK_V2, FAM_DEEPSEEK_V3, FAM_KIMI_K2, FAM_DEEPSEEK_V32,
	FAM_GLM_MOE_DSA, FAM_MINIMAX_M2, FAM__COUNT
};

enum attn_kind { ATTN_MHA, ATTN_GQA, ATTN_MLA };

struct model_cfg {
	char id[96];            /* registry id or file stem */
	char source[512];       /* file it was loaded from */
	char model_type[48];    /* as published (text_config's when wrapped) */
	enum model_family family;
	int64_t hidden, layers, heads, kv_heads, head_dim, vocab;
	int64_t intermediate;   /* dense FFN width (dense layers of MoE models too) */
	bool tie_embeddings, qkv_bias, qk_norm;
	int64_t rope_dim;       /* rotary dims per head (partial rotary, MLA rope) */
	enum attn_kind attn;
	/* MLA (0 when not MLA) */
	int64_t q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim, v_head_dim;
	/* DeepSeek sparse attention indexer (0 when absent) */
	int64_t index_heads, index_head_dim, index_topk;
	/* MoE (n_experts 0 when dense) */
	int64_t n_experts, top_k, moe_intermediate, shared_intermediate, n_shared_experts;
	bool router_bias;       /* e_score_correction_bias / routing bias: E params */
	int64_t first_k_dense;  /* informational; is_moe[] is authoritative */
	int64_t mtp_layers;     /* multi-token-prediction modules, excluded from counts */
	int64_t max_positions;  /* max_position_embeddings (0 if absent) */
	bool is_moe[MODEL_MAX_LAYERS];
	int64_t n_moe_layers;
	char quant[24];         /* quantization_config.quant_method or "" */
};

const char *model_family_name(enum model_family f);
/* Comma-separated list of supported model_type values, for messages. */
const char *model_supported_types(void);
const char *attn_kind_name(enum attn_kind a);

/* Normalise a parsed config.json.  source names it in messages. */
int model_from_json(const struct json *root, const char *source, struct model_cfg *m,
		    struct err *e);
/* Load a config.json (plain or .gz); id is stored as given. */
int model_load_file(const char *path, const char *id, struct model_cfg *m, struct err *e);

/* --- registry --- */
struct model_entry {
	char id[96];
	char hf[128];
	char file[160];
	char aliases[4][96];
	int naliases;
};

struct model_registry {
	struct model_entry *entries;
	size_t n;
	char dir[512];  /* data/models directory */
};

int registry_load(struct model_registry *r, const char *models_dir, struct err *e);
void registry_release(struct model_registry *r);
/* Find by id, HF name or alias (case-insensitive). */
const struct model_entry *registry_find(const struct model_registry *r, const char *name);
/* Resolve name and load it; unknown names give SS_EUSAGE with suggestions. */
int registry_load_model(const struct model_registry *r, const char *name,
			struct model_cfg *m, struct err *e);

/* --- parallelism and accounting --- */
struct parallel {
	int tp, pp, dp, ep;
};

struct param_counts {
	double total;            /* every weight, MTP excluded */
	double active;           /* weights touched per token, embedding table included */
	double embedding;        /* input embedding table */
	double lm_head;          /* 0 when tied */
	double attention, dense_ffn, experts, shared_experts, router, norms;
};

void model_params(const struct model_cfg *m, struct param_counts *pc);
/* Weight bytes held by one GPU (the most loaded pipeline stage). */
double model_weight_bytes_per_gpu(const struct model_cfg *m, const struct parallel *p,
				  double weight_bytes_per_param);
/* KV-cache bytes per token for the whole model (all layers) and on one GPU. */
double model_kv_bytes_per_token(const struct model_cfg *m, double kv_bytes_per_elem);
double model_kv_bytes_per_token_per_gpu(const struct model_cfg *m, const struct parallel *p,
					double kv_bytes_per_elem);
/* Validate a parallel layout against the model; SS_EUSAGE naming the flag. */
int model_check_parallel(const struct model_cfg *m, const struct parallel *p, struct err *e);

#endif
