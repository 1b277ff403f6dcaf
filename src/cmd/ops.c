/* ops.c - `servesim ops MODEL`: static compute analysis of one forward pass:
 * operator table per layer kind, FLOPs and bytes, attention vs FFN share,
 * and MFU from a measured latency. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "base/alloc.h"
#include "analysis/kflow.h"
#include "analysis/opsview.h"
#include "model/opgraph.h"
#include "workload/workload.h"
#include "report/opsreport.h"

struct ops_opts {
	struct ops_req q;   /* model, GPU, shape, layout, dtype, --image */
	double measured_ms;
	enum out_format fmt;
	/* kernel-level MFU: one of --kernel-flow / --kernel-detail / --kernel-ms */
	enum { KM_NONE, KM_FLOW, KM_DETAIL, KM_MS } kmode;
	const char *karg, *layer_kind;
	char list;  /* --list-models ('m') / --list-gpus ('g'): 000's flags */
};

enum { O_KFLOW = 1, O_KDETAIL, O_KMS, O_LMODELS, O_LGPUS, O_IMAGE };
#define O(m) offsetof(struct ops_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim ops MODEL [options]\n"
	       "       servesim ops --config PATH [options]\n"
	       "\n"
	       "Operator sequence of each distinct layer kind for one forward pass, per GPU\n"
	       "after the TP/DP/EP split: shapes, FLOPs, bytes, the attention vs FFN/MoE\n"
	       "FLOPs share, and total FLOPs (model-wide and per GPU).\n"
	       "\n"
	       "options:\n"),
	{AT_S("--config", "PATH", O(q.config), "load an HF config.json instead of a registry model")},
	AT_TXT("  --batch-size B       requests in the batch (default 1; roofline's --batch)\n"
	       "  --seq-len S          new tokens per request (default 1 = decode; --seq)\n"
	       "  --context-len C      tokens already cached per request (default 0; --kv-len)\n"
	       "  --tp N               tensor parallel degree (default 8)\n"
	       "  --dp N               data (attention) parallel degree (default 1)\n"
	       "  --ep N               expert parallel degree (default 1 as in vLLM and SGLang:\n"
	       "                       experts TP-sharded over tp x dp; --enable-expert-parallel\n"
	       "                       gives tp x dp; the engines' flag names are accepted too)\n"),
	{PAR_FLAGS_INCLUDE(struct ops_opts, q.par, q.pf)},
	{AT_TQ(&par_flags_shape_tab, O(q.shape))},
	{AT_S("--gpu", "G", O(q.gpu), "GPU for peak FLOPs (default h100)")},
	{AT_F("--dtype", "bf16|fp8", O(q.dtype), dtype_arg, "weight / GEMM dtype (default bf16); KV cache the same")},
	{AT_B("--all-logits", O(q.shape.all_logits), "LM head on every token, not only each sequence's last")},
	{AT_O("--image", "WxH", O_IMAGE, "each request of the batch sends one image of W x H pixels:\n"
	      "the vision encoder's operators (vit_embed, vit_block,\n"
	      "vit_merger) follow the language model's, encoding the\n"
	      "batch's images in one call; --seq-len counts the prompt's\n"
	      "tokens, its image tokens included")},
	{AT_N("--measured-ms", "X", O(measured_ms), 0, true, "measured forward time: adds theoretical minimum time,\n"
	      "MFU overall and per layer, and each op's FLOPs share")},
	AT_TXT("  --kernel-flow JSON|@FILE\n"
	       "                       kernel-level MFU of one measured layer: every kernel row\n"
	       "                       with its operator, FLOPs, theoretical time and MFU (the\n"
	       "                       per-layer template is left out); input {metadata:\n"
	       "                       {layer_id, num_layers, total_dur_us, ...},\n"
	       "                       category_summary, kernels: [{name, category, dur_us,\n"
	       "                       half, ts, input_dims, output_dims}]}\n"),
	{AT_O("--kernel-flow", "JSON|@FILE", O_KFLOW, NULL)},
	{AT_O("--kernel-detail", "JSON|@FILE", O_KDETAIL, " the same input, aggregated per operator")},
	{AT_O("--kernel-ms", "JSON|@FILE", O_KMS, "     {\"category\": ms, ...} per forward pass: each\n"
	      "category's time / layers spread over one layer's\n"
	      "operators by FLOPs share")},
	{AT_S("--layer-kind", "dense|moe", O(layer_kind), " layer kind for --kernel-ms (default moe for MoE\n"
	      "models); --kernel-flow/--kernel-detail use layer_id\n"
	      "Mapping: each kernel gets its own operator, by its shape\n"
	      "(fused GEMMs: q_a+kv_a), else in template order; only\n"
	      "the rest is spread by FLOPs share.  Direct categories:\n"
	      "mla, moe, rmsnorm, rope, activation, moe_gate, topk,\n"
	      "paged_mqa, quant, hadamard, mhc; gemm_fp8/gemm_bf16 take\n"
	      "the remaining GEMM operators; allreduce, moe_align,\n"
	      "moe_sort, mla_metadata, indexer, other and unknown\n"
	      "categories stay as overhead (FLOPs/MFU N/A).  moe and\n"
	      "gemm_fp8 kernels use the fp8 peak (marked 8), all others\n"
	      "the bf16 peak.  Inconsistent input is warned about.")},
	AT_TXT("  --list-models, --list-gpus  the registry's models / GPUs (as 'servesim models'\n"
	       "                       / 'servesim gpus'; also 'servesim --list-models')\n"),
	{AT_O0("--list-models", O_LMODELS, NULL)},
	{AT_O0("--list-gpus", O_LGPUS, NULL)},
	{AT_W("--format", "text|json", O(fmt), "output format (default text)")},
	AT_TXT("  -h, --help           this help\n"
	       "\n"
	       "exit codes: 0 ok, 2 usage error (bad flag, unknown model), 3 bad input data\n"),
};
static const struct argtab table = ARGTAB(flag_rows, 23);

static int own(void *base, int c, const char *arg, const char *spelled, struct err *e)
{
	struct ops_opts *o = base;
	int rc;

	(void)spelled;
	switch (c) {
	case O_IMAGE:
		rc = wl_image_size_parse("--image", arg, &o->q.img_w, &o->q.img_h, e);
		return rc < 0 ? rc : 1;
	case O_KFLOW: case O_KDETAIL: case O_KMS:
		if (o->kmode != KM_NONE)
			return err_set(e, SS_EUSAGE, "give one of --kernel-flow, --kernel-detail, --kernel-ms");
		o->kmode = c == O_KFLOW ? KM_FLOW : c == O_KDETAIL ? KM_DETAIL : KM_MS;
		o->karg = arg;
		return 1;
	case O_LMODELS: o->list = 'm'; return 1;
	case O_LGPUS: o->list = 'g'; return 1;
	default: return 0;
	}
}

static int parse_ops(int argc, char **argv, struct ops_opts *o, struct err *e)
{
	const struct cli_spec spec = {"ops", &table, o, 0, false, own};
	int rc;

	memset(o, 0, sizeof(*o));
	o->q.gpu = "h100";
	o->q.shape.batch = 1;
	o->q.shape.seq_len = 1;
	o->q.par = (struct parallel){8, 1, 1, 8, 0, 0};
	o->q.dtype = DT_BF16;
	o->measured_ms = -1;
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (o->list)
		return 0;
	if (optind < argc)
		o->q.model = argv[optind++];
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if (o->q.model && o->q.config)
		return err_set(e, SS_EUSAGE, "give MODEL or --config PATH, not both");
	if (!o->q.model && !o->q.config)
		return err_set(e, SS_EUSAGE, "a model is required (see 'servesim ops --help')");
	if (o->kmode != KM_NONE && o->measured_ms > 0)
		return err_set(e, SS_EUSAGE, "--measured-ms and the kernel modes exclude each other");
	if (o->layer_kind && o->kmode != KM_MS)
		return err_set(e, SS_EUSAGE, "--layer-kind goes with --kernel-ms");
	return 0;
}

int cmd_ops(int argc, char **argv, struct err *e)
{
	struct ops_opts o;
	struct ops_view v;
	struct out_ops rep;
	int rc = parse_ops(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	if (o.list)
		return o.list == 'm' ? list_models(o.fmt == FMT_JSON, e) : list_gpus(o.fmt == FMT_JSON, e);
	if ((rc = ops_view_build(&o.q, &v, e)) < 0)
		goto out;
	out_ops_of(&v, &o.q, o.measured_ms, o.kmode != KM_NONE, &rep);
	if (o.kmode != KM_NONE) {
		struct kernel_flow kf;
		struct kf_result r;
		struct out_ops_kernels k;
		const struct layer_kind *lk;
		/* parse and map the kernel input (nothing printed yet: bad input leaves no partial output) */
		if ((rc = kflow_load_layer(o.karg, o.kmode == KM_MS, o.layer_kind, v.m, v.g, o.q.dtype, &v.gg, &kf, &r,
					   &lk, e)) < 0)
			goto out;
		out_ops_kernels_of(&kf, lk, &r, v.g, o.q.dtype, o.kmode == KM_FLOW, &k);
		out_ops_warnings(stderr, kf.warn);
		out_ops_warnings(stderr, r.warn);
		if (o.fmt == FMT_JSON) {
			out_ops_kernel_json(stdout, &rep, &k);
		} else {
			out_ops_text(stdout, &rep);
			out_ops_kernel_text(stdout, &k, v.m->layers);
		}
		kflow_result_release(&r);
		kflow_release(&kf);
		rc = 0;
		goto out;
	}
	if (o.fmt == FMT_JSON)
		out_ops_json(stdout, &rep);
	else
		out_ops_text(stdout, &rep);
	rc = 0;
out:
	ops_view_release(&v);
	return rc;
}
