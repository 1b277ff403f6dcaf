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
#include "servesim/alloc.h"
#include "servesim/json.h"
#include "servesim/opgraph.h"

static const char ops_usage[] =
	"usage: servesim ops MODEL [options]\n"
	"       servesim ops --config PATH [options]\n"
	"\n"
	"Operator sequence of each distinct layer kind for one forward pass, per GPU\n"
	"after the TP/DP/EP split: shapes, FLOPs, bytes, the attention vs FFN/MoE\n"
	"FLOPs share, and total FLOPs (model-wide and per GPU).\n"
	"\n"
	"options:\n"
	"  --config PATH        load an HF config.json instead of a registry model\n"
	"  --batch-size B       requests in the batch (default 1)\n"
	"  --seq-len S          new tokens per request (default 1 = decode)\n"
	"  --context-len C      tokens already cached per request (default 0)\n"
	"  --tp N               tensor parallel degree (default 8)\n"
	"  --dp N               data (attention) parallel degree (default 1)\n"
	"  --ep N               expert parallel degree (default tp x dp for MoE models,\n"
	"                       which is 8 with the defaults; 1 for dense models)\n"
	"  --gpu G              GPU for peak FLOPs (default h100)\n"
	"  --dtype bf16|fp8     weight / GEMM dtype (default bf16); KV cache the same\n"
	"  --all-logits         LM head on every token, not only each sequence's last\n"
	"  --measured-ms X      measured forward time: adds theoretical minimum time,\n"
	"                       MFU overall and per layer, and each op's FLOPs share\n"
	"  --format text|json   output format (default text)\n"
	"  -h, --help           this help\n"
	"\n"
	"exit codes: 0 ok, 2 usage error (bad flag, unknown model), 3 bad input data\n";

struct ops_opts {
	const char *model, *config, *gpu;
	struct pass_shape shape;
	struct parallel par;
	bool ep_given;
	enum dtype dtype;
	double measured_ms;
	enum out_format fmt;
};

static int parse_ops(int argc, char **argv, struct ops_opts *o, struct err *e)
{
	enum { O_CONFIG = 256, O_BATCH, O_SEQ, O_CTX, O_TP, O_DP, O_EP, O_GPU, O_DTYPE, O_ALL,
	       O_MEAS, O_FMT };
	static const struct option lo[] = {
		{"config", required_argument, 0, O_CONFIG},
		{"batch-size", required_argument, 0, O_BATCH},
		{"seq-len", required_argument, 0, O_SEQ},
		{"context-len", required_argument, 0, O_CTX},
		{"tp", required_argument, 0, O_TP},
		{"dp", required_argument, 0, O_DP},
		{"ep", required_argument, 0, O_EP},
		{"gpu", required_argument, 0, O_GPU},
		{"dtype", required_argument, 0, O_DTYPE},
		{"all-logits", no_argument, 0, O_ALL},
		{"measured-ms", required_argument, 0, O_MEAS},
		{"format", required_argument, 0, O_FMT},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	int c, rc = 0;
	int64_t v;

	memset(o, 0, sizeof(*o));
	o->gpu = "h100";
	o->shape.batch = 1;
	o->shape.seq_len = 1;
	o->par = (struct parallel){8, 1, 1, 8};
	o->dtype = DT_BF16;
	o->measured_ms = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(ops_usage, stdout);
			return 1;
		case O_CONFIG: o->config = optarg; break;
		case O_BATCH: rc = cli_int("--batch-size", optarg, 1, 1 << 24, &o->shape.batch, e); break;
		case O_SEQ: rc = cli_int("--seq-len", optarg, 1, 1 << 24, &o->shape.seq_len, e); break;
		case O_CTX: rc = cli_int("--context-len", optarg, 0, 1 << 26, &o->shape.context_len, e); break;
		case O_TP: rc = cli_int("--tp", optarg, 1, 4096, &v, e); o->par.tp = (int)v; break;
		case O_DP: rc = cli_int("--dp", optarg, 1, 4096, &v, e); o->par.dp = (int)v; break;
		case O_EP: rc = cli_int("--ep", optarg, 1, 4096, &v, e); o->par.ep = (int)v; o->ep_given = true; break;
		case O_GPU: o->gpu = optarg; break;
		case O_DTYPE: rc = dtype_parse(optarg, &o->dtype, e); break;
		case O_ALL: o->shape.all_logits = true; break;
		case O_MEAS: rc = cli_double("--measured-ms", optarg, 0, true, &o->measured_ms, e); break;
		case O_FMT: rc = cli_format(optarg, false, &o->fmt, e); break;
		default:
			return cli_bad_option("ops", argv[optind - 1], e);
		}
		if (rc < 0)
			return rc;
	}
	if (optind < argc)
		o->model = argv[optind++];
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "ops: unexpected argument '%s'", argv[optind]);
	if (o->model && o->config)
		return err_set(e, SS_EUSAGE, "ops: give MODEL or --config PATH, not both");
	if (!o->model && !o->config)
		return err_set(e, SS_EUSAGE, "ops: a model is required (see 'servesim ops --help')");
	if (o->dtype != DT_BF16 && o->dtype != DT_FP8)
		return err_set(e, SS_EUSAGE, "--dtype must be bf16 or fp8 for ops, got '%s'",
			       dtype_name(o->dtype));
	return 0;
}

static double share(double part, double whole)
{
	return whole > 0 ? part / whole : 0;
}

static void print_text(const struct model_cfg *m, const struct ops_opts *o,
		       const struct gpu_spec *g, const struct opgraph *gm,
		       const struct opgraph *gg, const struct param_counts *pc)
{
	char b1[32], b2[32], b3[32];
	double tot_m = opgraph_total_flops(gm), tot_g = opgraph_total_flops(gg);
	double peak = g->peak_flops[o->dtype];
	int ngpu = o->par.tp * o->par.dp;
	size_t i, j;

	printf("model      %s (%s, %s)\n", m->id, m->model_type, m->source);
	printf("           %lld layers, hidden %lld, vocab %lld", (long long)m->layers,
	       (long long)m->hidden, (long long)m->vocab);
	if (m->attn == ATTN_MLA) {
		printf(", attention MLA: %lld heads, q_lora %lld, kv_lora %lld, qk %lld+%lld, v %lld\n",
		       (long long)m->heads, (long long)m->q_lora_rank, (long long)m->kv_lora_rank,
		       (long long)m->qk_nope_dim, (long long)m->qk_rope_dim, (long long)m->v_head_dim);
		if (m->index_topk > 0)
			printf("           sparse attention (DSA): indexer %lld heads x %lld, top-k %lld\n",
			       (long long)m->index_heads, (long long)m->index_head_dim,
			       (long long)m->index_topk);
	} else {
		printf(", attention %s: %lld heads, %lld KV heads, head dim %lld\n",
		       attn_kind_name(m->attn), (long long)m->heads, (long long)m->kv_heads,
		       (long long)m->head_dim);
	}
	if (m->n_experts > 0)
		printf("           MoE: %lld experts, top-%lld, expert width %lld, shared experts %lld (width %lld), "
		       "%lld MoE layers, %lld dense (first-k dense %lld, dense width %lld)\n",
		       (long long)m->n_experts, (long long)m->top_k, (long long)m->moe_intermediate,
		       (long long)m->n_shared_experts, (long long)m->shared_intermediate,
		       (long long)m->n_moe_layers, (long long)(m->layers - m->n_moe_layers),
		       (long long)m->first_k_dense, (long long)m->intermediate);
	else
		printf("           FFN: dense SwiGLU, intermediate %lld\n", (long long)m->intermediate);
	fmt_count(b1, sizeof(b1), pc->total);
	fmt_count(b2, sizeof(b2), pc->active);
	printf("           params %s total, %s active per token%s\n", b1, b2,
	       m->mtp_layers ? " (MTP modules excluded)" : "");
	printf("serving    %s, %s, TP %d, DP %d, EP %d (%d GPU%s)\n", g->name, dtype_name(o->dtype),
	       o->par.tp, o->par.dp, o->par.ep, ngpu, ngpu > 1 ? "s" : "");
	printf("shape      %s: batch %lld, %lld new token%s per request after %lld cached; "
	       "%lld tokens and %.0f attention pairs per layer on each GPU\n",
	       gg->decode ? "decode" : "prefill", (long long)o->shape.batch,
	       (long long)o->shape.seq_len, o->shape.seq_len > 1 ? "s" : "",
	       (long long)o->shape.context_len, (long long)gg->tokens, gg->attn_pairs);
	for (i = 0; i < gg->nkinds; i++) {
		const struct layer_kind *lk = &gg->kinds[i];
		double lf = layer_kind_flops(lk);
		printf("\nlayer kind '%s' x %lld (per GPU)\n", lk->name, (long long)lk->count);
		printf("  %-22s %-9s %12s %12s%s  %s\n", "op", "category", "FLOPs", "bytes",
		       o->measured_ms > 0 ? "  share" : "", "shape_in -> shape_out");
		for (j = 0; j < lk->nops; j++) {
			const struct op *op = &lk->ops[j];
			fmt_si(b1, sizeof(b1), op->flops, "FLOP");
			fmt_si(b2, sizeof(b2), op->weight_bytes + op->act_bytes + op->kv_read_bytes +
						       op->kv_write_bytes, "B");
			if (o->measured_ms > 0)
				snprintf(b3, sizeof(b3), " %5.1f%%", 100 * share(op->flops, lf));
			else
				b3[0] = '\0';
			printf("  %-22s %-9s %12s %12s%s  %s -> %s\n", op->name, op_cat_name(op->cat),
			       b1, b2, b3, op->shape_in, op->shape_out);
		}
		fmt_si(b1, sizeof(b1), lf, "FLOP");
		if (strcmp(lk->name, "embed+head") != 0)
			printf("  layer total %s: attention %.1f%%, %s %.1f%%, other %.1f%%\n", b1,
			       100 * share(layer_kind_flops_cat(lk, OPC_ATTENTION), lf),
			       strcmp(lk->name, "moe") == 0 ? "moe" : "ffn",
			       100 * share(layer_kind_flops_cat(lk, OPC_FFN) +
						   layer_kind_flops_cat(lk, OPC_MOE), lf),
			       100 * share(lf - layer_kind_flops_cat(lk, OPC_ATTENTION) -
						   layer_kind_flops_cat(lk, OPC_FFN) -
						   layer_kind_flops_cat(lk, OPC_MOE), lf));
		else
			printf("  total %s\n", b1);
	}
	fmt_si(b1, sizeof(b1), tot_m, "FLOP");
	fmt_si(b2, sizeof(b2), tot_g, "FLOP");
	printf("\ntotal FLOPs of one forward pass: %s model-wide (%.6g), %s per GPU (%.6g)\n", b1,
	       tot_m, b2, tot_g);
	if (o->measured_ms > 0) {
		double tmin = tot_g / peak * 1e3;
		printf("\nmeasured   %.6g ms per forward pass\n", o->measured_ms);
		printf("  theoretical minimum %.4g ms (per-GPU FLOPs / %s peak %.1f TFLOP/s)\n", tmin,
		       dtype_name(o->dtype), peak / 1e12);
		printf("  MFU %.2f%%\n", 100 * tmin / o->measured_ms);
		printf("  per layer (uniform-layer assumption: %.4g ms each of %lld layers):\n",
		       o->measured_ms / (double)m->layers, (long long)m->layers);
		for (i = 0; i < gg->nkinds; i++) {
			const struct layer_kind *lk = &gg->kinds[i];
			if (strcmp(lk->name, "embed+head") == 0)
				continue;
			printf("    %-6s layer MFU %.2f%%\n", lk->name,
			       100 * (layer_kind_flops(lk) / peak * 1e3) /
				       (o->measured_ms / (double)m->layers));
		}
	}
}

static void print_json(const struct model_cfg *m, const struct ops_opts *o,
		       const struct gpu_spec *g, const struct opgraph *gm,
		       const struct opgraph *gg, const struct param_counts *pc)
{
	struct jw w;
	double tot_g = opgraph_total_flops(gg), peak = g->peak_flops[o->dtype];
	size_t i, j;

	jw_init(&w, stdout, true);
	jw_obj(&w, NULL);
	jw_str(&w, "model", m->id);
	jw_str(&w, "model_type", m->model_type);
	jw_str(&w, "config_source", m->source);
	jw_num(&w, "params_total", pc->total);
	jw_num(&w, "params_active", pc->active);
	jw_num(&w, "params_active_excl_embedding", pc->active - pc->embedding);
	jw_obj(&w, "architecture");
	jw_int(&w, "layers", m->layers);
	jw_int(&w, "hidden_size", m->hidden);
	jw_str(&w, "attention", attn_kind_name(m->attn));
	jw_int(&w, "heads", m->heads);
	jw_int(&w, "kv_heads", m->kv_heads);
	jw_int(&w, "head_dim", m->head_dim);
	jw_int(&w, "experts", m->n_experts);
	jw_int(&w, "top_k", m->top_k);
	jw_int(&w, "shared_experts", m->n_shared_experts);
	jw_int(&w, "first_k_dense", m->first_k_dense);
	jw_int(&w, "moe_layers", m->n_moe_layers);
	jw_end_obj(&w);
	jw_obj(&w, "serving");
	jw_str(&w, "gpu", g->id);
	jw_str(&w, "dtype", dtype_name(o->dtype));
	jw_int(&w, "tp", o->par.tp);
	jw_int(&w, "dp", o->par.dp);
	jw_int(&w, "ep", o->par.ep);
	jw_int(&w, "gpus", o->par.tp * o->par.dp);
	jw_end_obj(&w);
	jw_obj(&w, "shape");
	jw_str(&w, "phase", gg->decode ? "decode" : "prefill");
	jw_int(&w, "batch_size", o->shape.batch);
	jw_int(&w, "seq_len", o->shape.seq_len);
	jw_int(&w, "context_len", o->shape.context_len);
	jw_int(&w, "tokens_per_gpu", gg->tokens);
	jw_num(&w, "attention_pairs_per_layer_per_gpu", gg->attn_pairs);
	jw_end_obj(&w);
	jw_arr(&w, "layers");
	for (i = 0; i < gg->nkinds; i++) {
		const struct layer_kind *lk = &gg->kinds[i];
		double lf = layer_kind_flops(lk);
		jw_obj(&w, NULL);
		jw_str(&w, "name", lk->name);
		jw_int(&w, "count", lk->count);
		jw_num(&w, "flops", lf);
		jw_num(&w, "attention_flops_share", share(layer_kind_flops_cat(lk, OPC_ATTENTION), lf));
		jw_num(&w, "ffn_flops_share", share(layer_kind_flops_cat(lk, OPC_FFN) +
						    layer_kind_flops_cat(lk, OPC_MOE), lf));
		jw_arr(&w, "ops");
		for (j = 0; j < lk->nops; j++) {
			const struct op *op = &lk->ops[j];
			jw_obj(&w, NULL);
			jw_str(&w, "name", op->name);
			jw_str(&w, "category", op_cat_name(op->cat));
			jw_str(&w, "kind", op_kind_name(op->kind));
			jw_num(&w, "flops", op->flops);
			jw_num(&w, "bytes", op->weight_bytes + op->act_bytes + op->kv_read_bytes +
						    op->kv_write_bytes);
			jw_num(&w, "weight_bytes", op->weight_bytes);
			jw_num(&w, "act_bytes", op->act_bytes);
			jw_num(&w, "kv_read_bytes", op->kv_read_bytes);
			jw_num(&w, "kv_write_bytes", op->kv_write_bytes);
			if (op->kind == OPK_GEMM) {
				jw_int(&w, "m", op->m);
				jw_int(&w, "n", op->n);
				jw_int(&w, "k", op->k);
				jw_int(&w, "batch", op->batch);
			}
			jw_str(&w, "shape_in", op->shape_in);
			jw_str(&w, "shape_out", op->shape_out);
			if (o->measured_ms > 0)
				jw_num(&w, "flops_share", share(op->flops, lf));
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_num(&w, "total_flops", opgraph_total_flops(gm));
	jw_num(&w, "total_flops_per_gpu", tot_g);
	jw_num(&w, "total_bytes_per_gpu", opgraph_total_bytes(gg));
	jw_num(&w, "peak_flops_per_s", peak);
	if (o->measured_ms > 0) {
		double tmin = tot_g / peak * 1e3;
		jw_num(&w, "measured_ms", o->measured_ms);
		jw_num(&w, "theoretical_min_ms", tmin);
		jw_num(&w, "mfu", tmin / o->measured_ms);
		jw_arr(&w, "layer_mfu");
		for (i = 0; i < gg->nkinds; i++) {
			const struct layer_kind *lk = &gg->kinds[i];
			if (strcmp(lk->name, "embed+head") == 0)
				continue;
			jw_obj(&w, NULL);
			jw_str(&w, "name", lk->name);
			jw_num(&w, "mfu", (layer_kind_flops(lk) / peak * 1e3) /
						  (o->measured_ms / (double)m->layers));
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
	}
	jw_end_obj(&w);
	jw_finish(&w);
}

int cmd_ops(int argc, char **argv, struct err *e)
{
	struct ops_opts o;
	struct cli_env env;
	struct model_cfg *m = NULL;
	const struct gpu_spec *g;
	struct opgraph gm, gg;
	struct parallel one = {1, 1, 1, 1};
	struct param_counts pc;
	int rc = parse_ops(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	cli_env_init(&env);
	memset(&gm, 0, sizeof(gm));
	memset(&gg, 0, sizeof(gg));
	m = xcalloc(1, sizeof(*m));
	if ((rc = cli_load_model(&env, o.model, o.config, m, e)) < 0)
		goto out;
	if ((rc = cli_find_gpu(&env, o.gpu, &g, e)) < 0)
		goto out;
	if (g->peak_flops[o.dtype] <= 0) {
		rc = err_set(e, SS_EUSAGE, "%s has no %s peak in data/gpus.json", g->id,
			     dtype_name(o.dtype));
		goto out;
	}
	if (!o.ep_given)
		o.par.ep = m->n_experts > 0 ? o.par.tp * o.par.dp : 1;
	if ((rc = opgraph_build(m, &one, &o.shape, o.dtype, o.dtype, &gm, e)) < 0)
		goto out;
	if ((rc = opgraph_build(m, &o.par, &o.shape, o.dtype, o.dtype, &gg, e)) < 0)
		goto out;
	model_params(m, &pc);
	if (o.fmt == FMT_JSON)
		print_json(m, &o, g, &gm, &gg, &pc);
	else
		print_text(m, &o, g, &gm, &gg, &pc);
	rc = 0;
out:
	opgraph_release(&gm);
	opgraph_release(&gg);
	free(m);
	cli_env_release(&env);
	return rc;
}
