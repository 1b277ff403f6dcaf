/* vision.c - the image encoders of vision-language models: their configs
 * (vision_config), the published rule that turns an image into prompt
 * tokens, and the encoder's weights.
 *
 * Qwen-VL (Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5): transformers'
 * Qwen2VLImageProcessor (models/qwen2_vl/image_processing_qwen2_vl.py,
 * smart_resize) resizes an image of h x w pixels to multiples of
 * factor = patch_size x merge_size:
 *   h' = round(h / factor) x factor (Python's round: half to even), w' alike;
 *   above max_pixels: beta = sqrt(h w / max_pixels), h' = max(factor,
 *   floor(h / beta / factor) x factor);
 *   below min_pixels: beta = sqrt(min_pixels / (h w)), h' = ceil(h beta /
 *   factor) x factor;
 *   an aspect ratio over 200 is refused.
 * An image is one temporal patch (grid_t 1: the frame repeated
 * temporal_patch_size times), (h'/patch) x (w'/patch) patches, and one
 * prompt token per merge x merge patches.  The processors' size bounds are
 * in preprocessor_config.json, not config.json: Qwen3-VL and Qwen3.5 (patch
 * 16) "size": {"shortest_edge": 65536, "longest_edge": 16777216} (min and
 * max pixels, Qwen/Qwen3-VL-30B-A3B-Instruct); Qwen2-VL and Qwen2.5-VL (patch
 * 14) min_pixels 3136, max_pixels 12845056 (Qwen/Qwen2.5-VL-7B-Instruct).
 * Example (Qwen3-VL): 400 x 300 becomes 384 x 288 (12.5 rounds to 12), 24 x 18
 * patches, 108 tokens.
 *
 * Qwen2.5-VL's encoder attends within windows in most blocks
 * (transformers' Qwen2_5_VisionTransformerPretrainedModel.get_window_index):
 * the grid of merged tokens (grid / merge) is cut into squares of
 * window_size / merge / patch of them (112 px: 4 x 4 merged tokens, 8 x 8
 * patches) from the top left, the last row and column short where the grid
 * does not divide; the blocks of fullatt_block_indexes attend over the whole
 * image.  Its blocks have RMSNorms and a gated MLP (gate, up, down) with
 * biases, no learned position embeddings, a bias-free Conv3d patch
 * embedding, and a merger whose norm is an RMSNorm (module tree of
 * Qwen/Qwen2.5-VL-7B-Instruct as transformers prints it).
 *
 * Gemma 4: every image becomes vision_soft_tokens_per_image soft tokens
 * (280 for gemma-4-26B-A4B; vision_config default_output_length), each the
 * average of pooling_kernel_size^2 patches (3 x 3), then projected to the
 * text width (the multimodal embedder).  The encoder's layers are
 * transformers' Gemma4VisionEncoderLayer (models/gemma4/modeling_gemma4.py):
 * q, k, v, o without biases (num_key_value_heads x head_dim wide K and V),
 * per-head RMSNorm scales on q and k (v's has none), four RMSNorms of the
 * width and a gated MLP of 3 matrices (gate, up, down); the patch embedder
 * a bias-free 3 x patch^2 -> hidden projection and learned x and y position
 * tables of position_embedding_size rows each; with "standardize" a bias
 * and a scale of the width; the multimodal embedder one bias-free hidden ->
 * text-width projection after a norm without weights. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"

/* Python's round(x): to the nearest integer, halves to even (rint under
 * the default rounding mode). */
static double round_half_even(double x)
{
	return nearbyint(x);
}

static int vis_int(const struct json *v, const char *key, const char *src, int64_t lo, bool req, int64_t *out,
		   struct err *e)
{
	bool pres;

	if (req)
		return json_req_int(v, key, src, lo, INT64_MAX, out, e);
	return json_opt_int(v, key, src, lo, INT64_MAX, out, &pres, e);
}

/* Qwen2.5-VL's window_size and fullatt_block_indexes (ascending block
 * numbers below depth). */
static int read_windows(const struct json *v, const char *src, struct model_vision *x, struct err *e)
{
	const struct json *fa = json_get(v, "fullatt_block_indexes");
	bool pres;
	int64_t prev = -1;
	size_t i;
	int rc;

	if ((rc = json_opt_int(v, "window_size", src, 1, 1 << 16, &x->window, &pres, e)) < 0 || !pres)
		return rc;
	if (x->window % (x->patch * x->merge) != 0)
		return err_set(e, SS_EDATA, "%s: vision_config 'window_size' (%lld) must be a multiple of patch_size x "
			       "spatial_merge_size (%lld)", src, (long long)x->window, (long long)(x->patch * x->merge));
	if (!fa || json_type_of(fa) != JSON_ARRAY)
		return err_set(e, SS_EDATA, "%s: vision_config 'fullatt_block_indexes' (a list of block numbers) is "
			       "required beside 'window_size'", src);
	for (i = 0; i < json_size(fa); i++) {
		const struct json *b = json_at(fa, i);
		double k = json_type_of(b) == JSON_NUMBER ? json_number(b) : -1;
		if (!(k > (double)prev && k < (double)x->depth && k == floor(k)))
			return err_set(e, SS_EDATA, "%s: vision_config 'fullatt_block_indexes'[%zu] must be a block number "
				       "above the one before it and below depth (%lld)", src, i, (long long)x->depth);
		prev = (int64_t)k;
	}
	x->full_blocks = (int64_t)json_size(fa);
	x->rmsnorm = true;
	x->mlp_mats = 3;
	return 0;
}

static int read_qwen(const struct json *v, const char *src, struct model_vision *x, struct err *e)
{
	const struct json *ds = json_get(v, "deepstack_visual_indexes");
	int rc;

	x->tpatch = 1;
	x->in_ch = 3;
	x->merge = 2;
	if ((rc = vis_int(v, "depth", src, 1, true, &x->depth, e)) < 0 ||
	    (rc = vis_int(v, "hidden_size", src, 1, true, &x->hidden, e)) < 0 ||
	    (rc = vis_int(v, "intermediate_size", src, 1, true, &x->inter, e)) < 0 ||
	    (rc = vis_int(v, "patch_size", src, 1, true, &x->patch, e)) < 0 ||
	    (rc = vis_int(v, "out_hidden_size", src, 1, true, &x->out_hidden, e)) < 0 ||
	    (rc = vis_int(v, "temporal_patch_size", src, 1, false, &x->tpatch, e)) < 0 ||
	    (rc = vis_int(v, "in_channels", src, 1, false, &x->in_ch, e)) < 0 ||
	    (rc = vis_int(v, "spatial_merge_size", src, 1, false, &x->merge, e)) < 0)
		return rc;
	x->heads = 16; /* Qwen2.5-VL's and Qwen3-VL's num_heads default */
	if ((rc = vis_int(v, "num_heads", src, 1, false, &x->heads, e)) < 0)
		return rc;
	if (x->hidden % x->heads != 0)
		return err_set(e, SS_EDATA, "%s: vision_config 'hidden_size' (%lld) must be a multiple of 'num_heads' (%lld)",
			       src, (long long)x->hidden, (long long)x->heads);
	x->mlp_mats = 2;
	/* -1: no deepstack list (its weights' sum skips the term) */
	x->deepstack = ds && json_type_of(ds) == JSON_ARRAY ? (int64_t)json_size(ds) : -1;
	if ((rc = vis_int(v, "num_position_embeddings", src, 0, false, &x->npos, e)) < 0 ||
	    (rc = read_windows(v, src, x, e)) < 0)
		return rc;
	if (x->patch == 14) {
		x->min_pixels = 3136;
		x->max_pixels = 12845056;
	} else {
		x->min_pixels = 65536;
		x->max_pixels = 16777216;
	}
	x->kind = VIS_QWEN;
	return 0;
}

static int read_gemma(const struct json *root, const struct json *v, const char *src, int64_t text_hidden,
		      struct model_vision *x, struct err *e)
{
	int rc;

	x->tpatch = 1;
	x->in_ch = 3;
	x->merge = 1;
	x->pool = 1;
	if ((rc = vis_int(v, "num_hidden_layers", src, 1, true, &x->depth, e)) < 0 ||
	    (rc = vis_int(v, "hidden_size", src, 1, true, &x->hidden, e)) < 0 ||
	    (rc = vis_int(v, "num_attention_heads", src, 1, true, &x->heads, e)) < 0 ||
	    (rc = vis_int(v, "intermediate_size", src, 1, true, &x->inter, e)) < 0 ||
	    (rc = vis_int(v, "patch_size", src, 1, true, &x->patch, e)) < 0 ||
	    (rc = vis_int(v, "pooling_kernel_size", src, 1, false, &x->pool, e)) < 0 ||
	    (rc = vis_int(root, "vision_soft_tokens_per_image", src, 1, true, &x->fixed_tokens, e)) < 0)
		return rc;
	if (x->hidden % x->heads != 0)
		return err_set(e, SS_EDATA,
			       "%s: vision_config 'hidden_size' (%lld) must be a multiple of 'num_attention_heads' (%lld)",
			       src, (long long)x->hidden, (long long)x->heads);
	x->head_dim = x->hidden / x->heads;
	x->kv_heads = x->heads;
	if ((rc = vis_int(v, "head_dim", src, 1, false, &x->head_dim, e)) < 0 ||
	    (rc = vis_int(v, "num_key_value_heads", src, 1, false, &x->kv_heads, e)) < 0 ||
	    (rc = vis_int(v, "position_embedding_size", src, 0, false, &x->npos, e)) < 0 ||
	    (rc = json_opt_bool(v, "standardize", src, &x->standardize, e)) < 0)
		return rc;
	x->npos *= 2;
	x->mlp_mats = 3;
	x->out_hidden = text_hidden;
	x->kind = VIS_FIXED;
	return 0;
}

int model_vision_read(const struct json *root, const char *src, struct model_cfg *m, struct err *e)
{
	const struct json *v = json_get(root, "vision_config"), *t;
	const char *type;

	memset(&m->vis, 0, sizeof(m->vis));
	if (!v || json_type_of(v) != JSON_OBJECT)
		return 0;
	if (json_get(v, "depth") && json_get(v, "out_hidden_size"))
		return read_qwen(v, src, &m->vis, e);
	t = json_get(v, "model_type");
	type = t && json_type_of(t) == JSON_STRING ? json_string(t) : "";
	if (strcmp(type, "gemma4_vision") == 0 && json_get(root, "vision_soft_tokens_per_image"))
		return read_gemma(root, v, src, m->hidden, &m->vis, e);
	return 0;
}

/* Qwen-VL: the ViT blocks (two LayerNorms, qkv and proj with bias, an MLP
 * with bias), the Conv3d patch embedding, learned position embeddings,
 * the patch merger and one merger per deepstack index (HF
 * Qwen3VLVisionModel).  Gemma 4: the layout at the top of this file. */
double model_vision_params(const struct model_vision *x)
{
	double hid = (double)x->hidden, inter = (double)x->inter, blk, mh, merger, p;

	if (x->kind == VIS_NONE)
		return 0;
	if (x->kind == VIS_FIXED) {
		double q = (double)(x->heads * x->head_dim), kv = (double)(x->kv_heads * x->head_dim);
		blk = hid * (q + 2.0 * kv) + q * hid + 2.0 * (double)x->head_dim + 4.0 * hid +
		      (double)x->mlp_mats * hid * inter;
		return (double)x->depth * blk + (double)(x->in_ch * x->patch * x->patch) * hid + (double)x->npos * hid +
		       (x->standardize ? 2.0 * hid : 0) + hid * (double)x->out_hidden;
	}
	mh = hid * (double)(x->merge * x->merge);
	merger = mh * mh + mh + mh * (double)x->out_hidden + (double)x->out_hidden;
	if (x->rmsnorm) {
		/* two RMSNorms, qkv and proj with biases, gate/up/down with
		 * biases; the bias-free patch conv; the merger's RMSNorm */
		blk = 2.0 * hid + hid * (double)(3 * x->hidden) + 3.0 * hid + hid * hid + hid +
		      3.0 * hid * inter + 2.0 * inter + hid;
		return (double)x->depth * blk + (double)(x->in_ch * x->tpatch * x->patch * x->patch) * hid + hid +
		       merger;
	}
	blk = 4.0 * hid + hid * (double)(3 * x->hidden) + 3.0 * hid + hid * hid + hid +
	      (double)x->mlp_mats * hid * inter + inter + hid;
	p = (double)x->depth * blk + (double)(x->in_ch * x->tpatch * x->patch * x->patch) * hid + hid +
	    (double)x->npos * hid + 2.0 * hid + merger;
	if (x->deepstack >= 0)
		p += (double)x->deepstack * (2.0 * mh + merger);
	return p;
}

/* Qwen-VL's smart_resize of a w x h image: *wb x *hb pixels. */
static void qwen_resize(const struct model_vision *x, int64_t w, int64_t h, double *wb, double *hb)
{
	double f = (double)(x->patch * x->merge), beta;

	*hb = round_half_even((double)h / f) * f;
	*wb = round_half_even((double)w / f) * f;
	if (*hb * *wb > (double)x->max_pixels) {
		beta = sqrt((double)h * (double)w / (double)x->max_pixels);
		*hb = fmax(f, floor((double)h / beta / f) * f);
		*wb = fmax(f, floor((double)w / beta / f) * f);
	} else if (*hb * *wb < (double)x->min_pixels) {
		beta = sqrt((double)x->min_pixels / ((double)h * (double)w));
		*hb = ceil((double)h * beta / f) * f;
		*wb = ceil((double)w * beta / f) * f;
	}
}

void model_image_windows(const struct model_cfg *m, int64_t w, int64_t h, struct vis_windows *out)
{
	const struct model_vision *x = &m->vis;
	int64_t lh, lw, wm, nh, nw, rh, rw, mm = x->merge * x->merge;
	double wb, hb;

	memset(out, 0, sizeof(*out));
	if (x->kind != VIS_QWEN || x->window <= 0 || x->full_blocks >= x->depth)
		return;
	qwen_resize(x, w, h, &wb, &hb);
	lh = (int64_t)hb / (x->patch * x->merge);
	lw = (int64_t)wb / (x->patch * x->merge);
	wm = x->window / x->patch / x->merge;
	nh = (lh + wm - 1) / wm;
	nw = (lw + wm - 1) / wm;
	rh = lh - (nh - 1) * wm;
	rw = lw - (nw - 1) * wm;
	/* full windows, the last column's, the last row's, the corner */
	{
		const int64_t cnt[VIS_WINDOW_CLASSES] = {(nh - 1) * (nw - 1), nh - 1, nw - 1, 1};
		const int64_t len[VIS_WINDOW_CLASSES] = {wm * wm * mm, wm * rw * mm, rh * wm * mm, rh * rw * mm};
		for (int i = 0; i < VIS_WINDOW_CLASSES; i++)
			if (cnt[i] > 0) {
				out->count[out->n] = cnt[i];
				out->len[out->n++] = len[i];
			}
	}
}

int model_image_tokens(const struct model_cfg *m, int64_t w, int64_t h, const char *what, int64_t *patches,
		       int64_t *tokens, char *rule, size_t n, struct err *e)
{
	const struct model_vision *x = &m->vis;
	double hb, wb;

	switch (x->kind) {
	case VIS_QWEN:
		if ((double)(w > h ? w : h) / (double)(w < h ? w : h) > 200)
			return err_set(e, SS_EUSAGE, "%s: %lldx%lld has an aspect ratio over 200, which %s's image "
				       "processor refuses", what, (long long)w, (long long)h, m->id);
		qwen_resize(x, w, h, &wb, &hb);
		*patches = (int64_t)(hb / (double)x->patch) * (int64_t)(wb / (double)x->patch);
		*tokens = *patches / (x->merge * x->merge);
		if (rule)
			snprintf(rule, n, "Qwen-VL smart_resize to multiples of %lld px within [%lld, %lld] pixels: "
				 "%lldx%lld -> %.0fx%.0f, %lld patches of %lld px, 1 token per %lldx%lld",
				 (long long)(x->patch * x->merge), (long long)x->min_pixels, (long long)x->max_pixels,
				 (long long)w, (long long)h, wb, hb, (long long)*patches, (long long)x->patch,
				 (long long)x->merge, (long long)x->merge);
		return 0;
	case VIS_FIXED:
		*tokens = x->fixed_tokens;
		*patches = x->fixed_tokens * x->pool * x->pool;
		if (rule)
			snprintf(rule, n, "Gemma 4 fixed soft tokens: %lld per image whatever its size, each pooled from "
				 "%lldx%lld patches of %lld px (%lld patches)",
				 (long long)x->fixed_tokens, (long long)x->pool, (long long)x->pool, (long long)x->patch,
				 (long long)*patches);
		return 0;
	default:
		return err_set(e, SS_EUSAGE, "%s: %s takes no images (its config has no vision encoder servesim knows: "
			       "Qwen-VL or Gemma 4 vision_config)", what, m->id);
	}
}
