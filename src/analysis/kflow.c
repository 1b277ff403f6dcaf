/* kflow.c - kernel-level MFU: a measured layer's kernels mapped onto the
 * operator graph (see kflow.h for the mapping rules). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"
#include "servesim/json.h"
#include "servesim/kflow.h"

/* --- input --- */

static int load_arg(const char *arg, const char *what, struct json **j, struct err *e)
{
	if (arg[0] == '@')
		return json_parse_file(arg + 1, j, e);
	return json_parse(arg, strlen(arg), what, j, e);
}

static const char *src_name(const char *arg, const char *what)
{
	return arg[0] == '@' ? arg + 1 : what;
}

static int check_dims(const struct json *d, const char *ctx, const char *key, struct err *e)
{
	enum json_type t;

	if (!d)
		return 0;
	t = json_type_of(d);
	if (t != JSON_ARRAY && t != JSON_STRING && t != JSON_NULL)
		return err_set(e, SS_EDATA, "%s.%s: expected an array of dimensions or a string, got %s",
			       ctx, key, json_type_name(t));
	return 0;
}

static int nonneg(const struct json *o, const char *key, const char *ctx, bool required,
		  double *out, struct err *e)
{
	bool pres = true;
	int rc = required ? json_req_num(o, key, ctx, out, e) : json_opt_num(o, key, ctx, out, &pres, e);

	if (rc < 0)
		return rc;
	if (pres && (*out < 0 || !isfinite(*out)))
		return err_set(e, SS_EDATA, "%s.%s: expected a duration >= 0, got %g", ctx, key, *out);
	return 0;
}

static int parse_kernel(const struct json *k, const char *ctx, struct kf_kernel *o,
			struct err *e)
{
	static const char *const keys[] = {"name", "simplified_name", "dur_us", "category", "half",
		"ts", "input_dims", "output_dims", NULL};
	const char *name = NULL, *simple = NULL, *cat = NULL, *half = NULL;
	int rc;

	memset(o, 0, sizeof(*o));
	if (json_type_of(k) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected an object, got %s", ctx,
			       json_type_name(json_type_of(k)));
	if ((rc = json_check_keys(k, keys, ctx, e)) < 0 ||
	    (rc = json_req_str(k, "name", ctx, &name, e)) < 0 ||
	    (rc = json_opt_str(k, "simplified_name", ctx, &simple, e)) < 0 ||
	    (rc = json_req_str(k, "category", ctx, &cat, e)) < 0 ||
	    (rc = json_opt_str(k, "half", ctx, &half, e)) < 0 ||
	    (rc = nonneg(k, "dur_us", ctx, true, &o->dur_us, e)) < 0 ||
	    (rc = json_opt_num(k, "ts", ctx, &o->ts, NULL, e)) < 0 ||
	    (rc = check_dims(json_get(k, "input_dims"), ctx, "input_dims", e)) < 0 ||
	    (rc = check_dims(json_get(k, "output_dims"), ctx, "output_dims", e)) < 0)
		return rc;
	if (half && strcmp(half, "attn") != 0 && strcmp(half, "ffn") != 0 && strcmp(half, "full") != 0)
		return err_set(e, SS_EDATA, "%s.half: expected attn, ffn or full, got \"%s\"", ctx, half);
	snprintf(o->name, sizeof(o->name), "%s", simple && simple[0] ? simple : name);
	snprintf(o->category, sizeof(o->category), "%s", cat);
	snprintf(o->half, sizeof(o->half), "%s", half ? half : "");
	json_dims_text(json_get(k, "input_dims"), o->shape_in, sizeof(o->shape_in));
	json_dims_text(json_get(k, "output_dims"), o->shape_out, sizeof(o->shape_out));
	return 0;
}

int kflow_parse(const char *arg, struct kernel_flow *kf, struct err *e)
{
	static const char *const top[] = {"metadata", "category_summary", "kernels", NULL};
	static const char *const mk[] = {"layer_id", "fwd_pass", "num_layers", "wall_us",
		"total_dur_us", "num_kernels", "compress_ratio", NULL};
	const char *src = src_name(arg, "--kernel-flow");
	struct json *root = NULL;
	const struct json *md, *cs, *ks, *x;
	const char *fwd = NULL;
	char ctx[300];
	size_t i;
	int rc;

	memset(kf, 0, sizeof(*kf));
	if ((rc = load_arg(arg, "--kernel-flow", &root, e)) < 0)
		return rc;
	if (json_type_of(root) != JSON_OBJECT) {
		rc = err_set(e, SS_EDATA, "%s: expected an object with metadata, category_summary and kernels", src);
		goto out;
	}
	md = json_get(root, "metadata");
	cs = json_get(root, "category_summary");
	ks = json_get(root, "kernels");
	snprintf(ctx, sizeof(ctx), "%s: metadata", src);
	if ((rc = json_check_keys(root, top, src, e)) < 0)
		goto out;
	if (!md || json_type_of(md) != JSON_OBJECT) {
		rc = err_set(e, SS_EDATA, "%s: 'metadata' must be an object {layer_id, num_layers, total_dur_us, ...}", src);
		goto out;
	}
	if (!ks || json_type_of(ks) != JSON_ARRAY || json_size(ks) == 0) {
		rc = err_set(e, SS_EDATA, "%s: 'kernels' must be a non-empty array of kernel rows", src);
		goto out;
	}
	kf->compress_ratio = 1;
	if ((rc = json_check_keys(md, mk, ctx, e)) < 0 ||
	    (rc = json_req_int(md, "layer_id", ctx, 0, 1 << 20, &kf->layer_id, e)) < 0 ||
	    (rc = json_req_int(md, "num_layers", ctx, 1, 1 << 20, &kf->num_layers, e)) < 0 ||
	    (rc = nonneg(md, "total_dur_us", ctx, true, &kf->total_dur_us, e)) < 0 ||
	    (rc = nonneg(md, "wall_us", ctx, false, &kf->wall_us, e)) < 0 ||
	    (rc = nonneg(md, "compress_ratio", ctx, false, &kf->compress_ratio, e)) < 0 ||
	    (rc = json_opt_str(md, "fwd_pass", ctx, &fwd, e)) < 0)
		goto out;
	kf->num_kernels = (int64_t)json_size(ks);
	if ((rc = json_opt_int(md, "num_kernels", ctx, 0, 1 << 24, &kf->num_kernels, NULL, e)) < 0)
		goto out;
	snprintf(kf->fwd_pass, sizeof(kf->fwd_pass), "%s", fwd ? fwd : "");
	kf->nk = json_size(ks);
	kf->k = xcalloc(kf->nk, sizeof(*kf->k));
	for (i = 0, x = json_first(ks); x; x = json_next(x), i++) {
		snprintf(ctx, sizeof(ctx), "%s: kernels[%zu]", src, i);
		if ((rc = parse_kernel(x, ctx, &kf->k[i], e)) < 0)
			goto out;
	}
	if (cs) {
		static const char *const ck[] = {"dur_us", "count", NULL};
		if (json_type_of(cs) != JSON_OBJECT) {
			rc = err_set(e, SS_EDATA, "%s: 'category_summary' must be an object {CATEGORY: {dur_us, count}}", src);
			goto out;
		}
		kf->ncat = json_size(cs);
		kf->cat = xcalloc(kf->ncat ? kf->ncat : 1, sizeof(*kf->cat));
		for (i = 0, x = json_first(cs); x; x = json_next(x), i++) {
			snprintf(ctx, sizeof(ctx), "%s: category_summary.%s", src, json_key(x));
			if (json_type_of(x) != JSON_OBJECT) {
				rc = err_set(e, SS_EDATA, "%s: expected {dur_us, count}", ctx);
				goto out;
			}
			snprintf(kf->cat[i].name, sizeof(kf->cat[i].name), "%s", json_key(x));
			if ((rc = json_check_keys(x, ck, ctx, e)) < 0 ||
			    (rc = nonneg(x, "dur_us", ctx, true, &kf->cat[i].dur_us, e)) < 0 ||
			    (rc = json_opt_int(x, "count", ctx, 0, 1 << 24, &kf->cat[i].count, NULL, e)) < 0)
				goto out;
		}
	}
	rc = 0;
out:
	json_free(root);
	if (rc < 0)
		kflow_release(kf);
	return rc;
}

int kflow_parse_ms(const char *arg, struct kernel_flow *kf, struct err *e)
{
	const char *src = src_name(arg, "--kernel-ms");
	struct json *root = NULL;
	const struct json *x;
	char ctx[300];
	size_t i;
	int rc = 0;

	memset(kf, 0, sizeof(*kf));
	kf->layer_id = kf->num_layers = kf->num_kernels = -1;
	if ((rc = load_arg(arg, "--kernel-ms", &root, e)) < 0)
		return rc;
	if (json_type_of(root) != JSON_OBJECT || json_size(root) == 0) {
		rc = err_set(e, SS_EDATA, "%s: expected a non-empty object {\"category\": ms, ...}", src);
		goto out;
	}
	kf->ncat = json_size(root);
	kf->cat = xcalloc(kf->ncat, sizeof(*kf->cat));
	for (i = 0, x = json_first(root); x; x = json_next(x), i++) {
		double v;
		snprintf(ctx, sizeof(ctx), "%s: %s", src, json_key(x));
		if (json_type_of(x) != JSON_NUMBER || !((v = json_number(x)) >= 0) || !isfinite(v)) {
			rc = err_set(e, SS_EDATA, "%s: expected milliseconds >= 0", ctx);
			goto out;
		}
		snprintf(kf->cat[i].name, sizeof(kf->cat[i].name), "%s", json_key(x));
		kf->cat[i].dur_us = v * 1e3;
		kf->total_dur_us += v * 1e3;
	}
out:
	json_free(root);
	if (rc < 0)
		kflow_release(kf);
	return rc;
}

void kflow_release(struct kernel_flow *kf)
{
	free(kf->k);
	free(kf->cat);
	kf->k = NULL;
	kf->cat = NULL;
	kf->nk = kf->ncat = 0;
}

/* --- mapping --- */

const char *kf_map_name(enum kf_map m)
{
	static const char *const n[] = {"direct", "proportional", "overhead"};
	return n[m];
}

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool ends(const char *s, const char *p)
{
	size_t a = strlen(s), b = strlen(p);
	return a >= b && strcmp(s + a - b, p) == 0;
}

/* 1: a direct category (the op belongs to it), 0: a direct category this op
 * is not part of; -1: not a direct category. */
static int direct_owns(const char *cat, const struct op *o)
{
	if (!strcmp(cat, "mla") || !strcmp(cat, "attention") || !strcmp(cat, "flash_attn"))
		return o->kind == OPK_ATTN && !starts(o->name, "indexer_");
	if (!strcmp(cat, "moe"))
		return starts(o->name, "experts_");
	if (!strcmp(cat, "rmsnorm") || !strcmp(cat, "norm"))
		return o->cat == OPC_NORM;
	if (!strcmp(cat, "rope"))
		return !strcmp(o->name, "rope");
	if (!strcmp(cat, "activation"))
		return ends(o->name, "act_mul") && !starts(o->name, "experts_");
	if (!strcmp(cat, "moe_gate"))
		return !strcmp(o->name, "router");
	if (!strcmp(cat, "topk"))
		return strstr(o->name, "topk") != NULL;
	if (!strcmp(cat, "paged_mqa"))
		return !strcmp(o->name, "indexer_scores");
	if (!strcmp(cat, "residual"))
		return o->cat == OPC_RESIDUAL;
	/* direct categories the graph has no operator for (yet) */
	if (!strcmp(cat, "mhc") || !strcmp(cat, "hadamard") || !strcmp(cat, "quant") ||
	    !strcmp(cat, "mla_cache_store"))
		return 0;
	return -1;
}

static bool is_gemm_cat(const char *cat)
{
	return !strcmp(cat, "gemm_fp8") || !strcmp(cat, "gemm_bf16") || !strcmp(cat, "gemm");
}

/* Does generic GEMM category cat take op o?  The GEMMs no direct category
 * claimed; when both gemm_fp8 and gemm_bf16 are present, gemm_bf16 takes
 * the batched ones (MLA absorb bmm) and gemm_fp8 the projections. */
static bool gemm_takes(const char *cat, const struct op *o, bool claimed, bool split)
{
	if (o->kind != OPK_GEMM || claimed)
		return false;
	if (!split || !strcmp(cat, "gemm"))
		return true;
	return !strcmp(cat, "gemm_bf16") ? o->batch > 1 : o->batch <= 1;
}

static bool is_overhead_cat(const char *cat)
{
	static const char *const known[] = {"allreduce", "all_reduce", "moe_align", "moe_sort",
		"mla_metadata", "indexer", "other", "memcpy", "memset", "all_to_all", "sampling", NULL};
	size_t i;

	for (i = 0; known[i]; i++)
		if (!strcmp(cat, known[i]))
			return true;
	return false;
}

static bool fp8_cat(const char *cat)
{
	return !strcmp(cat, "moe") || !strcmp(cat, "gemm_fp8");
}

static void add_name(char *list, size_t n, const char *name)
{
	size_t used = strlen(list);

	if (strstr(list, name))
		return;
	if (used + strlen(name) + 3 < n)
		snprintf(list + used, n - used, "%s%s", used ? ", " : "", name);
}

/* all categories present, in first-seen order (kernels, then the summary) */
struct catset {
	char (*name)[32];
	double *dur;
	size_t n;
};

static void catset_add(struct catset *s, const char *name, double dur, size_t cap)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name)) {
			s->dur[i] += dur;
			return;
		}
	if (s->n < cap) {
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", name);
		s->dur[s->n++] = dur;
	}
}

int kflow_map(const struct kernel_flow *kf, const struct layer_kind *lk, double peak,
	      double peak_fp8, struct kf_result *r, struct err *e)
{
	size_t cap = kf->nk + kf->ncat + 1, i, c;
	struct catset cs;
	bool *claimed, *mine, has_fp8 = false, has_bf16 = false, split;

	if (!(peak > 0))
		return err_set(e, SS_EUSAGE, "kernel MFU: the GPU has no peak for this dtype");
	if (!(peak_fp8 > 0))
		peak_fp8 = peak;
	memset(r, 0, sizeof(*r));
	r->nrows = kf->nk;
	r->nops = lk->nops;
	r->rows = xcalloc(kf->nk ? kf->nk : 1, sizeof(*r->rows));
	r->ops = xcalloc(lk->nops ? lk->nops : 1, sizeof(*r->ops));
	claimed = xcalloc(lk->nops ? lk->nops : 1, sizeof(*claimed));
	mine = xcalloc(lk->nops ? lk->nops : 1, sizeof(*mine));
	cs.name = xcalloc(cap, sizeof(*cs.name));
	cs.dur = xcalloc(cap, sizeof(*cs.dur));
	cs.n = 0;
	for (i = 0; i < lk->nops; i++) {
		r->ops[i].op = &lk->ops[i];
		r->ops[i].map = KF_OVERHEAD;
		r->ops[i].time_us = r->ops[i].theory_us = r->ops[i].mfu = NAN;
	}
	/* category times: from the kernels when there are any, else the summary */
	if (kf->nk)
		for (i = 0; i < kf->nk; i++)
			catset_add(&cs, kf->k[i].category, kf->k[i].dur_us, cap);
	else
		for (i = 0; i < kf->ncat; i++)
			catset_add(&cs, kf->cat[i].name, kf->cat[i].dur_us, cap);
	for (c = 0; c < cs.n; c++) {
		has_fp8 |= !strcmp(cs.name[c], "gemm_fp8");
		has_bf16 |= !strcmp(cs.name[c], "gemm_bf16");
	}
	split = has_fp8 && has_bf16;
	/* direct categories claim their operators first */
	for (c = 0; c < cs.n; c++)
		for (i = 0; i < lk->nops; i++)
			if (direct_owns(cs.name[c], &lk->ops[i]) == 1)
				claimed[i] = true;
	for (i = 0; i < kf->nk; i++) {
		r->rows[i].map = KF_OVERHEAD;
		r->rows[i].flops = r->rows[i].theory_us = r->rows[i].mfu = NAN;
	}
	for (c = 0; c < cs.n; c++) {
		const char *cat = cs.name[c];
		int d = lk->nops ? direct_owns(cat, &lk->ops[0]) : -1;
		bool gemm = is_gemm_cat(cat), fp8 = fp8_cat(cat);
		double pk = fp8 ? peak_fp8 : peak, fl = 0;
		size_t nops = 0, nk = 0, oi;
		enum kf_map map;
		char label[160] = "";

		if (d < 0 && !gemm) {
			if (!is_overhead_cat(cat))
				add_name(r->unknown, sizeof(r->unknown), cat);
			r->overhead_us += cs.dur[c];
			continue;
		}
		/* the operators of this category */
		for (i = 0; i < lk->nops; i++) {
			const struct op *o = &lk->ops[i];
			mine[i] = gemm ? gemm_takes(cat, o, claimed[i], split) : direct_owns(cat, o) == 1;
			if (!mine[i])
				continue;
			nops++;
			fl += o->flops;
			add_name(label, sizeof(label), o->name);
		}
		if (nops == 0 || !(fl > 0)) {
			add_name(r->unmodelled, sizeof(r->unmodelled), cat);
			r->overhead_us += cs.dur[c];
			continue;
		}
		for (i = 0; i < kf->nk; i++)
			nk += !strcmp(kf->k[i].category, cat);
		map = gemm || nk != nops ? KF_PROPORTIONAL : KF_DIRECT;
		r->mapped_us += cs.dur[c];
		if (map == KF_PROPORTIONAL) {
			size_t used = strlen(r->groups);
			snprintf(r->groups + used, sizeof(r->groups) - used, "%s%s: %s", used ? "; " : "",
				 cat, label);
		}
		/* operators: the category's time by FLOPs share (1:1 below replaces it) */
		for (i = 0; i < lk->nops; i++)
			if (mine[i]) {
				struct kf_op *ko = &r->ops[i];
				ko->map = map;
				ko->fp8 = fp8;
				ko->time_us = (isnan(ko->time_us) ? 0 : ko->time_us) +
					      cs.dur[c] * lk->ops[i].flops / fl;
			}
		/* kernel rows; 1:1, the i-th kernel is the i-th operator */
		for (oi = 0, i = 0; i < kf->nk; i++) {
			struct kf_row *row = &r->rows[i];
			if (strcmp(kf->k[i].category, cat) != 0)
				continue;
			row->map = map;
			row->fp8 = fp8;
			if (map == KF_DIRECT) {
				while (!mine[oi])
					oi++;
				snprintf(row->op, sizeof(row->op), "%s", lk->ops[oi].name);
				row->flops = lk->ops[oi].flops;
				r->ops[oi++].time_us = kf->k[i].dur_us;
			} else {
				snprintf(row->op, sizeof(row->op), "%s", label);
				row->flops = cs.dur[c] > 0 ? fl * kf->k[i].dur_us / cs.dur[c] : fl / (double)nk;
			}
			row->theory_us = row->flops / pk * 1e6;
			row->mfu = kf->k[i].dur_us > 0 ? row->theory_us / kf->k[i].dur_us : NAN;
		}
		for (i = 0; i < lk->nops; i++)
			if (mine[i]) {
				struct kf_op *ko = &r->ops[i];
				ko->theory_us = lk->ops[i].flops / pk * 1e6;
				ko->mfu = ko->time_us > 0 ? ko->theory_us / ko->time_us : NAN;
			}
	}
	free(mine);
	free(claimed);
	free(cs.name);
	free(cs.dur);
	return 0;
}

void kflow_result_release(struct kf_result *r)
{
	free(r->rows);
	free(r->ops);
	r->rows = NULL;
	r->ops = NULL;
}
