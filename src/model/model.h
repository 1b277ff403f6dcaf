/* model.h - a model architecture normalised from a published HF config.json,
 * the model registry (data/models/index.json) and parameter / memory
 * accounting (total and active parameters, weight and KV bytes per GPU). */
#ifndef SERVESIM_MODEL_H
#define SERVESIM_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/json.h"

#define MODEL_MAX_LAYERS 512
/* A config.json's size (Hugging Face's are a few KiB; /dev/zero as
 * --config was read to 1 GiB first). */
#define MODEL_MAX_CONFIG_BYTES ((size_t)16 << 20)

enum model_family {
	FAM_LLAMA, FAM_MISTRAL, FAM_MIXTRAL, FAM_QWEN2, FAM_QWEN3, FAM_QWEN3_MOE,
	FAM_LLAMA4, FAM_DEEPSEEK_V2, FAM_DEEPSEEK_V3, FAM_KIMI_K2, FAM_DEEPSEEK_V32,
	FAM_GLM_MOE_DSA, FAM_MINIMAX_M2, FAM_GPT_OSS, FAM_QWEN3_NEXT, FAM_QWEN3_5,
	FAM_QWEN3_5_MOE, FAM_MIMO_V2, FAM_GEMMA4, FAM_STEP3P7, FAM_NEMOTRON_H,
	FAM_KIMI_LINEAR, FAM_DEEPSEEK_V4,
	FAM__COUNT
};

/* ATTN_CSA: DeepSeek-V4's compressed attention (one shared K=V head, per-layer
 * KV compression; see model_cfg.compress) */
enum attn_kind { ATTN_MHA, ATTN_GQA, ATTN_MLA, ATTN_CSA };

/* What mixes tokens in one layer.  FULL attends to every earlier token (its
 * KV cache grows with the sequence); SLIDING to the last `window.size` tokens;
 * CHUNKED to the tokens of its own `chunk`-token block (Llama 4 local layers);
 * LINEAR is a recurrent layer (Gated DeltaNet, Mamba2) holding a fixed-size
 * state per sequence; NONE is a layer without a token mixer (Nemotron-H's
 * MoE-only blocks).  CSA and HCA are DeepSeek-V4's compressed layers (every
 * compress[i] tokens become one cached entry beside a sliding window of
 * window.size tokens: CSA at ratio 4 with a lightning indexer keeping
 * index_topk entries a query, HCA at ratio 128 attending all of them); its
 * layers of ratio 0 keep the window only and are SLIDING. */
enum layer_mixer { LM_FULL, LM_SLIDING, LM_CHUNKED, LM_LINEAR, LM_NONE, LM_CSA, LM_HCA, LM__COUNT };

enum linear_kind { LIN_NONE, LIN_GDN, LIN_MAMBA2, LIN_KDA };

/* Storage format of quantised checkpoint weights (quantization_config). */
enum model_qfmt {
	Q_NONE,        /* as the checkpoint dtype (bf16) */
	Q_FP8,         /* fp8 e4m3, per-tensor or per-channel scales */
	Q_FP8_BLOCK,   /* fp8 e4m3, one fp32 scale per 128x128 block (DeepSeek style) */
	Q_MXFP4,       /* fp4 e2m1, one e8m0 scale per 32 weights (OCP MX) */
	Q_NVFP4,       /* fp4 e2m1, one fp8 scale per 16 weights */
	Q_INT4_W4A16,  /* int4 weight-only, one bf16 scale per group_size weights */
	Q_INT8,        /* int8 weights */
	Q__COUNT
};

/* Which parts of a checkpoint are stored quantised, and how.  experts: the
 * routed experts; attn: attention / linear-attention projections; mlp: the
 * dense FFN layers; shared: the shared experts.  Embedding, LM head, routers
 * and norms always stay in bf16 (every format we read excludes them). */
struct model_quant {
	char method[24];         /* quant_method as published, "" when absent */
	/* attn: the attention q/kv projections (and every other attention
	 * weight); attn_o: the output projection, apart where a checkpoint
	 * excludes the projections one by one (nvidia/DeepSeek-V3.1-NVFP4,
	 * DeepSeek-R1-0528-FP4-v2: q_a, q_b, kv_a, kv_b bf16, o_proj nvfp4) */
	enum model_qfmt experts, attn, attn_o, mlp, shared;
	int64_t group_size;      /* weights per scale (0: per-tensor/channel or n/a) */
	char excluded[160];      /* the modules the config excludes, as a short text */
	/* a ModelOpt checkpoint's declared fp8 KV cache, as the key that says
	 * so ("kv_cache_quant_algo FP8", "kv_cache_scheme float 8"); "" when
	 * none: vLLM's and SGLang's kv_cache_dtype "auto" then follows the
	 * activation dtype (scenario_kv_auto) */
	char kv_fp8[40];
};

/* The image encoder of a vision-language model (model/vision.c):
 * how an image becomes tokens and the ViT that encodes it.
 * VIS_QWEN (Qwen2/2.5/3-VL, Qwen3.5): dynamic resolution, the image resized
 * to multiples of patch x merge within [min_pixels, max_pixels]
 * (smart_resize), one token per merge x merge patches.  VIS_FIXED (Gemma
 * 4): every image fixed_tokens soft tokens, pooled from pool x pool patches
 * each.  The encoder: depth blocks of width hidden (heads heads, an MLP of
 * width inter with mlp_mats matrices), a patch embedding of in_ch x tpatch
 * x patch^2 values per patch, and mergers (1 + deepstack) projecting
 * merge^2 x hidden to out_hidden; attention over each image's own patches
 * (full, bidirectional). */
enum model_vis_kind { VIS_NONE, VIS_QWEN, VIS_FIXED };
struct model_vision {
	enum model_vis_kind kind;
	int64_t depth, hidden, heads, inter, mlp_mats, patch, tpatch, in_ch, merge, out_hidden;
	int64_t deepstack;          /* extra mergers on intermediate layers (Qwen3-VL; -1: no list) */
	int64_t npos;               /* learned position embeddings (num_position_embeddings) */
	int64_t min_pixels, max_pixels; /* VIS_QWEN: the processor's size bounds */
	int64_t fixed_tokens, pool; /* VIS_FIXED */
	/* VIS_FIXED (Gemma 4): head width, K/V heads (num_key_value_heads) and
	 * whether the pooled output is standardised (a bias and a scale of
	 * hidden each); npos is then the 2 x position_embedding_size rows of
	 * the x and y position tables */
	int64_t head_dim, kv_heads;
	bool standardize;
	/* Qwen2.5-VL (window_size in its vision_config): every block but the
	 * full_blocks of fullatt_block_indexes attends within windows of
	 * window x window pixels; its layout has RMSNorms, a gated MLP with
	 * biases, no learned position embeddings and a bias-free patch conv
	 * (rmsnorm).  window 0: every block attends over the whole image. */
	int64_t window, full_blocks;
	bool rmsnorm;
};

/* The attention windows of one image in the encoder's windowed blocks:
 * n classes (0: no windowed blocks) of count[i] windows of len[i] patches
 * each (full windows, the last column's, the last row's, the corner). */
#define VIS_WINDOW_CLASSES 4
struct vis_windows {
	int n;
	int64_t count[VIS_WINDOW_CLASSES], len[VIS_WINDOW_CLASSES];
};

struct model_cfg {
	char id[96];            /* registry id or file stem */
	char source[512];       /* file it was loaded from */
	char model_type[48];    /* as published (text_config's when wrapped, less any "_text") */
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
	/* layers that reuse an earlier layer's top-k instead of running their
	 * own indexer (GLM-5.2 'indexer_types': "shared"), and how many do run one */
	bool shared_index[MODEL_MAX_LAYERS];
	int64_t index_layers;
	/* MoE (n_experts 0 when dense) */
	int64_t n_experts, top_k, moe_intermediate, shared_intermediate, n_shared_experts;
	bool router_bias;       /* e_score_correction_bias / routing bias: E params */
	int64_t first_k_dense;  /* informational; is_moe[] is authoritative */
	int64_t mtp_layers;     /* multi-token-prediction modules, excluded from counts */
	int64_t max_positions;  /* max_position_embeddings (0 if absent) */
	bool is_moe[MODEL_MAX_LAYERS];
	int64_t n_moe_layers;
	char quant[24];         /* quantization_config.quant_method or "" */
	struct model_quant q;   /* parsed quantization_config */
	/* --- per-layer token mixers (hybrid models) --- */
	unsigned char mixer[MODEL_MAX_LAYERS]; /* enum layer_mixer of layer i */
	bool no_ffn[MODEL_MAX_LAYERS];  /* layer i has no FFN (Nemotron-H mixer-only blocks) */
	int64_t n_mixer[LM__COUNT];     /* layers of each mixer kind */
	/* full (and chunked) attention layers: v_head_dim above is the value
	 * width (= head_dim unless published otherwise, e.g. MiMo 192/128) */
	bool attn_gate;         /* q_proj also emits a per-channel output gate (Qwen3-Next) */
	bool attn_sinks;        /* full layers: one learned sink logit per head (gpt-oss) */
	bool k_eq_v;            /* full layers: values are the keys, no v_proj (Gemma 4) */
	/* Gemma 4 KV sharing (num_kv_shared_layers): the last layers reuse the
	 * K/V of the last earlier layer of their own kind: no k/v projections,
	 * no cache of their own; n_kv_shared counts them per mixer kind */
	bool kv_shared[MODEL_MAX_LAYERS];
	int64_t n_kv_shared[LM__COUNT];
	/* Gemma 4 per-layer embeddings (hidden_size_per_layer_input, 0 when
	 * none): a ple_vocab x (layers x ple_dim) lookup table, a hidden ->
	 * layers x ple_dim projection once per token, and in each layer a gate
	 * hidden -> ple_dim and a projection ple_dim -> hidden */
	int64_t ple_dim, ple_vocab;
	int64_t chunk;          /* chunked-local attention block (Llama 4), 0 when none */
	struct {                /* sliding-window layers (their own head layout) */
		int64_t size, heads, kv_heads, head_dim, v_head_dim;
		bool sinks;
	} window;
	struct {                /* linear-attention (recurrent) layers */
		enum linear_kind kind;
		/* GDN: q/k heads x dim, v heads x dim.  Mamba2: k_heads = n_groups,
		 * k_dim = ssm_state_size, v_heads = mamba_num_heads, v_dim = mamba_head_dim.
		 * KDA (Kimi Delta Attention): k_heads = v_heads = num_heads, k_dim =
		 * v_dim = head_dim.  The recurrent state is v_heads x v_dim x k_dim
		 * every way, and the causal conv runs over 2 k_heads k_dim + v_heads
		 * v_dim channels. */
		int64_t k_heads, k_dim, v_heads, v_dim, conv_kernel;
		double state_elem_bytes; /* recurrent state dtype (fp32 4 or bf16 2) */
		bool full_rank_gate;     /* KDA: forget and output gates hidden -> heads x dim
					    (use_full_rank_gate), else through a head_dim bottleneck */
	} lin;
	/* Block Attention Residuals (Kimi Linear 'attn_res_block_size', 0 when
	 * none): each sublayer's input is a softmax over the embedding, the sums
	 * of the completed blocks of this many layers and the current block's
	 * partial sum, in place of the residual stream */
	int64_t attn_res_block;
	bool attn_out_gate;      /* MLA layers: a sigmoid output gate hidden -> heads x v_head_dim
				    (Kimi Linear mla_use_output_gate) */
	/* --- FFN / MoE variants --- */
	int64_t ffn_mats;       /* weight matrices per FFN: 3 gated (SwiGLU/GeGLU), 2 plain (relu2) */
	bool expert_bias;       /* experts carry biases (gpt-oss) */
	bool shared_gate;       /* sigmoid gate hidden->1 on the shared expert (Qwen3-Next) */
	int64_t moe_latent;     /* latent MoE: experts run at this width between a hidden->latent
				   and a latent->hidden projection (Nemotron-H), 0 when none */
	double vision_params;   /* the vision encoder's weights (memory only), 0 when text-only */
	struct model_vision vis; /* the image encoder (kind VIS_NONE: text-only) */
	/* --- DeepSeek-V4 (attn ATTN_CSA; 0 elsewhere) ---
	 * compress[i]: layer i's KV compression ratio (compress_ratios: 0 the
	 * sliding window only, 4 CSA, 128 HCA); o_groups x o_lora_rank: the
	 * grouped low-rank output projection (the heads in o_groups groups, each
	 * projected to o_lora_rank, then all groups to hidden); hc_mult residual
	 * streams mixed by manifold-constrained hyper-connections around each
	 * sub-block (hc_sinkhorn_iters Sinkhorn steps); the first hash_layers MoE
	 * layers pick their experts from a token-id table (num_hash_layers) */
	unsigned short compress[MODEL_MAX_LAYERS];
	int64_t o_groups, o_lora_rank, hc_mult, hc_sinkhorn_iters, hash_layers;
};

const char *model_family_name(enum model_family f);
/* Comma-separated list of supported model_type values, for messages. */
const char *model_supported_types(void);
const char *attn_kind_name(enum attn_kind a);
const char *layer_mixer_name(enum layer_mixer k);
const char *model_qfmt_name(enum model_qfmt f);
/* Bytes per weight of a storage format, scales included; Q_NONE gives
 * `unquantised` (the bytes of the requested dtype). */
double model_qfmt_bytes(enum model_qfmt f, int64_t group_size, double unquantised);
/* Whether a quantised checkpoint stores an attention projection group
 * unquantised (o_proj: the output projection; else q/kv and the block's
 * other weights): the group is excluded (model_quant.attn / attn_o Q_NONE)
 * while some part of the checkpoint is quantised.  The engines load an
 * excluded module as an unquantised (bf16) linear whatever the weight dtype
 * of the run, so it is priced and held in bf16: a whole self_attn block
 * (gpt-oss's modules_to_not_convert, Kimi-K2.5's and GLM-5.1-NVFP4's
 * ignore) or q/kv alone (DeepSeek-R1-0528-FP4-v2).  False for a checkpoint
 * without a quantisation servesim reads: its parts take --dtype. */
bool model_attn_stored_bf16(const struct model_cfg *m, bool o_proj);
/* The same for the FFN parts: the dense FFN layers (model_quant.mlp) and the
 * shared experts (model_quant.shared) a quantised checkpoint excludes load
 * as unquantised linears (vLLM's ModelOpt and compressed-tensors configs,
 * SGLang's ModelOpt config and TensorRT-LLM's exclude_modules alike), so
 * they are priced and held in bf16 whatever --dtype: Kimi-K2.5's and
 * Kimi-K3's ignore ("re:.*shared_experts.*", "re:.*mlp\.(gate|up|gate_up|
 * down)_proj.*"), GLM-5.1-NVFP4's exclude_modules (layers 0-2 whole, every
 * other layer's mlp.shared_experts*).  False for a checkpoint without a
 * quantisation servesim reads. */
bool model_dense_ffn_stored_bf16(const struct model_cfg *m);
bool model_shared_experts_stored_bf16(const struct model_cfg *m);

/* One-line descriptions for reports: the layer mix of a hybrid model
 * ("" when every layer is full attention) and the stored weight formats
 * ("" when the checkpoint is not quantised). */
void model_layers_text(const struct model_cfg *m, char *buf, size_t n);
void model_quant_text(const struct model_cfg *m, char *buf, size_t n);

/* quantization_config (HF fp8 / mxfp4, compressed-tensors, modelopt, quark) ->
 * m->q and m->quant.  Formats we do not recognise leave every part Q_NONE
 * (stored at the requested dtype).  SS_EDATA on mistyped fields. */
int model_quant_from_json(const struct json *q, const char *src, struct model_cfg *m,
			  struct err *e);

/* AMD Quark's quantization_config (quant_method "quark", quark.c) -> the
 * one weight format it stores (MXFP4 w/a or fp8 w/a), its group size and
 * its 'exclude' globs (NULL when absent).  SS_EDATA naming the field and
 * value for a scheme servesim does not map. */
int model_quark_format(const struct json *q, const char *src, enum model_qfmt *f, int64_t *group_size,
		       const struct json **exclude, struct err *e);

/* Normalise a parsed config.json.  source names it in messages. */
int model_from_json(const struct json *root, const char *source, struct model_cfg *m,
		    struct err *e);
/* Load a config.json (plain or .gz); id is stored as given. */
int model_load_file(const char *path, const char *id, struct model_cfg *m, struct err *e);

/* Image tokens by m's published rule for one image of width w and height
 * h pixels: *patches the encoder runs over (grid_t x grid_h x grid_w for
 * Qwen), *tokens the image adds to the prompt; rule (n bytes, may be NULL)
 * the rule in words with the resized grid.  SS_EUSAGE naming `what` when m
 * takes no images or the size is refused (Qwen's processor: aspect ratio
 * over 200). */
int model_image_tokens(const struct model_cfg *m, int64_t w, int64_t h, const char *what, int64_t *patches,
		       int64_t *tokens, char *rule, size_t n, struct err *e);
/* The windows one w x h image's patches fall into in m's windowed encoder
 * blocks (Qwen2.5-VL's get_window_index: the merged grid cut into
 * window / patch / merge squares from the top left, the last row and
 * column short); out->n 0 when m has none.  w and h as model_image_tokens
 * accepted them. */
void model_image_windows(const struct model_cfg *m, int64_t w, int64_t h, struct vis_windows *out);
/* Read the image encoder of a VL config (root: the whole config.json) into
 * m->vis; nothing when it has none servesim knows. */
int model_vision_read(const struct json *root, const char *src, struct model_cfg *m, struct err *e);
/* The encoder's weights (parameters), 0 for VIS_NONE. */
double model_vision_params(const struct model_vision *v);

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
/* Find by id, HF name or alias (case-insensitive), else by the HF id's
 * name without organisation and without -Instruct/-Base/-it/-Chat/-hf. */
const struct model_entry *registry_find(const struct model_registry *r, const char *name);
/* Resolve name and load it; unknown names give SS_EUSAGE with suggestions. */
int registry_load_model(const struct model_registry *r, const char *name,
			struct model_cfg *m, struct err *e);

/* --- parallelism and accounting --- */
/* Attention DP (an MoE model with dp > 1): the weights an engine splits
 * over all tp x dp GPUs of a stage, run on the tokens of every DP rank
 * gathered, rather than keeping them whole on each DP rank at TP tp
 * (parallel.dp_shard, set from the engine's layout: engine_type.dp_shard;
 * 0 keeps every rank's copy whole, as vLLM and TensorRT-LLM do). */
enum par_dp_shard {
	PAR_DPS_DENSE_FFN = 1 << 0, /* the dense FFN layers of an MoE model */
	PAR_DPS_SHARED = 1 << 1,    /* the shared experts, where no EP all-to-all runs (ep 1) */
	PAR_DPS_LM_HEAD = 1 << 2,   /* the LM head, vocab-parallel */
};

struct parallel {
	int tp, pp, dp, ep;
	/* redundant experts: physical expert slots beyond the model's routed
	 * experts, spread over the EP ranks with the rest (EPLB's
	 * num_redundant_experts, or SGLang's --ep-num-redundant-experts with a
	 * fixed placement); 0: none.  E + ep_redundant must divide by ep. */
	int ep_redundant;
	unsigned dp_shard; /* enum par_dp_shard bits; 0: none */
};

/* The TP degree of part (one PAR_DPS_* bit) on layout p: tp x dp where
 * p shards it over the DP ranks (attention DP on an MoE model), else tp. */
int par_part_tp(const struct model_cfg *m, const struct parallel *p, unsigned part);

struct param_counts {
	double total;            /* every language-model weight, MTP and vision encoder excluded */
	double active;           /* weights touched per token, embedding table included */
	double embedding;        /* input embedding table */
	double lm_head;          /* 0 when tied */
	double attention, dense_ffn, experts, shared_experts, router, norms;
	double linear_attn;      /* linear-attention (GDN / Mamba2) layers, in attention too */
	double ple;              /* per-layer-embedding projections and norms (Gemma 4; the
				    lookup table is in embedding) */
	double vision;           /* multimodal encoder: in neither total nor active (published
				    totals are the language model's), in weight bytes */
	/* DeepSeek-V4 (0 elsewhere): of attention, the weights every TP rank
	 * holds whole (q_a and kv projections, compressors, indexer) and, of
	 * those, the ones the checkpoint stores in bf16 whatever its format (the
	 * compressors' and the indexer's kv/gate projections and head weights);
	 * the hyper-connection mixing weights, kept in fp32 on every rank (in
	 * norms too) */
	double attn_replicated, attn_bf16, hyper;
	/* of attention, the output projections (o_proj) of the full, chunked
	 * and sliding-window layers: a checkpoint may store them in another
	 * format than the rest (model_quant.attn_o) */
	double attn_o;
};

void model_params(const struct model_cfg *m, struct param_counts *pc);
/* Whether --dtype fp8 would store some part of m narrower than its
 * checkpoint does: a part (attention, dense FFN or shared experts, routed
 * experts) the checkpoint keeps unquantised.  A checkpoint in fp8 or
 * narrower throughout loads the same at --dtype bf16 and fp8 (the narrower
 * width wins, model_weight_bytes_per_gpu). */
bool model_fp8_narrows(const struct model_cfg *m);
/* Layers with a dense FFN (neither MoE nor FFN-less). */
int64_t model_dense_ffn_layers(const struct model_cfg *m);
/* Weight bytes held by one GPU (the most loaded pipeline stage).  Each part
 * (experts, attention, dense FFN, shared experts) is stored at the narrower
 * of the requested width and the checkpoint's stored format (m->q): a
 * quantised checkpoint is loaded as stored (an INT4-expert checkpoint holds
 * 0.5 B/param + scales for its experts even at --dtype bf16), and a narrower
 * --dtype quantises further; a part the checkpoint excludes stays bf16.
 * Embedding, LM head, routers, norms and an image encoder stay bf16 under a
 * narrower --dtype (no format quantises them), else take the requested
 * width. */
double model_weight_bytes_per_gpu(const struct model_cfg *m, const struct parallel *p,
				  double weight_bytes_per_param);
/* Of those, the routed experts' bytes on one GPU (its EP share of the
 * heaviest stage's MoE layers, at the narrower of wb and the stored format). */
double model_expert_bytes_per_gpu(const struct model_cfg *m, const struct parallel *p, double wb);
/* KV-cache bytes per token of the layers whose cache grows with the
 * sequence: full-attention layers only (sliding-window and chunked layers
 * hold at most their window, linear layers a fixed state: see
 * model_state_bytes_per_seq).  Whole model and one GPU (its stage, its TP
 * share of KV heads). */
double model_kv_bytes_per_token(const struct model_cfg *m, double kv_bytes_per_elem);
double model_kv_bytes_per_token_per_gpu(const struct model_cfg *m, const struct parallel *p,
					double kv_bytes_per_elem);
/* Fixed bytes per sequence once it is longer than every window: the KV of
 * sliding-window layers capped at the window, of chunked layers capped at
 * the chunk, plus the recurrent state (v_heads x v_dim x k_dim at
 * lin.state_elem_bytes) and causal-conv state ((conv_kernel - 1) x conv
 * channels at kv_bytes_per_elem) of linear layers.  0 for models with only
 * full attention.  Whole model and one GPU. */
double model_state_bytes_per_seq(const struct model_cfg *m, double kv_bytes_per_elem);
double model_state_bytes_per_seq_per_gpu(const struct model_cfg *m, const struct parallel *p,
					 double kv_bytes_per_elem);
/* --- DeepSeek-V4 compressed attention (csa.c) ---
 * Read the V4 keys of a config (compress_ratios, sliding_window, the
 * low-rank projections, the indexer, hyper-connections, hash layers) into m:
 * sets attn ATTN_CSA and each layer's mixer (CSA, HCA or SLIDING). */
int model_csa_read(const struct json *c, const char *src, struct model_cfg *m, struct err *e);
/* Bytes of one cached entry: a main K=V entry of head_dim (fp8: the nope
 * dims in fp8 with one ue8m0 scale per 64 and a pad byte, the RoPE dims in
 * bf16 - vLLM's fp8_ds_mla layout, 584 B at head_dim 512; else head_dim x
 * kv_bytes_per_elem), and one indexer key (fp8: index_head_dim + an fp32
 * scale, 132 B; else index_head_dim x kv_bytes_per_elem). */
double model_csa_entry_bytes(const struct model_cfg *m, double kv_bytes_per_elem);
double model_csa_index_entry_bytes(const struct model_cfg *m, double kv_bytes_per_elem);
/* Token-mixer weights of one V4 layer of mixer k (CSA, HCA, SLIDING), and of
 * those the ones every TP rank holds whole and the ones stored in bf16. */
double model_csa_mixer_params(const struct model_cfg *m, enum layer_mixer k, double *replicated,
			      double *bf16);
/* Hyper-connection weights of the whole model (fp32): two mixers per layer
 * and the final stream collapse. */
double model_csa_hyper_params(const struct model_cfg *m);
/* KV bytes per token of the compressed layers of one pipeline stage of pp
 * (the compressed entries amortised over the tokens they stand for: CSA
 * (entry + indexer key) / 4, HCA entry / 128), and the fixed bytes per
 * sequence (every layer's window of window.size entries and the compressors'
 * fp32 running state: CSA 2 x ratio tokens of 2 x 2 x head_dim (its indexer's
 * of 2 x 2 x index_head_dim), HCA ratio tokens of 2 x head_dim; vLLM's
 * CompressorStateCache).  KV is replicated over TP (one KV head). */
double model_csa_kv_bytes_per_token(const struct model_cfg *m, int pp, double kv_bytes_per_elem);
double model_csa_state_bytes_per_seq(const struct model_cfg *m, int pp, double kv_bytes_per_elem);

/* Validate a parallel layout against the model; SS_EUSAGE naming the flag. */
int model_check_parallel(const struct model_cfg *m, const struct parallel *p, struct err *e);

#endif
