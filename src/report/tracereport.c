/* tracereport.c - the reports of `servesim trace`: header, operator
 * sequence, per-category / per-type / per-layer summary, JSON, the one-line
 * summary and the comparison with servesim's operator template (see
 * tracereport.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "report/outfmt.h"
#include "report/tracereport.h"

static void flops_text(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else
		out_fmt_si(b, n, v, "FLOP");
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

void out_trace_header(FILE *f, const struct trace *t, const char *file, const char *root, size_t nfound)
{
	size_t i, matmuls = 0, with_flops = 0;

	for (i = 0; i < t->n; i++) {
		matmuls += t->ops[i].matmul;
		with_flops += t->ops[i].matmul && !isnan(t->ops[i].flops);
	}
	fprintf(f, "trace      %s: %s%s%s; %zu kernels, %.6g us of kernel time", file, t->format,
	       t->device[0] ? ", " : "", t->device, t->nkernels, t->kernel_us);
	if (!strcmp(t->format, "kineto"))
		fprintf(f, "; %zu CPU ops, %zu launched kernels", t->ncpu_ops, t->n);
	fprintf(f, "\n");
	if (!t->has_shapes)
		fprintf(f, "shapes     none recorded: matmul FLOPs need the trace taken with "
		       "torch.profiler.profile(record_shapes=True)\n");
	else
		fprintf(f, "shapes     recorded; %zu of %zu matmul-family ops have FLOPs\n", with_flops, matmuls);
	if (root)
		fprintf(f, "found      %zu kernel_details.csv under %s%s\n", nfound, root,
		       nfound > 1 ? "; the first by path is read (give FILE for another rank)" : "");
	if (t->npasses) {
		size_t k;
		const struct tr_pass *p = &t->passes[t->fwd - 1];
		fprintf(f, "passes     %zu forward pass%s (%s):", t->npasses, t->npasses == 1 ? "" : "es",
		       t->by_count ? "--anchors-per-pass anchors each" : "split at anchor gaps over 3x the pass's median interval");
		for (k = 0; k < t->npasses && k < 8; k++)
			fprintf(f, " #%zu %d anchors%s", k + 1, t->passes[k].anchors, k + 1 < t->npasses && k < 7 ? "," : "");
		fprintf(f, "%s\n", t->npasses > 8 ? " ..." : "");
		fprintf(f, "fwd #%-5d %d anchors, [%.6g, %.6g] us, %.6g us from first anchor start to last anchor end\n",
		       t->fwd, p->anchors, p->start, p->end, p->end - p->start);
		fprintf(f, "window     %s: [%.6g, %.6g] us, %.6g us%s\n",
		       t->full_window ? "full (not truncated to the anchors)" : "anchors (003: first anchor start to last anchor end)",
		       t->win_start, t->win_end, t->win_end - t->win_start,
		       t->full_window ? "" : "; the embedding, layer 0 before its attention and the last layer's FFN, LM head and sampling are outside it");
	}
	fprintf(f, "layers     %d (%s)\n", t->nlayers,
	       !strcmp(t->format, "ascend") ? (t->full_window ? "anchor to anchor; \"before\": the pass's start up to layer 0's attention" : "anchor to anchor; the last holds only its attention, as 003's window ends there") : "attention scope instances; a training trace counts forward and backward scopes");
	if (t->graph_kernels)
		fprintf(f, "cuda graph %zu kernels replayed from CUDA graphs: no launching operator, no shapes\n",
		       t->graph_kernels);
	if (t->unattributed)
		fprintf(f, "unlinked   %zu kernels (%.6g us) with no launching CPU operator in the trace\n",
		       t->unattributed, t->unattributed_us);
	if (t->dup_collectives)
		fprintf(f, "dedup      %zu collective kernels listed on a second stream dropped\n", t->dup_collectives);
}

void out_trace_summary(FILE *f, const struct trace *t)
{
	struct catsum cs[TRC__COUNT];
	char b[32];
	int c, l;

	sum_cats(t, cs);
	fprintf(f, "\nper category   ops  kernels   kernel us   share        FLOPs\n");
	for (c = 0; c < TRC__COUNT; c++) {
		if (!cs[c].ops)
			continue;
		flops_text(b, sizeof(b), cs[c].flops_known ? cs[c].flops : NAN);
		fprintf(f, "  %-10s %6d %8d %11.6g %6.1f%% %12s\n", tr_cat_name((enum tr_cat)c), cs[c].ops,
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
		fprintf(f, "\nper operator type (top %zu by kernel time; kernel name for launches without one)\n"
		       "  %-40s %5s %11s %7s %12s\n",
		       nt < 15 ? nt : (size_t)15, "type", "ops", "kernel us", "share", "FLOPs");
		for (i = 0; i < nt && i < 15; i++) {
			flops_text(b, sizeof(b), ty[i].known ? ty[i].fl : NAN);
			fprintf(f, "  %-40.40s %5d %11.6g %6.1f%% %12s\n", ty[i].name, ty[i].n, ty[i].us,
			       t->kernel_us > 0 ? 100 * ty[i].us / t->kernel_us : 0, b);
		}
		free(ty);
	}
	if (t->nlayers > 0) {
		fprintf(f, "\nper layer   ops   kernel us        FLOPs\n");
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
				fprintf(f, "  %-7s %5d %11.6g %12s\n", "before", n, us, b);
			else
				fprintf(f, "  %-7d %5d %11.6g %12s\n", l, n, us, b);
		}
	}
}

void out_trace_sequence(FILE *f, const struct trace *t)
{
	char b[32];
	size_t i;

	fprintf(f, "\n  %4s %5s %-9s %-26s %-28s %7s %10s %10s  %s\n", "#", "layer", "category", "operator",
	       "first kernel", "kernels", "kernel us", "FLOPs", "dims | scope");
	for (i = 0; i < t->n; i++) {
		const struct tr_op *o = &t->ops[i];
		flops_text(b, sizeof(b), o->flops);
		fprintf(f, "  %4zu %5d %-9s %-26.26s %-28.28s %7d %10.4g %10s  %s%s%s%s\n", i, o->layer,
		       tr_cat_name(o->cat), o->name, o->kernel, o->nkernels, o->kernel_us, b,
		       o->dims[0] ? o->dims : "-", o->scope[0] ? " | " : "", o->scope,
		       o->graph ? " [cuda graph replay]" : "");
	}
}

/* What the trace says about its shape (trace.h), 0 / null where nothing. */
static void recorded_shape_json(struct jw *w, const struct tr_shape *sh)
{
	jw_obj(w, "recorded_shape");
	jw_int(w, "attention_batch", sh->attn_batch);
	jw_int(w, "attention_new_tokens", sh->attn_seq);
	jw_int(w, "attention_keys", sh->attn_keys);
	jw_int(w, "matmul_rows", sh->rows);
	jw_str(w, "trace_name", sh->name);
	jw_int(w, "name_seq_len", sh->name_seq);
	jw_int(w, "name_batch", sh->name_batch);
	jw_int(w, "name_tp", sh->name_tp);
	jw_int(w, "name_pp", sh->name_pp);
	jw_int(w, "name_dp", sh->name_dp);
	jw_int(w, "name_ep", sh->name_ep);
	jw_int(w, "world_size", sh->world);
	jw_bool(w, "backward", sh->backward);
	jw_str(w, "backward_evidence", sh->backward_why);
	jw_int(w, "forward_attention_scopes", sh->fwd_attn_scopes);
	jw_bool(w, "fp8", sh->fp8);
	jw_str(w, "fp8_evidence", sh->fp8_why);
	jw_end_obj(w);
}

void out_trace_json(FILE *f, const struct trace *t)
{
	struct catsum cs[TRC__COUNT];
	struct jw w;
	size_t i;
	int c;

	sum_cats(t, cs);
	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "format", t->format);
	jw_str(&w, "device", t->device);
	jw_int(&w, "kernels", (int64_t)t->nkernels);
	jw_num(&w, "kernel_us", t->kernel_us);
	jw_bool(&w, "has_shapes", t->has_shapes);
	jw_int(&w, "layers", t->nlayers);
	recorded_shape_json(&w, &t->shape);
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
void out_trace_one_line(FILE *f, const struct trace *t, const struct gpu_spec *g, enum dtype dt)
{
	struct catsum cs[TRC__COUNT];
	double fl = 0, span, mfu, top_us = 0;
	const char *top = "-";
	bool known = false;
	int c, best = -1;
	size_t i, j;

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
	mfu = known && span > 0 && g->peak_flops[dt] > 0 ? fl / g->peak_flops[dt] / (span * 1e-6) : NAN;
	fprintf(f, "\nsummary    ");
	if (t->npasses)
		fprintf(f, "fwd #%d, %d layers, %.6g us: ", t->fwd, t->nlayers, span);
	fprintf(f, "dominant %s (%.1f%% of kernel time); ", tr_cat_name((enum tr_cat)best),
	       t->kernel_us > 0 ? 100 * cs[best].us / t->kernel_us : 0);
	if (known && span > 0 && !(g->peak_flops[dt] > 0))
		fprintf(f, "MFU unknown (%s has no %s peak in data/gpus.json); ", g->id, dtype_name(dt));
	else if (isnan(mfu))
		fprintf(f, "MFU unknown (no matmul shapes); ");
	else
		fprintf(f, "MFU %.2f%% of %s %s %.1f TFLOP/s (%s; matmul FLOPs over the %s); ", 100 * mfu, g->id,
		       dtype_name(dt), g->peak_flops[dt] / 1e12,
		       mfu < TR_MFU_LOW ? "low" : mfu < TR_MFU_HIGH ? "moderate" : "high",
		       t->npasses ? "window" : "kernel time");
	fprintf(f, "bottleneck %s (%.1f%%)\n", top, t->kernel_us > 0 ? 100 * top_us / t->kernel_us : 0);
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

int out_trace_compare(FILE *f, const struct trace *t, const struct model_cfg *m, const struct gpu_spec *g,
		      const struct tr_compare *cmp, struct err *e)
{
	struct opgraph og;
	struct catsum cs[TRC__COUNT];
	double tf[TRC__COUNT] = {0};
	int tn[TRC__COUNT] = {0}, c, layers;
	const struct layer_kind *lk = NULL;
	const struct parallel p = cmp->par;
	const struct pass_shape *shape = &cmp->shape;
	const enum dtype dt = cmp->dt;
	/* a training step: each forward op once more backward, its GEMM
	 * FLOPs twice more (input and weight gradients) */
	const int op_mult = cmp->train ? 2 : 1;
	const double flop_mult = cmp->train ? 3 : 1;
	size_t j;
	int rc;

	if ((rc = trace_template(m, cmp, &og, &lk, e)) < 0)
		return rc;
	layers = cmp->layers > 0 ? cmp->layers : 1;
	for (j = 0; j < lk->nops; j++) {
		enum tr_cat k = template_cat(&lk->ops[j]);
		tn[k] += layers * op_mult;
		if (lk->ops[j].kind == OPK_GEMM)
			tf[k] += lk->ops[j].flops * layers * flop_mult;
	}
	sum_cats(t, cs);
	fprintf(f, "\ncompare    %s, %s, batch %lld, %lld new token(s) after %lld cached, TP %d DP %d EP %d (per GPU)%s:\n",
		m->id, dtype_name(dt), (long long)shape->batch, (long long)shape->seq_len,
		(long long)shape->context_len, p.tp, p.dp, p.ep, cmp->train ? ", forward and backward" : "");
	fprintf(f, "           shape  %s\n           layout %s\n           dtype  %s\n           phase  %s\n",
		cmp->shape_src, cmp->par_src, cmp->dt_src, cmp->phase_src);
	if (cmp->train)
		fprintf(f, "           template = %d forward and %d backward x the '%s' layer (the trace's forward attention\n"
			   "           scopes; backward GEMMs 2x the forward FLOPs: input and weight gradients); FLOPs = GEMM\n"
			   "           operators only, like the trace's matmul family; MFU = template FLOPs / (%s peak x trace\n"
			   "           kernel time)\n",
			layers, layers, lk->name, dtype_name(dt));
	else
		fprintf(f, "           template = %d x the '%s' layer (the trace's %d layers); FLOPs = GEMM operators only,\n"
			   "           like the trace's matmul family; MFU = template FLOPs / (%s peak x trace kernel time)\n",
			layers, lk->name, t->nlayers, dtype_name(dt));
	fprintf(f, "  %-10s %7s %7s %12s %12s %8s %8s %8s\n", "category", "ops tr", "ops tpl", "FLOPs trace",
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
		if (cs[c].us > 0 && tf[c] > 0 && g->peak_flops[dt] > 0)
			snprintf(mf, sizeof(mf), "%.1f%%", 100 * tf[c] / g->peak_flops[dt] / (cs[c].us * 1e-6));
		else
			snprintf(mf, sizeof(mf), "-");
		fprintf(f, "  %-10s %7d %7d %12s %12s %8s %7.1f%% %8s\n", tr_cat_name((enum tr_cat)c), cs[c].ops, tn[c],
		       a, b, d, t->kernel_us > 0 ? 100 * cs[c].us / t->kernel_us : 0, mf);
	}
	for (c = 0; c < TRC__COUNT; c++) {
		if (cs[c].ops && !tn[c])
			fprintf(f, "  only in the trace: %s (%d ops)\n", tr_cat_name((enum tr_cat)c), cs[c].ops);
		if (!cs[c].ops && tn[c])
			fprintf(f, "  only in the template: %s (%d ops)\n", tr_cat_name((enum tr_cat)c), tn[c]);
	}
	if (!t->has_shapes)
		fprintf(f, "  the trace has no shapes, so FLOPs cannot be compared: record with record_shapes=True\n");
	if (!(g->peak_flops[dt] > 0))
		fprintf(f, "  %s has no %s peak in data/gpus.json, so no MFU: give --gpu with one, or --dtype\n", g->id,
			dtype_name(dt));
	opgraph_release(&og);
	return 0;
}
