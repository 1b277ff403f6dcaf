/* kflow.c - kernel-level MFU: a measured layer's kernels mapped onto the
 * operator graph (see kflow.h for the mapping rules). */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "analysis/kflow.h"

/* --- input --- */

static int load_arg(const char *arg, const char *what, struct json **j, struct err *e)
{
	size_t lead = strspn(arg, " \t\r\n");
	int rc;

	if (arg[0] == '@')
		return json_parse_file(arg + 1, j, e);
	rc = json_parse(arg, strlen(arg), what, j, e);
	/* a file named without its '@' reads as bad JSON: say which was meant */
	if (rc < 0 && arg[lead] != '{' && arg[lead] != '[')
		return err_set(e, SS_EDATA, "%s: '%.200s' is not JSON; a file is given as @FILE (%s @%.200s)", what, arg,
			       what, arg);
	return rc;
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

static void add_warn(char *buf, size_t n, const char *line)
{
	size_t used = strlen(buf);

	if (used + strlen(line) + 2 < n)
		snprintf(buf + used, n - used, "%s\n", line);
}

/* unknown keys: ignored, one warning each (kernel-flow files come from
 * users' own scripts, 000 "Method A") */
static void warn_keys(const struct json *o, const char *const *keys, const char *ctx,
		      char *warn, size_t n)
{
	const struct json *m;

	for (m = json_first(o); m; m = json_next(m)) {
		const char *const *a;
		char line[400];
		for (a = keys; *a && strcmp(*a, json_key(m)) != 0; a++)
			;
		if (*a)
			continue;
		snprintf(line, sizeof(line), "%s: unknown key '%s' ignored", ctx, json_key(m));
		add_warn(warn, n, line);
	}
}

static int parse_kernel(const struct json *k, const char *ctx, struct kf_kernel *o,
			char *warn, size_t nwarn, struct err *e)
{
	static const char *const keys[] = {"name", "simplified_name", "dur_us", "category", "half",
		"ts", "input_dims", "output_dims", NULL};
	const char *name = NULL, *simple = NULL, *cat = NULL, *half = NULL;
	int rc;

	memset(o, 0, sizeof(*o));
	if (json_type_of(k) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected an object, got %s", ctx,
			       json_type_name(json_type_of(k)));
	warn_keys(k, keys, ctx, warn, nwarn);
	if ((rc = json_req_str(k, "name", ctx, &name, e)) < 0 ||
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
	const struct json *fwd;
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
	warn_keys(root, top, src, kf->warn, sizeof(kf->warn));
	if (!md || json_type_of(md) != JSON_OBJECT) {
		rc = err_set(e, SS_EDATA, "%s: 'metadata' must be an object {layer_id, num_layers, total_dur_us, ...}", src);
		goto out;
	}
	if (!ks || json_type_of(ks) != JSON_ARRAY || json_size(ks) == 0) {
		rc = err_set(e, SS_EDATA, "%s: 'kernels' must be a non-empty array of kernel rows", src);
		goto out;
	}
	kf->compress_ratio = 1;
	warn_keys(md, mk, ctx, kf->warn, sizeof(kf->warn));
	if ((rc = json_req_int(md, "layer_id", ctx, 0, 1 << 20, &kf->layer_id, e)) < 0 ||
	    (rc = json_req_int(md, "num_layers", ctx, 1, 1 << 20, &kf->num_layers, e)) < 0 ||
	    (rc = nonneg(md, "total_dur_us", ctx, true, &kf->total_dur_us, e)) < 0 ||
	    (rc = nonneg(md, "wall_us", ctx, false, &kf->wall_us, e)) < 0 ||
	    (rc = nonneg(md, "compress_ratio", ctx, false, &kf->compress_ratio, e)) < 0)
		goto out;
	/* fwd_pass: a label ("decode", "fwd #28") or the pass number */
	fwd = json_get(md, "fwd_pass");
	if (fwd && json_type_of(fwd) == JSON_STRING) {
		snprintf(kf->fwd_pass, sizeof(kf->fwd_pass), "%s", json_string(fwd));
	} else if (fwd && json_type_of(fwd) == JSON_NUMBER) {
		snprintf(kf->fwd_pass, sizeof(kf->fwd_pass), "fwd #%.0f", json_number(fwd));
	} else if (fwd && json_type_of(fwd) != JSON_NULL) {
		rc = err_set(e, SS_EDATA, "%s.fwd_pass: expected a string or a number, got %s", ctx,
			     json_type_name(json_type_of(fwd)));
		goto out;
	}
	kf->num_kernels = (int64_t)json_size(ks);
	if ((rc = json_opt_int(md, "num_kernels", ctx, 0, 1 << 24, &kf->num_kernels, NULL, e)) < 0)
		goto out;
	kf->nk = json_size(ks);
	kf->k = xcalloc(kf->nk, sizeof(*kf->k));
	for (i = 0, x = json_first(ks); x; x = json_next(x), i++) {
		snprintf(ctx, sizeof(ctx), "%s: kernels[%zu]", src, i);
		if ((rc = parse_kernel(x, ctx, &kf->k[i], kf->warn, sizeof(kf->warn), e)) < 0)
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
			warn_keys(x, ck, ctx, kf->warn, sizeof(kf->warn));
			kf->cat[i].count = -1;
			if ((rc = nonneg(x, "dur_us", ctx, true, &kf->cat[i].dur_us, e)) < 0 ||
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

/* Does category cat own op o?  1: a direct category and o is one of its
 * operators; 0: a direct category o is not part of; -1: not direct.
 * act_sep: an activation category is present, so the routed experts'
 * act_mul is its operator, not moe's (000: silu_and_mul of the routed
 * experts maps to the routed activation). */
static int direct_owns(const char *cat, const struct op *o, bool act_sep)
{
	if (!strcmp(cat, "mla") || !strcmp(cat, "attention") || !strcmp(cat, "flash_attn"))
		return o->kind == OPK_ATTN && !starts(o->name, "indexer_");
	if (!strcmp(cat, "moe"))
		return starts(o->name, "experts_") && !(act_sep && ends(o->name, "act_mul"));
	if (!strcmp(cat, "rmsnorm") || !strcmp(cat, "norm"))
		return o->cat == OPC_NORM;
	if (!strcmp(cat, "rope"))
		return !strcmp(o->name, "rope");
	if (!strcmp(cat, "activation"))
		return ends(o->name, "act_mul");
	if (!strcmp(cat, "moe_gate"))
		return !strcmp(o->name, "router");
	if (!strcmp(cat, "topk"))
		return strstr(o->name, "topk") != NULL;
	if (!strcmp(cat, "paged_mqa"))
		return !strcmp(o->name, "indexer_scores");
	if (!strcmp(cat, "residual"))
		return o->cat == OPC_RESIDUAL;
	/* direct categories (000) the operator graph has no operator for */
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

/* --- shapes: "[[8,7168],[7168,1536]]", "[8,7168]", "q[8,16,576]" --- */

#define KF_MAXT 3
#define KF_MAXD 4

struct tensors {
	int64_t d[KF_MAXT][KF_MAXD];
	int nd[KF_MAXT];
	int n;
};

/* the innermost bracketed lists of integers, in order */
static void parse_tensors(const char *s, struct tensors *t)
{
	memset(t, 0, sizeof(*t));
	while (*s && t->n < KF_MAXT) {
		const char *p = s + 1;
		int nd = 0;
		bool ok = true;
		if (*s != '[' || !(*p >= '0' && *p <= '9')) {
			s++;
			continue;
		}
		while (*p && *p != ']') {
			char *end;
			long long v = strtoll(p, &end, 10);
			if (end == p || nd == KF_MAXD) {
				ok = false;
				break;
			}
			t->d[t->n][nd++] = v;
			p = *end == ',' ? end + 1 : end;
			while (*p == ' ')
				p++;
		}
		if (ok && *p == ']' && nd > 0)
			t->nd[t->n++] = nd;
		s = *p ? p + 1 : p;
	}
}

/* a GEMM kernel's rows (all leading dims of the first input, batch folded
 * in), k (last dim of the first input) and n (last dim of the output, else
 * of the second input); false when the shape says too little, or when its
 * leading dims are negative or their product overflows (no GEMM of the
 * model has such rows: a trace's shapes are data, not trusted) */
static bool kernel_mkn(const struct kf_kernel *k, int64_t *m, int64_t *kk, int64_t *n)
{
	struct tensors in, out;
	int i;

	parse_tensors(k->shape_in, &in);
	parse_tensors(k->shape_out, &out);
	if (in.n < 1 || in.nd[0] < 2)
		return false;
	*kk = in.d[0][in.nd[0] - 1];
	for (*m = 1, i = 0; i < in.nd[0] - 1; i++) {
		int64_t d = in.d[0][i];
		if (d < 0 || (d > 0 && *m > INT64_MAX / d))
			return false;
		*m *= d;
	}
	if (out.n >= 1)
		*n = out.d[0][out.nd[0] - 1];
	else if (in.n >= 2)
		*n = in.d[1][in.nd[1] - 1];
	else
		return false;
	return true;
}

static bool same_dims(const struct tensors *a, int ia, const struct tensors *b, int ib)
{
	int i;

	if (ia >= a->n || ib >= b->n || a->nd[ia] != b->nd[ib])
		return false;
	for (i = 0; i < a->nd[ia]; i++)
		if (a->d[ia][i] != b->d[ib][i])
			return false;
	return true;
}

/* non-GEMM kernel against an operator: the output shape (else the input) */
static bool shape_fits(const struct kf_kernel *k, const struct op *o)
{
	struct tensors ko, oo;

	parse_tensors(k->shape_out[0] ? k->shape_out : k->shape_in, &ko);
	parse_tensors(k->shape_out[0] ? o->shape_out : o->shape_in, &oo);
	return ko.n > 0 && same_dims(&ko, 0, &oo, 0);
}

/* The operators among the category's free ones that kernel k is, by its
 * shape, marked in sel; more than one: a fused GEMM (the free operators
 * with the same m and k, in order, whose n add up: q_a_proj + kv_a_proj
 * share their input [m, hidden]).  Returns how many, 0 when none fits. */
static size_t match_shape(const struct kf_kernel *k, const struct layer_kind *lk,
			  const bool *free_op, bool *sel)
{
	int64_t m, kk, n;
	size_t i, j, cnt;

	memset(sel, 0, lk->nops * sizeof(*sel));
	if (!k->shape_in[0] && !k->shape_out[0])
		return 0;
	if (!kernel_mkn(k, &m, &kk, &n)) {
		for (i = 0; i < lk->nops; i++)
			if (free_op[i] && lk->ops[i].kind != OPK_GEMM && shape_fits(k, &lk->ops[i]))
				return sel[i] = true, 1;
		return 0;
	}
	for (i = 0; i < lk->nops; i++) {
		const struct op *o = &lk->ops[i];
		if (!free_op[i])
			continue;
		if (o->kind != OPK_GEMM ? shape_fits(k, o)
					: o->m * o->batch == m && o->k == kk && o->n == n)
			return sel[i] = true, 1;
	}
	for (i = 0; i < lk->nops; i++) {
		int64_t sum = 0;
		const struct op *o = &lk->ops[i];
		if (!free_op[i] || o->kind != OPK_GEMM || o->m * o->batch != m || o->k != kk)
			continue;
		memset(sel, 0, lk->nops * sizeof(*sel));
		for (cnt = 0, j = i; j < lk->nops && sum < n; j++) {
			const struct op *p = &lk->ops[j];
			if (!free_op[j] || p->kind != OPK_GEMM || p->m * p->batch != m || p->k != kk)
				continue;
			sum += p->n;
			sel[j] = true;
			cnt++;
		}
		if (sum == n && cnt > 1)
			return cnt;
	}
	memset(sel, 0, lk->nops * sizeof(*sel));
	return 0;
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

/* a row mapped to the operators marked in sel (several: a fused kernel,
 * its time split by FLOPs share) */
static void row_to_ops(struct kf_row *row, const struct kf_kernel *k, const struct layer_kind *lk,
		       const bool *sel, enum kf_map map, bool fp8, struct kf_op *ops, bool *free_op)
{
	size_t i, len = 0;
	double fl = 0;

	row->op[0] = '\0';
	row->map = map;
	row->fp8 = fp8;
	for (i = 0; i < lk->nops; i++)
		if (sel[i]) {
			fl += lk->ops[i].flops;
			len++;
		}
	for (i = 0; i < lk->nops; i++) {
		const struct op *o = &lk->ops[i];
		size_t used = strlen(row->op);
		if (!sel[i])
			continue;
		snprintf(row->op + used, sizeof(row->op) - used, "%s%s", used ? "+" : "", o->name);
		free_op[i] = false;
		ops[i].map = map;
		ops[i].fp8 = fp8;
		ops[i].time_us = (isnan(ops[i].time_us) ? 0 : ops[i].time_us) +
				 (fl > 0 ? k->dur_us * o->flops / fl : k->dur_us / (double)len);
		if (!k->shape_in[0] && !k->shape_out[0] && len == 1) {
			snprintf(row->shape_in, sizeof(row->shape_in), "%s", o->shape_in);
			snprintf(row->shape_out, sizeof(row->shape_out), "%s", o->shape_out);
			row->template_shape = true;
		}
	}
	row->flops = fl;
}

static void warnf(struct kf_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warnf(struct kf_result *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	add_warn(r->warn, sizeof(r->warn), line);
}

/* differ by more than 1 % and 0.05 us (the profilers' rounding) */
static bool differ(double a, double b)
{
	return fabs(a - b) > 0.05 && fabs(a - b) > 0.01 * fmax(fabs(a), fabs(b));
}

static void cross_check(const struct kernel_flow *kf, const struct layer_kind *lk,
			double layer_peak, struct kf_result *r)
{
	size_t i, c;

	for (i = 0; i < kf->nk; i++)
		r->kernel_sum_us += kf->k[i].dur_us;
	if (kf->nk && differ(kf->total_dur_us, r->kernel_sum_us))
		warnf(r, "metadata.total_dur_us %.6g us differs from the kernels' sum %.6g us "
			 "(the MFU figures use each kernel's dur_us; the layer MFU uses total_dur_us)",
		      kf->total_dur_us, r->kernel_sum_us);
	if (kf->nk && kf->num_kernels >= 0 && (size_t)kf->num_kernels != kf->nk)
		warnf(r, "metadata.num_kernels %lld but %zu kernel rows", (long long)kf->num_kernels,
		      kf->nk);
	for (c = 0; kf->nk && c < kf->ncat; c++) {
		double d = 0;
		int64_t n = 0;
		for (i = 0; i < kf->nk; i++)
			if (!strcmp(kf->k[i].category, kf->cat[c].name)) {
				d += kf->k[i].dur_us;
				n++;
			}
		if (differ(d, kf->cat[c].dur_us) || (kf->cat[c].count >= 0 && n != kf->cat[c].count))
			warnf(r, "category_summary.%s: %.6g us in %lld kernels, but the kernels give "
				 "%.6g us in %lld", kf->cat[c].name, kf->cat[c].dur_us,
			      (long long)kf->cat[c].count, d, (long long)n);
	}
	for (i = 0; kf->nk && i < kf->nk; i++) {
		for (c = 0; c < kf->ncat; c++)
			if (!strcmp(kf->k[i].category, kf->cat[c].name))
				break;
		if (kf->ncat && c == kf->ncat) {
			warnf(r, "category_summary has no '%s' (kernels[%zu])", kf->k[i].category, i);
			break;
		}
	}
	r->layer_mfu = kf->total_dur_us > 0
			       ? layer_kind_flops(lk) / layer_peak / (kf->total_dur_us * 1e-6) : NAN;
	if (r->layer_mfu > 1)
		warnf(r, "layer MFU %.0f%% is above 100%%: the measured time (%.6g us per layer) is "
			 "shorter than the layer's FLOPs allow; check the times' unit and the shape "
			 "(--batch-size, --seq-len, --context-len, --tp/--dp/--ep)",
		      100 * r->layer_mfu, kf->total_dur_us);
}

int kflow_map(const struct kernel_flow *kf, const struct layer_kind *lk, double peak,
	      double peak_fp8, double layer_peak, struct kf_result *r, struct err *e)
{
	size_t cap = kf->nk + kf->ncat + 1, nops1 = lk->nops ? lk->nops : 1, i, c;
	struct catset cs;
	bool *claimed, *mine, *free_op, *krow, *sel, has_fp8 = false, has_bf16 = false, act_sep = false, split;

	if (!(peak > 0))
		return err_set(e, SS_EUSAGE, "kernel MFU: the GPU has no bf16 peak");
	if (!(peak_fp8 > 0))
		peak_fp8 = peak;
	if (!(layer_peak > 0))
		layer_peak = peak;
	memset(r, 0, sizeof(*r));
	r->nrows = kf->nk;
	r->nops = lk->nops;
	r->rows = xcalloc(kf->nk ? kf->nk : 1, sizeof(*r->rows));
	r->ops = xcalloc(nops1, sizeof(*r->ops));
	claimed = xcalloc(nops1, sizeof(*claimed));
	mine = xcalloc(nops1, sizeof(*mine));
	free_op = xcalloc(nops1, sizeof(*free_op));
	sel = xcalloc(nops1, sizeof(*sel));
	krow = xcalloc(kf->nk ? kf->nk : 1, sizeof(*krow));
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
		act_sep |= !strcmp(cs.name[c], "activation");
	}
	split = has_fp8 && has_bf16;
	/* direct categories claim their operators first */
	for (c = 0; c < cs.n; c++)
		for (i = 0; i < lk->nops; i++)
			if (direct_owns(cs.name[c], &lk->ops[i], act_sep) == 1)
				claimed[i] = true;
	for (i = 0; i < kf->nk; i++) {
		struct kf_row *row = &r->rows[i];
		row->map = KF_OVERHEAD;
		row->how = KF_NO_OP;
		row->flops = row->theory_us = row->mfu = NAN;
		snprintf(row->shape_in, sizeof(row->shape_in), "%s", kf->k[i].shape_in);
		snprintf(row->shape_out, sizeof(row->shape_out), "%s", kf->k[i].shape_out);
	}
	for (c = 0; c < cs.n; c++) {
		const char *cat = cs.name[c];
		int d = lk->nops ? direct_owns(cat, &lk->ops[0], act_sep) : -1;
		bool gemm = is_gemm_cat(cat), fp8 = fp8_cat(cat);
		double pk = fp8 ? peak_fp8 : peak, fl = 0, rest_us = 0;
		size_t nops = 0, nfree = 0, nrest = 0, oi;
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
			mine[i] = gemm ? gemm_takes(cat, o, claimed[i], split) : direct_owns(cat, o, act_sep) == 1;
			free_op[i] = mine[i];
			if (mine[i] && o->flops > 0)
				nops++;
		}
		r->mapped_us += cs.dur[c];
		if (nops == 0) {
			/* a direct category with no operator in the graph (quant,
			 * hadamard, mhc, ...): direct, operator = the category */
			if (!gemm)
				add_name(r->unmodelled, sizeof(r->unmodelled), cat);
			for (i = 0; i < kf->nk; i++)
				if (!strcmp(kf->k[i].category, cat)) {
					r->rows[i].map = gemm ? KF_OVERHEAD : KF_DIRECT;
					snprintf(r->rows[i].op, sizeof(r->rows[i].op), "%s", gemm ? "" : cat);
				}
			if (gemm) {
				r->mapped_us -= cs.dur[c];
				r->overhead_us += cs.dur[c];
				add_name(r->unmodelled, sizeof(r->unmodelled), cat);
			}
			continue;
		}
		/* 1. by shape */
		for (i = 0; i < kf->nk; i++) {
			krow[i] = false;
			if (strcmp(kf->k[i].category, cat) != 0)
				continue;
			if (match_shape(&kf->k[i], lk, free_op, sel)) {
				r->rows[i].how = KF_BY_SHAPE;
				row_to_ops(&r->rows[i], &kf->k[i], lk, sel, KF_DIRECT, fp8, r->ops, free_op);
			} else {
				krow[i] = true;
				nrest++;
				rest_us += kf->k[i].dur_us;
			}
		}
		for (i = 0; i < lk->nops; i++)
			if (free_op[i] && lk->ops[i].flops > 0) {
				nfree++;
				fl += lk->ops[i].flops;
				add_name(label, sizeof(label), lk->ops[i].name);
			}
		if (kf->nk == 0) {
			/* category times only (--kernel-ms): the category's time
			 * spread over its operators by FLOPs share (000, Method B) */
			nrest = 1;
			rest_us = cs.dur[c];
		}
		if (nrest && nfree == 0) {
			warnf(r, "%s: %zu kernel(s) left over after every operator of the category was "
				 "matched; kept as overhead", cat, nrest);
			for (i = 0; i < kf->nk; i++)
				if (krow[i])
					r->rows[i].map = KF_OVERHEAD;
			r->mapped_us -= rest_us;
			r->overhead_us += rest_us;
		} else if (nrest == nfree && kf->nk) {
			/* 2. template order */
			for (oi = 0, i = 0; i < kf->nk; i++) {
				struct kf_row *row = &r->rows[i];
				if (!krow[i])
					continue;
				while (!(free_op[oi] && lk->ops[oi].flops > 0))
					oi++;
				memset(sel, 0, lk->nops * sizeof(*sel));
				sel[oi] = true;
				row->how = KF_BY_ORDER;
				row_to_ops(row, &kf->k[i], lk, sel, KF_DIRECT, fp8, r->ops, free_op);
			}
		} else if (nrest) {
			/* 3. the rest by FLOPs share (000's rule for generic GEMMs) */
			size_t used = strlen(r->groups);
			snprintf(r->groups + used, sizeof(r->groups) - used, "%s%s: %s", used ? "; " : "",
				 cat, label);
			for (i = 0; i < lk->nops; i++)
				if (free_op[i] && lk->ops[i].flops > 0) {
					struct kf_op *ko = &r->ops[i];
					ko->map = KF_PROPORTIONAL;
					ko->fp8 = fp8;
					ko->time_us = (isnan(ko->time_us) ? 0 : ko->time_us) +
						      rest_us * lk->ops[i].flops / fl;
				}
			for (i = 0; i < kf->nk; i++) {
				struct kf_row *row = &r->rows[i];
				if (!krow[i])
					continue;
				row->map = KF_PROPORTIONAL;
				row->how = KF_BY_SHARE;
				row->fp8 = fp8;
				snprintf(row->op, sizeof(row->op), "%s", label);
				row->flops = rest_us > 0 ? fl * kf->k[i].dur_us / rest_us : fl / (double)nrest;
			}
		}
		for (i = 0; i < kf->nk; i++) {
			struct kf_row *row = &r->rows[i];
			if (strcmp(kf->k[i].category, cat) != 0 || row->map == KF_OVERHEAD || isnan(row->flops))
				continue;
			row->theory_us = row->flops / pk * 1e6;
			row->mfu = kf->k[i].dur_us > 0 ? row->theory_us / kf->k[i].dur_us : NAN;
		}
		for (i = 0; i < lk->nops; i++)
			if (mine[i] && !isnan(r->ops[i].time_us)) {
				struct kf_op *ko = &r->ops[i];
				ko->theory_us = lk->ops[i].flops / pk * 1e6;
				ko->mfu = ko->time_us > 0 ? ko->theory_us / ko->time_us : NAN;
			}
	}
	cross_check(kf, lk, layer_peak, r);
	free(krow);
	free(sel);
	free(free_op);
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

/* the layer kind a kernel flow measured: layer_id, or layer_kind */
static int pick_kind(const struct model_cfg *m, const char *arg, const char *layer_kind,
		     const struct kernel_flow *kf, const struct opgraph *gg,
		     const struct layer_kind **out, struct err *e)
{
	const char *want;
	char kname[24];
	size_t i;

	if (kf->layer_id >= 0) {
		if (kf->layer_id >= m->layers)
			return err_set(e, SS_EDATA, "%s: metadata.layer_id %lld is past the model's %lld layers",
				       arg[0] == '@' ? arg + 1 : "--kernel-flow",
				       (long long)kf->layer_id, (long long)m->layers);
		opgraph_layer_kind_name(m, kf->layer_id, kname, sizeof(kname));
		want = kname;
	} else {
		want = layer_kind ? layer_kind : m->n_moe_layers > 0 ? "moe" : "dense";
	}
	for (i = 0; i < gg->nkinds; i++)
		if (strcmp(gg->kinds[i].name, want) == 0) {
			*out = &gg->kinds[i];
			return 0;
		}
	return err_set(e, SS_EUSAGE, "%s has no '%s' layers (--layer-kind dense|moe)", m->id, want);
}

int kflow_load_layer(const char *arg, bool per_pass_ms, const char *layer_kind, const struct model_cfg *m,
		     const struct gpu_spec *g, enum dtype dt, const struct opgraph *gg, struct kernel_flow *kf,
		     struct kf_result *r, const struct layer_kind **lk, struct err *e)
{
	int rc = per_pass_ms ? kflow_parse_ms(arg, kf, e) : kflow_parse(arg, kf, e);

	if (rc < 0)
		return rc;
	if (per_pass_ms) { /* forward-pass totals -> one layer */
		size_t i;
		for (i = 0; i < kf->ncat; i++)
			kf->cat[i].dur_us /= (double)m->layers;
		kf->total_dur_us /= (double)m->layers;
	}
	if ((rc = pick_kind(m, arg, layer_kind, kf, gg, lk, e)) < 0 ||
	    (rc = kflow_map(kf, *lk, g->peak_flops[DT_BF16], g->peak_flops[DT_FP8], g->peak_flops[dt], r, e)) < 0) {
		kflow_release(kf);
		return rc;
	}
	return 0;
}
