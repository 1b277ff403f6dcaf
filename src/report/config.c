/* config.c - the resolved configuration of a run as a JSON object and as
 * CSV columns, so that a result file says what produced it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "readers/tier1file.h"
#include "report/out.h"
#include "base/sbuf.h"
#include "base/version.h"
#include "deploy/fields.h"

const char *out_router_key(enum router_kind k)
{
	return k == ROUTER_ROUND_ROBIN ? "rr" : k == ROUTER_LEAST_OUTSTANDING ? "lo" : "kv-aware";
}

const char *out_dist_desc(const struct wl_dist *d, char *buf, size_t n)
{
	switch (d->kind) {
	case WL_FIXED: snprintf(buf, n, "%g", d->a); break;
	case WL_UNIFORM: snprintf(buf, n, "uniform[%g, %g]", d->a, d->b); break;
	case WL_NORMAL: snprintf(buf, n, "normal(%g, %g)", d->a, d->b); break;
	case WL_LOGNORMAL: snprintf(buf, n, "lognormal(mean %g, sd %g)", d->a, d->b); break;
	case WL_EMPIRICAL: snprintf(buf, n, "empirical(%zu values)", d->nvalues); break;
	case WL_DATASET: snprintf(buf, n, "dataset %s (mean %.0f)", d->dataset, d->a); break;
	}
	return buf;
}

static void jstr_or_null(struct jw *w, const char *k, const char *v)
{
	if (v && *v)
		jw_str(w, k, v);
	else
		jw_null(w, k);
}

static bool has_lengths(const struct wl_spec *wl)
{
	return wl->sp_groups == 0 && wl->process != WL_TRACE;
}

static bool open_rate(const struct wl_spec *wl)
{
	return wl->process != WL_CONCURRENCY && wl->process != WL_TRACE && wl->nstages == 0 && wl->ncurve == 0;
}

static void dist_json(struct jw *w, const char *key, const struct wl_dist *d)
{
	jw_obj(w, key);
	jw_str(w, "dist", wl_dist_kind_name(d->kind));
	switch (d->kind) {
	case WL_FIXED: jw_num(w, "value", d->a); break;
	case WL_UNIFORM: jw_num(w, "min", d->a); jw_num(w, "max", d->b); break;
	case WL_NORMAL:
	case WL_LOGNORMAL: jw_num(w, "mean", d->a); jw_num(w, "std", d->b); break;
	case WL_EMPIRICAL: jw_int(w, "values", (int64_t)d->nvalues); break;
	case WL_DATASET: jw_str(w, "dataset", d->dataset); jw_num(w, "mean", d->a); jw_num(w, "rho", d->rho); break;
	}
	jw_int(w, "clip_min", d->min);
	jw_int(w, "clip_max", d->max);
	jw_end_obj(w);
}

static void workload_json(struct jw *w, const struct out_config *c)
{
	const struct wl_spec *wl = c->wl;
	size_t i;

	jw_obj(w, "workload");
	jw_str(w, "source", wl->source);
	jstr_or_null(w, "origin", c->workload_origin);
	jw_str(w, "process", wl_process_name(wl->process));
	if (open_rate(wl))
		jw_num(w, "rate", wl->rate);
	else
		jw_null(w, "rate");
	if (wl->process == WL_GAMMA)
		jw_num(w, "cv", wl->cv);
	if (wl->process == WL_CONCURRENCY)
		jw_int(w, "concurrency", wl->concurrency);
	else
		jw_null(w, "concurrency");
	if (wl->num_requests > 0)
		jw_int(w, "num_requests", wl->num_requests);
	else
		jw_null(w, "num_requests");
	if (wl->duration_s > 0)
		jw_num(w, "duration_s", wl->duration_s);
	else
		jw_null(w, "duration_s");
	jw_arr(w, "stages");
	for (i = 0; i < wl->nstages; i++) {
		jw_obj(w, NULL);
		jw_num(w, "rate", wl->stages[i].rate);
		jw_num(w, "duration_s", wl->stages[i].duration_s);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	if (wl->ncurve) {
		jw_arr(w, "rate_curve");
		for (i = 0; i < wl->ncurve; i++) {
			jw_arr(w, NULL);
			jw_num(w, NULL, wl->curve_t[i]);
			jw_num(w, NULL, wl->curve_rate[i]);
			jw_end_arr(w);
		}
		jw_end_arr(w);
	}
	if (has_lengths(wl)) {
		dist_json(w, "prompt_tokens", &wl->prompt);
		dist_json(w, "output_tokens", &wl->output);
	} else {
		jw_null(w, "prompt_tokens");
		jw_null(w, "output_tokens");
	}
	jw_int(w, "prefix_tokens", wl->prefix_tokens);
	if (wl->sp_groups) {
		jw_obj(w, "shared_prefix");
		jw_int(w, "groups", wl->sp_groups);
		jw_int(w, "prompts_per_group", wl->sp_prompts);
		jw_int(w, "system_prompt_tokens", wl->sp_system);
		jw_int(w, "question_tokens", wl->sp_question);
		jw_int(w, "output_tokens", wl->sp_output);
		jw_end_obj(w);
	} else {
		jw_null(w, "shared_prefix");
	}
	if (wl->sess.count > 0) {
		jw_obj(w, "sessions");
		jw_int(w, "count", wl->sess.count);
		dist_json(w, "turns", &wl->sess.turns);
		dist_json(w, "think_time_ms", &wl->sess.think_ms);
		dist_json(w, "tool_tokens", &wl->sess.tool);
		jw_end_obj(w);
	}
	jstr_or_null(w, "trace", wl->trace);
	jw_int(w, "seed", (int64_t)wl->seed);
	if (wl->harness[0])
		jw_str(w, "harness", wl->harness);
	if (wl->prompt_kind != WL_PROMPTS_UNSET)
		jw_str(w, "prompt_kind", wl_prompt_kind_name(wl->prompt_kind));
	jw_end_obj(w);
}

/* The table's knobs as resolved: total_kv_blocks the memory plan's when
 * it sized the cache. */
static struct deploy_knobs resolved_knobs(const struct out_config *c)
{
	struct deploy_knobs k = c->sc->k;

	k.total_kv_blocks = c->total_kv_blocks;
	return k;
}

/* (after total_kv_blocks: where it came from) */
static void kv_source_json(struct jw *w, size_t row, const void *ctx)
{
	const struct out_config *c = ctx;

	if (row == DEPLOY_TOTAL_KV_BLOCKS)
		jw_str(w, "kv_blocks_source", c->kv_from_memory ? "memory" : "flag");
}

void out_config_json(struct jw *w, const struct out_config *c)
{
	const struct scenario *sc = c->sc;
	const struct overheads *ov = &sc->ov;
	struct deploy_knobs resolved;

	jw_obj(w, "config");
	jw_str(w, "servesim_version", SERVESIM_VERSION);
	jw_str(w, "model", sc->model->id);
	jw_str(w, "gpu", sc->gpu->id);
	jw_int(w, "tp", sc->par.tp);
	jw_int(w, "pp", sc->par.pp);
	jw_int(w, "dp", sc->par.dp);
	jw_int(w, "ep", sc->par.ep);
	jw_str(w, "dtype", dtype_name(sc->wdt));
	jw_str(w, "kv_dtype", dtype_name(sc->kvdt));
	jw_str(w, "engine", sc->engine->name);
	jstr_or_null(w, "kernel_tables", c->kernel_tables);
	resolved = resolved_knobs(c);
	deploy_json(&deploy_table, &resolved, w, kv_source_json, c);
	if (sc->engine->knobs & ENGINE_KNOB_MEM_FRACTION) { /* SGLang's resolved rules */
		if (c->kv_from_memory)
			jw_num(w, "mem_fraction_static", c->mem_fraction_static);
		jw_int(w, "max_running_requests", c->max_running_requests);
		jw_str(w, "schedule_policy", c->sglang_lpm ? "lpm" : "fcfs");
		jw_bool(w, "overlap_schedule", c->overlap_schedule);
		if (sc->k.sglang_dp_lm_head) /* (absent: off) */
			jw_bool(w, "enable_dp_lm_head", true);
		if (sc->k.moe_dense_tp_size) /* (absent: the dense layers over all GPUs) */
			jw_int(w, "moe_dense_tp_size", sc->k.moe_dense_tp_size);
	}
	if (sc->k.no_deep_gemm) /* (absent: vLLM with DeepGEMM) */
		jw_bool(w, "no_deep_gemm", true);
	if (sc->k.kv_offloading_gib > 0) { /* KV offload: the flags as given */
		jw_num(w, "kv_offloading_size_gib", sc->k.kv_offloading_gib);
		jw_str(w, "kv_offloading_backend", sc->kv_offloading_backend == KV_OFFLOAD_LMCACHE ? "lmcache" : "native");
	} else if (sc->k.hicache) {
		jw_bool(w, "enable_hierarchical_cache", true);
		if (sc->k.hicache_gb > 0)
			jw_num(w, "hicache_size_gb", sc->k.hicache_gb);
		else
			jw_num(w, "hicache_ratio", sc->k.hicache_ratio);
	}
	if (sc->k.lora) { /* LoRA: the flags as given (0: the engine's default; the run's lora block resolves them) */
		jw_bool(w, "enable_lora", true);
		jw_int(w, "lora_max_loras", sc->lora_max);
		jw_int(w, "lora_max_lora_rank", sc->k.lora_rank);
		jw_int(w, "lora_host_slots", sc->lora_host);
	}
	if (sc->eplb) { /* EPLB: the settings (interval 0: the engine's default) */
		jw_bool(w, "enable_eplb", true);
		jw_int(w, "eplb_num_redundant_experts", sc->par.ep_redundant);
		jw_int(w, "eplb_rebalance_interval", sc->eplb_interval > 0 ? sc->eplb_interval : sc->engine->eplb_interval);
		if (sc->eplb_async)
			jw_bool(w, "eplb_use_async", true);
	}
	jw_str(w, "router", out_router_key(scenario_router(sc)));
	if (sc->k.replicas > 1) /* (absent: one) */
		jw_int(w, "replicas", sc->k.replicas);
	jstr_or_null(w, "tier0_off", c->tier0_off);
	calib_overheads_json(w, ov);
	jstr_or_null(w, "calibration", c->calibration);
	jstr_or_null(w, "tier2", c->tier2);
	workload_json(w, c);
	jw_end_obj(w);
}

/* (the deployment field table's names between kernel_tables and router) */
static const char *const cfg_cols_head = "servesim_version,model,gpu,tp,pp,dp,ep,dtype,kv_dtype,engine,kernel_tables";
static const char *const cfg_cols_tail =
	",router,replicas,tier0_off,"
	"overhead_step_us,overhead_layer_us,overhead_request_us,api_ttft_ms,stream_token_us,delivery_steps,"
	"calibration,tier2,workload,process,rate,concurrency,num_requests,duration_s,"
	"prompt_tokens,output_tokens,seed";

void out_config_csv_header(FILE *f)
{
	struct sbuf names;

	sb_init(&names);
	deploy_csv_names(&deploy_table, &names);
	fprintf(f, "%s%s%s", cfg_cols_head, names.buf, cfg_cols_tail);
	sb_release(&names);
}

/* a CSV cell: quoted when it holds a comma, a quote or a line break */
static void csv_str(FILE *f, const char *s)
{
	const char *p;

	fputc(',', f);
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

void out_config_csv_row(FILE *f, const struct out_config *c)
{
	const struct scenario *sc = c->sc;
	const struct wl_spec *wl = c->wl;
	const struct overheads *ov = &sc->ov;
	struct deploy_knobs resolved;
	struct sbuf knobs;
	char b[96];

	fputs(SERVESIM_VERSION, f);
	csv_str(f, sc->model->id);
	csv_str(f, sc->gpu->id);
	fprintf(f, ",%d,%d,%d,%d", sc->par.tp, sc->par.pp, sc->par.dp, sc->par.ep);
	csv_str(f, dtype_name(sc->wdt));
	csv_str(f, dtype_name(sc->kvdt));
	csv_str(f, sc->engine->name);
	csv_str(f, c->kernel_tables);
	resolved = resolved_knobs(c);
	sb_init(&knobs);
	deploy_csv_values(&deploy_table, &resolved, &knobs);
	fprintf(f, "%s,%s", knobs.buf, out_router_key(scenario_router(sc)));
	sb_release(&knobs);
	fprintf(f, ",%d", sc->k.replicas > 1 ? (int)sc->k.replicas : 1);
	csv_str(f, c->tier0_off);
	fprintf(f, ",%g,%g,%g,%g,%g,%g", ov->step_us, ov->layer_us, ov->req_us, ov->api_ttft_ms,
		ov->stream_token_us, ov->delivery_steps);
	csv_str(f, c->calibration);
	csv_str(f, c->tier2);
	csv_str(f, wl->source);
	csv_str(f, wl_process_name(wl->process));
	if (open_rate(wl))
		fprintf(f, ",%g", wl->rate);
	else
		fputc(',', f);
	if (wl->process == WL_CONCURRENCY)
		fprintf(f, ",%lld", (long long)wl->concurrency);
	else
		fputc(',', f);
	if (wl->num_requests > 0)
		fprintf(f, ",%lld", (long long)wl->num_requests);
	else
		fputc(',', f);
	if (wl->duration_s > 0)
		fprintf(f, ",%g", wl->duration_s);
	else
		fputc(',', f);
	csv_str(f, has_lengths(wl) ? out_dist_desc(&wl->prompt, b, sizeof(b)) : NULL);
	csv_str(f, has_lengths(wl) ? out_dist_desc(&wl->output, b, sizeof(b)) : NULL);
	fprintf(f, ",%llu", (unsigned long long)wl->seed);
}

void out_config_of(const struct scenflags *f, const struct scenflags_ctx *x, const struct scenario *sc,
		   const struct scenario_state *st, const struct wl_spec *wl, char *tables, size_t ntables,
		   struct out_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(tables, ntables, "%s%s%s", st->cost.tabs->engine, st->cost.tabs->engine[0] ? " " : "",
		 st->cost.tabs->version);
	cfg->sc = sc;
	cfg->wl = wl;
	cfg->total_kv_blocks = st->sc.total_kv_blocks;
	cfg->kv_from_memory = st->kv_from_memory;
	cfg->kernel_tables = tables;
	cfg->tier0_off = f->tier0_off;
	cfg->calibration = x->calib_applied ? x->calib.path : NULL;
	cfg->tier2 = sc->tier2 ? sc->tier2->path : NULL;
	cfg->mem_fraction_static = st->mem_fraction_static;
	cfg->max_running_requests = st->sc.max_num_seqs;
	cfg->sglang_lpm = st->sc.lpm;
	cfg->overlap_schedule = st->cost.cfg.overlap_cpu;
}
