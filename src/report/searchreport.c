/* searchreport.c - what `servesim search` writes: the ranking as text and
 * JSON, the long-format CSV, the Pareto chart (pareto.h) and each engine's
 * launch lines (launch.h, engine_type.launch).  plan/search.c computes the outcomes;
 * nothing here simulates. */
#include "report/confreport.h"
#include "report/searchreport.h"
#include "plan/searchrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "base/alloc.h"
#include "base/json.h"
#include "engine/launch.h"
#include "report/out.h"
#include "plan/pareto.h"
#include "plan/sweep.h"
#include "report/sweepreport.h"
#include "base/version.h"

/* --- the Pareto chart (pareto.h), drawn by the SVG writer (out.h) --- */

void pareto_svg(const struct pareto_chart *c, struct sbuf *o)
{
	struct out_svg_series ser[2];
	struct out_svg_plot pl;
	double *fx = xcalloc(c->n ? c->n : 1, sizeof(*fx)), *fy = xcalloc(c->n ? c->n : 1, sizeof(*fy));
	double *ox = xcalloc(c->n ? c->n : 1, sizeof(*ox)), *oy = xcalloc(c->n ? c->n : 1, sizeof(*oy));
	const char **fl = xcalloc(c->n ? c->n : 1, sizeof(*fl));
	size_t i, j, nf = 0, no = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	/* the front by x, joined and labelled; the other points as markers */
	for (i = 0; i < c->n; i++) {
		if (!c->on_front[i]) {
			ox[no] = c->x[i];
			oy[no++] = c->y[i];
			continue;
		}
		for (j = nf; j > 0 && fx[j - 1] > c->x[i]; j--) {
			fx[j] = fx[j - 1];
			fy[j] = fy[j - 1];
			fl[j] = fl[j - 1];
		}
		fx[j] = c->x[i];
		fy[j] = c->y[i];
		fl[j] = c->label ? c->label[i] : NULL;
		nf++;
	}
	memset(ser, 0, sizeof(ser));
	ser[0] = (struct out_svg_series){"Pareto front", fx, fy, nf, OUT_SVG_LINES, fl};
	ser[1] = (struct out_svg_series){"other deployments", ox, oy, no, OUT_SVG_HOLLOW, NULL};
	memset(&pl, 0, sizeof(pl));
	pl.title = c->title;
	pl.xlabel = c->xlabel;
	pl.ylabel = c->ylabel;
	pl.series = ser;
	pl.nseries = 2;
	pl.width = 900;
	pl.height = 520;
	if (!(f = open_memstream(&buf, &len)))
		BUG("open_memstream");
	out_svg_plot(f, &pl);
	fclose(f);
	sb_put(o, buf, len);
	free(buf);
	free(fx);
	free(fy);
	free(ox);
	free(oy);
	free(fl);
}

/* --- the search report --- */

/* "tp8 pp1 dp1 ep8", "1p2d tp8 ep", a count of replicas before: "2x ..." */
static void layout(const struct search_outcome *r, char *buf, size_t n)
{
	char rep[16] = "";

	if (r->d.replicas > 1)
		snprintf(rep, sizeof(rep), "%dx ", r->d.replicas);
	if (r->d.pd_prefill)
		snprintf(buf, n, "%s%dp%dd tp%d%s", rep, r->d.pd_prefill, r->d.pd_decode, r->d.par.tp,
			 r->d.par.ep > 1 ? " ep" : "");
	else
		snprintf(buf, n, "%stp%d pp%d dp%d ep%d", rep, r->d.par.tp, r->d.par.pp, r->d.par.dp, r->d.par.ep);
}

/* "mtp1" or "-". */
static void spec_text(const struct search_outcome *r, char *buf, size_t n)
{
	if (r->d.spec_k > 0)
		snprintf(buf, n, "mtp%d", r->d.spec_k);
	else
		snprintf(buf, n, "-");
}

/* The weights' dtype as served: a pre-quantised fp8 checkpoint (DeepSeek's
 * block fp8) loads as stored whatever --dtype says (cost.c's stored
 * formats), so its "bf16" deployment is fp8 weights with a bf16 KV cache. */
static const char *weights(const struct model_cfg *m, const struct search_outcome *r)
{
	if (r->d.wdt == DT_BF16 && strcmp(m->quant, "fp8") == 0)
		return "fp8";
	return dtype_name(r->d.wdt);
}

static void wkv(const struct model_cfg *m, const struct search_outcome *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", weights(m, r), dtype_name(r->kvdt));
}

static const char *engine_of(const struct search_report *R, const struct search_outcome *r)
{
	return R->sp->engine[r->d.engine]->name;
}

/* The GPU type, "prefill's/decode's" for a mixed P/D split. */
static void gpu_text(const struct search_report *R, const struct search_outcome *r, char *buf, size_t n)
{
	if (search_mixed(&r->d))
		snprintf(buf, n, "%s/%s", R->budget[r->d.pgpu].gpu->id, R->budget[r->d.gpu].gpu->id);
	else
		snprintf(buf, n, "%s", R->budget[r->d.gpu].gpu->id);
}

/* The prefill workers' GPU type: a P/D split's, null when aggregated. */
static const char *prefill_gpu_of(const struct search_report *R, const struct search_outcome *r)
{
	return r->d.pd_prefill > 0 ? R->budget[r->d.pgpu].gpu->id : NULL;
}

/* The launch lines of r's engine. */
static void launch_lines(const struct search_report *R, const struct search_outcome *r, struct sbuf *o)
{
	struct launch_in in;

	memset(&in, 0, sizeof(in));
	in.model = R->hf;
	in.checkpoint_quant = R->model->quant;
	in.par = r->d.par;
	in.wdt = r->d.wdt;
	in.kvdt = r->kvdt;
	in.max_num_seqs = r->max_num_seqs;
	in.max_num_batched_tokens = r->max_num_batched_tokens;
	in.spec_k = r->d.spec_k;
	in.pd_prefill = r->d.pd_prefill;
	in.pd_decode = r->d.pd_decode;
	in.moe = R->model->n_experts > 0;
	if (R->eplb && r->d.par.ep > 1) {
		in.eplb = true;
		in.eplb_redundant = R->eplb->par.ep_redundant;
		in.eplb_interval = R->eplb->eplb_interval;
	}
	if (R->knobs) {
		in.no_deep_gemm = R->knobs->no_deep_gemm;
		in.dp_lm_head = R->knobs->sglang_dp_lm_head;
		in.moe_dense_tp1 = R->knobs->moe_dense_tp_size == 1;
	}
	if (r->d.replicas > 1)
		sb_printf(o, "# %d replicas behind a router, each:\n", r->d.replicas);
	if (search_mixed(&r->d))
		sb_printf(o, "# prefill instances on %s, decode instances on %s (the KV over the network)\n",
			  R->budget[r->d.pgpu].gpu->id, R->budget[r->d.gpu].gpu->id);
	R->sp->engine[r->d.engine]->launch(&in, o);
}

/* v with prec decimals ("%.*f"), or with prec significant digits (g), or "-". */
static void fmt_num(char *buf, size_t n, int prec, bool g, double v)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (g)
		snprintf(buf, n, "%.*g", prec, v);
	else
		snprintf(buf, n, "%.*f", prec, v);
}

void search_report_text(FILE *f, const struct search_report *R)
{
	char slos[512], lay[64], c1[32], c2[32], c3[32], c4[32], c5[32], c6[32], c7[32], dt[32], sp[16], gt[112];
	size_t i, k, shown;
	bool mixed = false;
	int gw = 9; /* the gpu column: as wide as its widest entry */
	struct sbuf sb;

	cap_slo_text(R->cc, slos, sizeof(slos));
	fprintf(f, "search     %s, engine%s", R->model->id, R->sp->nengine > 1 ? "s" : "");
	for (i = 0; i < R->sp->nengine; i++)
		fprintf(f, "%s %s", i ? "," : "", R->sp->engine[i]->name);
	fprintf(f, ", %s (%s, %lld requests), seed%s %llu\n", R->wl->source, wl_process_name(R->wl->process),
	       (long long)R->wl->num_requests, R->cc->nseeds > 1 ? "s from" : "", (unsigned long long)R->cc->seed);
	fprintf(f, "slo        %s\n", slos);
	fprintf(f, "budget    ");
	for (i = 0; i < R->nb; i++)
		fprintf(f, " %s x %d%s", R->budget[i].gpu->id, R->budget[i].count, i + 1 < R->nb ? "," : "\n");
	fprintf(f, "searched   %zu deployments enumerated: %zu pruned", R->n, R->s->npruned);
	{
		const char *sep = " (";
		for (i = SEARCH_PRUNE_WEIGHTS; i < SEARCH_PRUNE__COUNT; i++)
			if (R->s->pruned_by[i]) {
				fprintf(f, "%s%zu %s", sep, R->s->pruned_by[i], search_prune_name((enum search_prune)i));
				sep = ", ";
			}
		if (R->s->npruned)
			fprintf(f, ")");
	}
	fprintf(f, ", %zu simulated (%zu runs): %zu meet no rate, %zu ranked\n\n", R->s->nok + R->s->nnorate, R->s->runs,
	       R->s->nnorate, R->s->nok);
	if (R->s->nok == 0) {
		fprintf(f, "no deployment meets the SLO\n");
	} else {
		if (R->s->rank_by == SEARCH_RANK_ENERGY) {
			const char *sep = "; no board power figure for ";
			fprintf(f, "ranked by joules per output token at max_rate, fewest first (--rank energy)");
			/* a GPU without a board power figure has no J/token:
			 * its deployments rank after the others (search_rank) */
			for (i = 0; i < R->nb; i++)
				if (!(R->budget[i].gpu->board_power_w > 0)) {
					fprintf(f, "%s%s", sep, R->budget[i].gpu->id);
					sep = ", ";
				}
			fprintf(f, "%s\n", sep[0] == ',' ? " (data/gpus.json): deployments on it come last, by tokens/s per GPU" : "");
		}
		for (k = 0; k < R->n; k++) {
			gpu_text(R, &R->r[k], gt, sizeof(gt));
			gw = strlen(gt) > (size_t)gw ? (int)strlen(gt) : gw;
		}
		fprintf(f, "rank  %-*s  gpus  engine  layout            w/kv       mns    mnbt  spec   max_rate  tok/s/gpu  tok/s/user  ttft_p90  itl_mean  $/Mtok  tok/s/W  binding\n", gw, "gpu");
		for (k = 0; k < R->s->nok; k++) {
			const struct search_outcome *r = &R->r[R->s->order[k]];
			layout(r, lay, sizeof(lay));
			fmt_num(c1, sizeof(c1), 4, true, r->max_rate);
			fmt_num(c2, sizeof(c2), 1, false, r->tok_s_gpu);
			fmt_num(c3, sizeof(c3), 1, false, r->tok_s_user);
			fmt_num(c4, sizeof(c4), 0, false, r->ttft_p90_ms);
			fmt_num(c5, sizeof(c5), 1, false, r->itl_mean_ms);
			fmt_num(c6, sizeof(c6), 3, false, r->usd_per_mtok);
			fmt_num(c7, sizeof(c7), 2, false, r->tok_s_per_w);
			wkv(R->model, r, dt, sizeof(dt));
			spec_text(r, sp, sizeof(sp));
			gpu_text(R, r, gt, sizeof(gt));
			mixed |= search_mixed(&r->d);
			fprintf(f, "%3zu%s  %-*s %5d  %-6s  %-16s  %-9s %5lld %7lld  %-4s %9s %10s %11s %9s %9s %7s %8s  %s\n", k + 1,
			       R->s->front[R->s->order[k]] ? "*" : " ", gw, gt, r->d.gpus, engine_of(R, r),
			       lay, dt, (long long)r->max_num_seqs, (long long)r->max_num_batched_tokens, sp, c1, c2, c3,
			       c4, c5, c6, c7, r->binding_name);
		}
		fprintf(f, "(* on the Pareto front of tokens/s/GPU vs tokens/s/user; max_rate in req/s per instance; "
		       "mnbt: max_num_batched_tokens, SGLang's chunked_prefill_size; spec: MTP draft tokens; "
		       "$/Mtok per million output tokens; tok/s/W output tokens/s per watt of the GPUs at max_rate, "
		       "docs/energy.md%s)\n", mixed ? "; gpu A/B: the prefill workers' A, the decode workers' B" : "");
		if (R->conf)
			out_confidence_text(f, &R->conf[R->s->order[0]], "of rank 1 at its max_rate, ");
	}
	if (R->prices) {
		fprintf(f, "prices     %s%s%s:", R->prices->path, R->prices->retrieved[0] ? ", retrieved " : "",
		       R->prices->retrieved);
		for (i = 0; i < R->nb; i++) {
			if (isfinite(R->budget[i].usd_per_gpu_hour))
				fprintf(f, " %s $%.2f/GPU-h", R->budget[i].gpu->id, R->budget[i].usd_per_gpu_hour);
			else
				fprintf(f, " %s no price", R->budget[i].gpu->id);
		}
		fprintf(f, "\n");
	}
	if (R->target > 0) {
		if (R->s->best_target < 0) {
			fprintf(f, "target     %g req/s: no deployment meets the SLO\n", R->target);
		} else {
			const struct search_outcome *r = &R->r[R->s->best_target];
			int64_t g = search_gpus_for_rate(r, R->target);
			layout(r, lay, sizeof(lay));
			wkv(R->model, r, dt, sizeof(dt));
			double usd = search_usd_per_gpu_hour(R->budget, &r->d);
			gpu_text(R, r, gt, sizeof(gt));
			fprintf(f, "target     %g req/s: %lld GPUs at least, %lld x %s %s %s %s (%.4g req/s each)", R->target,
			       (long long)g, (long long)(g / r->d.gpus), gt, engine_of(R, r), lay,
			       dt, r->max_rate);
			if (isfinite(usd))
				fprintf(f, ", $%.2f/h", usd * (double)g);
			fprintf(f, "\n");
		}
	}
	shown = R->s->nok < (size_t)R->top ? R->s->nok : (size_t)R->top;
	if (shown)
		fprintf(f, "\nlaunch\n");
	sb_init(&sb);
	for (k = 0; k < shown; k++) {
		const struct search_outcome *r = &R->r[R->s->order[k]];
		layout(r, lay, sizeof(lay));
		wkv(R->model, r, dt, sizeof(dt));
		spec_text(r, sp, sizeof(sp));
		gpu_text(R, r, gt, sizeof(gt));
		fprintf(f, "  #%zu %s x %d, %s %s %s, mnbt %lld, spec %s\n", k + 1, gt, r->d.gpus,
		       engine_of(R, r), lay, dt, (long long)r->max_num_batched_tokens, sp);
		sb_reset(&sb);
		launch_lines(R, r, &sb);
		for (const char *p = sb.buf; *p;) {
			const char *nl = strchr(p, '\n');
			fprintf(f, "    %.*s\n", (int)(nl - p), p);
			p = nl + 1;
		}
	}
	sb_release(&sb);
	if (R->s->npruned + R->s->nnorate) {
		fprintf(f, "\nnot ranked\n");
		for (k = R->s->nok; k < R->n; k++) {
			const struct search_outcome *r = &R->r[R->s->order[k]];
			layout(r, lay, sizeof(lay));
			wkv(R->model, r, dt, sizeof(dt));
			spec_text(r, sp, sizeof(sp));
			gpu_text(R, r, gt, sizeof(gt));
			fprintf(f, "  %-*s %4d  %-6s  %-16s  %-9s %7lld  %-4s  %s: %s\n", gw, gt, r->d.gpus,
			       engine_of(R, r), lay, dt, (long long)r->max_num_batched_tokens, sp,
			       r->status == SEARCH_PRUNED ? "pruned" : "no rate", r->reason);
		}
	}
}

static void jnum(struct jw *w, const char *k, double v)
{
	if (isfinite(v))
		jw_num(w, k, v);
	else
		jw_null(w, k);
}

void search_report_json(FILE *f, const struct search_report *R)
{
	struct jw w;
	struct sbuf sb;
	size_t k, j;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "servesim_version", SERVESIM_VERSION);
	jw_obj(&w, "config");
	jw_str(&w, "model", R->model->id);
	jw_arr(&w, "engines");
	for (j = 0; j < R->sp->nengine; j++)
		jw_str(&w, NULL, R->sp->engine[j]->name);
	jw_end_arr(&w);
	jw_str(&w, "workload", R->wl->source);
	jw_str(&w, "process", wl_process_name(R->wl->process));
	jw_int(&w, "num_requests", R->wl->num_requests);
	jw_int(&w, "seed", (int64_t)R->cc->seed);
	jw_int(&w, "seeds", R->cc->nseeds);
	jw_obj(&w, "slo");
	for (j = 0; j < R->cc->nslo; j++) {
		char nm[32];
		cap_slo_name(&R->cc->slo[j], nm, sizeof(nm));
		jw_num(&w, nm, R->cc->slo[j].limit_ms);
	}
	jw_end_obj(&w);
	jnum(&w, "goodput_min", R->cc->goodput_min > 0 ? R->cc->goodput_min : NAN);
	jw_arr(&w, "budget");
	for (j = 0; j < R->nb; j++) {
		jw_obj(&w, NULL);
		jw_str(&w, "gpu", R->budget[j].gpu->id);
		jw_int(&w, "count", R->budget[j].count);
		jnum(&w, "usd_per_gpu_hour", R->budget[j].usd_per_gpu_hour);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_str(&w, "prices", R->prices ? R->prices->path : "");
	jnum(&w, "target_rate", R->target > 0 ? R->target : NAN);
	jw_end_obj(&w);
	jw_int(&w, "deployments", (int64_t)R->n);
	jw_int(&w, "pruned", (int64_t)R->s->npruned);
	jw_obj(&w, "pruned_by");
	jw_int(&w, "weights", (int64_t)R->s->pruned_by[SEARCH_PRUNE_WEIGHTS]);
	jw_int(&w, "kv_cache", (int64_t)R->s->pruned_by[SEARCH_PRUNE_KV]);
	jw_int(&w, "two_vendor_pd", (int64_t)R->s->pruned_by[SEARCH_PRUNE_VENDORS]);
	jw_int(&w, "other", (int64_t)R->s->pruned_by[SEARCH_PRUNE_OTHER]);
	jw_end_obj(&w);
	jw_int(&w, "simulated", (int64_t)(R->s->nok + R->s->nnorate));
	jw_int(&w, "simulations", (int64_t)R->s->runs);
	if (R->target > 0 && R->s->best_target >= 0) {
		jw_obj(&w, "target");
		jw_int(&w, "min_gpus", search_gpus_for_rate(&R->r[R->s->best_target], R->target));
		for (k = 0; k < R->s->nok; k++)
			if (R->s->order[k] == (size_t)R->s->best_target)
				break;
		jw_int(&w, "rank", (int64_t)k + 1);
		jw_end_obj(&w);
	} else {
		jw_null(&w, "target");
	}
	sb_init(&sb);
	jw_str(&w, "ranked_by", R->s->rank_by == SEARCH_RANK_ENERGY ? "energy_j_per_output_token" : "tok_s_per_gpu");
	jw_arr(&w, "ranking");
	for (k = 0; k < R->n; k++) {
		const struct search_outcome *r = &R->r[R->s->order[k]];
		jw_obj(&w, NULL);
		if (r->status == SEARCH_OK)
			jw_int(&w, "rank", (int64_t)k + 1);
		else
			jw_null(&w, "rank");
		jw_str(&w, "status", r->status == SEARCH_OK ? "ok" : r->status == SEARCH_PRUNED ? "pruned" : "no rate");
		if (r->reason[0])
			jw_str(&w, "reason", r->reason);
		else
			jw_null(&w, "reason");
		jw_str(&w, "gpu", R->budget[r->d.gpu].gpu->id);
		if (prefill_gpu_of(R, r))
			jw_str(&w, "prefill_gpu", prefill_gpu_of(R, r));
		else
			jw_null(&w, "prefill_gpu");
		jw_int(&w, "gpus", r->d.gpus);
		jw_str(&w, "engine", engine_of(R, r));
		jw_int(&w, "tp", r->d.par.tp);
		jw_int(&w, "pp", r->d.par.pp);
		jw_int(&w, "dp", r->d.par.dp);
		jw_int(&w, "ep", r->d.par.ep);
		jw_int(&w, "pd_prefill", r->d.pd_prefill);
		jw_int(&w, "pd_decode", r->d.pd_decode);
		jw_int(&w, "replicas", r->d.replicas > 1 ? r->d.replicas : 1);
		jw_str(&w, "dtype", dtype_name(r->d.wdt));
		jw_str(&w, "weights", weights(R->model, r));
		jw_str(&w, "kv_dtype", dtype_name(r->kvdt));
		jw_int(&w, "max_num_seqs", r->max_num_seqs);
		jw_int(&w, "max_num_batched_tokens", r->max_num_batched_tokens);
		jw_int(&w, "speculative_tokens", r->d.spec_k);
		jnum(&w, "max_rate", r->max_rate);
		jnum(&w, "saturation_rate", r->saturation_rate);
		if (r->status == SEARCH_OK)
			jw_str(&w, "binding_metric", r->binding_name);
		else
			jw_null(&w, "binding_metric");
		jnum(&w, "output_tok_s", r->status == SEARCH_OK ? r->out_tok_s : NAN);
		jnum(&w, "tok_s_per_gpu", r->status == SEARCH_OK ? r->tok_s_gpu : NAN);
		jnum(&w, "tok_s_per_user", r->status == SEARCH_OK ? r->tok_s_user : NAN);
		jnum(&w, "ttft_p90_ms", r->status == SEARCH_OK ? r->ttft_p90_ms : NAN);
		jnum(&w, "itl_mean_ms", r->status == SEARCH_OK ? r->itl_mean_ms : NAN);
		jnum(&w, "usd_per_m_output_tokens", r->usd_per_mtok);
		jnum(&w, "energy_j_per_output_token", r->status == SEARCH_OK ? r->j_per_tok : NAN);
		jnum(&w, "output_tok_s_per_w", r->status == SEARCH_OK ? r->tok_s_per_w : NAN);
		jw_bool(&w, "pareto", R->s->front[R->s->order[k]]);
		if (r->status == SEARCH_OK && R->conf) {
			jw_obj(&w, "summary");
			out_confidence_json(&w, &R->conf[R->s->order[k]]);
			jw_end_obj(&w);
		} else {
			jw_null(&w, "summary");
		}
		if (r->status == SEARCH_OK && k < (size_t)R->top) {
			sb_reset(&sb);
			launch_lines(R, r, &sb);
			jw_str(&w, "launch", sb.buf);
		}
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	sb_release(&sb);
	jw_end_obj(&w);
	jw_finish(&w);
}

/* Long format: one row per deployment, enumeration order. */
static void csv_of(const struct search_report *R, struct sbuf *o)
{
	struct sweep_row *row = xcalloc(1, sizeof(*row));
	size_t i, j;

	for (i = 0; i < R->n; i++) {
		const struct search_outcome *r = &R->r[i];
		char slos[512];
		sweep_row_init(row);
		sweep_row_str(row, "servesim_version", SERVESIM_VERSION);
		sweep_row_str(row, "model", R->model->id);
		sweep_row_str(row, "engine", engine_of(R, r));
		sweep_row_str(row, "gpu", R->budget[r->d.gpu].gpu->id);
		sweep_row_str(row, "prefill_gpu", prefill_gpu_of(R, r) ? prefill_gpu_of(R, r) : "");
		sweep_row_int(row, "gpus", r->d.gpus);
		sweep_row_int(row, "tp", r->d.par.tp);
		sweep_row_int(row, "pp", r->d.par.pp);
		sweep_row_int(row, "dp", r->d.par.dp);
		sweep_row_int(row, "ep", r->d.par.ep);
		sweep_row_int(row, "pd_prefill", r->d.pd_prefill);
		sweep_row_int(row, "pd_decode", r->d.pd_decode);
		sweep_row_int(row, "replicas", r->d.replicas > 1 ? r->d.replicas : 1);
		sweep_row_str(row, "dtype", dtype_name(r->d.wdt));
		sweep_row_str(row, "weights", weights(R->model, r));
		sweep_row_str(row, "kv_dtype", dtype_name(r->kvdt));
		sweep_row_int(row, "max_num_seqs", r->max_num_seqs);
		sweep_row_int(row, "max_num_batched_tokens", r->max_num_batched_tokens);
		sweep_row_int(row, "speculative_tokens", r->d.spec_k);
		sweep_row_str(row, "workload", R->wl->source);
		sweep_row_int(row, "num_requests", R->wl->num_requests);
		sweep_row_int(row, "seed", (int64_t)R->cc->seed);
		sweep_row_int(row, "seeds", R->cc->nseeds);
		cap_slo_text(R->cc, slos, sizeof(slos));
		sweep_row_str(row, "slo", slos);
		sweep_row_num(row, "usd_per_gpu_hour", search_usd_per_gpu_hour(R->budget, &r->d));
		sweep_row_str(row, "status", r->status == SEARCH_OK ? "ok" : r->status == SEARCH_PRUNED ? "pruned" : "no rate");
		sweep_row_str(row, "reason", r->reason);
		sweep_row_str(row, "pruned_by", r->status == SEARCH_PRUNED ? search_prune_name(r->prune) : "");
		for (j = 0; j < R->s->nok; j++)
			if (R->s->order[j] == i)
				break;
		if (j < R->s->nok)
			sweep_row_int(row, "rank", (int64_t)j + 1);
		else
			sweep_row_null(row, "rank");
		sweep_row_num(row, "max_rate", r->max_rate);
		sweep_row_num(row, "saturation_rate", r->saturation_rate);
		if (r->status == SEARCH_OK)
			sweep_row_str(row, "binding_metric", r->binding_name);
		else
			sweep_row_null(row, "binding_metric");
		sweep_row_num(row, "output_tok_s", r->status == SEARCH_OK ? r->out_tok_s : NAN);
		sweep_row_num(row, "tok_s_per_gpu", r->status == SEARCH_OK ? r->tok_s_gpu : NAN);
		sweep_row_num(row, "tok_s_per_user", r->status == SEARCH_OK ? r->tok_s_user : NAN);
		sweep_row_num(row, "ttft_p90_ms", r->status == SEARCH_OK ? r->ttft_p90_ms : NAN);
		sweep_row_num(row, "itl_mean_ms", r->status == SEARCH_OK ? r->itl_mean_ms : NAN);
		sweep_row_num(row, "usd_per_m_output_tokens", r->usd_per_mtok);
		sweep_row_num(row, "energy_j_per_output_token", r->status == SEARCH_OK ? r->j_per_tok : NAN);
		sweep_row_num(row, "output_tok_s_per_w", r->status == SEARCH_OK ? r->tok_s_per_w : NAN);
		sweep_row_int(row, "pareto", R->s->front[i]);
		sweep_row_int(row, "simulations", (int64_t)r->probes);
		if (i == 0)
			sweep_row_header(row, SWEEP_CSV, o);
		sweep_row_render(row, SWEEP_CSV, o);
	}
	free(row);
}

static void svg_of(const struct search_report *R, struct sbuf *o)
{
	double *x = xcalloc(R->n + 1, sizeof(double)), *y = xcalloc(R->n + 1, sizeof(double));
	char **lab = xcalloc(R->n + 1, sizeof(char *)), title[256];
	struct pareto_chart c;
	size_t i;

	for (i = 0; i < R->n; i++) {
		const struct search_outcome *r = &R->r[i];
		char lay[64], gt[112];
		x[i] = r->status == SEARCH_OK ? r->tok_s_user : NAN;
		y[i] = r->status == SEARCH_OK ? r->tok_s_gpu : NAN;
		lab[i] = xmalloc(192);
		layout(r, lay, sizeof(lay));
		gpu_text(R, r, gt, sizeof(gt));
		snprintf(lab[i], 192, "%s x%d %s %s %s/%s%s", gt, r->d.gpus, engine_of(R, r), lay,
			 weights(R->model, r), dtype_name(r->kvdt), r->d.spec_k ? " mtp" : "");
	}
	snprintf(title, sizeof(title), "%s: output tokens/s/GPU vs tokens/s/user at SLO capacity", R->model->id);
	memset(&c, 0, sizeof(c));
	c.title = title;
	c.xlabel = "tokens/s/user (1000 / mean ITL)";
	c.ylabel = "output tokens/s/GPU";
	c.x = x;
	c.y = y;
	c.on_front = R->s->front;
	c.label = (const char *const *)lab;
	c.n = R->n;
	pareto_svg(&c, o);
	for (i = 0; i < R->n; i++)
		free(lab[i]);
	free(lab);
	free(x);
	free(y);
}

void search_report_of(const struct search_run *r, const struct search_req *q, int64_t top, struct search_report *R)
{
	memset(R, 0, sizeof(*R));
	R->s = &r->S;
	R->cc = &q->cc;
	R->sp = &q->sp;
	R->target = q->target;
	R->top = top;
	R->model = r->x[0].model;
	R->hf = r->hf;
	R->wl = &r->wl;
	R->budget = r->budget;
	R->nb = q->ngpu;
	R->r = r->res;
	R->n = r->nres;
	R->prices = r->have_prices ? &r->prices : NULL;
	R->conf = r->conf;
	R->eplb = r->base[0].eplb ? &r->base[0] : NULL;
	R->knobs = &r->base[0].k;
}

/* an sbuf's text onto f */
static int put(FILE *f, const struct search_report *R, void (*of)(const struct search_report *, struct sbuf *))
{
	struct sbuf b;

	sb_init(&b);
	of(R, &b);
	fwrite(b.buf ? b.buf : "", 1, b.len, f);
	sb_release(&b);
	return 0;
}

int search_report_csv(FILE *f, const void *R, struct err *e)
{
	(void)e;
	return put(f, R, csv_of);
}

int search_report_svg(FILE *f, const void *R, struct err *e)
{
	(void)e;
	return put(f, R, svg_of);
}
