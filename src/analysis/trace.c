/* trace.c - operator flow from Kineto traces and Ascend kernel_details.csv
 * (see trace.h). */
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "base/json.h"
#include "analysis/trace.h"

const char *tr_cat_name(enum tr_cat c)
{
	static const char *const n[TRC__COUNT] = {"embed", "norm", "attention", "router", "moe/ffn",
		"comm", "other"};
	return n[c];
}

static bool has(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return false;
}

/* by keywords of the scope first, then of the operator and kernel names */
static enum tr_cat categorise(const char *scope, const char *name, const char *kernel)
{
	const char *s[3] = {scope, name, kernel};
	int i;

	for (i = 0; i < 3; i++) {
		const char *x = s[i];
		if (!x || !*x)
			continue;
		if (has(x, "allreduce") || has(x, "all_reduce") || has(x, "hcom") || has(x, "nccl") ||
		    has(x, "dispatch") || has(x, "combine") || has(x, "all_to_all") || has(x, "alltoall"))
			return TRC_COMM;
		if (has(x, "embed"))
			return TRC_EMBED;
		if (has(x, "norm"))
			return TRC_NORM;
		if (has(x, "router") || has(x, "gate(") || has(x, "moe_gate") || has(x, "topk"))
			return TRC_ROUTER;
		if (has(x, "attn") || has(x, "attention") || has(x, "mla") || has(x, "rotary") ||
		    has(x, "rope") || has(x, "qkv") || has(x, "q_proj") || has(x, "k_proj") ||
		    has(x, "v_proj") || has(x, "o_proj"))
			return TRC_ATTN;
		if (has(x, "moe") || has(x, "mlp") || has(x, "ffn") || has(x, "expert") ||
		    has(x, "swiglu") || has(x, "silu"))
			return TRC_MOE_FFN;
	}
	return TRC_OTHER;
}

static bool is_matmul(const char *op)
{
	static const char *const mm[] = {"aten::mm", "aten::bmm", "aten::matmul", "aten::linear",
		"aten::addmm", "aten::baddbmm", NULL};
	size_t i;

	for (i = 0; mm[i]; i++)
		if (strcmp(op, mm[i]) == 0)
			return true;
	return strncmp(op, "MatMul", 6) == 0 || strncmp(op, "BatchMatMul", 11) == 0 ||
	       strstr(op, "BatchMatmul") != NULL || strstr(op, "QuantBatchMatmul") != NULL ||
	       strncmp(op, "TransposeBatchMatMul", 20) == 0 || strstr(op, "GroupedMatmul") != NULL;
}

double tr_matmul_flops(const char *op, const long long (*d)[8], const int *nd, int ni)
{
	double rows = 1;
	int a = 0, i;

	if (strcmp(op, "aten::addmm") == 0 || strcmp(op, "aten::baddbmm") == 0)
		a = 1; /* bias / input first */
	if (ni < a + 2 || nd[a] < 2 || nd[a + 1] < 1)
		return NAN;
	if (strcmp(op, "aten::linear") == 0) { /* x[..., k] W[n, k] */
		for (i = 0; i < nd[a] - 1; i++)
			rows *= (double)d[a][i];
		return nd[a + 1] == 2 ? 2 * rows * (double)d[a][nd[a] - 1] * (double)d[a + 1][0] : NAN;
	}
	/* [..., m, k] x [..., k, n] (also Ascend MatMul "m,k;k,n") */
	for (i = 0; i < nd[a] - 1; i++)
		rows *= (double)d[a][i];
	if (nd[a + 1] < 2)
		return NAN;
	return 2 * rows * (double)d[a][nd[a] - 1] * (double)d[a + 1][nd[a + 1] - 1];
}

static struct tr_op *push(struct trace *t)
{
	struct tr_op *o;

	XGROW(t->ops, t->cap, t->n + 1);
	o = &t->ops[t->n++];
	memset(o, 0, sizeof(*o));
	o->flops = NAN;
	o->layer = -1;
	o->scope_id = -1;
	return o;
}

static void short_name(char *dst, size_t n, const char *k)
{
	const char *p = k;

	if (strncmp(p, "void ", 5) == 0)
		p += 5;
	snprintf(dst, n, "%s", p);
	dst[strcspn(dst, "(<")] = '\0';
}

/* --- what the trace says about its shape (trace.h: struct tr_shape) --- */

#define TR_MODE_MAX 32

/* The most frequent of a few value triples (ties: the first seen). */
struct tr_mode {
	long long k[TR_MODE_MAX][3];
	int count[TR_MODE_MAX];
	int n;
};

static void mode_add(struct tr_mode *m, long long a, long long b, long long c)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->k[i][0] == a && m->k[i][1] == b && m->k[i][2] == c) {
			m->count[i]++;
			return;
		}
	if (m->n == TR_MODE_MAX)
		return;
	m->k[m->n][0] = a;
	m->k[m->n][1] = b;
	m->k[m->n][2] = c;
	m->count[m->n++] = 1;
}

static const long long *mode_top(const struct tr_mode *m)
{
	int i, best = -1;

	for (i = 0; i < m->n; i++)
		if (best < 0 || m->count[i] > m->count[best])
			best = i;
	return best < 0 ? NULL : m->k[best];
}

/* Activation rows of a dense matmul (tokens through a projection): the
 * leading dims of its input; 0 for batched products (bmm's rows are
 * heads x tokens), anything without dims and dims whose product does not
 * fit a long long (no trace holds such a tensor). */
static long long matmul_rows(const char *op, const long long (*d)[8], const int *nd, int ni)
{
	long long rows = 1;
	int a = strcmp(op, "aten::addmm") == 0, i;

	if (strcmp(op, "aten::linear") && strcmp(op, "aten::mm") && strcmp(op, "aten::addmm") &&
	    strcmp(op, "aten::matmul") && strcmp(op, "MatMul") && strcmp(op, "MatMulV2") && strcmp(op, "MatMulV3"))
		return 0;
	if (ni < a + 2 || nd[a] < 2)
		return 0;
	for (i = 0; i < nd[a] - 1; i++)
		if (__builtin_mul_overflow(rows, d[a][i] > 0 ? d[a][i] : 0, &rows))
			return 0;
	return rows;
}

static bool is_sdpa(const char *op)
{
	return strncmp(op, "aten::_scaled_dot_product_", 26) == 0 ||
	       strcmp(op, "aten::scaled_dot_product_attention") == 0;
}

/* A scope of the backward pass: autograd's, or DualPipe's "(B)" (input
 * gradients) and "(W)" (weight gradients) marks. */
static bool backward_scope(const char *s)
{
	size_t n = strlen(s);

	return has(s, "backward") || (n >= 3 && (strcmp(s + n - 3, "(B)") == 0 || strcmp(s + n - 3, "(W)") == 0));
}

/* An autograd node's name without the engine's wrapper. */
static const char *node_name(const char *name)
{
	static const char wrap[] = "autograd::engine::evaluate_function: ";

	return strncmp(name, wrap, sizeof(wrap) - 1) == 0 ? name + sizeof(wrap) - 1 : name;
}

static void note_backward(struct tr_shape *sh, const char *what, const char *name)
{
	if (sh->backward)
		return;
	sh->backward = true;
	snprintf(sh->backward_why, sizeof(sh->backward_why), "%s '%.60s'", what, node_name(name));
}

static void note_fp8(struct tr_shape *sh, const char *name)
{
	if (sh->fp8 || !(has(name, "fp8") || has(name, "e4m3")))
		return;
	sh->fp8 = true;
	short_name(sh->fp8_why, sizeof(sh->fp8_why), node_name(name));
}

/* "prof_ep64_tp1_varsm_hidden7168_seqlen4096.json": each part that is a
 * known prefix followed by digits. */
static void shape_from_name(struct tr_shape *sh, const char *name)
{
	const char *p = name;

	snprintf(sh->name, sizeof(sh->name), "%s", name);
	while (*p) {
		char word[32];
		size_t n = 0;
		long long v;
		while (*p && !isalnum((unsigned char)*p))
			p++;
		while (isalpha((unsigned char)*p) && n + 1 < sizeof(word))
			word[n++] = (char)tolower((unsigned char)*p++);
		word[n] = '\0';
		if (!isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p))
				p++;
			continue;
		}
		v = strtoll(p, (char **)&p, 10);
		if (isalpha((unsigned char)*p)) { /* "8b", "4k": not a count */
			while (isalnum((unsigned char)*p))
				p++;
			continue;
		}
		if (v <= 0 || v > (1LL << 30))
			continue;
		if (!strcmp(word, "seqlen") || !strcmp(word, "seq") || !strcmp(word, "isl"))
			sh->name_seq = v;
		else if (!strcmp(word, "bs") || !strcmp(word, "batch"))
			sh->name_batch = v;
		else if (!strcmp(word, "tp"))
			sh->name_tp = (int)v;
		else if (!strcmp(word, "pp"))
			sh->name_pp = (int)v;
		else if (!strcmp(word, "dp"))
			sh->name_dp = (int)v;
		else if (!strcmp(word, "ep"))
			sh->name_ep = (int)v;
	}
}

/* --- Kineto --- */

struct kev {
	const char *name;
	const struct json *dims;
	double ts, dur;
	long long tid, corr;
};

static int cmp_kev_ts(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->dur > y->dur ? -1 : x->dur < y->dur; /* outer first */
}

static int cmp_kev_time(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->corr < y->corr ? -1 : x->corr > y->corr; /* a stable order for equal starts */
}

static int cmp_kev_corr(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;
	return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/* innermost event of v (sorted by tid, ts) enclosing time ts on tid */
static long innermost(const struct kev *v, size_t n, long long tid, double ts)
{
	size_t lo = 0, hi = n;
	long i;

	while (lo < hi) { /* first index with (tid, ts) > (tid, ts) */
		size_t mid = (lo + hi) / 2;
		if (v[mid].tid < tid || (v[mid].tid == tid && v[mid].ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = (long)lo - 1; i >= 0 && v[i].tid == tid; i--)
		if (v[i].ts <= ts && v[i].ts + v[i].dur >= ts)
			return i; /* the latest start that still encloses: innermost */
	return -1;
}

static int dims_of(const struct json *dj, long long (*d)[8], int *nd, int max)
{
	const struct json *in, *x;
	int ni = 0;

	if (!dj || json_type_of(dj) != JSON_ARRAY)
		return 0;
	for (in = json_first(dj); in && ni < max; in = json_next(in)) {
		nd[ni] = 0;
		if (json_type_of(in) == JSON_ARRAY)
			for (x = json_first(in); x && nd[ni] < 8; x = json_next(x))
				d[ni][nd[ni]++] = json_ll(x, 0);
		ni++;
	}
	return ni;
}

/* input dims as "[8,4096],[4096,12288]" (the outer brackets dropped) */
static void dims_text(const struct json *dj, char *b, size_t n)
{
	size_t len;

	json_dims_text(dj, b, n);
	len = strlen(b);
	if (len >= 2 && b[0] == '[' && b[len - 1] == ']') {
		memmove(b, b + 1, len - 2);
		b[len - 2] = '\0';
	} else {
		b[0] = '\0';
	}
}

/* A Kineto operator's recorded input dims into the samples. */
static void note_dims(struct tr_mode *rows, struct tr_mode *attn, const char *op, const struct json *dj)
{
	long long d[8][8];
	int nd[8], ni = dims_of(dj, d, nd, 8);
	long long r = matmul_rows(op, (const long long (*)[8])d, nd, ni);

	if (r > 0)
		mode_add(rows, r, 0, 0);
	if (is_sdpa(op) && ni >= 2 && nd[0] == 4 && nd[1] == 4 && d[0][0] > 0 && d[0][2] > 0 && d[1][2] >= d[0][2])
		mode_add(attn, d[0][0], d[0][2], d[1][2]);
}

static void shape_finish(struct trace *t, const struct tr_mode *rows, const struct tr_mode *attn)
{
	const long long *r = mode_top(rows), *a = attn ? mode_top(attn) : NULL;

	if (r)
		t->shape.rows = r[0];
	if (a) {
		t->shape.attn_batch = a[0];
		t->shape.attn_seq = a[1];
		t->shape.attn_keys = a[2];
	}
}

static int kineto(const struct json *root, const char *name, struct trace *t, struct err *e)
{
	const struct json *evs = json_get(root, "traceEvents"), *x, *dp;
	struct kev *ops = NULL, *scopes = NULL, *rts = NULL, *ks = NULL;
	size_t no = 0, ns = 0, nr = 0, nk = 0, co = 0, cs = 0, cr = 0, ck = 0, i, idx;
	struct tr_mode rows_m = {0}, attn_m = {0};
	long *op_of = NULL;
	int rc = 0;

	if (!evs || json_type_of(evs) != JSON_ARRAY)
		return err_set(e, SS_EDATA, "%s: no 'traceEvents' array: not a Kineto / Chrome trace", name);
	snprintf(t->format, sizeof(t->format), "kineto");
	if (json_string(json_get(root, "traceName")))
		shape_from_name(&t->shape, json_string(json_get(root, "traceName")));
	if (json_get(root, "distributedInfo")) {
		long long w = json_ll(json_get(json_get(root, "distributedInfo"), "world_size"), 0);
		t->shape.world = w > 0 && w <= 1 << 20 ? (int)w : 0;
	}
	dp = json_get(root, "deviceProperties");
	if (dp && json_type_of(dp) == JSON_ARRAY && json_size(dp) > 0 &&
	    json_string(json_get(json_at(dp, 0), "name")))
		snprintf(t->device, sizeof(t->device), "%s", json_string(json_get(json_at(dp, 0), "name")));
	for (x = json_first(evs), idx = 0; x; x = json_next(x), idx++) {
		const char *cat = json_string(json_get(x, "cat")), *ph = json_string(json_get(x, "ph"));
		const struct json *args = json_get(x, "args");
		struct kev k;
		if (!cat || !ph || strcmp(ph, "X") != 0)
			continue;
		memset(&k, 0, sizeof(k));
		k.name = json_string(json_get(x, "name"));
		k.ts = json_number(json_get(x, "ts"));
		k.dur = json_number(json_get(x, "dur"));
		k.tid = json_ll(json_get(x, "tid"), 0);
		if (strcmp(cat, "kernel") == 0 && k.name && !(k.dur >= 0)) {
			/* a kernel that took a negative (or no) time is a broken
			 * trace, not an absent kernel */
			rc = err_set(e, SS_EDATA, "%s: traceEvents[%zu] (kernel '%.80s'): 'dur' must be >= 0 us, got %g",
				     name, idx, k.name, k.dur);
			goto out;
		}
		if (!k.name || !json_get(x, "ts") || !(k.dur >= 0))
			continue;
		if (args && json_get(args, "correlation"))
			k.corr = json_ll(json_get(args, "correlation"), 0);
		if (strcmp(cat, "cpu_op") == 0) {
			k.dims = args ? json_get(args, "Input Dims") : NULL;
			if (k.dims && json_type_of(k.dims) == JSON_ARRAY && json_size(k.dims) > 0) {
				t->has_shapes = true;
				note_dims(&rows_m, &attn_m, k.name, k.dims);
			}
			if (strstr(k.name, "Backward") || strncmp(k.name, "autograd::engine", 16) == 0)
				note_backward(&t->shape, "operator", k.name);
			note_fp8(&t->shape, k.name);
			XGROW(ops, co, no + 1);
			ops[no++] = k;
		} else if (strcmp(cat, "user_annotation") == 0 || strcmp(cat, "python_function") == 0) {
			if (strncmp(k.name, "ProfilerStep", 12) == 0)
				continue;
			if (backward_scope(k.name))
				note_backward(&t->shape, "scope", k.name);
			XGROW(scopes, cs, ns + 1);
			scopes[ns++] = k;
		} else if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) {
			XGROW(rts, cr, nr + 1);
			rts[nr++] = k;
		} else if (strcmp(cat, "kernel") == 0) {
			note_fp8(&t->shape, k.name);
			XGROW(ks, ck, nk + 1);
			ks[nk++] = k;
		}
	}
	t->ncpu_ops = no;
	if (nk == 0) {
		rc = err_set(e, SS_EDATA, "%s: no GPU kernel events (cat \"kernel\") in the trace", name);
		goto out;
	}
	if (no) qsort(ops, no, sizeof(*ops), cmp_kev_ts);
	if (ns) qsort(scopes, ns, sizeof(*scopes), cmp_kev_ts);
	if (nr) qsort(rts, nr, sizeof(*rts), cmp_kev_corr);
	op_of = xmalloc((no ? no : 1) * sizeof(*op_of));
	for (i = 0; i < no; i++)
		op_of[i] = -1;
	qsort(ks, nk, sizeof(*ks), cmp_kev_time); /* kernels in time order */
	for (i = 0; i < nk; i++) {
		struct kev key = {0}, *rt;
		long oi = -1;
		struct tr_op *o;
		t->nkernels++;
		t->kernel_us += ks[i].dur;
		key.corr = ks[i].corr;
		rt = ks[i].corr && nr ? bsearch(&key, rts, nr, sizeof(*rts), cmp_kev_corr) : NULL;
		if (rt)
			oi = innermost(ops, no, rt->tid, rt->ts);
		if (rt && strstr(rt->name, "Graph")) {
			t->graph_kernels++;
			oi = -1;
		}
		if (oi < 0) {
			if (rt && strstr(rt->name, "Graph")) { /* one row per replayed kernel */
				o = push(t);
				snprintf(o->name, sizeof(o->name), "(cuda graph replay)");
				short_name(o->kernel, sizeof(o->kernel), ks[i].name);
				o->graph = true;
				o->scope_id = -1;
				o->cat = categorise("", "", ks[i].name);
				o->nkernels = 1;
				o->kernel_us = ks[i].dur;
				o->ts = ks[i].ts;
			} else if (rt) { /* launched outside any recorded CPU op: its scope */
				long si = innermost(scopes, ns, rt->tid, rt->ts);
				o = push(t);
				snprintf(o->name, sizeof(o->name), "(direct launch)");
				short_name(o->kernel, sizeof(o->kernel), ks[i].name);
				if (si >= 0)
					snprintf(o->scope, sizeof(o->scope), "%s", scopes[si].name);
				o->scope_id = si;
				o->cat = categorise(o->scope, "", ks[i].name);
				o->nkernels = 1;
				o->kernel_us = ks[i].dur;
				o->ts = ks[i].ts;
			} else {
				t->unattributed++;
				t->unattributed_us += ks[i].dur;
			}
			continue;
		}
		if (op_of[oi] < 0) {
			long si = innermost(scopes, ns, ops[oi].tid, ops[oi].ts);
			long long d[8][8];
			int nd[8], ni;
			op_of[oi] = (long)t->n;
			o = push(t);
			snprintf(o->name, sizeof(o->name), "%s", ops[oi].name);
			short_name(o->kernel, sizeof(o->kernel), ks[i].name);
			if (si >= 0)
				snprintf(o->scope, sizeof(o->scope), "%s", scopes[si].name);
			dims_text(ops[oi].dims, o->dims, sizeof(o->dims));
			o->matmul = is_matmul(o->name);
			ni = dims_of(ops[oi].dims, d, nd, 8);
			if (o->matmul && ni > 0)
				o->flops = tr_matmul_flops(o->name, (const long long (*)[8])d, nd, ni);
			o->cat = categorise(o->scope, o->name, o->kernel);
			o->ts = ops[oi].ts;
			o->scope_id = si;
		}
		o = &t->ops[op_of[oi]];
		o->nkernels++;
		o->kernel_us += ks[i].dur;
	}
	/* layers: a new one at each attention op in a new scope instance (or,
	 * without scopes, after a non-attention op); ops before the first
	 * attention are -1 (embedding) */
	{
		int cur = -1;
		long last = -2;
		for (i = 0; i < t->n; i++) {
			struct tr_op *o = &t->ops[i];
			if (o->cat == TRC_ATTN &&
			    (o->scope_id >= 0 ? o->scope_id != last
					      : (i == 0 || t->ops[i - 1].cat != TRC_ATTN))) {
				cur++;
				last = o->scope_id;
			}
			o->layer = cur;
		}
		t->nlayers = cur + 1;
	}
	shape_finish(t, &rows_m, &attn_m);
	if (t->shape.backward && ns > 0) { /* forward attention scope instances */
		bool *seen = xcalloc(ns, sizeof(*seen));
		for (i = 0; i < t->n; i++) {
			const struct tr_op *o = &t->ops[i];
			if (o->cat == TRC_ATTN && o->scope_id >= 0 && !seen[o->scope_id] && !backward_scope(o->scope)) {
				seen[o->scope_id] = true;
				t->shape.fwd_attn_scopes++;
			}
		}
		free(seen);
	}
out:
	free(ops);
	free(scopes);
	free(rts);
	free(ks);
	free(op_of);
	return rc;
}

static int kineto_doc(const struct json *root, const char *name, struct trace *t, struct err *e)
{
	if (json_type_of(root) != JSON_OBJECT)
		return err_set(e, SS_EDATA, "%s: expected a JSON object with traceEvents", name);
	return kineto(root, name, t, e);
}

int trace_read_kineto_mem(const char *buf, size_t len, const char *name, struct trace *t,
			  struct err *e)
{
	struct json *root;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = json_parse(buf, len, name, &root, e)) < 0)
		return rc;
	rc = kineto_doc(root, name, t, e);
	json_free(root);
	if (rc < 0)
		trace_release(t);
	return rc;
}

/* --- Ascend kernel_details.csv --- */

static int ascend_dims(const char *s, long long (*d)[8], int *nd, int max)
{
	int ni = 0;

	while (*s && ni < max) {
		nd[ni] = 0;
		while (*s && *s != ';') {
			char *end;
			long long v = strtoll(s, &end, 10);
			if (end == s) {
				s++;
				continue;
			}
			if (nd[ni] < 8)
				d[ni][nd[ni]++] = v;
			s = end;
		}
		ni++;
		if (*s == ';')
			s++;
	}
	return ni;
}

struct arow {
	char name[96], type[64], shapes[192];
	double start, dur;
};

static int cmp_arow(const void *a, const void *b)
{
	const struct arow *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* an attention kernel that marks a layer: --anchor, or the usual ones */
static bool is_anchor(const char *type, const char *anchor)
{
	if (anchor)
		return strcmp(type, anchor) == 0;
	return strcmp(type, "FusedInferAttentionScore") == 0 || strcmp(type, "SparseFlashAttention") == 0;
}

/* a gap between two anchors over TR_PASS_GAP x the pass's median anchor
 * interval starts a new forward pass (servesim's rule: between passes come
 * sampling, scheduling and the next pass's embedding; 003 itself groups a
 * known number of anchors per pass, which anchors_per_pass does) */
#define TR_PASS_GAP 3.0

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* between two passes (anchor rows a < b): the row after the widest idle
 * gap, where one pass's capture ends and the next one's begins */
static size_t widest_gap(const struct arow *rows, size_t a, size_t b)
{
	size_t i, best = b;
	double end = rows[a].start + rows[a].dur, wide = -1;

	for (i = a + 1; i <= b; i++) {
		if (rows[i].start - end > wide) {
			wide = rows[i].start - end;
			best = i;
		}
		end = fmax(end, rows[i].start + rows[i].dur);
	}
	return best;
}

/* pass k = anchors [ps[k], ps[k+1]); returns the number of passes */
static size_t split_passes(const struct arow *rows, const size_t *anch, size_t na, int per,
			   size_t *ps)
{
	size_t np = 0, i, j;
	double *iv;

	if (per > 0) {
		for (i = 0; i < na; i += (size_t)per)
			ps[np++] = i;
		return np;
	}
	iv = xcalloc(na, sizeof(*iv));
	ps[np++] = 0;
	for (i = 1; i < na; i++) {
		double gap = rows[anch[i]].start - rows[anch[i - 1]].start, med;
		size_t m = i - 1 - ps[np - 1]; /* intervals so far in this pass */
		if (m == 0) {
			/* the pass's first interval: compare with the next one */
			double next = i + 1 < na ? rows[anch[i + 1]].start - rows[anch[i]].start : gap;
			if (next > 0 && gap > TR_PASS_GAP * next && i + 1 < na) {
				ps[np++] = i;
			}
			continue;
		}
		for (j = 0; j < m; j++)
			iv[j] = rows[anch[ps[np - 1] + j + 1]].start - rows[anch[ps[np - 1] + j]].start;
		qsort(iv, m, sizeof(*iv), cmp_dbl);
		med = iv[m / 2];
		if (gap > TR_PASS_GAP * med)
			ps[np++] = i;
	}
	free(iv);
	return np;
}

static int ascend(const char *path, const struct tr_read_opts *ro, struct trace *t, struct err *e)
{
	static const char *const need[] = {"Name", "Type", "Start Time(us)", "Duration(us)", NULL};
	struct csv *c;
	struct arow *rows = NULL;
	size_t n = 0, cap = 0, i, nanch = 0, *anch = NULL, *pstart = NULL, np, k, lo, hi;
	struct tr_mode rows_m = {0};
	int idx[4], ish, rc;

	snprintf(t->format, sizeof(t->format), "ascend");
	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, need, idx, e)) < 0) {
		csv_close(c);
		return rc;
	}
	/* optional, as the other readers take theirs: a slip of its name
	 * ("Input shapes", "InputShapes") is named, not read as absent */
	{
		static const char *const opt[] = {"Input Shapes", NULL};
		static const char *const known[] = {"Name", "Type", "Start Time(us)", "Duration(us)", "Input Shapes",
						    NULL};
		if ((rc = csv_optional(c, opt, known, &ish, e)) < 0) {
			csv_close(c);
			return rc;
		}
	}
	while ((rc = csv_next(c, e)) > 0) {
		struct arow r;
		memset(&r, 0, sizeof(r));
		snprintf(r.name, sizeof(r.name), "%s", csv_field(c, idx[0]));
		snprintf(r.type, sizeof(r.type), "%s", csv_field(c, idx[1]));
		if ((rc = csv_num(c, idx[2], &r.start, e)) < 0 || (rc = csv_num(c, idx[3], &r.dur, e)) < 0)
			break;
		if (!(r.dur >= 0)) {
			rc = err_set(e, SS_EDATA, "%s: Duration(us) must be >= 0, got %g", path, r.dur);
			break;
		}
		if (ish >= 0)
			snprintf(r.shapes, sizeof(r.shapes), "%s", csv_field(c, ish));
		XGROW(rows, cap, n + 1);
		rows[n++] = r;
	}
	csv_close(c);
	if (rc < 0)
		goto out;
	if (n) qsort(rows, n, sizeof(*rows), cmp_arow);
	/* collectives listed on two streams: keep one per (integer start, type) */
	{
		size_t w = 0, j;
		for (i = 0; i < n; i++) {
			bool dup = false;
			if (strncmp(rows[i].type, "hcom_", 5) == 0)
				for (j = w; j > 0 && trunc(rows[j - 1].start) == trunc(rows[i].start); j--)
					if (strcmp(rows[j - 1].type, rows[i].type) == 0)
						dup = true;
			if (dup)
				t->dup_collectives++;
			else
				rows[w++] = rows[i];
		}
		n = w;
	}
	/* the anchors, grouped into forward passes */
	anch = xcalloc(n ? n : 1, sizeof(*anch));
	for (i = 0; i < n; i++)
		if (is_anchor(rows[i].type, ro->anchor))
			anch[nanch++] = i;
	if (nanch < 2) {
		rc = err_set(e, SS_EDATA,
			     "%s: %zu %s kernel%s: two or more are needed to cut whole layers (--anchor TYPE names another)",
			     path, nanch, ro->anchor ? ro->anchor : "FusedInferAttentionScore / SparseFlashAttention",
			     nanch == 1 ? "" : "s");
		goto out;
	}
	pstart = xcalloc(nanch + 1, sizeof(*pstart));
	np = split_passes(rows, anch, nanch, ro->anchors_per_pass, pstart);
	pstart[np] = nanch;
	t->passes = xcalloc(np, sizeof(*t->passes));
	t->npasses = np;
	t->by_count = ro->anchors_per_pass > 0;
	for (k = 0; k < np; k++) {
		const struct arow *f = &rows[anch[pstart[k]]], *l = &rows[anch[pstart[k + 1] - 1]];
		t->passes[k].start = f->start;
		t->passes[k].end = l->start + l->dur;
		t->passes[k].anchors = (int)(pstart[k + 1] - pstart[k]);
	}
	if (ro->fwd < 0 || (size_t)ro->fwd > np) {
		rc = err_set(e, SS_EUSAGE, "%s: --fwd %d: the file has %zu forward pass%s (1..%zu)", path,
			     ro->fwd, np, np == 1 ? "" : "es", np);
		goto out;
	}
	k = ro->fwd > 0 ? (size_t)ro->fwd - 1 : 0;
	t->fwd = (int)k + 1;
	t->full_window = ro->full_window;
	/* 003: [first anchor start, last anchor end]; full: between the
	 * neighbouring passes' anchors (the whole capture for one pass) */
	if (ro->full_window) {
		lo = k == 0 ? 0 : widest_gap(rows, anch[pstart[k] - 1], anch[pstart[k]]);
		hi = k + 1 == np ? n : widest_gap(rows, anch[pstart[k + 1] - 1], anch[pstart[k + 1]]);
		t->win_start = lo < hi ? rows[lo].start : t->passes[k].start;
		t->win_end = t->win_start;
		for (i = lo; i < hi; i++)
			t->win_end = fmax(t->win_end, rows[i].start + rows[i].dur);
	} else {
		lo = anch[pstart[k]];
		t->win_start = t->passes[k].start;
		t->win_end = t->passes[k].end;
		for (hi = anch[pstart[k + 1] - 1] + 1; hi < n && rows[hi].start < t->win_end; hi++)
			;
	}
	{
		int layer = -1;
		for (i = lo; i < hi; i++) {
			struct tr_op *o = push(t);
			long long d[8][8];
			int nd[8], ni;
			bool a = is_anchor(rows[i].type, ro->anchor);
			if (a)
				layer++;
			snprintf(o->name, sizeof(o->name), "%s", rows[i].type);
			snprintf(o->kernel, sizeof(o->kernel), "%s", rows[i].name);
			snprintf(o->dims, sizeof(o->dims), "%s", rows[i].shapes);
			o->matmul = is_matmul(rows[i].type);
			ni = ascend_dims(rows[i].shapes, d, nd, 8);
			if (o->matmul && ni >= 2)
				o->flops = tr_matmul_flops(rows[i].type, (const long long (*)[8])d, nd, ni);
			if (matmul_rows(rows[i].type, (const long long (*)[8])d, nd, ni) > 0)
				mode_add(&rows_m, matmul_rows(rows[i].type, (const long long (*)[8])d, nd, ni), 0, 0);
			o->cat = a ? TRC_ATTN : categorise(rows[i].name, rows[i].type, "");
			o->layer = layer;
			o->nkernels = 1;
			o->kernel_us = rows[i].dur;
			o->ts = rows[i].start;
			t->nkernels++;
			t->kernel_us += rows[i].dur;
			if (rows[i].shapes[0])
				t->has_shapes = true;
		}
		t->nlayers = layer + 1;
		shape_finish(t, &rows_m, NULL);
	}
	rc = 0;
out:
	free(anch);
	free(pstart);
	free(rows);
	return rc;
}

int trace_read(const char *path, const struct tr_read_opts *ro, struct trace *t, struct err *e)
{
	static const struct tr_read_opts none;
	size_t n = strlen(path);
	struct json *root;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((n >= 4 && strcmp(path + n - 4, ".csv") == 0) || (n >= 7 && strcmp(path + n - 7, ".csv.gz") == 0))
		rc = ascend(path, ro ? ro : &none, t, e);
	else if ((rc = json_parse_file(path, &root, e)) == 0) {
		rc = kineto_doc(root, path, t, e);
		json_free(root);
	}
	if (rc < 0)
		trace_release(t);
	return rc;
}

void trace_release(struct trace *t)
{
	free(t->passes);
	t->passes = NULL;
	t->npasses = 0;
	free(t->ops);
	t->ops = NULL;
	t->n = t->cap = 0;
}

/* --- --profiler-root --- */

#define TR_FIND_DEPTH 8 /* rank dirs / ASCEND_PROFILER_OUTPUT nest 2-4 deep */

static int cmp_path(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void find_kd(const char *dir, int depth, char (*paths)[512], size_t max, size_t *n)
{
	DIR *d;
	struct dirent *de;

	if (depth > TR_FIND_DEPTH || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		char p[512];
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p))
			continue;
		if (stat(p, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			find_kd(p, depth + 1, paths, max, n);
		else if (S_ISREG(st.st_mode) && strcmp(de->d_name, "kernel_details.csv") == 0) {
			if (*n < max)
				snprintf(paths[*n], 512, "%s", p);
			(*n)++;
		}
	}
	closedir(d);
}

int trace_find_kernel_details(const char *root, char (*paths)[512], size_t max, size_t *n,
			      struct err *e)
{
	struct stat st;

	*n = 0;
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode))
		return err_set(e, SS_EUSAGE, "--profiler-root %s: not a directory", root);
	find_kd(root, 0, paths, max, n);
	if (*n == 0)
		return err_set(e, SS_EDATA, "--profiler-root %s: no kernel_details.csv under it "
			       "(the Ascend profiler writes ASCEND_PROFILER_OUTPUT/kernel_details.csv)", root);
	qsort(paths, *n < max ? *n : max, sizeof(*paths), cmp_path);
	return 0;
}

/* --- what --compare compares at --- */

static void compare_shape(const struct tr_shape *sh, struct tr_compare *c, long long *local)
{
	const size_t n = sizeof(c->shape_src);

	*local = 1;
	c->shape.all_logits = false;
	if (sh->attn_batch > 0) {
		*local = sh->attn_batch;
		c->shape.seq_len = sh->attn_seq;
		c->shape.context_len = sh->attn_keys - sh->attn_seq;
		snprintf(c->shape_src, n,
			 "the attention operators' recorded dims: queries [%lld, heads, %lld, dim], keys [.., %lld, ..]",
			 sh->attn_batch, sh->attn_seq, sh->attn_keys);
	} else if (sh->name_seq > 0) {
		c->shape.seq_len = sh->name_seq;
		c->shape.context_len = 0;
		if (sh->name_batch > 0)
			*local = sh->name_batch;
		else if (sh->rows >= sh->name_seq && sh->rows % sh->name_seq == 0)
			*local = sh->rows / sh->name_seq;
		snprintf(c->shape_src, n, "the trace's name: %lld tokens a sequence%s", sh->name_seq,
			 sh->name_batch > 0 ? ", and its batch" : sh->rows > 0 ? "; sequences per GPU from the matmul rows"
									: "; one sequence per GPU (not recorded)");
	} else if (sh->rows > 0) {
		c->shape.seq_len = sh->rows;
		c->shape.context_len = 0;
		snprintf(c->shape_src, n, "the matmul operators' recorded rows: %lld tokens per GPU, taken as one sequence",
			 sh->rows);
	} else {
		c->shape.seq_len = 1;
		c->shape.context_len = 0;
		snprintf(c->shape_src, n, "not recorded: batch-1 decode (give --batch-size, --seq-len, --context-len)");
	}
}

static void compare_layout(const struct tr_shape *sh, struct tr_compare *c)
{
	const size_t n = sizeof(c->par_src);
	bool named = sh->name_tp > 0 || sh->name_ep > 0 || sh->name_dp > 0;
	int tp = sh->name_tp > 0 ? sh->name_tp : 1, pp = sh->name_pp > 0 ? sh->name_pp : 1;

	c->par = (struct parallel){tp, pp, 1, sh->name_ep > 0 ? sh->name_ep : 1, 0, 0};
	if (!named) {
		snprintf(c->par_src, n, "not recorded%s: TP 1 (give --tp, --dp, --ep)",
			 sh->world > 1 ? " (a world of several GPUs, not how they split)" : "");
		return;
	}
	if (sh->name_dp > 0)
		c->par.dp = sh->name_dp;
	else if (sh->world > 0 && sh->world % (tp * pp) == 0)
		c->par.dp = sh->world / (tp * pp);
	snprintf(c->par_src, n, "the trace's name (TP %d, PP %d%s%.0d)%s", tp, pp, sh->name_ep > 0 ? ", EP " : "",
		 sh->name_ep, sh->name_dp > 0 ? ", its DP" : "");
	if (sh->name_dp <= 0 && c->par.dp > 1)
		snprintf(c->par_src + strlen(c->par_src), n - strlen(c->par_src),
			 "; DP %d = its world size %d / (TP x PP)", c->par.dp, sh->world);
}

void trace_compare_settings(const struct trace *t, bool shape_given, bool par_given, bool dt_given,
			    bool phase_given, struct tr_compare *c)
{
	const struct tr_shape *sh = &t->shape;
	long long local = 0;

	if (!par_given)
		compare_layout(sh, c);
	else
		snprintf(c->par_src, sizeof(c->par_src), "as given");
	if (!shape_given) {
		compare_shape(sh, c, &local);
		c->shape.batch = local * (c->par.dp > 1 ? c->par.dp : 1);
	} else {
		snprintf(c->shape_src, sizeof(c->shape_src), "as given");
	}
	if (!dt_given) {
		c->dt = sh->fp8 ? DT_FP8 : DT_BF16;
		if (sh->fp8)
			snprintf(c->dt_src, sizeof(c->dt_src), "fp8 kernels in the trace (%s)", sh->fp8_why);
		else
			snprintf(c->dt_src, sizeof(c->dt_src), "no fp8 kernels in the trace: bf16");
	} else {
		snprintf(c->dt_src, sizeof(c->dt_src), "as given");
	}
	if (!phase_given) {
		c->train = sh->backward;
		if (sh->backward)
			snprintf(c->phase_src, sizeof(c->phase_src), "a training step: backward %s", sh->backward_why);
		else
			snprintf(c->phase_src, sizeof(c->phase_src), "a forward pass: no backward operators or scopes");
	} else {
		snprintf(c->phase_src, sizeof(c->phase_src), "as given");
	}
	c->layers = t->nlayers > 0 ? t->nlayers : 1;
	if (c->train) /* forward layers: the attention scopes of the forward pass */
		c->layers = sh->fwd_attn_scopes > 0 ? sh->fwd_attn_scopes : (t->nlayers + 1) / 2;
}

bool trace_full_window_default(const char *compare_model, const struct pass_shape *shape)
{
	return compare_model && !strncmp(compare_model, "glm-5", 5) && shape->seq_len > 1 && shape->context_len == 0;
}

int trace_gpu(const struct trace *t, const char *gpu, bool gpu_given, struct catalog *cat,
	      const struct gpu_spec **g, struct err *e)
{
	*g = NULL;
	if (gpu_given)
		return catalog_find_gpu(cat, gpu, g, e);
	if (t->device[0] && catalog_load_gpus(cat, e) == 0)
		*g = gpu_from_device_name(&cat->gpus, t->device);
	if (*g)
		return 0;
	return catalog_find_gpu(cat, strcmp(t->format, "ascend") == 0 ? "ascend-a3" : gpu, g, e);
}

int trace_template(const struct model_cfg *m, const struct tr_compare *c, struct opgraph *og,
		   const struct layer_kind **lk, struct err *e)
{
	const char *want = m->n_moe_layers > 0 ? "moe" : "dense";
	size_t i;
	int rc;

	memset(og, 0, sizeof(*og));
	*lk = NULL;
	if ((rc = opgraph_build(m, &c->par, &c->shape, c->dt, c->dt, og, e)) < 0)
		return rc;
	for (i = 0; i < og->nkinds; i++)
		if (strcmp(og->kinds[i].name, want) == 0)
			*lk = &og->kinds[i];
	if (!*lk) {
		char kinds[200] = "";
		size_t o = 0;
		for (i = 0; i < og->nkinds && o < sizeof(kinds); i++)
			if (strcmp(og->kinds[i].name, "embed+head") != 0)
				o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, "%s%s", o ? ", " : "",
						      og->kinds[i].name);
		opgraph_release(og);
		return err_set(e, SS_EUSAGE,
			       "--compare %s: the template is one '%s' layer repeated, and %s has none (its layer kinds: "
			       "%s)", m->id, want, m->id, kinds);
	}
	return 0;
}

int trace_compare_check(const struct model_cfg *m, const struct tr_compare *c, struct err *e)
{
	struct opgraph og;
	const struct layer_kind *lk;
	int rc = trace_template(m, c, &og, &lk, e);

	if (rc == 0)
		opgraph_release(&og);
	return rc;
}
