/* roofline.c - `servesim roofline MODEL`: a markdown report of which
 * resource (compute, HBM weights, HBM KV, network) bounds prefill and decode,
 * with sweeps over batch, KV length and sequence length and the guidance
 * that follows from the dominant term. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "base/argval.h"
#include "analysis/roofline.h"
#include "report/roofreport.h"

struct rl_opts {
	struct out_roof_opts r;  /* what the report needs */
	const char *model, *config, *gpu;
	bool kv_given;
	struct par_flags pf;
};

enum { O_PHASE = 1, O_WA, O_WD, O_WM, O_RA, O_RD, O_RM };
#define O(m) offsetof(struct rl_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim roofline MODEL [options]\n"
	       "       servesim roofline --config PATH [options]\n"
	       "\n"
	       "Markdown report (stdout, or -o FILE) of what bounds one forward pass of MODEL\n"
	       "on a GPU: FLOPs and HBM bytes (weights, activations, KV) of the operator graph\n"
	       "in efficient execution (flash attention, fused operators, each weight read\n"
	       "once per step), collective bytes, and\n"
	       "  T_comp = FLOPs / (dense peak x utilisation), T_hbm = bytes / (HBM BW x bw_eff),\n"
	       "  T_net = collective bytes / link BW, T_est = max of the three,\n"
	       "arithmetic intensity against the ridge point, the regime per phase, sweeps\n"
	       "(decode over batch and KV length with the critical batch, prefill over\n"
	       "sequence length) and guidance from the dominant term.  Peaks, bandwidth,\n"
	       "bw_eff and link bandwidth come from data/gpus.json (see `servesim gpus`).\n"
	       "\n"
	       "options:\n"),
	{AT_S("--config", "PATH", O(config), "an HF config.json instead of a registry model")},
	{AT_S("--gpu", "G", O(gpu), "GPU (default h100)")},
	{AT_F("--dtype", "bf16|fp8", O(r.dtype), dtype_arg, "weight / GEMM dtype (default bf16)")},
	{AT_F("--kv-dtype", "bf16|fp8", O(r.kvdt), dtype_arg, "KV-cache dtype (default: --dtype)"), .given = ARGTAB_GIVEN(struct rl_opts, kv_given)},
	AT_TXT("  --tp N --dp N --ep N parallelism (default 1 each, as in vLLM and SGLang: without\n"
	       "                       EP the experts are TP-sharded over tp x dp;\n"
	       "                       --enable-expert-parallel gives ep = tp x dp; the engines'\n"
	       "                       flag names are accepted too)\n"),
	{PAR_FLAGS_INCLUDE(struct rl_opts, r.par, pf)},
	{AT_I("--batch", "B", O(r.batch), 1, 1 << 20, "requests in the batch, split over DP (default 8; ops's --batch-size)")},
	{AT_A("--batch-size")},
	{AT_I("--seq", "S", O(r.seq), 1, 1 << 22, "prompt tokens per request for prefill (default 1024; --seq-len)")},
	{AT_A("--seq-len")},
	{AT_I("--kv-len", "L", O(r.kv_len), 0, 1 << 24, "cached tokens per request for decode (default 1024; --context-len)")},
	{AT_A("--context-len")},
	{AT_O("--phase", "train|prefill|decode|all", O_PHASE, " phases to report (default all); train =\n"
	      "forward + backward of a prefill-shaped batch (3x FLOPs,\n"
	      "weights read 3x and gradients written, activations 3x)")},
	{AT_W("--mode", "efficient|naive|both", O(r.mode), " execution model (default efficient): efficient =\n"
	      "flash attention, fused elementwise ops, weights read once\n"
	      "per step x residency; naive = fp32 S x S scores in HBM,\n"
	      "every elementwise op round-trips HBM, weights re-read\n"
	      "per --tile rows")},
	{AT_N("--b-sat", "N", O(r.k.b_sat), 0, true, "GEMM rows that fill the tensor cores: eta = min(1, m/N)\n"
	      "(default 128, a Hopper GEMM tile height)")},
	{AT_N("--eta-scalar", "X", O(r.k.eta_scalar), 0, true, "non-tensor FLOP rate / tensor peak for elementwise ops\n"
	      "(default 0.068: H100 FP32 67 / bf16 989 TFLOP/s)")},
	{AT_N("--tile", "N", O(r.k.tile), 0, true, "naive mode: rows per GEMM tile (default 128)")},
	AT_TXT("  --wrf-attn X --wrf-dense X --wrf-moe X\n"
	       "                       efficient mode: weight residency factors (design document\n"
	       "                       001: streamed weight bytes = W / WRF; default 4, 4, 2;\n"
	       "                       never more than the GEMM's rows: one row reads all its\n"
	       "                       weights; naive mode is WRF 1)\n"
	       "  --residency-attn X --residency-dense X --residency-moe X\n"
	       "                       the same as fractions read from HBM each step (1 / WRF;\n"
	       "                       default 0.25, 0.25, 0.5)\n"),
	{AT_O("--wrf-attn", "X", O_WA, NULL)},
	{AT_O("--wrf-dense", "X", O_WD, NULL)},
	{AT_O("--wrf-moe", "X", O_WM, NULL)},
	{AT_O("--residency-attn", "X", O_RA, NULL)},
	{AT_O("--residency-dense", "X", O_RD, NULL)},
	{AT_O("--residency-moe", "X", O_RM, NULL)},
	AT_TXT("  --gpu G[,G2,...]     the report is for the first; the others are compared\n"),
	{AT_S("--plots", "DIR", O(r.plots), "SVG charts (roofline, decode batch sweep), their data and an\n"
	      "optional gnuplot script")},
	{AT_S("-o", "FILE", O(r.out), "write the report to FILE (atomically)")},
	{AT_A("--output")},
	{AT_S("--grid", "FILE.csv", O(r.grid), "also write a full-factorial decode grid (batch 1, 8,\n"
	      "64, 512 x KV length 256, 4096 x KV dtype bf16, fp8)")},
	{AT_I32V("--grid-points", "N", O(r.grid_points), 2, 64, "N batches (1..1024) x N KV lengths (256..65536), each\n"
	      "geometric, x the 2 KV dtypes: 2 N^2 grid points")},
	AT_TXT("  -h, --help           this help\n"
	       "\n"
	       "The report also has a Mermaid diagram of each layer kind and a sensitivity\n"
	       "ranking of knobs (batch, KV length, KV dtype bytes, top-k, hidden size, EP) by\n"
	       "their effect on decode T_est.\n"
	       "\n"
	       "exit codes: 0 ok, 1 runtime error, 2 usage error, 3 bad input data\n"),
};
static const struct argtab table = ARGTAB(flag_rows, 23);

static int own(void *base, int c, const char *arg, const char *spelled, struct err *e)
{
	struct rl_opts *o = base;
	double w;
	int rc;

	(void)spelled;
	switch (c) {
	case O_WA: case O_WD: case O_WM:
		if ((rc = argval_num(c == O_WA ? "--wrf-attn" : c == O_WD ? "--wrf-dense" : "--wrf-moe", arg, 1, false,
				     &w, e)) == 0)
			*(c == O_WA ? &o->r.k.res_attn : c == O_WD ? &o->r.k.res_dense : &o->r.k.res_moe) = 1 / w;
		break;
	case O_RA: case O_RD: case O_RM: {
		/* a fraction of the weights read each step: 1 / WRF with WRF >= 1 */
		const char *flag = c == O_RA ? "--residency-attn" : c == O_RD ? "--residency-dense" : "--residency-moe";
		if ((rc = argval_num(flag, arg, 0, true, &w, e)) == 0 && w > 1)
			return err_set(e, SS_EUSAGE, "%s must be in (0, 1] (the share of the weights read from HBM "
				       "each step, 1 / WRF), got %s", flag, arg);
		if (rc == 0)
			*(c == O_RA ? &o->r.k.res_attn : c == O_RD ? &o->r.k.res_dense : &o->r.k.res_moe) = w;
		break;
	}
	case O_PHASE:
		o->r.prefill = strcmp(arg, "prefill") == 0 || strcmp(arg, "all") == 0;
		o->r.decode = strcmp(arg, "decode") == 0 || strcmp(arg, "all") == 0;
		o->r.train = strcmp(arg, "train") == 0 || strcmp(arg, "all") == 0;
		if (!o->r.prefill && !o->r.decode && !o->r.train)
			return err_set(e, SS_EUSAGE, "--phase must be train, prefill, decode or all, got '%s'", arg);
		return 1;
	default: return 0;
	}
	return rc < 0 ? rc : 1;
}

static int parse(int argc, char **argv, struct rl_opts *o, struct err *e)
{
	const struct cli_spec spec = {"roofline", &table, o, 0, false, own};
	int rc;

	memset(o, 0, sizeof(*o));
	o->gpu = "h100";
	o->r.dtype = o->r.kvdt = DT_BF16;
	o->r.par = (struct parallel){1, 1, 1, 1, 0, 0};
	o->r.batch = 8;
	o->r.seq = 1024;
	o->r.kv_len = 1024;
	o->r.prefill = o->r.decode = o->r.train = true;
	rl_cfg_defaults(&o->r.k);
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (optind < argc)
		o->model = argv[optind++];
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	if (!o->model == !o->config)
		return err_set(e, SS_EUSAGE, "give MODEL or --config PATH (see 'servesim roofline --help')");
	if (!o->kv_given)
		o->r.kvdt = o->r.dtype;
	if (o->r.grid_points && !o->r.grid)
		return err_set(e, SS_EUSAGE, "--grid-points goes with --grid FILE.csv");
	return 0;
}

int cmd_roofline(int argc, char **argv, struct err *e)
{
	struct rl_opts o;
	struct catalog env;
	struct model_cfg *m;
	const struct gpu_spec *gs[8];
	size_t ng = 0;
	int rc = parse(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	catalog_init(&env);
	m = xcalloc(1, sizeof(*m));
	if ((rc = catalog_load_model(&env, o.model, o.config, m, e)) < 0 ||
	    (rc = catalog_find_gpus(&env, "--gpu", o.gpu, gs, sizeof(gs) / sizeof(gs[0]), &ng, e)) < 0)
		goto out;
	if (gs[0]->peak_flops[o.r.dtype] <= 0) {
		rc = err_set(e, SS_EUSAGE, "%s has no %s peak in data/gpus.json", gs[0]->id, dtype_name(o.r.dtype));
		goto out;
	}
	if ((rc = par_flags_resolve(&o.pf, m, &o.r.par, e)) < 0)
		goto out;
	{
		static const char *const plot_files[] = {"roofline.dat", "decode_batch.dat", "plots.gp", NULL};
		const char *in[2] = {o.model, o.config};
		const struct afile_out outs[3] = {
			{"-o", o.r.out, NULL}, {"--grid", o.r.grid, NULL}, {"--plots", o.r.plots, plot_files}};
		const struct out_roof_report x = {&o.r, m, gs, ng};
		const struct afile_job report = {o.r.out, out_roofline_file, &x};
		if ((rc = afile_check_outputs(outs, 3, in, 2, 0, e)) < 0)
			goto out;
		if (!o.r.out)
			rc = afile_print_whole(stdout, &report, e);
		else if ((rc = afile_write_all(&report, 1, e)) == 0)
			fprintf(stderr, "servesim roofline: report written to %s\n", o.r.out);
	}
out:
	free(m);
	catalog_release(&env);
	return rc;
}
