/* quant.c - quantised checkpoints: quantization_config parsed into per-part
 * storage formats (struct model_quant; the formats themselves: qfmt.c, a
 * Quark config: quark.c). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/model.h"

/* Some part of the checkpoint is stored quantised (a format servesim reads). */
static bool quant_some(const struct model_quant *q)
{
	return q->experts != Q_NONE || q->mlp != Q_NONE || q->shared != Q_NONE || q->attn != Q_NONE ||
	       q->attn_o != Q_NONE;
}

bool model_attn_stored_bf16(const struct model_cfg *m, bool o_proj)
{
	const struct model_quant *q = &m->q;

	return (o_proj ? q->attn_o : q->attn) == Q_NONE && quant_some(q);
}

bool model_dense_ffn_stored_bf16(const struct model_cfg *m)
{
	return m->q.mlp == Q_NONE && quant_some(&m->q);
}

bool model_shared_experts_stored_bf16(const struct model_cfg *m)
{
	return m->q.shared == Q_NONE && quant_some(&m->q);
}

const char *attn_kind_name(enum attn_kind a)
{
	switch (a) {
	case ATTN_MHA: return "MHA";
	case ATTN_GQA: return "GQA";
	case ATTN_MLA: return "MLA";
	case ATTN_CSA: return "CSA/HCA";
	}
	return "?";
}

/* True when a compressed-tensors 'ignore' / modelopt or HF
 * 'modules_to_not_convert' list names the module (substring of an entry,
 * regex punctuation ignored). */
static bool list_names(const struct json *list, const char *module)
{
	const struct json *x;

	if (!list || json_type_of(list) != JSON_ARRAY)
		return false;
	for (x = json_first(list); x; x = json_next(x))
		if (json_type_of(x) == JSON_STRING && strstr(json_string(x), module))
			return true;
	return false;
}

/* Which attention projections an exclusion list keeps unquantised, as
 * aiconfigurator reads a checkpoint's exclusions (ai-dynamo/aiconfigurator
 * @095f58a5, sdk/models/helpers.py attention_projection_exclusions): an
 * entry naming self_attn but no projection ("model.layers.3.self_attn*",
 * "re:.*self_attn.*") covers the whole block; else the entries naming
 * q_a_proj, q_b_proj, q_proj, kv_a_proj, kv_b_proj, kv_proj, k_proj or
 * v_proj cover the q/kv projections (*qkv), o_proj the output one (*o);
 * entries of the vision tower are not the language model's. */
static void attn_excluded(const struct json *list, bool *qkv, bool *o)
{
	static const char *const qkv_names[] = {"q_a_proj", "q_b_proj", "q_proj", "kv_a_proj", "kv_b_proj",
						"kv_proj", "k_proj", "v_proj"};
	const struct json *x;
	size_t i;

	*qkv = *o = false;
	if (!list || json_type_of(list) != JSON_ARRAY)
		return;
	for (x = json_first(list); x; x = json_next(x)) {
		const char *s;
		bool named = false;
		if (json_type_of(x) != JSON_STRING || !strstr((s = json_string(x)), "self_attn"))
			continue;
		/* an image encoder's own attention (Llama 4's vision_model.*
		 * self_attn.q_proj) is not the language model's */
		if (strstr(s, "vision") || strstr(s, "visual"))
			continue;
		for (i = 0; i < sizeof(qkv_names) / sizeof(qkv_names[0]); i++)
			if (strstr(s, qkv_names[i]))
				*qkv = named = true;
		if (strstr(s, "o_proj"))
			*o = named = true;
		if (!named)
			*qkv = *o = true;
	}
}

/* Whether an exclusion list names layer i whole, as ModelOpt writes a layer
 * it keeps unquantised: "model.layers.<n>*" (fnmatch: every layer whose
 * index begins with n, GLM-5.1-NVFP4's "model.layers.0*") or
 * "model.layers.<n>.*" (layer n alone, its "model.layers.1.*"), any prefix
 * before (Kimi-K2.6-NVFP4's "language_model.model.layers.0*"); the engines
 * match module names against these globs (TensorRT-LLM QuantConfig.
 * is_module_excluded_from_quantization, fnmatch; vLLM's and SGLang's
 * ModelOpt configs likewise). */
static bool layer_whole(const struct json *list, int64_t i)
{
	const struct json *x;
	char idx[24];

	snprintf(idx, sizeof(idx), "%lld", (long long)i);
	for (x = json_first(list); x; x = json_next(x)) {
		const char *s, *l, *d, *e;
		size_t nd;
		if (json_type_of(x) != JSON_STRING || !(l = strstr((s = json_string(x)), "layers.")))
			continue;
		if (strstr(s, "vision") || strstr(s, "visual"))
			continue;
		d = l + 7;
		for (e = d; *e >= '0' && *e <= '9'; e++)
			;
		nd = (size_t)(e - d);
		if (nd == 0)
			continue;
		if (strcmp(e, "*") == 0 && strncmp(idx, d, nd) == 0)
			return true;
		if (strcmp(e, ".*") == 0 && nd == strlen(idx) && strncmp(idx, d, nd) == 0)
			return true;
	}
	return false;
}

/* Whether the list keeps every dense FFN layer of m unquantised: an entry
 * naming the dense MLP's projections (Kimi-K2.5's "re:.*mlp\.(gate|up|
 * gate_up|down)_proj.*") or each dense layer whole (GLM-5.1-NVFP4's layers
 * 0-2).  False when m has no dense FFN layer. */
static bool dense_excluded(const struct json *list, const struct model_cfg *m)
{
	int64_t i, n = 0;

	if (!list || json_type_of(list) != JSON_ARRAY)
		return false;
	if (list_names(list, "mlp\\.(gate|up|gate_up|down)_proj") ||
	    list_names(list, "mlp.(gate|up|gate_up|down)_proj"))
		return true;
	for (i = 0; i < m->layers && i < MODEL_MAX_LAYERS; i++) {
		if (m->is_moe[i] || m->no_ffn[i])
			continue;
		if (!layer_whole(list, i))
			return false;
		n++;
	}
	return n > 0;
}

static void note_excluded(struct model_quant *q, const char *what)
{
	size_t n = strlen(q->excluded);

	snprintf(q->excluded + n, sizeof(q->excluded) - n, "%s%s", n ? ", " : "", what);
}

/* A ModelOpt checkpoint that declares an fp8 KV cache, as vLLM
 * (vllm/utils/torch_utils.py get_kv_cache_quant_algo_string, modelopt
 * methods only) and SGLang (ModelOptQuantConfig.from_config, then
 * configure_kv_cache_dtype) read it: kv_cache_quant_algo "FP8" (flat, or in
 * hf_quant_config.json's "quantization" section) or kv_cache_scheme
 * {"type": "float", "num_bits": 8}.  compressed-tensors' kv_cache_scheme
 * does not switch either engine's "auto" to fp8. */
static void kv_declared(const struct json *q, const char *qm, struct model_quant *mq)
{
	const struct json *algo, *sch, *inner = json_get(q, "quantization");

	if (!qm || strncmp(qm, "modelopt", 8) != 0)
		return;
	algo = json_get(q, "kv_cache_quant_algo");
	if ((!algo || json_type_of(algo) != JSON_STRING) && inner && json_type_of(inner) == JSON_OBJECT)
		algo = json_get(inner, "kv_cache_quant_algo");
	if (algo && json_type_of(algo) == JSON_STRING && strcasecmp(json_string(algo), "FP8") == 0) {
		snprintf(mq->kv_fp8, sizeof(mq->kv_fp8), "kv_cache_quant_algo FP8");
		return;
	}
	sch = json_get(q, "kv_cache_scheme");
	if (sch && json_type_of(sch) == JSON_OBJECT) {
		const struct json *t = json_get(sch, "type"), *b = json_get(sch, "num_bits");
		if (t && json_type_of(t) == JSON_STRING && strcmp(json_string(t), "float") == 0 && b &&
		    json_type_of(b) == JSON_NUMBER && json_number(b) == 8)
			snprintf(mq->kv_fp8, sizeof(mq->kv_fp8), "kv_cache_scheme float 8");
	}
}

int model_quant_from_json(const struct json *q, const char *src, struct model_cfg *m, struct err *e)
{
	struct model_quant *mq = &m->q;
	const char *qm = NULL, *fmt = NULL;
	const struct json *excl, *inner;
	enum model_qfmt f = Q_NONE;
	int rc;

	if ((rc = json_opt_str(q, "quant_method", src, &qm, e)) < 0)
		return rc;
	/* a method servesim does not read would be priced as unquantised
	 * weights: refused rather than run as bf16 (issue 30) */
	if (qm && strcmp(qm, "fp8") != 0 && strcmp(qm, "mxfp4") != 0 && strcmp(qm, "compressed-tensors") != 0 &&
	    strcmp(qm, "modelopt") != 0 && strcmp(qm, "quark") != 0)
		return err_set(e, SS_EDATA, "%s: 'quantization_config.quant_method' \"%.40s\" is not one servesim "
			       "reads (fp8, mxfp4, compressed-tensors, modelopt, quark); drop quantization_config and give "
			       "--dtype for the weights", src, qm);
	if (qm) {
		snprintf(m->quant, sizeof(m->quant), "%s", qm);
		snprintf(mq->method, sizeof(mq->method), "%s", qm);
	}
	kv_declared(q, qm, mq);
	/* a ModelOpt hf_quant_config.json as published (nvidia/GLM-5-NVFP4):
	 * quant_algo, group_size and exclude_modules in its "quantization"
	 * section, as vLLM's and SGLang's ModelOpt configs read it
	 * (from_config: the section when present, else the top level) */
	if (qm && strcmp(qm, "modelopt") == 0 && (inner = json_get(q, "quantization")) &&
	    json_type_of(inner) == JSON_OBJECT)
		q = inner;
	/* HF's modules_to_not_convert, compressed-tensors' ignore, ModelOpt's
	 * exclude_modules (hf_quant_config.json, as vLLM's ModelOpt configs
	 * read it) */
	excl = json_get(q, "modules_to_not_convert");
	if (!excl)
		excl = json_get(q, "ignore");
	if (!excl)
		excl = json_get(q, "exclude_modules");
	if (qm && strcmp(qm, "quark") == 0) {
		/* AMD Quark (quark.c): one format, its exclude globs read as
		 * the other methods' exclusion lists below */
		if ((rc = model_quark_format(q, src, &f, &mq->group_size, &excl, e)) < 0)
			return rc;
	} else if (qm && strcmp(qm, "fp8") == 0) {
		const struct json *b = json_get(q, "weight_block_size");
		f = b && json_type_of(b) == JSON_ARRAY ? Q_FP8_BLOCK : Q_FP8;
		if (f == Q_FP8_BLOCK)
			mq->group_size = 128 * 128;
	} else if (qm && strcmp(qm, "mxfp4") == 0) {
		/* HF Mxfp4Config quantises the MoE experts only */
		mq->experts = Q_MXFP4;
		mq->group_size = 32;
		note_excluded(mq, "attention, dense layers, router, embedding, lm_head");
		return 0;
	} else if (qm && (strcmp(qm, "compressed-tensors") == 0 || strcmp(qm, "modelopt") == 0)) {
		const struct json *groups = json_get(q, "config_groups"), *g, *w = NULL, *ia = NULL;
		double bits = 0, gs = 0;
		const char *wt = NULL, *algo = NULL;
		if (groups && json_type_of(groups) == JSON_OBJECT && (g = json_first(groups)) &&
		    json_type_of(g) == JSON_OBJECT) {
			w = json_get(g, "weights");
			ia = json_get(g, "input_activations");
		}
		if (w && json_type_of(w) == JSON_OBJECT) {
			bool pres;
			if ((rc = json_opt_num(w, "num_bits", src, &bits, &pres, e)) < 0 ||
			    (rc = json_opt_num(w, "group_size", src, &gs, &pres, e)) < 0 ||
			    (rc = json_opt_str(w, "type", src, &wt, e)) < 0)
				return rc;
		}
		/* ModelOpt's hf_quant_config.json keeps group_size at the top */
		if (gs == 0) {
			bool pres;
			if ((rc = json_opt_num(q, "group_size", src, &gs, &pres, e)) < 0)
				return rc;
		}
		if ((rc = json_opt_str(q, "format", src, &fmt, e)) < 0 ||
		    (rc = json_opt_str(q, "quant_algo", src, &algo, e)) < 0)
			return rc;
		if ((fmt && strstr(fmt, "mxfp4")) || (algo && strcasecmp(algo, "MXFP4") == 0))
			f = Q_MXFP4;
		else if ((fmt && strstr(fmt, "nvfp4")) || (algo && strcasecmp(algo, "NVFP4") == 0) ||
			 (bits == 4 && wt && strcmp(wt, "float") == 0 && gs == 16))
			f = Q_NVFP4;
		else if (bits == 4 && wt && strcmp(wt, "float") == 0)
			f = Q_MXFP4;
		else if (bits == 4 && wt && strcmp(wt, "int") == 0 &&
			 (!ia || json_type_of(ia) == JSON_NULL))
			f = Q_INT4_W4A16;
		else if (bits == 8 && wt && strcmp(wt, "float") == 0)
			f = Q_FP8;
		else if (bits == 8 && wt && strcmp(wt, "int") == 0)
			f = Q_INT8;
		if (gs > 0 && gs < 1e9)
			mq->group_size = (int64_t)gs;
	}
	if (f == Q_NONE)
		return 0;
	mq->experts = mq->attn = mq->attn_o = mq->mlp = mq->shared = f;
	{
		bool qkv, o;
		attn_excluded(excl, &qkv, &o);
		if (qkv)
			mq->attn = Q_NONE;
		if (o)
			mq->attn_o = Q_NONE;
		if (qkv || o)
			note_excluded(mq, qkv && o ? "attention" : qkv ? "attention q/kv projections"
									: "attention o_proj");
	}
	/* the dense FFN layers and the shared experts, each on its own (a
	 * checkpoint may keep one and quantise the other) */
	if (dense_excluded(excl, m))
		mq->mlp = Q_NONE;
	if (list_names(excl, "shared_expert"))
		mq->shared = Q_NONE;
	if (mq->mlp == Q_NONE && mq->shared == Q_NONE)
		note_excluded(mq, "dense FFNs and shared experts");
	else if (mq->mlp == Q_NONE || mq->shared == Q_NONE)
		note_excluded(mq, mq->mlp == Q_NONE ? "dense FFN layers" : "shared experts");
	if (list_names(excl, "lm_head"))
		note_excluded(mq, "lm_head");
	if (list_names(excl, "gate"))
		note_excluded(mq, "router");
	return 0;
}

#define APPEND(...) \
	do { if (off < n) off += (size_t)snprintf(buf + off, n - off, __VA_ARGS__); } while (0)

void model_quant_text(const struct model_cfg *m, char *buf, size_t n)
{
	const struct model_quant *q = &m->q;
	size_t off = 0;

	buf[0] = '\0';
	if (!quant_some(q))
		return;
	if (q->attn_o != q->attn)
		APPEND("%s: experts %s, attention q/kv %s, o_proj %s", q->method, model_qfmt_name(q->experts),
		       model_qfmt_name(q->attn), model_qfmt_name(q->attn_o));
	else
		APPEND("%s: experts %s, attention %s", q->method, model_qfmt_name(q->experts),
		       model_qfmt_name(q->attn));
	if (q->shared != q->mlp)
		APPEND(", dense FFN %s, shared experts %s", model_qfmt_name(q->mlp), model_qfmt_name(q->shared));
	else
		APPEND(", dense/shared FFN %s", model_qfmt_name(q->mlp));
	if (q->group_size > 0 && q->group_size < 16384)
		APPEND(", group %lld", (long long)q->group_size);
	if (q->excluded[0])
		APPEND("; not quantised: %s", q->excluded);
}

