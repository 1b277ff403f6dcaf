/* trace.c - `servesim trace FILE`: the operator flow of a profiler trace
 * (Kineto / torch-profiler JSON, Ascend kernel_details.csv) with shapes,
 * matmul FLOPs, scopes, categories and layers; --compare lines it up with
 * servesim's operator template for the same shape. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "servesim/alloc.h"
#include "servesim/json.h"
#include "servesim/opgraph.h"
#include "servesim/trace.h"

static const char trace_usage[] =
	"usage: servesim trace FILE|--profiler-root DIR [--format text|json|summary]\n"
	"                      [--anchor TYPE] [--fwd N] [--anchors-per-pass N]\n"
	"                      [--window anchors|full]\n"
	"                      [--compare MODEL --batch-size B --seq-len S [--context-len C]\n"
	"                       [--tp N] [--dp N] [--ep N] [--dtype bf16|fp8] [--gpu G]]\n"
	"\n"
	"Reads a torch-profiler / Kineto Chrome trace (.json or .json.gz) or an Ascend\n"
	"kernel_details.csv and prints the operator sequence: each CPU operator that\n"
	"launched GPU kernels (linked by correlation id), its scope (user annotation,\n"
	"Python function or module), category (embed, norm, attention, router,\n"
	"moe/ffn, comm, other by scope keywords), layer, recorded input dims, kernel\n"
	"count and time, and 2*m*n*k FLOPs for mm, bmm, matmul, linear, addmm and\n"
	"baddbmm (Kineto needs record_shapes=True for shapes).  Kernels replayed from a\n"
	"CUDA graph have no launching operator and are marked.  Ascend: collective\n"
	"kernels listed on two streams are counted once; the attention anchors\n"
	"(FusedInferAttentionScore or SparseFlashAttention, or --anchor TYPE) are\n"
	"grouped into forward passes and one pass is cut out as design document 003\n"
	"does: [first anchor start, last anchor end], layers from anchor to anchor\n"
	"(the embedding, layer 0 before its attention and the last layer's FFN, LM\n"
	"head and sampling are outside that window).\n"
	"\n"
	"  --format text|json|summary  sequence and summary / JSON / summary only\n"
	"  --profiler-root DIR  find kernel_details.csv under an Ascend profiler output\n"
	"                       tree (the first by path when several ranks are there)\n"
	"  --fwd N              the forward pass to cut (\"fwd #N\", 1-based; default 1)\n"
	"  --anchors-per-pass N group N consecutive anchors per pass (the layer count,\n"
	"                       003: 64 for Qwen3-32B, 61 for DeepSeek-V3, 80 for GLM-5.1\n"
	"                       decode); default: a new pass where the gap between two\n"
	"                       anchors is over 3x the pass's median anchor interval\n"
	"  --window anchors|full  anchors (default): 003's anchor window; full: from the\n"
	"                       previous pass's last anchor to the next pass's first (the\n"
	"                       whole capture for one pass); full is the default with\n"
	"                       --compare glm-5.x and a prefill shape (003: GLM-5.1\n"
	"                       prefill is not truncated to its anchors)\n"
	"  --gpu G              peak for the summary's MFU (default h100; ascend-a3 for\n"
	"                       Ascend files)\n"
	"  --compare MODEL      line the flow up with servesim's template for the shape\n"
	"                       (per GPU after the TP/DP/EP split): operator counts and\n"
	"                       FLOPs per category, categories missing on either side,\n"
	"                       and with kernel times each category's time share and MFU\n"
	"\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n";

struct tr_opts {
	const char *file, *anchor, *compare, *gpu, *root;
	char found[512];
	size_t nfound;
	int fwd, per_pass, window; /* window: -1 default, 0 anchors, 1 full */
	bool gpu_given;
	int fmt; /* 0 text, 1 json, 2 summary */
	struct pass_shape shape;
	struct parallel par;
	struct cli_par_flags pf;
	enum dtype dtype;
};

static int parse(int argc, char **argv, struct tr_opts *o, struct err *e)
{
	enum { O_FMT = 256, O_ANCHOR, O_CMP, O_DTYPE, O_GPU, O_ROOT, O_FWD, O_PER, O_WIN };
	static const struct option lo[] = {
		{"profiler-root", required_argument, 0, O_ROOT}, {"fwd", required_argument, 0, O_FWD},
		{"anchors-per-pass", required_argument, 0, O_PER},
		{"window", required_argument, 0, O_WIN},
		{"format", required_argument, 0, O_FMT}, {"anchor", required_argument, 0, O_ANCHOR},
		{"compare", required_argument, 0, O_CMP}, CLI_SHAPE_OPTIONS,
		{"dtype", required_argument, 0, O_DTYPE},
		{"gpu", required_argument, 0, O_GPU}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int c, rc = 0;

	memset(o, 0, sizeof(*o));
	o->shape = (struct pass_shape){1, 1, 0, false};
	o->par = (struct parallel){1, 1, 1, 1};
	o->dtype = DT_BF16;
	o->gpu = "h100";
	o->window = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h': fputs(trace_usage, stdout); return 1;
		case O_FMT:
			if (strcmp(optarg, "text") == 0)
				o->fmt = 0;
			else if (strcmp(optarg, "json") == 0)
				o->fmt = 1;
			else if (strcmp(optarg, "summary") == 0)
				o->fmt = 2;
			else
				return err_set(e, SS_EUSAGE, "--format must be text, json or summary, got '%s'", optarg);
			break;
		case O_ANCHOR: o->anchor = optarg; break;
		case O_CMP: o->compare = optarg; break;
		case O_DTYPE: rc = dtype_parse(optarg, &o->dtype, e); break;
		case O_GPU: o->gpu = optarg; o->gpu_given = true; break;
		case O_ROOT: o->root = optarg; break;
		case O_FWD: {
			int64_t v;
			if ((rc = cli_int("--fwd", optarg, 1, 1 << 24, &v, e)) == 0)
				o->fwd = (int)v;
			break;
		}
		case O_PER: {
			int64_t v;
			if ((rc = cli_int("--anchors-per-pass", optarg, 1, 1 << 16, &v, e)) == 0)
				o->per_pass = (int)v;
			break;
		}
		case O_WIN:
			if (!strcmp(optarg, "anchors") || !strcmp(optarg, "full"))
				o->window = !strcmp(optarg, "full");
			else
				return err_set(e, SS_EUSAGE, "--window must be anchors or full, got '%s'", optarg);
			break;
		default:
			if ((rc = cli_shape_option(c, optarg, &o->shape, &o->par, &o->pf, e)) == 0)
				return cli_bad_option("trace", argv[optind - 1], e);
		}
		if (rc < 0)
			return rc;
	}
	if (o->root ? optind != argc : optind != argc - 1)
		return err_set(e, SS_EUSAGE, "give exactly one trace FILE or --profiler-root DIR (see 'servesim trace --help')");
	o->file = o->root ? NULL : argv[optind];
	return 0;
}

static void flops_text(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else
		fmt_si(b, n, v, "FLOP");
}

struct catsum {
	int ops, kernels;
	double us, flops;
	bool flops_known;
};

static void sum_cats(const struct trace *t, struct catsum *cs)
{
	size_t i;

	memset(cs, 0, sizeof(*cs) * TRC__COUNT);
	for (i = 0; i < t->n; i++) {
		struct catsum *c = &cs[t->ops[i].cat];
		c->ops++;
		c->kernels += t->ops[i].nkernels;
		c->us += t->ops[i].kernel_us;
		if (!isnan(t->ops[i].flops)) {
			c->flops += t->ops[i].flops;
			c->flops_known = true;
		}
	}
}

static void print_header(const struct tr_opts *o, const struct trace *t)
{
	size_t i, matmuls = 0, with_flops = 0;

	for (i = 0; i < t->n; i++) {
		matmuls += t->ops[i].matmul;
		with_flops += t->ops[i].matmul && !isnan(t->ops[i].flops);
	}
	printf("trace      %s: %s%s%s; %zu kernels, %.6g us of kernel time", o->file, t->format,
	       t->device[0] ? ", " : "", t->device, t->nkernels, t->kernel_us);
	if (!strcmp(t->format, "kineto"))
		printf("; %zu CPU ops, %zu launched kernels", t->ncpu_ops, t->n);
	printf("\n");
	if (!t->has_shapes)
		printf("shapes     none recorded: matmul FLOPs need the trace taken with "
		       "torch.profiler.profile(record_shapes=True)\n");
	else
		printf("shapes     recorded; %zu of %zu matmul-family ops have FLOPs\n", with_flops, matmuls);
	if (o->root)
		printf("found      %zu kernel_details.csv under %s%s\n", o->nfound, o->root,
		       o->nfound > 1 ? "; the first by path is read (give FILE for another rank)" : "");
	if (t->npasses) {
		size_t k;
		const struct tr_pass *p = &t->passes[t->fwd - 1];
		printf("passes     %zu forward pass%s (%s):", t->npasses, t->npasses == 1 ? "" : "es",
		       t->by_count ? "--anchors-per-pass anchors each" : "split at anchor gaps over 3x the pass's median interval");
		for (k = 0; k < t->npasses && k < 8; k++)
			printf(" #%zu %d anchors%s", k + 1, t->passes[k].anchors, k + 1 < t->npasses && k < 7 ? "," : "");
		printf("%s\n", t->npasses > 8 ? " ..." : "");
		printf("fwd #%-5d %d anchors, [%.6g, %.6g] us, %.6g us from first anchor start to last anchor end\n",
		       t->fwd, p->anchors, p->start, p->end, p->end - p->start);
		printf("window     %s: [%.6g, %.6g] us, %.6g us%s\n",
		       t->full_window ? "full (not truncated to the anchors)" : "anchors (003: first anchor start to last anchor end)",
		       t->win_start, t->win_end, t->win_end - t->win_start,
		       t->full_window ? "" : "; the embedding, layer 0 before its attention and the last layer's FFN, LM head and sampling are outside it");
	}
	printf("layers     %d (%s)\n", t->nlayers,
	       !strcmp(t->format, "ascend") ? (t->full_window ? "anchor to anchor; \"before\": the pass's start up to layer 0's attention" : "anchor to anchor; the last holds only its attention, as 003's window ends there") : "attention scope instances; a training trace counts forward and backward scopes");
	if (t->graph_kernels)
		printf("cuda graph %zu kernels replayed from CUDA graphs: no launching operator, no shapes\n",
		       t->graph_kernels);
	if (t->unattributed)
		printf("unlinked   %zu kernels (%.6g us) with no launching CPU operator in the trace\n",
		       t->unattributed, t->unattributed_us);
	if (t->dup_collectives)
		printf("dedup      %zu collective kernels listed on a second stream dropped\n", t->dup_collectives);
}

static void print_summary(const struct trace *t)
{
	struct catsum cs[TRC__COUNT];
	char b[32];
	int c, l;

	sum_cats(t, cs);
	printf("\nper category   ops  kernels   kernel us   share        FLOPs\n");
	for (c = 0; c < TRC__COUNT; c++) {
		if (!cs[c].ops)
			continue;
		flops_text(b, sizeof(b), cs[c].flops_known ? cs[c].flops : NAN);
		printf("  %-10s %6d %8d %11.6g %6.1f%% %12s\n", tr_cat_name((enum tr_cat)c), cs[c].ops,
		       cs[c].kernels, cs[c].us, t->kernel_us > 0 ? 100 * cs[c].us / t->kernel_us : 0, b);
	}
	{ /* per operator type, by kernel time */
		struct optype {
			const char *name;
			int n;
			double us, fl;
			bool known;
		} *ty = xcalloc(t->n ? t->n : 1, sizeof(*ty));
		size_t nt = 0, i, j;
		for (i = 0; i < t->n; i++) {
			/* launches without an operator: by kernel */
			const char *key = t->ops[i].name[0] == '(' ? t->ops[i].kernel : t->ops[i].name;
			for (j = 0; j < nt; j++)
				if (strcmp(ty[j].name, key) == 0)
					break;
			if (j == nt)
				ty[nt++].name = key;
			ty[j].n++;
			ty[j].us += t->ops[i].kernel_us;
			if (!isnan(t->ops[i].flops)) {
				ty[j].fl += t->ops[i].flops;
				ty[j].known = true;
			}
		}
		for (i = 1; i < nt; i++) /* by kernel time, descending (insertion: few types) */
			for (j = i; j > 0 && ty[j - 1].us < ty[j].us; j--) {
				struct optype x = ty[j];
				ty[j] = ty[j - 1];
				ty[j - 1] = x;
			}
		printf("\nper operator type (top %zu by kernel time; kernel name for launches without one)\n"
		       "  %-40s %5s %11s %7s %12s\n",
		       nt < 15 ? nt : (size_t)15, "type", "ops", "kernel us", "share", "FLOPs");
		for (i = 0; i < nt && i < 15; i++) {
			flops_text(b, sizeof(b), ty[i].known ? ty[i].fl : NAN);
			printf("  %-40.40s %5d %11.6g %6.1f%% %12s\n", ty[i].name, ty[i].n, ty[i].us,
			       t->kernel_us > 0 ? 100 * ty[i].us / t->kernel_us : 0, b);
		}
		free(ty);
	}
	if (t->nlayers > 0) {
		printf("\nper layer   ops   kernel us        FLOPs\n");
		for (l = -1; l < t->nlayers; l++) {
			double us = 0, fl = 0;
			int n = 0;
			size_t i;
			bool known = false;
			for (i = 0; i < t->n; i++)
				if (t->ops[i].layer == l) {
					n++;
					us += t->ops[i].kernel_us;
					if (!isnan(t->ops[i].flops)) {
						fl += t->ops[i].flops;
						known = true;
					}
				}
			if (!n)
				continue;
			flops_text(b, sizeof(b), known ? fl : NAN);
			if (l < 0)
				printf("  %-7s %5d %11.6g %12s\n", "before", n, us, b);
			else
				printf("  %-7d %5d %11.6g %12s\n", l, n, us, b);
		}
	}
}

static void print_sequence(const struct trace *t)
{
	char b[32];
	size_t i;

	printf("\n  %4s %5s %-9s %-26s %-28s %7s %10s %10s  %s\n", "#", "layer", "category", "operator",
	       "first kernel", "kernels", "kernel us", "FLOPs", "dims | scope");
	for (i = 0; i < t->n; i++) {
		const struct tr_op *o = &t->ops[i];
		flops_text(b, sizeof(b), o->flops);
		printf("  %4zu %5d %-9s %-26.26s %-28.28s %7d %10.4g %10s  %s%s%s%s\n", i, o->layer,
		       tr_cat_name(o->cat), o->name, o->kernel, o->nkernels, o->kernel_us, b,
		       o->dims[0] ? o->dims : "-", o->scope[0] ? " | " : "", o->scope,
		       o->graph ? " [cuda graph replay]" : "");
	}
}

static void print_json(const struct trace *t)
{
	struct catsum cs[TRC__COUNT];
	struct jw w;
	size_t i;
	int c;

	sum_cats(t, cs);
	jw_init(&w, stdout, true);
	jw_obj(&w, NULL);
	jw_str(&w, "format", t->format);
	jw_str(&w, "device", t->device);
	jw_int(&w, "kernels", (int64_t)t->nkernels);
	jw_num(&w, "kernel_us", t->kernel_us);
	jw_bool(&w, "has_shapes", t->has_shapes);
	jw_int(&w, "layers", t->nlayers);
	if (t->npasses) {
		jw_int(&w, "passes", (int64_t)t->npasses);
		jw_int(&w, "fwd", t->fwd);
		jw_str(&w, "window", t->full_window ? "full" : "anchors");
		jw_num(&w, "window_start_us", t->win_start);
		jw_num(&w, "window_end_us", t->win_end);
		jw_arr(&w, "pass_list");
		for (i = 0; i < t->npasses; i++) {
			jw_obj(&w, NULL);
			jw_int(&w, "fwd", (int64_t)i + 1);
			jw_int(&w, "anchors", t->passes[i].anchors);
			jw_num(&w, "start_us", t->passes[i].start);
			jw_num(&w, "end_us", t->passes[i].end);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
	}
	jw_int(&w, "graph_kernels", (int64_t)t->graph_kernels);
	jw_int(&w, "unattributed_kernels", (int64_t)t->unattributed);
	jw_obj(&w, "categories");
	for (c = 0; c < TRC__COUNT; c++) {
		if (!cs[c].ops)
			continue;
		jw_obj(&w, tr_cat_name((enum tr_cat)c));
		jw_int(&w, "ops", cs[c].ops);
		jw_int(&w, "kernels", cs[c].kernels);
		jw_num(&w, "kernel_us", cs[c].us);
		if (cs[c].flops_known)
			jw_num(&w, "flops", cs[c].flops);
		else
			jw_null(&w, "flops");
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_arr(&w, "ops");
	for (i = 0; i < t->n; i++) {
		const struct tr_op *o = &t->ops[i];
		jw_obj(&w, NULL);
		jw_str(&w, "name", o->name);
		jw_str(&w, "kernel", o->kernel);
		jw_str(&w, "scope", o->scope);
		jw_str(&w, "category", tr_cat_name(o->cat));
		jw_int(&w, "layer", o->layer);
		jw_str(&w, "dims", o->dims);
		jw_int(&w, "kernels", o->nkernels);
		jw_num(&w, "kernel_us", o->kernel_us);
		if (isnan(o->flops))
			jw_null(&w, "flops");
		else
			jw_num(&w, "flops", o->flops);
		jw_bool(&w, "cuda_graph", o->graph);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}

/* MFU bands of the one-line summary: servesim's own wording (000 and 003
 * ask for an "MFU status" but give no thresholds) */
#define TR_MFU_LOW 0.10
#define TR_MFU_HIGH 0.40

/* 000/003's one-line summary: dominant category, MFU status, bottleneck */
static int one_line(const struct tr_opts *o, const struct trace *t, struct err *e)
{
	struct cli_env env;
	const struct gpu_spec *g;
	struct catsum cs[TRC__COUNT];
	double fl = 0, span, mfu, top_us = 0;
	const char *top = "-";
	bool known = false;
	int c, best = -1, rc;
	size_t i, j;

	cli_env_init(&env);
	if ((rc = cli_find_gpu(&env, o->gpu, &g, e)) < 0) {
		cli_env_release(&env);
		return rc;
	}
	sum_cats(t, cs);
	for (c = 0; c < TRC__COUNT; c++) {
		if (cs[c].flops_known) {
			fl += cs[c].flops;
			known = true;
		}
		if (best < 0 || cs[c].us > cs[best].us)
			best = c;
	}
	/* the bottleneck: the operator type with the most kernel time */
	for (i = 0; i < t->n; i++) {
		double us = 0;
		for (j = 0; j < t->n; j++)
			if (!strcmp(t->ops[j].name, t->ops[i].name))
				us += t->ops[j].kernel_us;
		if (us > top_us) {
			top_us = us;
			top = t->ops[i].name;
		}
	}
	span = t->npasses ? t->win_end - t->win_start : t->kernel_us;
	mfu = known && span > 0 && g->peak_flops[o->dtype] > 0 ? fl / g->peak_flops[o->dtype] / (span * 1e-6) : NAN;
	printf("\nsummary    ");
	if (t->npasses)
		printf("fwd #%d, %d layers, %.6g us: ", t->fwd, t->nlayers, span);
	printf("dominant %s (%.1f%% of kernel time); ", tr_cat_name((enum tr_cat)best),
	       t->kernel_us > 0 ? 100 * cs[best].us / t->kernel_us : 0);
	if (isnan(mfu))
		printf("MFU unknown (no matmul shapes); ");
	else
		printf("MFU %.2f%% of %s %s %.1f TFLOP/s (%s; matmul FLOPs over the %s); ", 100 * mfu, g->id,
		       dtype_name(o->dtype), g->peak_flops[o->dtype] / 1e12,
		       mfu < TR_MFU_LOW ? "low" : mfu < TR_MFU_HIGH ? "moderate" : "high",
		       t->npasses ? "window" : "kernel time");
	printf("bottleneck %s (%.1f%%)\n", top, t->kernel_us > 0 ? 100 * top_us / t->kernel_us : 0);
	cli_env_release(&env);
	return 0;
}

static enum tr_cat template_cat(const struct op *o)
{
	switch (o->cat) {
	case OPC_ATTENTION: return TRC_ATTN;
	case OPC_NORM: return TRC_NORM;
	case OPC_FFN: return TRC_MOE_FFN;
	case OPC_MOE: return strcmp(o->name, "router") == 0 || strstr(o->name, "topk") ? TRC_ROUTER : TRC_MOE_FFN;
	case OPC_COMM: return TRC_COMM;
	case OPC_EMBED:
	case OPC_LM_HEAD: return TRC_EMBED;
	default: return TRC_OTHER;
	}
}

static int compare(const struct tr_opts *o, const struct trace *t, struct err *e)
{
	struct cli_env env;
	struct model_cfg *m = xcalloc(1, sizeof(*m));
	const struct gpu_spec *g;
	struct opgraph og;
	struct catsum cs[TRC__COUNT];
	double tf[TRC__COUNT] = {0};
	int tn[TRC__COUNT] = {0}, c, layers;
	const struct layer_kind *lk = NULL;
	struct parallel p = o->par;
	size_t i, j;
	int rc;

	cli_env_init(&env);
	memset(&og, 0, sizeof(og));
	if ((rc = cli_load_model(&env, o->compare, NULL, m, e)) < 0 ||
	    (rc = cli_find_gpu(&env, o->gpu, &g, e)) < 0)
		goto out;
	if ((rc = cli_parallel_resolve(&o->pf, m, &p, e)) < 0)
		goto out;
	if ((rc = opgraph_build(m, &p, &o->shape, o->dtype, o->dtype, &og, e)) < 0)
		goto out;
	for (i = 0; i < og.nkinds; i++)
		if (strcmp(og.kinds[i].name, m->n_moe_layers > 0 ? "moe" : "dense") == 0)
			lk = &og.kinds[i];
	if (!lk) {
		rc = err_set(e, SS_EUSAGE, "%s: no layer kind to compare with", m->id);
		goto out;
	}
	layers = t->nlayers > 0 ? t->nlayers : 1;
	for (j = 0; j < lk->nops; j++) {
		enum tr_cat k = template_cat(&lk->ops[j]);
		tn[k] += layers;
		if (lk->ops[j].kind == OPK_GEMM)
			tf[k] += lk->ops[j].flops * layers;
	}
	sum_cats(t, cs);
	printf("\ncompare    %s, %s, batch %lld, %lld new token(s) after %lld cached, TP %d DP %d EP %d (per GPU):\n"
	       "           template = %d x the '%s' layer (the trace's %d layers); FLOPs = GEMM operators only,\n"
	       "           like the trace's matmul family; MFU = template FLOPs / (%s peak x trace kernel time)\n",
	       m->id, dtype_name(o->dtype), (long long)o->shape.batch, (long long)o->shape.seq_len,
	       (long long)o->shape.context_len, p.tp, p.dp, p.ep, layers, lk->name, t->nlayers,
	       dtype_name(o->dtype));
	printf("  %-10s %7s %7s %12s %12s %8s %8s %8s\n", "category", "ops tr", "ops tpl", "FLOPs trace",
	       "FLOPs tpl", "diff", "time", "MFU");
	for (c = 0; c < TRC__COUNT; c++) {
		char a[32], b[32], d[16], mf[16];
		if (!cs[c].ops && !tn[c])
			continue;
		flops_text(a, sizeof(a), cs[c].flops_known ? cs[c].flops : NAN);
		flops_text(b, sizeof(b), tf[c] > 0 ? tf[c] : NAN);
		if (cs[c].flops_known && tf[c] > 0)
			snprintf(d, sizeof(d), "%+.1f%%", 100 * (cs[c].flops - tf[c]) / tf[c]);
		else
			snprintf(d, sizeof(d), "-");
		if (cs[c].us > 0 && tf[c] > 0)
			snprintf(mf, sizeof(mf), "%.1f%%", 100 * tf[c] / g->peak_flops[o->dtype] / (cs[c].us * 1e-6));
		else
			snprintf(mf, sizeof(mf), "-");
		printf("  %-10s %7d %7d %12s %12s %8s %7.1f%% %8s\n", tr_cat_name((enum tr_cat)c), cs[c].ops, tn[c],
		       a, b, d, t->kernel_us > 0 ? 100 * cs[c].us / t->kernel_us : 0, mf);
	}
	for (c = 0; c < TRC__COUNT; c++) {
		if (cs[c].ops && !tn[c])
			printf("  only in the trace: %s (%d ops)\n", tr_cat_name((enum tr_cat)c), cs[c].ops);
		if (!cs[c].ops && tn[c])
			printf("  only in the template: %s (%d ops)\n", tr_cat_name((enum tr_cat)c), tn[c]);
	}
	if (!t->has_shapes)
		printf("  the trace has no shapes, so FLOPs cannot be compared: record with record_shapes=True\n");
	rc = 0;
out:
	opgraph_release(&og);
	free(m);
	cli_env_release(&env);
	return rc;
}

int cmd_trace(int argc, char **argv, struct err *e)
{
	struct tr_opts o;
	struct tr_read_opts ro;
	struct trace t;
	int rc = parse(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	if (o.root) {
		char (*paths)[512] = xcalloc(64, sizeof(*paths));
		if ((rc = trace_find_kernel_details(o.root, paths, 64, &o.nfound, e)) == 0)
			snprintf(o.found, sizeof(o.found), "%s", paths[0]);
		free(paths);
		if (rc < 0)
			return rc;
		o.file = o.found;
	}
	ro.anchor = o.anchor;
	ro.fwd = o.fwd;
	ro.anchors_per_pass = o.per_pass;
	/* 003: GLM-5.1 prefill uses the whole capture, not the anchor window */
	ro.full_window = o.window >= 0 ? o.window == 1
				       : o.compare && !strncmp(o.compare, "glm-5", 5) &&
					 o.shape.seq_len > 1 && o.shape.context_len == 0;
	if ((rc = trace_read(o.file, &ro, &t, e)) < 0)
		return rc;
	if (!o.gpu_given && !strcmp(t.format, "ascend"))
		o.gpu = "ascend-a3";
	if (o.fmt == 1) {
		print_json(&t);
	} else {
		print_header(&o, &t);
		if (o.fmt == 0)
			print_sequence(&t);
		print_summary(&t);
		if ((rc = one_line(&o, &t, e)) == 0 && o.compare)
			rc = compare(&o, &t, e);
	}
	trace_release(&t);
	return rc;
}
