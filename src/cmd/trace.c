/* trace.c - `servesim trace FILE`: the operator flow of a profiler trace
 * (Kineto / torch-profiler JSON, Ascend kernel_details.csv) with shapes,
 * matmul FLOPs, scopes, categories and layers; --compare lines it up with
 * servesim's operator template for the same shape. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "base/alloc.h"
#include "model/opgraph.h"
#include "analysis/trace.h"
#include "report/tracereport.h"

struct tr_opts {
	const char *file, *anchor, *compare, *gpu, *root;
	char found[512];
	size_t nfound;
	int fwd, per_pass, window; /* window: -1 default, 0 anchors, 1 full */
	bool gpu_given;
	int fmt; /* 0 text, 1 json, 2 summary */
	struct tr_compare cmp;   /* shape, par, dt, train: the flags' */
	struct par_flags pf;
	bool shape_given, par_given, dtype_given, phase_given;
};

enum { O_PHASE = 1 };
#define O(m) offsetof(struct tr_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim trace FILE|--profiler-root DIR [--format text|json|summary]\n"
	       "                      [--anchor TYPE] [--fwd N] [--anchors-per-pass N]\n"
	       "                      [--window anchors|full]\n"
	       "                      [--compare MODEL [--batch-size B --seq-len S --context-len C]\n"
	       "                       [--tp N] [--dp N] [--ep N] [--dtype bf16|fp8] [--phase forward|train]\n"
	       "                       [--gpu G]]\n"
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
	       "\n"),
	{AT_W("--format", "text|json|summary", O(fmt), " sequence and summary / JSON / summary only")},
	{AT_S("--profiler-root", "DIR", O(root), "find kernel_details.csv under an Ascend profiler output\n"
	      "tree (the first by path when several ranks are there)")},
	{AT_I32V("--fwd", "N", O(fwd), 1, 1 << 24, "the forward pass to cut (\"fwd #N\", 1-based; default 1)")},
	{AT_I32V("--anchors-per-pass", "N", O(per_pass), 1, 1 << 16, "group N consecutive anchors per pass (the layer count,\n"
	      "003: 64 for Qwen3-32B, 61 for DeepSeek-V3, 80 for GLM-5.1\n"
	      "decode); default: a new pass where the gap between two\n"
	      "anchors is over 3x the pass's median anchor interval")},
	{AT_W("--window", "anchors|full", O(window), " anchors (default): 003's anchor window; full: from the\n"
	      "previous pass's last anchor to the next pass's first (the\n"
	      "whole capture for one pass); full is the default with\n"
	      "--compare glm-5.x and a prefill shape (003: GLM-5.1\n"
	      "prefill is not truncated to its anchors)")},
	{AT_S("--gpu", "G", O(gpu), "peak for the summary's MFU (default: the trace's device\n"
	      "when gpus.json knows it, else h100; ascend-a3 for Ascend\n"
	      "files)"), .given = ARGTAB_GIVEN(struct tr_opts, gpu_given)},
	AT_TXT("  --compare MODEL      line the flow up with servesim's template for the trace's\n"
	       "                       shape (per GPU after the TP/DP/EP split): operator counts\n"
	       "                       and FLOPs per category, categories missing on either side,\n"
	       "                       and with kernel times each category's time share and MFU.\n"
	       "                       The shape is the flags' where given, else the trace's:\n"
	       "                       batch, new tokens and keys from the attention operators'\n"
	       "                       recorded dims, else the trace's name (seqlenN, bsN) and the\n"
	       "                       matmul rows; layout from the name (tpN, epN, dpN) and the\n"
	       "                       world size; fp8 from fp8 kernels; a training step from\n"
	       "                       backward operators or scopes; else batch-1 decode, bf16\n"
	       "  --phase forward|train  a forward pass, or a training step (forward layers and as\n"
	       "                       many backward ones, GEMMs 2x: input and weight gradients);\n"
	       "                       default: what the trace holds\n"
	       "\n"
	       "exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n"),
	{AT_S("--compare", "MODEL", O(compare), NULL)},
	{AT_S("--anchor", "TYPE", O(anchor), NULL)},
	{AT_F("--dtype", "D", O(cmp.dt), dtype_arg, NULL), .given = ARGTAB_GIVEN(struct tr_opts, dtype_given)},
	{AT_O("--phase", "P", O_PHASE, NULL)},
	{PAR_FLAGS_INCLUDE(struct tr_opts, cmp.par, pf), .given = ARGTAB_GIVEN(struct tr_opts, par_given)},
	{AT_TQ(&par_flags_shape_tab, O(cmp.shape)), .given = ARGTAB_GIVEN(struct tr_opts, shape_given)},
};
static const struct argtab table = ARGTAB(flag_rows, 23);

static int own(void *base, int c, const char *arg, const char *spelled, struct err *e)
{
	struct tr_opts *o = base;

	(void)spelled;
	switch (c) {
	case O_PHASE:
		if (strcmp(arg, "forward") && strcmp(arg, "train"))
			return err_set(e, SS_EUSAGE, "--phase must be forward or train, got '%s'", arg);
		o->cmp.train = !strcmp(arg, "train");
		o->phase_given = true;
		return 1;
	default: return 0;
	}
}

static int parse(int argc, char **argv, struct tr_opts *o, struct err *e)
{
	const struct cli_spec spec = {"trace", &table, o, 0, false, own};
	int rc;

	memset(o, 0, sizeof(*o));
	o->cmp.shape = (struct pass_shape){1, 1, 0, false};
	o->cmp.par = (struct parallel){1, 1, 1, 1, 0, 0};
	o->cmp.dt = DT_BF16;
	o->gpu = "h100";
	o->window = -1;
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (o->root ? optind != argc : optind != argc - 1)
		return err_set(e, SS_EUSAGE, "give exactly one trace FILE or --profiler-root DIR (see 'servesim trace --help')");
	o->file = o->root ? NULL : argv[optind];
	if (!o->compare && (o->shape_given || o->par_given || o->phase_given))
		return err_set(e, SS_EUSAGE, "--batch-size, --seq-len, --context-len, --tp, --dp, --ep and --phase set "
			       "the shape of --compare's template: give --compare MODEL with them");
	if (o->compare && o->fmt == 1)
		return err_set(e, SS_EUSAGE, "--compare prints a table beside the trace's summary: use --format text "
			       "or summary with it (--format json writes the trace's operators only)");
	return 0;
}

/* Everything the report needs that can fail (the GPU, --compare's model
 * and layout), resolved before anything is printed: a bad flag leaves no
 * partial output.  *m is NULL without --compare. */
static int resolve(const struct tr_opts *o, const struct trace *t, struct catalog *env, const struct gpu_spec **g,
		   struct model_cfg **m, struct tr_compare *c, struct err *e)
{
	int rc;

	*c = o->cmp;
	*m = NULL;
	if ((rc = trace_gpu(t, o->gpu, o->gpu_given, env, g, e)) < 0)
		return rc;
	trace_compare_settings(t, o->shape_given, o->par_given, o->dtype_given, o->phase_given, c);
	if (!o->compare)
		return 0;
	*m = xcalloc(1, sizeof(**m));
	if ((rc = catalog_load_model(env, o->compare, NULL, *m, e)) < 0 ||
	    (o->par_given && (rc = par_flags_resolve(&o->pf, *m, &c->par, e)) < 0))
		return rc;
	/* again over the resolved layout: the trace's batch per GPU times its DP */
	trace_compare_settings(t, o->shape_given, o->par_given, o->dtype_given, o->phase_given, c);
	return trace_compare_check(*m, c, e);
}

int cmd_trace(int argc, char **argv, struct err *e)
{
	struct tr_opts o;
	struct tr_read_opts ro;
	struct trace t;
	struct catalog env;
	const struct gpu_spec *g = NULL;
	struct model_cfg *m = NULL;
	struct tr_compare c;
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
	ro.full_window = o.window >= 0 ? o.window == 1 : trace_full_window_default(o.compare, &o.cmp.shape);
	if ((rc = trace_read(o.file, &ro, &t, e)) < 0)
		return rc;
	catalog_init(&env);
	if ((rc = resolve(&o, &t, &env, &g, &m, &c, e)) < 0)
		goto out;
	if (o.fmt == 1) {
		out_trace_json(stdout, &t);
	} else {
		out_trace_header(stdout, &t, o.file, o.root, o.nfound);
		if (o.fmt == 0)
			out_trace_sequence(stdout, &t);
		out_trace_summary(stdout, &t);
		out_trace_one_line(stdout, &t, g, c.dt);
		if (m)
			rc = out_trace_compare(stdout, &t, m, g, &c, e);
	}
out:
	free(m);
	catalog_release(&env);
	trace_release(&t);
	return rc;
}
