/* scenflags.c - the model / hardware / engine / cost settings the commands'
 * flags give (engine/scenopts.h parses them) turned into a struct scenario:
 * model and GPU from the catalog, the engine's defaults, the parallel layout
 * in vLLM's and SGLang's spellings, tier-2 and tier-1 files, the checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/scenflags.h"

#include "engine/registry.h"
#include "base/alloc.h"
#include "base/argval.h"
#include "base/json.h"
#include "engine/sglang.h"

/* the table's ranges are the simulation's limits */
_Static_assert(DEPLOY_MAX_REPLICAS == SIM_MAX_REPLICAS && DEPLOY_MAX_RECV_INTERVAL == SIM_MAX_RECV_INTERVAL &&
		       DEPLOY_MAX_ADAPTERS == WL_MAX_ADAPTERS,
	       "deploy/fields.h limits");

void scenflags_defaults(struct scenflags *f)
{
	memset(f, 0, sizeof(*f));
	f->gpu = "h100";
	f->par = (struct parallel){1, 1, 1, 1, 0, 0};
	f->dtype = f->kvdtype = DT_BF16;
	deploy_defaults(&deploy_table, &f->k);
	cost_default_overheads(&f->ov);
}

static void note(struct scenflags_ctx *x, const char *line)
{
	size_t len = strlen(x->notes);

	if (len + 1 < sizeof(x->notes))
		snprintf(x->notes + len, sizeof(x->notes) - len, "%s%s", len ? "\n" : "", line);
}

/* Tier 1: --calibration FILE (warn when it was fitted elsewhere; a
 * rejected file is not applied unless force), none, or the accepted file
 * matching the GPU and engine version when no overhead flag was given. */
static int apply_calibration(const struct scenflags *f, struct scenflags_ctx *x, struct scenario *sc,
			     struct err *e)
{
	char line[1200], why[400];
	bool found = false;
	int rc;

	if (f->calibration && strcmp(f->calibration, "none") == 0)
		return 0;
	if (f->calibration) {
		if ((rc = calib_load(f->calibration, &x->calib, e)) < 0)
			return rc;
		if (calib_mismatch(&x->calib, x->model->id, x->gpu->id, sc->engine_version, why, sizeof(why))) {
			snprintf(line, sizeof(line), "%s was fitted on another %s", f->calibration, why);
			note(x, line);
		}
		if (!x->calib.accepted && !f->force_calibration) {
			snprintf(line, sizeof(line),
				 "%s is marked rejected (its fit did worse than tier 0): not applied, tier 0 stays (--force-calibration applies it anyway)",
				 f->calibration);
			note(x, line);
			return 0;
		}
		if (!x->calib.accepted) {
			snprintf(line, sizeof(line), "%s is marked rejected; applied because of --force-calibration",
				 f->calibration);
			note(x, line);
		}
		found = true;
	} else if (!f->ov_given && !f->tier0_off) {
		char dir[1200];
		snprintf(dir, sizeof(dir), "%s/../calibration/tier1", x->env.data_dir);
		if ((rc = calib_find(dir, x->gpu->id, sc->engine_version, &x->calib, &found, e)) < 0)
			return rc;
	}
	if (found) {
		sc->ov = x->calib.ov;
		x->calib_applied = true;
	}
	return 0;
}

/* KV offload's flags: each engine's own, complete, with prefix caching. */
static int check_offload(const struct scenflags *f, const struct engine_type *en, struct err *e)
{
	const struct deploy_knobs *k = &f->k;
	bool ratio = deploy_given(k, DEPLOY_HICACHE_RATIO), size = deploy_given(k, DEPLOY_HICACHE_SIZE);
	bool vl = k->kv_offloading_gib > 0 || f->k.kv_offloading_backend, hc = k->hicache || ratio || size;

	int rc;

	if ((rc = engine_check_offload(en, vl, hc, e)) < 0)
		return rc;
	if (f->k.kv_offloading_backend && !(k->kv_offloading_gib > 0))
		return err_set(e, SS_EUSAGE, "--kv-offloading-backend needs --kv-offloading-size GiB (the size turns vLLM's KV offloading on)");
	if ((ratio || size) && !k->hicache)
		return err_set(e, SS_EUSAGE, "%s needs --enable-hierarchical-cache", ratio ? "--hicache-ratio" : "--hicache-size");
	if ((vl || hc) && !f->k.prefix_caching)
		return err_set(e, SS_EUSAGE, "%s needs prefix caching: servesim's host tier holds the blocks the GPU prefix cache evicts (drop %s)",
			       vl ? "--kv-offloading-size" : "--enable-hierarchical-cache",
			       vl ? "--no-prefix-caching" : "--disable-radix-cache");
	return 0;
}

/* LoRA's flags: the engine's own, with --enable-lora; a workload naming
 * adapters needs it. */
static int check_lora(const struct scenflags *f, const struct engine_type *en, const struct wl_spec *wl,
		      struct err *e)
{
	int rc;

	if ((rc = engine_check_lora(en, f->k.lora, f->k.max_loras > 0 || f->k.max_cpu_loras > 0,
				    f->k.max_loras_per_batch > 0 || f->k.max_loaded_loras > 0, e)) < 0)
		return rc;
	if (f->k.lora_rank > 0 && !f->k.lora)
		return err_set(e, SS_EUSAGE, "--max-lora-rank needs --enable-lora");
	if (wl && wl->lora.adapters > 0 && !f->k.lora)
		return err_set(e, SS_EUSAGE, "the workload's requests name %lld LoRA adapter%s ('lora'): give --enable-lora",
			       (long long)wl->lora.adapters, wl->lora.adapters > 1 ? "s" : "");
	return 0;
}

/* vLLM's --eplb-config: EPLBConfig's fields (vllm/config/parallel.py),
 * unknown keys refused as its config classes refuse them. */
static int parse_eplb_config(const char *text, int64_t *redundant, bool *red_given, int64_t *interval, bool *async,
			     struct err *e)
{
	static const char *const keys[] = {"window_size", "step_interval", "num_redundant_experts",
					   "log_balancedness", "log_balancedness_interval", "use_async", "policy",
					   NULL};
	static const char ctx[] = "--eplb-config";
	struct json *j;
	const char *policy = NULL;
	int64_t window = 1000, log_every = 1;
	bool logb = false, present;
	int rc;

	if ((rc = json_parse(text, strlen(text), ctx, &j, e)) < 0) {
		e->code = SS_EUSAGE;
		return -SS_EUSAGE;
	}
	if (json_type_of(j) != JSON_OBJECT) {
		rc = err_set(e, SS_EUSAGE, "--eplb-config must be a JSON object, got '%s'", text);
		goto out;
	}
	if ((rc = json_check_keys(j, keys, ctx, e)) < 0 ||
	    (rc = json_opt_int(j, "window_size", ctx, 1, INT64_C(1) << 40, &window, &present, e)) < 0 ||
	    (rc = json_opt_int(j, "step_interval", ctx, 1, INT64_C(1) << 40, interval, &present, e)) < 0 ||
	    (rc = json_opt_int(j, "num_redundant_experts", ctx, 0, 1 << 16, redundant, red_given, e)) < 0 ||
	    (rc = json_opt_bool(j, "log_balancedness", ctx, &logb, e)) < 0 ||
	    (rc = json_opt_int(j, "log_balancedness_interval", ctx, 1, INT64_C(1) << 40, &log_every, &present, e)) < 0 ||
	    (rc = json_opt_bool(j, "use_async", ctx, async, e)) < 0 ||
	    (rc = json_opt_str(j, "policy", ctx, &policy, e)) < 0)
		goto out;
	if (policy && strcmp(policy, "default") != 0)
		rc = err_set(e, SS_EUSAGE, "--eplb-config: 'policy' must be \"default\", got \"%s\"", policy);
out:
	json_free(j);
	if (rc < 0) { /* a flag's value: a usage error, whatever the JSON reader calls it */
		e->code = SS_EUSAGE;
		rc = -SS_EUSAGE;
	}
	return rc;
}

/* EPLB's settings onto sc in the engine's terms (check_eplb passed). */
static int resolve_eplb(const struct scenflags *f, struct scenario *sc, struct err *e)
{
	int64_t red = 0, interval = 0;
	bool red_given = false;
	int rc;

	if (!f->k.eplb)
		return 0;
	sc->eplb = true;
	if (f->k.eplb_config &&
	    (rc = parse_eplb_config(f->k.eplb_config, &red, &red_given, &interval, &sc->eplb_async, e)) < 0)
		return rc;
	/* vLLM's deprecated --num-redundant-experts overrides eplb_config's */
	if (f->k.num_redundant_experts >= 0 || f->k.ep_num_redundant_experts >= 0) {
		red = f->k.num_redundant_experts >= 0 ? f->k.num_redundant_experts : f->k.ep_num_redundant_experts;
		red_given = true;
	}
	if (f->k.eplb_iterations >= 0)
		interval = f->k.eplb_iterations;
	sc->par.ep_redundant = (int)red; /* the layout's physical experts */
	sc->eplb_interval = interval;
	if (sc->engine->knobs & ENGINE_KNOB_EPLB_VLLM)
		snprintf(sc->eplb_set, sizeof(sc->eplb_set), "vLLM --enable-eplb: num_redundant_experts %lld%s, step_interval %lld%s%s",
			 (long long)red, red_given ? "" : " (default)",
			 (long long)(interval ? interval : sc->engine->eplb_interval), interval ? "" : " (default)",
			 sc->eplb_async ? ", use_async" : "");
	else
		snprintf(sc->eplb_set, sizeof(sc->eplb_set), "SGLang --enable-eplb: ep_num_redundant_experts %lld%s, eplb_rebalance_num_iterations %lld%s",
			 (long long)red, red_given ? "" : " (default)",
			 (long long)(interval ? interval : sc->engine->eplb_interval), interval ? "" : " (default)");
	return 0;
}

int scenflags_build(struct scenflags *f, const struct wl_spec *wl, struct scenflags_ctx *x,
		    struct scenario *sc, struct err *e)
{
	int rc;
	const struct engine_type *en = f->engine ? f->engine : engine_default();
	/* SGLang's --ep-num-redundant-experts without --enable-eplb: the
	 * copies placed once over the EP ranks, never rebalanced.  SGLang
	 * reads the count whether or not EPLB is on: its expert placement
	 * (python/sglang/srt/eplb/expert_location.py, _init_common: physical
	 * experts = logical + ep_num_redundant_experts, asserted to divide by
	 * ep_size) and the MoE layer's weights (layers/moe/ep_moe/layer.py:
	 * num_experts + ep_num_redundant_experts) */
	bool fixed = !f->k.eplb && f->k.ep_num_redundant_experts >= 0 && f->k.eplb_iterations < 0 &&
		     (en->knobs & ENGINE_KNOB_EPLB_SGLANG);

	if (f->model && f->config)
		return err_set(e, SS_EUSAGE, "give --model or --config, not both");
	if ((rc = engine_check_knobs(en,
				     (f->k.mem_fraction_static > 0 ? ENGINE_KNOB_MEM_FRACTION : 0) |
					     (f->k.schedule_policy ? ENGINE_KNOB_SCHEDULE_POLICY : 0) |
					     (f->k.disable_overlap ? ENGINE_KNOB_NO_OVERLAP : 0) |
					     (f->k.max_prefill_tokens ? ENGINE_KNOB_MAX_PREFILL : 0) |
					     (f->k.sglang_mixed_chunk ? ENGINE_KNOB_MIXED_CHUNK : 0) |
					     (f->k.recv_interval ? ENGINE_KNOB_RECV_INTERVAL : 0) |
					     (f->k.no_deep_gemm ? ENGINE_KNOB_NO_DEEP_GEMM : 0) |
					     (f->k.sglang_dp_lm_head ? ENGINE_KNOB_DP_LM_HEAD : 0) |
					     (f->k.moe_dense_tp_size ? ENGINE_KNOB_MOE_DENSE_TP : 0),
				     deploy_given(&f->k, DEPLOY_GPU_MEMORY_UTILIZATION), e)) < 0)
		return rc;
	if ((rc = check_offload(f, en, e)) < 0 || (rc = check_lora(f, en, wl, e)) < 0 ||
	    (rc = engine_check_eplb(en, f->k.eplb, f->k.eplb_config || f->k.num_redundant_experts >= 0,
				    (f->k.ep_num_redundant_experts >= 0 && !fixed) || f->k.eplb_iterations >= 0, e)) < 0)
		return rc;
	if (!f->model && !f->config)
		f->model = "llama-3.1-8b";
	x->model = xcalloc(1, sizeof(*x->model));
	if ((rc = catalog_load_model(&x->env, f->model, f->config, x->model, e)) < 0)
		return rc;
	if ((rc = catalog_find_gpu(&x->env, f->gpu, &x->gpu, e)) < 0)
		return rc;
	if ((rc = par_flags_resolve(&f->pf, x->model, &f->par, e)) < 0)
		return rc;
	scenario_defaults(sc, en, x->model, x->gpu, wl);
	sc->par = f->par;
	sc->wdt = f->dtype;
	deploy_overlay(&deploy_table, &sc->k, &f->k);
	if (deploy_given(&f->k, DEPLOY_MAX_NUM_SEQS))
		sc->sglang_mrr_rule = false;
	sc->ov = f->ov;
	/* --kv-dtype, else the engine's default for these weights */
	sc->kvdt = f->kv_given ? f->kvdtype
			       : scenario_kv_auto(x->model, x->gpu, sc->engine, f->dtype, sc->kvdt_src, sizeof(sc->kvdt_src));
	/* the settings only some engines take (refused above for the others) */
	if (f->k.schedule_policy && (rc = sglang_policy_parse(f->k.schedule_policy, &sc->sglang_policy, e)) < 0)
		return rc;
	sc->sglang_recv_interval = (int)f->k.recv_interval;
	sc->kv_offloading_backend = f->k.kv_offloading_backend && strcmp(f->k.kv_offloading_backend, "lmcache") == 0
					    ? KV_OFFLOAD_LMCACHE : KV_OFFLOAD_NATIVE;
	sc->lora_max = f->k.max_loras > 0 ? f->k.max_loras : f->k.max_loras_per_batch;
	sc->lora_host = f->k.max_cpu_loras > 0 ? f->k.max_cpu_loras : f->k.max_loaded_loras;
	snprintf(sc->engine_version, sizeof(sc->engine_version), "%s",
		 f->engine_version ? f->engine_version : "");
	sc->moe_dist = f->moe_dist;
	sc->moe_format = f->moe_format;
	sc->moe_backend = sc->prefill_moe_backend = f->moe_backend;
	sc->moe_wdt_given = f->moe_dtype_given;
	sc->moe_wdt = f->moe_dtype;
	if ((rc = resolve_eplb(f, sc, e)) < 0)
		return rc;
	if (fixed)
		sc->par.ep_redundant = (int)f->k.ep_num_redundant_experts;
	if ((rc = cost_parse_off(f->tier0_off, &sc->tier0_off, e)) < 0)
		return rc;
	if (f->tier2 && strcmp(f->tier2, "none") != 0) {
		if ((rc = tier2_load(f->tier2, &x->t2, e)) < 0)
			return rc;
		sc->tier2 = &x->t2;
	} else if (!f->tier2) {
		char root[1100];
		bool found;
		snprintf(root, sizeof(root), "%s/..", x->env.data_dir);
		if ((rc = tier2_find(root, x->gpu->id, &x->t2, &found, e)) < 0)
			return rc;
		if (found)
			sc->tier2 = &x->t2;
	}
	if ((rc = apply_calibration(f, x, sc, e)) < 0)
		return rc;
	return scenario_check_config(sc, f->allow_invalid, x->notes, sizeof(x->notes), e);
}

int scenflags_run_build(const struct scenflags_run *o, bool allow_invalid, struct scenflags_ctx *x,
			struct scenario *sc, struct model_cfg **draft, struct err *e)
{
	int rc;

	if (o->pd_prefill > 0) {
		sc->pd_prefill = o->pd_prefill;
		sc->pd_decode = o->pd_decode;
		sc->prefill_par = sc->par;
		if (o->prefill_tp)
			sc->prefill_par.tp = (int)o->prefill_tp;
		if (o->prefill_dp)
			sc->prefill_par.dp = (int)o->prefill_dp;
		sc->pd_handoff_ms = o->handoff_ms;
		sc->pd_handoff_given = o->handoff_given;
		if (o->prefill_ep)
			sc->prefill_par.ep = (int)o->prefill_ep;
		else if (sc->par.ep > 1) /* EP over the worker's GPUs */
			sc->prefill_par.ep = sc->prefill_par.tp * sc->prefill_par.dp;
		if (o->prefill_moe_backend) {
			if ((rc = moe_backend_parse(o->prefill_moe_backend, &sc->prefill_moe_backend, e)) < 0) {
				err_prefix(e, "--prefill-moe-backend");
				return rc;
			}
		}
		if (o->prefill_gpu) {
			const struct gpu_spec *g;
			if ((rc = catalog_find_gpu(&x->env, o->prefill_gpu, &g, e)) < 0) {
				err_prefix(e, "--prefill-gpu");
				return rc;
			}
			if (g != sc->gpu && strcmp(g->id, sc->gpu->id) != 0)
				sc->prefill_gpu = g;
		}
		if ((rc = scenario_check_pd(sc, allow_invalid, x->notes, sizeof(x->notes), e)) < 0)
			return rc;
	}
	sc->epd_encoders = o->epd_encoders;
	if (o->spec_k > 0) {
		char dname[128] = "";
		sc->spec.k = (int)o->spec_k;
		sc->spec.method = SPEC_MTP;
		if (o->spec_method &&
		    (rc = spec_parse_method(o->spec_method, &sc->spec.method, dname, sizeof(dname), e)) < 0)
			return rc;
		if (o->spec_rates) {
			if ((rc = spec_parse_rates(o->spec_rates, &sc->spec, e)) < 0)
				return rc;
		} else if (spec_default_rates(&sc->spec, sc->workload &&
							       wl_prompt_kind(sc->workload) == WL_PROMPTS_RANDOM) < 0) {
			/* measured per-position curves exist for mtp and eagle only */
			return err_set(e, SS_EUSAGE, "--speculative-method %s needs --acceptance-rate",
				       o->spec_method);
		}
		if ((rc = scenario_check_spec(sc, allow_invalid, x->notes, sizeof(x->notes), e)) < 0)
			return rc;
		if (sc->spec.method == SPEC_DRAFT) {
			*draft = xcalloc(1, sizeof(**draft));
			if ((rc = catalog_load_model(&x->env, dname, NULL, *draft, e)) < 0) {
				err_prefix(e, "--speculative-method draft:%s", dname);
				return rc;
			}
			sc->draft_model = *draft;
		}
	}
	return 0;
}

int scenflags_run_check(struct scenflags *f, const struct scenflags_run *o, const char *decode_gpu, struct err *e)
{
	if (f->model && f->config)
		return err_set(e, SS_EUSAGE, "give --model or --config, not both");
	if ((o->prefill_tp || o->prefill_ep || o->prefill_dp || o->handoff_given || o->prefill_gpu || decode_gpu ||
	     o->prefill_moe_backend) && !o->pd_prefill)
		return err_set(e, SS_EUSAGE, "--prefill-tp, --prefill-ep, --prefill-dp, --prefill-gpu, --decode-gpu, "
			       "--prefill-moe-backend and --kv-handoff-ms need --disaggregate XpYd");
	if (decode_gpu && f->gpu_given)
		return err_set(e, SS_EUSAGE, "--decode-gpu names the decode workers' GPU, as --gpu does: give one of them");
	if (decode_gpu)
		f->gpu = decode_gpu;
	if ((o->spec_method || o->spec_rates) && !o->spec_k)
		return err_set(e, SS_EUSAGE, "--speculative-method and --acceptance-rate need --speculative-tokens K");
	return 0;
}

int scenflags_run_parse_pd(const char *arg, struct scenflags_run *o, struct err *e)
{
	long long v[3] = {0, 0, 0};
	bool epd = strchr(arg, 'e') != NULL;

	/* E/P/D: XeYpZd, or Xe1pd (encoders ahead of the aggregated engine) */
	if (epd && argval_pattern(arg, "#e1pd", v, 1) && v[0] >= 1 && v[0] <= 1024) {
		o->epd_encoders = (int)v[0];
		return 0;
	}
	if (!(epd ? argval_pattern(arg, "#e#p#d", v, 3) : argval_pattern(arg, "#p#d", v + 1, 2)) ||
	    (epd && (v[0] < 1 || v[0] > 1024)) || v[1] < 1 || v[2] < 1 || v[1] > 1024 || v[2] > 1024)
		return err_set(e, SS_EUSAGE,
			       "--disaggregate must be XpYd (X prefill and Y decode workers, 1 to 1024 each), "
			       "XeYpZd or Xe1pd (X encoder workers ahead of them or of the aggregated engine), got '%s'",
			       arg);
	o->epd_encoders = (int)v[0];
	o->pd_prefill = (int)v[1];
	o->pd_decode = (int)v[2];
	return 0;
}

int scenflags_breakdown_parse(const char *arg, struct bd_step *o, struct err *e)
{
	long long v[3] = {0, 0, 0}, b, x, y;
	int n;

	if (strncmp(arg, "decode:", 7) == 0) {
		n = argval_pattern(arg, "decode:#:#", v, 2) ? 2 : 0;
		b = v[0], x = v[1];
		if (n == 2 && b >= 1 && b <= 1 << 20 && x >= 0 && x <= 1 << 24) {
			o->batch = b;
			o->len = 1;
			o->ctx = x;
			return 0;
		}
	} else if (strncmp(arg, "prefill:", 8) == 0) {
		n = argval_pattern(arg, "prefill:#:#:#", v, 3) ? 3 : argval_pattern(arg, "prefill:#:#", v, 2) ? 2 : 0;
		b = v[0], x = v[1], y = v[2];
		if ((n == 2 || n == 3) && b >= 1 && b <= 1 << 20 && x >= 1 && x <= 1 << 24 && y >= 0 &&
		    y <= 1 << 24) {
			o->prefill = true;
			o->batch = b;
			o->len = x;
			o->ctx = n == 3 ? y : 0;
			return 0;
		}
	}
	return err_set(e, SS_EUSAGE,
		       "--breakdown must be decode:BATCH:CONTEXT or prefill:BATCH:LEN[:PREFIX] (BATCH 1..1048576, "
		       "LEN 1.. and CONTEXT, PREFIX 0..16777216 tokens), got '%s'",
		       arg);
}

int scenflags_breakdown(const struct scenario_state *st, const struct bd_step *b, const struct cost_model **cm,
			int64_t *nlocal, struct cost_breakdown *bd, struct err *e)
{
	const struct cost_model *c = b->prefill && st->has_prefill ? &st->prefill_cost : &st->cost;
	int64_t local = (b->batch + c->p.dp - 1) / c->p.dp, i;
	int64_t *lens = NULL, *pre = NULL;
	struct step_desc d;
	int rc;

	memset(&d, 0, sizeof(d));
	d.nlogits = local;
	if (b->prefill) {
		lens = xcalloc((size_t)local, sizeof(*lens));
		pre = xcalloc((size_t)local, sizeof(*pre));
		for (i = 0; i < local; i++) {
			lens[i] = b->len;
			pre[i] = b->ctx;
		}
		d.nchunks = local;
		d.chunk_len = lens;
		d.chunk_prefix = pre;
	} else {
		d.ndecode = local;
		d.decode_ctx_sum = (double)local * (double)(b->ctx + 1); /* the cached keys and its own */
	}
	if (c->dp_attn) {
		/* the shared MoE layers take the tokens of every rank as a group
		 * step of the simulator gathers them (sim/step.c group_start):
		 * the batch's requests, unpadded, spread as the router spreads
		 * them, and a one-token dummy step of each rank left idle (not
		 * the priced rank's share times the ranks: B = 1 over DP 8 is
		 * one prompt's tokens, not eight) */
		int64_t busy = b->batch < c->p.dp ? b->batch : c->p.dp;
		d.moe_tokens = b->batch * b->len + (c->p.dp - busy);
	}
	rc = cost_step_breakdown(c, &d, bd, e);
	*cm = c;
	*nlocal = local;
	free(lens);
	free(pre);
	return rc;
}

void scenflags_breakdown_limits(const struct scenario_state *st, const struct bd_step *b, struct bd_limits *out)
{
	bool pre = b->prefill && st->has_prefill;

	out->max_model_len = st->sc.max_model_len;
	out->max_seqs = pre ? st->sc.pd.prefill_max_num_seqs : st->sc.max_num_seqs;
	out->kv_blocks = pre ? st->sc.pd.prefill_kv_blocks : st->sc.total_kv_blocks;
	out->block_size = st->sc.block_size;
}

void scenflags_ctx_release(struct scenflags_ctx *x)
{
	free(x->model);
	x->model = NULL;
	catalog_release(&x->env);
}

