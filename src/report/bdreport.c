/* bdreport.c - `servesim run --breakdown` (see bdreport.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/bdreport.h"
#include "base/json.h"
#include "report/outfmt.h"
#include "engine/scenario.h"

/* The step's layer kinds in row order, with their layer counts (the most
 * runs of any of their rows) and each component's seconds in the step. */
struct bd_kind {
	const char *name;
	double layers, part_s[CP__COUNT], step_s;
};

static size_t kinds_of(const struct cost_breakdown *bd, struct bd_kind *k, size_t cap)
{
	size_t n = 0, i, j;

	for (i = 0; i < bd->n; i++) {
		const struct cost_bd_row *r = &bd->rows[i];
		for (j = 0; j < n && strcmp(k[j].name, r->kind) != 0; j++)
			;
		if (j == n) {
			if (n == cap)
				continue;
			memset(&k[n], 0, sizeof(k[n]));
			k[n++].name = r->kind;
		}
		if (strcmp(r->kind, "step") != 0 && r->count > k[j].layers)
			k[j].layers = r->count;
		k[j].part_s[r->part] += r->count * r->s;
		k[j].step_s += r->count * r->s;
	}
	for (j = 0; j < n; j++)
		if (k[j].layers <= 0)
			k[j].layers = 1;
	return n;
}

#define BD_MAX_KINDS 24
#define BD_MAX_NOTES 4

/* The step's shape against the engine's limits: what it would not run as
 * one step of this shape (the price stands; the note says so). */
static size_t notes_of(const struct out_breakdown *r, char (*notes)[200])
{
	int64_t per_req = r->context + r->new_tokens;
	size_t n = 0;

	if (r->bd->tokens > r->max_tokens)
		snprintf(notes[n++], sizeof(notes[0]),
			 "%lld tokens in one step, over max_num_batched_tokens %lld: the engine would split it over "
			 "several steps", (long long)r->bd->tokens, (long long)r->max_tokens);
	if (r->max_model_len > 0 && per_req > r->max_model_len)
		snprintf(notes[n++], sizeof(notes[0]),
			 "%lld tokens a request, over max_model_len %lld: the engine refuses such a request",
			 (long long)per_req, (long long)r->max_model_len);
	if (r->max_seqs > 0 && r->local > r->max_seqs)
		snprintf(notes[n++], sizeof(notes[0]),
			 "%lld requests on a rank, over max_num_seqs %lld: the engine runs at most that many a step",
			 (long long)r->local, (long long)r->max_seqs);
	if (r->kv_blocks > 0 && r->block_size > 0) {
		double need = (double)r->local * (double)((per_req + r->block_size - 1) / r->block_size);
		if (need > (double)r->kv_blocks)
			snprintf(notes[n++], sizeof(notes[0]),
				 "%.0f KV blocks on a rank, over the %lld its cache holds: the engine would queue or "
				 "preempt requests", need, (long long)r->kv_blocks);
	}
	return n;
}

static void shape_line(FILE *f, const struct out_breakdown *r)
{
	int dp = r->par->dp;

	fprintf(f, "           %s step: %lld request(s)", r->prefill ? "prefill" : "decode", (long long)r->batch);
	if (dp > 1 && r->batch % dp == 0)
		fprintf(f, " (%lld per DP rank: the step priced is one rank's)", (long long)r->local);
	else if (dp > 1 && r->batch < dp)
		fprintf(f, " (%lld per busy DP rank, whose step is priced; %lld of the %d ranks idle, a one-token "
			"dummy step each)", (long long)r->local, (long long)(dp - r->batch), dp);
	else if (dp > 1)
		fprintf(f, " (%lld or %lld a DP rank: the step priced is a busiest rank's)", (long long)r->local,
			(long long)(r->local - 1));
	fprintf(f, ", each %lld new token(s) after %lld cached\n", (long long)r->new_tokens,
		(long long)r->context);
	fprintf(f, "           token-linear operators at %lld token(s)%s", (long long)r->bd->graph_tokens,
		r->bd->graph_tokens != r->bd->tokens ? " (the CUDA graph's padded batch)" : "");
	if (r->bd->moe_tokens > 0)
		fprintf(f, "; routed experts and EP all-to-all at %lld tokens of all %d DP ranks",
			(long long)r->bd->moe_tokens, dp);
	fputc('\n', f);
	{
		char notes[BD_MAX_NOTES][200];
		size_t n = notes_of(r, notes), i;
		for (i = 0; i < n; i++)
			fprintf(f, "           note: %s\n", notes[i]);
	}
}

void out_breakdown_text(FILE *f, const struct out_breakdown *r)
{
	const struct scenario *sc = r->cfg.sc;
	const struct cost_breakdown *bd = r->bd;
	struct bd_kind k[BD_MAX_KINDS];
	size_t nk = kinds_of(bd, k, BD_MAX_KINDS), i;
	double part_s[CP__COUNT] = {0};
	int p;

	fprintf(f, "breakdown  %s on %s, %s weights, %s KV, TP %d PP %d DP %d EP %d, kernel tables %s\n",
		sc->model->id, sc->gpu->id, dtype_name(sc->wdt), dtype_name(sc->kvdt), r->par->tp, r->par->pp,
		r->par->dp, r->par->ep, r->cfg.kernel_tables ? r->cfg.kernel_tables : "-");
	shape_line(f, r);
	fprintf(f, "\n  %-12s %-24s %-9s %10s %6s %11s %12s\n", "layer kind", "operator", "part", "us/run", "runs",
		"us/step", "FLOPs/run");
	for (i = 0; i < bd->n; i++) {
		const struct cost_bd_row *w = &bd->rows[i];
		char fl[32] = "-", us[32] = "-", st[32] = "-";
		if (w->flops > 0)
			out_fmt_si(fl, sizeof(fl), w->flops, "FLOP");
		if (w->how == BD_PRICED) {
			snprintf(us, sizeof(us), "%.2f", w->s * 1e6);
			snprintf(st, sizeof(st), "%.1f", w->count * w->s * 1e6);
		} else {
			snprintf(us, sizeof(us), w->how == BD_INSIDE ? "(inside)" : "(unpriced)");
		}
		fprintf(f, "  %-12s %-24s %-9s %10s %6.0f %11s %12s\n", w->kind, w->op, cost_part_name(w->part), us,
			w->count, st, fl);
	}
	fprintf(f, "\nper layer  us per layer of each kind by part (step: us per step); last column: the kind's ms per step\n");
	fprintf(f, "  %-12s %6s", "layer kind", "layers");
	for (p = 0; p < CP__COUNT; p++)
		fprintf(f, " %10s", cost_part_name((enum cost_part)p));
	fprintf(f, " %10s %10s\n", "total", "ms/step");
	for (i = 0; i < nk; i++) {
		fprintf(f, "  %-12s %6.0f", k[i].name, k[i].layers);
		for (p = 0; p < CP__COUNT; p++) {
			part_s[p] += k[i].part_s[p];
			fprintf(f, " %10.2f", k[i].part_s[p] / k[i].layers * 1e6);
		}
		fprintf(f, " %10.2f %10.3f\n", k[i].step_s / k[i].layers * 1e6, k[i].step_s * 1e3);
	}
	fprintf(f, "  %-12s %6s", "step (ms)", "");
	for (p = 0; p < CP__COUNT; p++)
		fprintf(f, " %10.3f", part_s[p] * 1e3);
	fprintf(f, " %10s %10.3f\n", "", bd->rows_s * 1e3);
	fprintf(f, "\nstep       %.3f ms as the simulator prices it (the rows sum to %.3f ms; %.3f ms of GPU time)\n",
		bd->step_s * 1e3, bd->rows_s * 1e3, bd->gpu_s * 1e3);
}

void out_breakdown_json(FILE *f, const struct out_breakdown *r)
{
	const struct cost_breakdown *bd = r->bd;
	struct bd_kind k[BD_MAX_KINDS];
	size_t nk = kinds_of(bd, k, BD_MAX_KINDS), i;
	struct jw w;
	int p;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_obj(&w, "breakdown");
	jw_str(&w, "phase", r->prefill ? "prefill" : "decode");
	jw_int(&w, "batch", r->batch);
	jw_int(&w, "batch_per_rank", r->local);
	jw_int(&w, "new_tokens", r->new_tokens);
	jw_int(&w, "context", r->context);
	jw_int(&w, "tokens", bd->tokens);
	jw_int(&w, "graph_tokens", bd->graph_tokens);
	jw_int(&w, "moe_tokens", bd->moe_tokens);
	{
		char notes[BD_MAX_NOTES][200];
		size_t nn = notes_of(r, notes), j;
		jw_arr(&w, "notes");
		for (j = 0; j < nn; j++)
			jw_str(&w, NULL, notes[j]);
		jw_end_arr(&w);
	}
	jw_arr(&w, "rows");
	for (i = 0; i < bd->n; i++) {
		const struct cost_bd_row *x = &bd->rows[i];
		jw_obj(&w, NULL);
		jw_str(&w, "kind", x->kind);
		jw_str(&w, "op", x->op);
		jw_str(&w, "part", cost_part_name(x->part));
		jw_num(&w, "runs", x->count);
		jw_str(&w, "priced", x->how == BD_PRICED ? "own" : x->how == BD_INSIDE ? "inside" : "no");
		if (x->how != BD_PRICED) {
			jw_null(&w, "us");
			jw_null(&w, "us_step");
		} else {
			jw_num(&w, "us", x->s * 1e6);
			jw_num(&w, "us_step", x->count * x->s * 1e6);
		}
		if (x->flops > 0)
			jw_num(&w, "flops", x->flops);
		else
			jw_null(&w, "flops");
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_arr(&w, "kinds");
	for (i = 0; i < nk; i++) {
		jw_obj(&w, NULL);
		jw_str(&w, "kind", k[i].name);
		jw_num(&w, "layers", k[i].layers);
		jw_obj(&w, "us_per_layer");
		for (p = 0; p < CP__COUNT; p++)
			jw_num(&w, cost_part_name((enum cost_part)p), k[i].part_s[p] / k[i].layers * 1e6);
		jw_end_obj(&w);
		jw_num(&w, "ms_step", k[i].step_s * 1e3);
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_num(&w, "gpu_ms", bd->gpu_s * 1e3);
	jw_num(&w, "rows_ms", bd->rows_s * 1e3);
	jw_num(&w, "step_ms", bd->step_s * 1e3);
	jw_end_obj(&w);
	out_config_json(&w, &r->cfg);
	jw_end_obj(&w);
	jw_finish(&w);
}

void out_breakdown_of(const struct cost_model *c, bool prefill, int64_t batch, int64_t local, int64_t new_tokens,
		      int64_t context, const struct cost_breakdown *bd, struct out_breakdown *r)
{
	memset(r, 0, sizeof(*r));
	r->par = &c->p;
	r->prefill = prefill;
	r->batch = batch;
	r->local = local;
	r->new_tokens = new_tokens;
	r->context = context;
	r->max_tokens = c->cfg.max_tokens;
	r->bd = bd;
}
