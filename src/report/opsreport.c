/* opsreport.c - the reports of `servesim ops`: the operator template of a
 * forward pass (text, JSON) and the kernel-level MFU of a measured layer
 * (see opsreport.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/opsreport.h"
#include "report/outfmt.h"

static double share(double part, double whole)
{
	return whole > 0 ? part / whole : 0;
}

void out_ops_text(FILE *f, const struct out_ops *o)
{
	const struct model_cfg *m = o->m;
	const struct gpu_spec *g = o->g;
	const struct opgraph *gm = o->gm, *gg = o->gg;
	const struct param_counts *pc = o->pc;
	char b1[32], b2[32], b3[64];
	double tot_m = opgraph_total_flops(gm), tot_g = opgraph_total_flops(gg);
	double peak = g->peak_flops[o->dtype];
	int ngpu = o->par->tp * o->par->dp;
	size_t i, j;

	fprintf(f, "model      %s (%s, %s)\n", m->id, m->model_type, m->source);
	fprintf(f, "           %lld layers, hidden %lld, vocab %lld", (long long)m->layers,
	       (long long)m->hidden, (long long)m->vocab);
	if (m->attn == ATTN_MLA) {
		fprintf(f, ", attention MLA: %lld heads, q_lora %lld, kv_lora %lld, qk %lld+%lld, v %lld\n",
		       (long long)m->heads, (long long)m->q_lora_rank, (long long)m->kv_lora_rank,
		       (long long)m->qk_nope_dim, (long long)m->qk_rope_dim, (long long)m->v_head_dim);
		if (m->index_topk > 0)
			fprintf(f, "           sparse attention (DSA): indexer %lld heads x %lld, top-k %lld\n",
			       (long long)m->index_heads, (long long)m->index_head_dim,
			       (long long)m->index_topk);
	} else {
		fprintf(f, ", attention %s: %lld heads, %lld KV heads, head dim %lld\n",
		       attn_kind_name(m->attn), (long long)m->heads, (long long)m->kv_heads,
		       (long long)m->head_dim);
	}
	if (m->n_experts > 0)
		fprintf(f, "           MoE: %lld experts, top-%lld, expert width %lld, shared experts %lld (width %lld), "
		       "%lld MoE layers, %lld dense (first-k dense %lld, dense width %lld)\n",
		       (long long)m->n_experts, (long long)m->top_k, (long long)m->moe_intermediate,
		       (long long)m->n_shared_experts, (long long)m->shared_intermediate,
		       (long long)m->n_moe_layers, (long long)model_dense_ffn_layers(m),
		       (long long)m->first_k_dense, (long long)m->intermediate);
	else
		fprintf(f, "           FFN: dense SwiGLU, intermediate %lld\n", (long long)m->intermediate);
	{
		char t[512];
		model_layers_text(m, t, sizeof(t));
		if (t[0])
			fprintf(f, "           layers: %s\n", t);
		model_quant_text(m, t, sizeof(t));
		if (t[0])
			fprintf(f, "           stored weights (%s)\n", t);
	}
	out_fmt_count(b1, sizeof(b1), pc->total);
	out_fmt_count(b2, sizeof(b2), pc->active);
	fprintf(f, "           params %s total, %s active per token%s\n", b1, b2,
	       m->mtp_layers ? " (MTP modules excluded)" : "");
	fprintf(f, "serving    %s, %s, TP %d, DP %d, EP %d (%d GPU%s)\n", g->name, dtype_name(o->dtype),
	       o->par->tp, o->par->dp, o->par->ep, ngpu, ngpu > 1 ? "s" : "");
	fprintf(f, "shape      %s: batch %lld, %lld new token%s per request after %lld cached; "
	       "%lld tokens and %.0f attention pairs per layer on each GPU\n",
	       gg->decode ? "decode" : "prefill", (long long)o->shape->batch,
	       (long long)o->shape->seq_len, o->shape->seq_len > 1 ? "s" : "",
	       (long long)o->shape->context_len, (long long)gg->tokens, gg->attn_pairs);
	if (o->images)
		fprintf(f, "images     %s\n", o->images);
	for (i = 0; !o->kernel_mode && i < gg->nkinds; i++) {
		const struct layer_kind *lk = &gg->kinds[i];
		double lf = layer_kind_flops(lk);
		fprintf(f, "\nlayer kind '%s' x %lld (per GPU)\n", lk->name, (long long)lk->count);
		fprintf(f, "  %-22s %-9s %12s %12s%s  %s\n", "op", "category", "FLOPs", "bytes",
		       o->measured_ms > 0 ? "  share  theory us    meas us     MFU" : "",
		       "shape_in -> shape_out");
		for (j = 0; j < lk->nops; j++) {
			const struct op *op = &lk->ops[j];
			out_fmt_si(b1, sizeof(b1), op->flops, "FLOP");
			out_fmt_si(b2, sizeof(b2), op->weight_bytes + op->act_bytes + op->kv_read_bytes +
						       op->kv_write_bytes, "B");
			if (o->measured_ms > 0) {
				/* 000 step 3: each operator's theoretical time, and its
				 * measured time = the layer's (uniform layers) x its
				 * FLOPs share, so its MFU is the layer's */
				double th = op->flops / peak * 1e6;
				double lt = strcmp(lk->name, "embed+head") == 0
						    ? NAN : o->measured_ms * 1e3 / (double)m->layers;
				double mt = lt * share(op->flops, lf);
				if (isnan(lt) || !(op->flops > 0))
					snprintf(b3, sizeof(b3), " %5.1f%% %9.4g %10s %7s",
						 100 * share(op->flops, lf), th, "-", "-");
				else
					snprintf(b3, sizeof(b3), " %5.1f%% %9.4g %10.4g %6.2f%%",
						 100 * share(op->flops, lf), th, mt, 100 * th / mt);
			} else {
				b3[0] = '\0';
			}
			fprintf(f, "  %-22s %-9s %12s %12s%s  %s -> %s\n", op->name, op_cat_name(op->cat),
			       b1, b2, b3, op->shape_in, op->shape_out);
		}
		out_fmt_si(b1, sizeof(b1), lf, "FLOP");
		if (strcmp(lk->name, "embed+head") != 0)
			fprintf(f, "  layer total %s: attention %.1f%%, %s %.1f%%, other %.1f%%\n", b1,
			       100 * share(layer_kind_flops_cat(lk, OPC_ATTENTION), lf),
			       strstr(lk->name, "moe") ? "moe" : "ffn",
			       100 * share(layer_kind_flops_cat(lk, OPC_FFN) +
						   layer_kind_flops_cat(lk, OPC_MOE), lf),
			       100 * share(lf - layer_kind_flops_cat(lk, OPC_ATTENTION) -
						   layer_kind_flops_cat(lk, OPC_FFN) -
						   layer_kind_flops_cat(lk, OPC_MOE), lf));
		else
			fprintf(f, "  total %s\n", b1);
	}
	out_fmt_si(b1, sizeof(b1), tot_m, "FLOP");
	out_fmt_si(b2, sizeof(b2), tot_g, "FLOP");
	fprintf(f, "\ntotal FLOPs of one forward pass: %s model-wide (%.6g), %s per GPU (%.6g)\n", b1,
	       tot_m, b2, tot_g);
	if (o->measured_ms > 0) {
		double tmin = tot_g / peak * 1e3;
		fprintf(f, "\nmeasured   %.6g ms per forward pass\n", o->measured_ms);
		fprintf(f, "  theoretical minimum %.4g ms (per-GPU FLOPs / %s peak %.1f TFLOP/s)\n", tmin,
		       dtype_name(o->dtype), peak / 1e12);
		fprintf(f, "  MFU %.2f%%\n", 100 * tmin / o->measured_ms);
		fprintf(f, "  per layer (uniform-layer assumption: %.4g ms each of %lld layers):\n",
		       o->measured_ms / (double)m->layers, (long long)m->layers);
		for (i = 0; i < gg->nkinds; i++) {
			const struct layer_kind *lk = &gg->kinds[i];
			if (strcmp(lk->name, "embed+head") == 0)
				continue;
			fprintf(f, "    %-6s layer MFU %.2f%%\n", lk->name,
			       100 * (layer_kind_flops(lk) / peak * 1e3) /
				       (o->measured_ms / (double)m->layers));
		}
	}
}

/* model summary, serving configuration, pass shape and total FLOPs: the
 * head of both JSON outputs (000's reporting checklist) */
static void json_summary(struct jw *w, const struct out_ops *o)
{
	const struct model_cfg *m = o->m;
	const struct gpu_spec *g = o->g;
	const struct opgraph *gm = o->gm, *gg = o->gg;
	const struct param_counts *pc = o->pc;
	jw_str(w, "model", m->id);
	jw_str(w, "model_type", m->model_type);
	jw_str(w, "config_source", m->source);
	jw_num(w, "params_total", pc->total);
	jw_num(w, "params_active", pc->active);
	jw_num(w, "params_active_excl_embedding", pc->active - pc->embedding);
	jw_obj(w, "architecture");
	jw_int(w, "layers", m->layers);
	jw_int(w, "hidden_size", m->hidden);
	jw_str(w, "attention", attn_kind_name(m->attn));
	jw_int(w, "heads", m->heads);
	jw_int(w, "kv_heads", m->kv_heads);
	jw_int(w, "head_dim", m->head_dim);
	jw_int(w, "experts", m->n_experts);
	jw_int(w, "top_k", m->top_k);
	jw_int(w, "shared_experts", m->n_shared_experts);
	jw_int(w, "first_k_dense", m->first_k_dense);
	jw_int(w, "moe_layers", m->n_moe_layers);
	jw_end_obj(w);
	jw_obj(w, "serving");
	jw_str(w, "gpu", g->id);
	jw_str(w, "dtype", dtype_name(o->dtype));
	jw_int(w, "tp", o->par->tp);
	jw_int(w, "dp", o->par->dp);
	jw_int(w, "ep", o->par->ep);
	jw_int(w, "gpus", o->par->tp * o->par->dp);
	jw_end_obj(w);
	jw_obj(w, "shape");
	jw_str(w, "phase", gg->decode ? "decode" : "prefill");
	jw_int(w, "batch_size", o->shape->batch);
	jw_int(w, "seq_len", o->shape->seq_len);
	jw_int(w, "context_len", o->shape->context_len);
	jw_int(w, "tokens_per_gpu", gg->tokens);
	jw_num(w, "attention_pairs_per_layer_per_gpu", gg->attn_pairs);
	if (o->images)
		jw_str(w, "images", o->images);
	jw_end_obj(w);
	jw_num(w, "total_flops", opgraph_total_flops(gm));
	jw_num(w, "total_flops_per_gpu", opgraph_total_flops(gg));
}

void out_ops_json(FILE *f, const struct out_ops *o)
{
	const struct model_cfg *m = o->m;
	const struct gpu_spec *g = o->g;
	const struct opgraph *gg = o->gg;
	struct jw w;
	double tot_g = opgraph_total_flops(gg), peak = g->peak_flops[o->dtype];
	size_t i, j;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	json_summary(&w, o);
	jw_arr(&w, "layers");
	for (i = 0; !o->kernel_mode && i < gg->nkinds; i++) {
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
			if (o->measured_ms > 0) {
				double th = op->flops / peak * 1e6;
				jw_num(&w, "flops_share", share(op->flops, lf));
				jw_num(&w, "theory_us", th);
				if (strcmp(lk->name, "embed+head") != 0 && op->flops > 0) {
					double mt = o->measured_ms * 1e3 / (double)m->layers * share(op->flops, lf);
					jw_num(&w, "measured_us", mt);
					jw_num(&w, "mfu", th / mt);
				}
			}
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
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

/* --- kernel-level MFU (--kernel-flow / --kernel-detail / --kernel-ms) --- */

static void fmt_flops(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "N/A");
	else
		out_fmt_si(b, n, v, "FLOP");
}

static void fmt_mfu(char *b, size_t n, double v, bool fp8)
{
	if (isnan(v))
		snprintf(b, n, "N/A");
	else if (100 * v < 0.01)
		snprintf(b, n, "<0.01%%%s", fp8 ? "\u2078" : "");
	else
		snprintf(b, n, 100 * v >= 10 ? "%.1f%%%s" : "%.2f%%%s", 100 * v, fp8 ? "\u2078" : "");
}

static const char *how_name(const struct kf_row *row)
{
	static const char *const n[] = {"shape", "order", "share", "-"};
	return row->map == KF_OVERHEAD ? "-" : n[row->how];
}

void out_ops_warnings(FILE *f, const char *buf)
{
	const char *p = buf, *nl;

	while (*p && (nl = strchr(p, '\n'))) {
		fprintf(f, "servesim ops: warning: %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
}

/* MFU bands of the one-line summary: servesim's own wording (000 asks for
 * an "MFU status" but gives no thresholds) */
#define OPS_MFU_LOW 0.10
#define OPS_MFU_HIGH 0.40

/* 000's one-line summary: dominant compute category (by measured time,
 * overhead categories left out), MFU
 * status (the layer MFU), key bottleneck (the kernel with the most time) */
static void print_one_line(FILE *f, const struct out_ops_kernels *k)
{
	const struct kernel_flow *kf = k->kf;
	const struct kf_result *r = k->r;
	double best = -1, top = -1, tot = 0;
	const char *cat = "-", *kern = "-";
	size_t i, j;

	for (i = 0; i < kf->nk; i++) {
		double d = 0;
		for (j = 0; j < kf->nk; j++)
			if (!strcmp(kf->k[j].category, kf->k[i].category))
				d += kf->k[j].dur_us;
		if (r->rows[i].map != KF_OVERHEAD && d > best) {
			best = d;
			cat = kf->k[i].category;
		}
		if (kf->k[i].dur_us > top) {
			top = kf->k[i].dur_us;
			kern = kf->k[i].name;
		}
		tot += kf->k[i].dur_us;
	}
	for (i = 0; !kf->nk && i < kf->ncat; i++) {
		tot += kf->cat[i].dur_us;
		if (kf->cat[i].dur_us > best) {
			best = kf->cat[i].dur_us;
			cat = kf->cat[i].name;
		}
	}
	fprintf(f, "\nsummary    dominant compute category %s (%.1f%% of the measured time); layer MFU %.2f%% of the %s peak (%s); bottleneck %s",
	       cat, tot > 0 ? 100 * best / tot : 0, isnan(r->layer_mfu) ? 0 : 100 * r->layer_mfu, k->dtype,
	       !(r->layer_mfu < OPS_MFU_HIGH) ? "high" : r->layer_mfu < OPS_MFU_LOW ? "low" : "moderate",
	       kf->nk ? kern : cat);
	if (kf->nk && tot > 0)
		fprintf(f, " (%.1f%%)", 100 * top / tot);
	fprintf(f, "\n");
}

void out_ops_kernel_text(FILE *f, const struct out_ops_kernels *k, int64_t m_layers)
{
	const struct kernel_flow *kf = k->kf;
	const struct kf_result *r = k->r;
	char b1[32], b2[32];
	size_t i;

	fprintf(f, "\nkernel MFU  layer kind '%s'", k->lk->name);
	if (kf->layer_id >= 0)
		fprintf(f, ", measured layer %lld of %lld%s%s", (long long)kf->layer_id,
		       (long long)kf->num_layers, kf->fwd_pass[0] ? ", " : "", kf->fwd_pass);
	fprintf(f, "\n");
	if (kf->layer_id >= 0) {
		fprintf(f, "            %zu kernels, %.6g us per layer (total_dur_us; kernels sum to %.6g us)",
		       kf->nk, kf->total_dur_us, r->kernel_sum_us);
		if (kf->wall_us > 0)
			fprintf(f, ", wall %.6g us", kf->wall_us);
		fprintf(f, "; forward %.6g ms = total_dur_us x %lld layers\n",
		       kf->total_dur_us * (double)kf->num_layers * 1e-3, (long long)kf->num_layers);
	} else {
		fprintf(f, "            %zu categories, %.6g us per layer = the forward-pass times / %lld layers (uniform-layer assumption)\n",
		       kf->ncat, kf->total_dur_us, (long long)m_layers);
	}
	fprintf(f, "            peaks: bf16 %.1f TFLOP/s, fp8 %.1f TFLOP/s (MFU marked \u2078: moe and gemm_fp8 kernels, fp8 peak; every other kernel, bf16 peak)\n",
	       k->peak / 1e12, k->peak_fp8 / 1e12);
	fprintf(f, "            layer FLOPs %.6g per GPU: layer MFU %.2f%% of the %s peak over total_dur_us\n",
	       layer_kind_flops(k->lk), isnan(r->layer_mfu) ? 0 : 100 * r->layer_mfu, k->dtype);
	if (k->per_kernel) {
		fprintf(f, "\n  %3s %-4s %-13s %-28s %9s %6s  %-22s %-12s %-5s %11s %10s %9s  %s\n", "#", "half",
		       "category", "kernel", "dur us", "%", "operator", "map", "by", "FLOPs", "theory us",
		       "MFU", "shape_in -> shape_out");
		for (i = 0; i < kf->nk; i++) {
			const struct kf_kernel *kk = &kf->k[i];
			const struct kf_row *row = &r->rows[i];
			char th[32], op[200];
			fmt_flops(b1, sizeof(b1), row->flops);
			fmt_mfu(b2, sizeof(b2), row->mfu, row->fp8);
			if (isnan(row->theory_us))
				snprintf(th, sizeof(th), "N/A");
			else
				snprintf(th, sizeof(th), "%.4g", row->theory_us);
			if (row->map == KF_PROPORTIONAL)
				snprintf(op, sizeof(op), "(%s share)", kk->category);
			else
				snprintf(op, sizeof(op), "%s", row->op[0] ? row->op : "-");
			fprintf(f, "  %3zu %-4s %-13.13s %-28.28s %9.3f %5.1f%%  %-22.22s %-12s %-5s %11s %10s %9s  %s -> %s%s\n",
			       i + 1, kk->half[0] ? kk->half : "-", kk->category, kk->name, kk->dur_us,
			       r->kernel_sum_us > 0 ? 100 * kk->dur_us / r->kernel_sum_us : 0, op,
			       kf_map_name(row->map), how_name(row), b1, th, b2,
			       row->shape_in[0] ? row->shape_in : "-", row->shape_out[0] ? row->shape_out : "-",
			       row->template_shape ? " (template)" : "");
		}
	} else {
		fprintf(f, "\n  %-22s %-9s %-12s %11s %10s %10s %9s\n", "operator", "category", "map", "FLOPs",
		       "time us", "theory us", "MFU");
		for (i = 0; i < r->nops; i++) {
			const struct kf_op *ko = &r->ops[i];
			char t[32], th[32];
			fmt_flops(b1, sizeof(b1), ko->op->flops);
			fmt_mfu(b2, sizeof(b2), ko->mfu, ko->fp8);
			snprintf(t, sizeof(t), isnan(ko->time_us) ? "-" : "%.4g", ko->time_us);
			snprintf(th, sizeof(th), isnan(ko->theory_us) ? "-" : "%.4g", ko->theory_us);
			fprintf(f, "  %-22s %-9s %-12s %11s %10s %10s %9s\n", ko->op->name,
			       op_cat_name(ko->op->cat), isnan(ko->time_us) ? "-" : kf_map_name(ko->map),
			       b1, t, th, isnan(ko->mfu) ? "-" : b2);
		}
	}
	fprintf(f, "\n  mapped to operators %.6g us, overhead (no FLOPs) %.6g us\n", r->mapped_us,
	       r->overhead_us);
	fprintf(f, "  direct: the kernel's own operator, found by its shape (a fused GEMM takes the\n"
	       "  consecutive operators whose n add up), else in template order when the\n"
	       "  category's remaining kernels and operators are as many; proportional: the\n"
	       "  rest of a category's time spread over its remaining operators by FLOPs share;\n"
	       "  overhead: kept, N/A.  %%: share of the kernels' sum.\n");
	if (r->groups[0]) {
		char tmp[1100], *tok, *save = NULL;
		snprintf(tmp, sizeof(tmp), "%s", r->groups);
		fprintf(f, "  spread by FLOPs share:\n");
		for (tok = strtok_r(tmp, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
			fprintf(f, "    %s\n", tok[0] == ' ' ? tok + 1 : tok);
	}
	if (r->unknown[0])
		fprintf(f, "  unknown categories, kept as overhead: %s\n", r->unknown);
	if (r->unmodelled[0])
		fprintf(f, "  direct categories with no operator in the graph (FLOPs N/A): %s\n",
		       r->unmodelled);
	print_one_line(f, k);
}

static void jw_num_or_null(struct jw *w, const char *key, double v)
{
	if (isnan(v))
		jw_null(w, key);
	else
		jw_num(w, key, v);
}

void out_ops_kernel_json(FILE *f, const struct out_ops *o, const struct out_ops_kernels *k)
{
	const struct kf_result *r = k->r;
	struct jw w;
	size_t i;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	json_summary(&w, o);
	jw_obj(&w, "kernel_mfu");
	jw_str(&w, "layer_kind", k->lk->name);
	if (k->kf->layer_id >= 0) {
		jw_int(&w, "layer_id", k->kf->layer_id);
		jw_int(&w, "num_layers", k->kf->num_layers);
		jw_str(&w, "fwd_pass", k->kf->fwd_pass);
		jw_num(&w, "forward_ms", k->kf->total_dur_us * (double)k->kf->num_layers * 1e-3);
	}
	jw_num(&w, "total_dur_us", k->kf->total_dur_us);
	jw_num(&w, "kernel_sum_us", r->kernel_sum_us);
	jw_num(&w, "layer_flops", layer_kind_flops(k->lk));
	jw_num_or_null(&w, "layer_mfu", r->layer_mfu);
	jw_num(&w, "peak_bf16_flops_per_s", k->peak);
	jw_num(&w, "peak_fp8_flops_per_s", k->peak_fp8);
	jw_num(&w, "mapped_us", r->mapped_us);
	jw_num(&w, "overhead_us", r->overhead_us);
	jw_str(&w, "unknown_categories", r->unknown);
	jw_str(&w, "unmodelled_categories", r->unmodelled);
	if (k->per_kernel) {
		jw_arr(&w, "kernels");
		for (i = 0; i < r->nrows; i++) {
			jw_obj(&w, NULL);
			jw_int(&w, "index", (int64_t)i + 1);
			jw_str(&w, "half", k->kf->k[i].half);
			jw_str(&w, "name", k->kf->k[i].name);
			jw_str(&w, "category", k->kf->k[i].category);
			jw_num(&w, "dur_us", k->kf->k[i].dur_us);
			jw_num(&w, "dur_share", r->kernel_sum_us > 0 ? k->kf->k[i].dur_us / r->kernel_sum_us : 0);
			jw_str(&w, "operator", r->rows[i].op);
			jw_str(&w, "map", kf_map_name(r->rows[i].map));
			jw_str(&w, "mapped_by", how_name(&r->rows[i]));
			jw_num_or_null(&w, "flops", r->rows[i].flops);
			jw_num_or_null(&w, "theory_us", r->rows[i].theory_us);
			jw_num_or_null(&w, "mfu", r->rows[i].mfu);
			jw_bool(&w, "fp8_peak", r->rows[i].fp8);
			jw_str(&w, "shape_in", r->rows[i].shape_in);
			jw_str(&w, "shape_out", r->rows[i].shape_out);
			jw_bool(&w, "template_shape", r->rows[i].template_shape);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
	} else {
		jw_arr(&w, "operators");
		for (i = 0; i < r->nops; i++) {
			jw_obj(&w, NULL);
			jw_str(&w, "name", r->ops[i].op->name);
			jw_num(&w, "flops", r->ops[i].op->flops);
			jw_str(&w, "map", isnan(r->ops[i].time_us) ? "none" : kf_map_name(r->ops[i].map));
			jw_num_or_null(&w, "time_us", r->ops[i].time_us);
			jw_num_or_null(&w, "theory_us", r->ops[i].theory_us);
			jw_num_or_null(&w, "mfu", r->ops[i].mfu);
			jw_bool(&w, "fp8_peak", r->ops[i].fp8);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
	}
	jw_end_obj(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}

void out_ops_kernels_of(const struct kernel_flow *kf, const struct layer_kind *lk, const struct kf_result *r,
			const struct gpu_spec *g, enum dtype dtype, bool per_kernel, struct out_ops_kernels *k)
{
	memset(k, 0, sizeof(*k));
	k->kf = kf;
	k->lk = lk;
	k->r = r;
	k->peak = g->peak_flops[DT_BF16];
	k->layer_peak = g->peak_flops[dtype];
	k->peak_fp8 = g->peak_flops[DT_FP8] > 0 ? g->peak_flops[DT_FP8] : k->peak;
	k->dtype = dtype_name(dtype);
	k->per_kernel = per_kernel;
}

void out_ops_of(const struct ops_view *v, const struct ops_req *q, double measured_ms, bool kernel_mode,
		struct out_ops *r)
{
	*r = (struct out_ops){v->m, v->g, &v->gm, &v->gg, &v->pc, &q->shape, &q->par, q->dtype, measured_ms, kernel_mode,
			      v->images[0] ? v->images : NULL};
}
