/* quark.c - AMD Quark's quantization_config (quant_method "quark") read
 * into one of servesim's weight formats and the checkpoint's exclusions.
 *
 * Quark writes global_quant_config {weight, input_tensors, ...},
 * layer_quant_config {glob: spec}, layer_type_quant_config and exclude
 * [globs] (quark.torch.quantization.config Config.to_dict).  The engines
 * read the same keys: vLLM's QuarkConfig.from_config (vllm/model_executor/
 * layers/quantization/quark/quark.py: exclude, layer_quant_config,
 * layer_type_quant_config, global_quant_config; a layer matching an exclude
 * glob stays unquantised) and SGLang's port of it (python/sglang/srt/layers/
 * quantization/quark/quark.py).  The schemes mapped are those vLLM's
 * _is_w_ocp_mx_a_x and _is_fp8_w8a8 accept: weight dtype fp4, qscheme
 * per_group, group_size 32 (OCP MXFP4: servesim's mxfp4, priced on MI355X's
 * MXFP4 tables) with fp4 per-group activations (w_mxfp4_a_mxfp4), and
 * fp8_e4m3 per_tensor / per_channel weights and activations (fp8).  Any
 * other scheme is refused with the field and value, not priced as bf16. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"

static const char *str_of(const struct json *o, const char *k)
{
	const struct json *v = o ? json_get(o, k) : NULL;

	return v && json_type_of(v) == JSON_STRING ? json_string(v) : "";
}

static double num_of(const struct json *o, const char *k)
{
	const struct json *v = o ? json_get(o, k) : NULL;

	return v && json_type_of(v) == JSON_NUMBER ? json_number(v) : 0;
}

/* One Quark spec ({weight, input_tensors}) -> a format; where names it in
 * messages ("global_quant_config", "layer_quant_config.\"*mlp*\""). */
static int spec_format(const struct json *spec, const char *where, const char *src, enum model_qfmt *f,
		       struct err *e)
{
	const struct json *w, *a;
	const char *wd, *wq, *ad, *aq;
	double wg, ag;

	if (!spec || json_type_of(spec) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: 'quantization_config.%s' is not an object (Quark config)", src,
			       where);
	w = json_get(spec, "weight");
	a = json_get(spec, "input_tensors");
	if (!w || json_type_of(w) == JSON_NULL)
		return err_set(e, SS_EDATA, "%s: 'quantization_config.%s.weight' is null: a Quark config "
			       "without a global weight scheme is not one servesim reads", src, where);
	if (json_type_of(w) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: 'quantization_config.%s.weight' is not one object (a list is "
			       "a two-level scheme such as w4a8 mxfp4+fp8, not mapped)", src, where);
	wd = str_of(w, "dtype");
	wq = str_of(w, "qscheme");
	wg = num_of(w, "group_size");
	ad = a && json_type_of(a) == JSON_OBJECT ? str_of(a, "dtype") : "";
	aq = a && json_type_of(a) == JSON_OBJECT ? str_of(a, "qscheme") : "";
	ag = a && json_type_of(a) == JSON_OBJECT ? num_of(a, "group_size") : 0;
	if (strcmp(wd, "fp4") == 0 && strcmp(wq, "per_group") == 0 && wg == 32) {
		if (strcmp(ad, "fp4") != 0 || strcmp(aq, "per_group") != 0 || ag != 32)
			return err_set(e, SS_EDATA, "%s: 'quantization_config.%s.input_tensors' dtype \"%.20s\" "
				       "qscheme \"%.20s\" group_size %g: servesim maps Quark MXFP4 weights with "
				       "MXFP4 activations only (fp4, per_group, 32)", src, where, ad, aq, ag);
		*f = Q_MXFP4;
		return 0;
	}
	if (strcmp(wd, "fp8_e4m3") == 0 && (strcmp(wq, "per_tensor") == 0 || strcmp(wq, "per_channel") == 0)) {
		if (strcmp(ad, "fp8_e4m3") != 0)
			return err_set(e, SS_EDATA, "%s: 'quantization_config.%s.input_tensors' dtype \"%.20s\": "
				       "servesim maps Quark fp8 weights with fp8_e4m3 activations only", src, where,
				       ad);
		*f = Q_FP8;
		return 0;
	}
	return err_set(e, SS_EDATA, "%s: 'quantization_config.%s.weight' dtype \"%.20s\" qscheme \"%.20s\" "
		       "group_size %g is not a Quark scheme servesim maps (fp4 per_group 32 = mxfp4; fp8_e4m3 "
		       "per_tensor or per_channel = fp8)", src, where, wd, wq, wg);
}

int model_quark_format(const struct json *q, const char *src, enum model_qfmt *f, int64_t *group_size,
		       const struct json **exclude, struct err *e)
{
	const struct json *lq, *lt, *x;
	int rc;

	*f = Q_NONE;
	*group_size = 0;
	*exclude = NULL;
	if ((rc = spec_format(json_get(q, "global_quant_config"), "global_quant_config", src, f, e)) < 0)
		return rc;
	/* per-layer schemes: servesim prices one format a checkpoint, so a
	 * layer_quant_config entry must give the global one */
	lq = json_get(q, "layer_quant_config");
	if (lq && json_type_of(lq) == JSON_OBJECT)
		for (x = json_first(lq); x; x = json_next(x)) {
			char where[96];
			enum model_qfmt lf = Q_NONE;
			snprintf(where, sizeof(where), "layer_quant_config.\"%.60s\"", json_key(x));
			if ((rc = spec_format(x, where, src, &lf, e)) < 0)
				return rc;
			if (lf != *f)
				return err_set(e, SS_EDATA, "%s: 'quantization_config.%s' is %s where "
					       "global_quant_config is %s: servesim prices one Quark format a "
					       "checkpoint", src, where, model_qfmt_name(lf), model_qfmt_name(*f));
		}
	lt = json_get(q, "layer_type_quant_config");
	if (lt && json_type_of(lt) == JSON_OBJECT && json_first(lt))
		return err_set(e, SS_EDATA, "%s: 'quantization_config.layer_type_quant_config.\"%.40s\"': "
			       "per-layer-type Quark schemes are not read", src, json_key(json_first(lt)));
	if (*f == Q_MXFP4)
		*group_size = 32;
	x = json_get(q, "exclude");
	if (x && json_type_of(x) != JSON_ARRAY && json_type_of(x) != JSON_NULL)
		return err_set(e, SS_EDATA, "%s: 'quantization_config.exclude' is not a list of module globs", src);
	*exclude = x;
	return 0;
}
