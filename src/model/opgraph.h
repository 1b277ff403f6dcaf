/* opgraph.h - the ordered operators of each distinct layer kind of a model
 * for one forward pass of a given shape, per GPU after TP/EP/DP splits.
 *
 * Shape: `batch` requests, each computing `seq_len` new tokens after
 * `context_len` tokens already in its KV cache.  Causal attention then covers
 * seq_len*context_len + seq_len*(seq_len+1)/2 query-key pairs per request;
 * seq_len == 1, or <= 8 query tokens on a cache (MTP), is a decode step
 * (MLA switches to its absorbed form). */
#ifndef SERVESIM_OPGRAPH_H
#define SERVESIM_OPGRAPH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"

enum op_cat {
	OPC_ATTENTION, OPC_FFN, OPC_MOE, OPC_NORM, OPC_RESIDUAL, OPC_COMM, OPC_EMBED,
	OPC_LM_HEAD, OPC_OTHER, OPC__COUNT
};

enum op_kind { OPK_GEMM, OPK_ATTN, OPK_ELEMENTWISE, OPK_COMM, OPK_OTHER };

struct op {
	char name[32];
	enum op_cat cat;
	enum op_kind kind;
	int64_t m, n, k;     /* GEMM: [m,k] x [k,n]; batch = independent GEMMs (heads, experts) */
	int64_t batch;
	double flops;
	double weight_bytes, act_bytes, kv_read_bytes, kv_write_bytes;
	char shape_in[48], shape_out[48];
	bool low_precision;  /* runs in the weight dtype (fp8 GEMMs); else bf16 */
	double score_elems;  /* attention: query-key scores (pairs x heads) */
};

struct layer_kind {
	/* "dense", "moe" (full attention), "sliding+moe", "linear+dense",
	 * "csa+moe", "hca+moe" (DeepSeek-V4's compressed layers),
	 * "chunked+moe", "linear-only", "attn-only", "moe-only", "moe/shared-idx"
	 * (DSA layers reusing an earlier layer's top-k), "embed+head" */
	char name[24];
	int64_t count;       /* how many times it runs in one pass on this GPU's stage */
	enum layer_mixer mixer; /* its token mixer (LM_FULL for embed+head) */
	struct op *ops;
	size_t nops, cap;
};

/* distinct (mixer, FFN, shared DSA indexer) layer kinds + embed+head */
#define OPGRAPH_MAX_KINDS (LM__COUNT * 3 * 2 + 1)

struct pass_shape {
	int64_t batch, seq_len, context_len;
	bool all_logits;     /* LM head on every token instead of the last of each sequence */
};

struct opgraph {
	struct layer_kind kinds[OPGRAPH_MAX_KINDS];
	size_t nkinds;
	bool decode;         /* seq_len == 1, or a few (<= 8) query tokens on a cache (MTP) */
	int64_t local_batch; /* requests on this GPU (batch / dp, rounded up) */
	int64_t tokens;      /* new tokens on this GPU */
	double attn_pairs;   /* query-key pairs per full-attention layer on this GPU */
};

const char *op_cat_name(enum op_cat c);
/* Name of the layer kind that layer i of m belongs to ("dense", "moe",
 * "sliding+moe", ...), as opgraph_build names its kinds. */
void opgraph_layer_kind_name(const struct model_cfg *m, int64_t layer, char *out, size_t n);
const char *op_kind_name(enum op_kind k);

/* Build the graph.  p describes the split (all 1 for the model-wide view);
 * wdt is the weight/GEMM dtype, kvdt the KV-cache dtype. */
int opgraph_build(const struct model_cfg *m, const struct parallel *p,
		  const struct pass_shape *s, enum dtype wdt, enum dtype kvdt,
		  struct opgraph *g, struct err *e);
void opgraph_release(struct opgraph *g);
/* The image encoder of m (m->vis, not VIS_NONE) encoding `images` images
 * of `patches` patches each in one call, per GPU of TP p->tp (vLLM shards
 * the ViT as the language model: qkv and fc1 column-parallel, proj and fc2
 * row-parallel, an all-reduce after each): kinds "vit_embed" (the patch
 * embedding), "vit_block" (depth of them; attention over each image's own
 * patches, bidirectional) and "vit_merger" (1 + deepstack: merge x merge
 * patches to one token of the text width; Gemma 4 pools and projects).  In
 * bf16.  With win (model_image_windows of the images; NULL or n 0: none) the
 * blocks outside fullatt_block_indexes are kind "vit_block_window", their
 * attention within each window (Qwen2.5-VL), and "vit_block" counts the
 * full-attention ones.  SS_EUSAGE when m has no encoder or a count is < 1. */
int opgraph_vision(const struct model_cfg *m, const struct parallel *p, int64_t images, int64_t patches,
		   const struct vis_windows *win, struct opgraph *g, struct err *e);
/* Move src's layer kinds after dst's (ops report the encoder beside the
 * language model's pass); src is left empty. */
void opgraph_append(struct opgraph *dst, struct opgraph *src);
/* The encoder of `images` images of w x h pixels (model_image_tokens;
 * what names them in messages) over p, appended to g: *tokens each image's
 * tokens, rule (n bytes) the rule that counted them. */
int opgraph_append_images(const struct model_cfg *m, const struct parallel *p, int64_t images, int64_t w,
			  int64_t h, const char *what, struct opgraph *g, int64_t *tokens, char *rule, size_t n,
			  struct err *e);
/* FLOPs of one kind (one instance) and of the whole pass (count-weighted). */
double layer_kind_flops(const struct layer_kind *lk);
double layer_kind_flops_cat(const struct layer_kind *lk, enum op_cat c);
double opgraph_total_flops(const struct opgraph *g);
double opgraph_total_bytes(const struct opgraph *g);
/* Causal pairs of one request: s new tokens after c cached ones. */
double attn_causal_pairs(int64_t s, int64_t c);
/* Same, each query capped at `cap` keys (DSA top-k, sliding window). */
double attn_capped_pairs(int64_t s, int64_t c, int64_t cap);
/* Same, chunked-local attention: a query at position p (1-based) sees the
 * ((p - 1) mod chunk) + 1 keys of its own chunk (Llama 4 local layers). */
double attn_chunked_pairs(int64_t s, int64_t c, int64_t chunk);
/* Compressed entries attended by s new tokens after c cached ones of one
 * request in a DeepSeek-V4 layer of the given ratio: a query at position p
 * (1-based) sees floor(p / ratio) entries, at most cap (cap < 0: no cap;
 * CSA's indexer top-k). */
double attn_compressed_pairs(int64_t s, int64_t c, int64_t ratio, int64_t cap);
/* FLOPs per token per recurrent-state element of a linear-attention layer:
 * decay, rank-1 update (read, multiply-add) and readout, about 3
 * multiply-adds per state element (Gated DeltaNet and Mamba2 alike). */
#define LINEAR_FLOPS_PER_STATE_ELEM 6.0
/* Expected distinct experts (out of e_local) touched by a assignments drawn
 * uniformly over e_total experts. */
double moe_expected_experts(double e_local, double e_total, double assignments);

#endif
