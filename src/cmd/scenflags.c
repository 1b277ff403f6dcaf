/* scenflags.c - run's model / hardware / engine / cost flags turned into a
 * struct scenario, for commands that simulate one scenario many times. */
#include "scenflags.h"

#include <stdlib.h>
#include <string.h>

#include "engine/registry.h"
#include "base/alloc.h"
#include "engine/sglang.h"

void scenflags_defaults(struct scenflags *f)
{
	memset(f, 0, sizeof(*f));
	f->gpu = "h100";
	f->par = (struct parallel){1, 1, 1, 1};
	f->router = ROUTER_LEAST_OUTSTANDING;
	f->replicas = 1;
	f->dtype = f->kvdtype = DT_BF16;
	f->block = 16;
	f->util = 0.9;
	cost_default_overheads(&f->ov);
}

/* A number in (0, hi] (unit after hi in the message). */
static int positive_upto(const char *flag, const char *arg, double hi, const char *unit, double *out, struct err *e)
{
	int rc = cli_double(flag, arg, 0, true, out, e);

	if (rc == 0 && *out > hi)
		rc = err_set(e, SS_EUSAGE, "%s must be in (0, %.15g]%s, got %g", flag, hi, unit, *out);
	return rc;
}

int scenflags_option(int code, const char *arg, struct scenflags *f, struct err *e)
{
	int rc = 0;

	switch (code) {
	case SCF: f->model = arg; break;
	case SCF + 1: f->config = arg; break;
	case SCF + 2: f->gpu = arg; break;
	case SCF + 3: rc = router_parse("--router", arg, &f->router, e); break;
	case SCF + 4: rc = dtype_parse(arg, &f->dtype, e); break;
	case SCF + 5: rc = dtype_parse(arg, &f->kvdtype, e); f->kv_given = true; break;
	case SCF + 6: rc = cli_int("--max-num-batched-tokens", arg, 1, 1 << 20, &f->mbt, e); break;
	case SCF + 7: rc = cli_int("--max-num-seqs", arg, 1, 1 << 16, &f->mns, e); break;
	case SCF + 8: rc = cli_int("--max-model-len", arg, 1, 1 << 24, &f->mml, e); break;
	case SCF + 9: rc = cli_int("--block-size", arg, 1, 1024, &f->block, e); f->block_given = true; break;
	case SCF + 10:
		rc = cli_double("--gpu-memory-utilization", arg, 0, true, &f->util, e);
		if (rc == 0 && f->util > 1)
			rc = err_set(e, SS_EUSAGE, "--gpu-memory-utilization must be in (0, 1], got %g", f->util);
		f->util_given = true;
		break;
	case SCF + 11: rc = cli_int("--long-prefill-token-threshold", arg, 0, 1 << 24, &f->lpt, e); break;
	case SCF + 12: rc = cli_int("--total-kv-blocks", arg, 1, 1 << 28, &f->kv_blocks, e); break;
	case SCF + 13: f->no_prefix = true; break;
	case SCF + 14: f->tier0_off = arg; break;
	case SCF + 15: f->tier2 = arg; break;
	case SCF + 16: rc = engine_lookup(arg, &f->engine, e); break;
	case SCF + 17: rc = engine_version_check(arg, e); f->engine_version = arg; break;
	case SCF + 18: rc = dtype_parse(arg, &f->moe_dtype, e); f->moe_dtype_given = true; break;
	case SCF + 19: rc = moe_dist_parse(arg, &f->moe_dist, e); break;
	case SCF + 20: {
		enum moe_fmt mf;
		if ((rc = moe_fmt_parse(arg, &mf, e)) == 0)
			f->moe_format = (int)mf + 1;
		break;
	}
	case SCF + 21: f->allow_invalid = true; break;
	case SCF + 22: f->calibration = arg; break;
	case SCF + 23: f->force_calibration = true; break;
	case SCF + 24:
		rc = cli_double("--mem-fraction-static", arg, 0, true, &f->mem_frac, e);
		if (rc == 0 && f->mem_frac > 1)
			rc = err_set(e, SS_EUSAGE, "--mem-fraction-static must be in (0, 1], got %g", f->mem_frac);
		break;
	case SCF + 25: {
		enum sglang_policy pol;
		rc = sglang_policy_parse(arg, &pol, e);
		f->sg_policy = arg;
		break;
	}
	case SCF + 26: f->no_overlap = true; break;
	case SCF + 27: rc = cli_int("--replicas", arg, 1, SIM_MAX_REPLICAS, &f->replicas, e); break;
	case SCF + 32: rc = positive_upto("--kv-offloading-size", arg, 1048576, " GiB", &f->kv_off_gib, e); break;
	case SCF + 33:
		if (strcmp(arg, "native") != 0 && strcmp(arg, "lmcache") != 0)
			rc = err_set(e, SS_EUSAGE, "--kv-offloading-backend must be native or lmcache, got '%s'", arg);
		f->kv_off_backend = arg;
		break;
	case SCF + 34: f->hicache = true; break;
	case SCF + 35: rc = positive_upto("--hicache-ratio", arg, 1000, "", &f->hicache_ratio, e); break;
	case SCF + 36: rc = positive_upto("--hicache-size", arg, 1048576, " GB", &f->hicache_gb, e); break;
	case SCF + 37: f->lora = true; break;
	case SCF + 38: rc = cli_int("--max-loras", arg, 1, 4096, &f->lora_max_vl, e); break;
	case SCF + 39: rc = cli_int("--max-lora-rank", arg, 1, 4096, &f->lora_rank, e); break;
	case SCF + 40: rc = cli_int("--max-cpu-loras", arg, 1, WL_MAX_ADAPTERS, &f->lora_host_vl, e); break;
	case SCF + 41: rc = cli_int("--max-loras-per-batch", arg, 1, 4096, &f->lora_max_sg, e); break;
	case SCF + 42: rc = cli_int("--max-loaded-loras", arg, 1, WL_MAX_ADAPTERS, &f->lora_host_sg, e); break;
	default:
		if ((rc = cli_shape_option(code, arg, NULL, &f->par, &f->pf, e)) != 0)
			return rc;
		if ((rc = cli_overhead_option(code, arg, &f->ov, e)) > 0)
			f->ov_given = true;
		return rc;
	}
	return rc < 0 ? rc : 1;
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
	bool vl = f->kv_off_gib > 0 || f->kv_off_backend, hc = f->hicache || f->hicache_ratio > 0 || f->hicache_gb > 0;

	int rc;

	if ((rc = engine_check_offload(en, vl, hc, e)) < 0)
		return rc;
	if (f->kv_off_backend && !(f->kv_off_gib > 0))
		return err_set(e, SS_EUSAGE, "--kv-offloading-backend needs --kv-offloading-size GiB (the size turns vLLM's KV offloading on)");
	if ((f->hicache_ratio > 0 || f->hicache_gb > 0) && !f->hicache)
		return err_set(e, SS_EUSAGE, "%s needs --enable-hierarchical-cache",
			       f->hicache_ratio > 0 ? "--hicache-ratio" : "--hicache-size");
	if ((vl || hc) && f->no_prefix)
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

	if ((rc = engine_check_lora(en, f->lora, f->lora_max_vl > 0 || f->lora_host_vl > 0,
				    f->lora_max_sg > 0 || f->lora_host_sg > 0, e)) < 0)
		return rc;
	if (f->lora_rank > 0 && !f->lora)
		return err_set(e, SS_EUSAGE, "--max-lora-rank needs --enable-lora");
	if (wl && wl->lora.adapters > 0 && !f->lora)
		return err_set(e, SS_EUSAGE, "the workload's requests name %lld LoRA adapter%s ('lora'): give --enable-lora",
			       (long long)wl->lora.adapters, wl->lora.adapters > 1 ? "s" : "");
	return 0;
}

int scenflags_build(struct scenflags *f, const struct wl_spec *wl, struct scenflags_ctx *x,
		    struct scenario *sc, struct err *e)
{
	int rc;

	const struct engine_type *en = f->engine ? f->engine : engine_default();

	if (f->model && f->config)
		return err_set(e, SS_EUSAGE, "give --model or --config, not both");
	if ((rc = engine_check_knobs(en,
				     (f->mem_frac > 0 ? ENGINE_KNOB_MEM_FRACTION : 0) |
					     (f->sg_policy ? ENGINE_KNOB_SCHEDULE_POLICY : 0) |
					     (f->no_overlap ? ENGINE_KNOB_NO_OVERLAP : 0),
				     f->util_given, e)) < 0)
		return rc;
	if ((rc = check_offload(f, en, e)) < 0 || (rc = check_lora(f, en, wl, e)) < 0)
		return rc;
	if (!f->model && !f->config)
		f->model = "llama-3.1-8b";
	x->model = xcalloc(1, sizeof(*x->model));
	if ((rc = catalog_load_model(&x->env, f->model, f->config, x->model, e)) < 0)
		return rc;
	if ((rc = catalog_find_gpu(&x->env, f->gpu, &x->gpu, e)) < 0)
		return rc;
	if ((rc = cli_parallel_resolve(&f->pf, x->model, &f->par, e)) < 0)
		return rc;
	scenario_defaults(sc, en, x->model, x->gpu, wl);
	sc->par = f->par;
	sc->wdt = f->dtype;
	if (f->mbt)
		sc->max_num_batched_tokens = f->mbt;
	if (f->mns) {
		sc->max_num_seqs = f->mns;
		sc->sglang_mrr_rule = false;
	}
	if (f->mml)
		sc->max_model_len = f->mml;
	if (f->block_given)
		sc->block_size = f->block;
	sc->long_prefill_token_threshold = f->lpt;
	sc->total_kv_blocks = f->kv_blocks;
	sc->gpu_memory_utilization = f->util;
	sc->prefix_caching = !f->no_prefix;
	sc->router = f->router;
	sc->replicas = (int)f->replicas;
	sc->ov = f->ov;
	/* --kv-dtype, else the engine's default for these weights */
	sc->kvdt = f->kv_given ? f->kvdtype
			       : scenario_kv_auto(x->model, x->gpu, sc->engine, f->dtype, sc->kvdt_src, sizeof(sc->kvdt_src));
	/* the settings only some engines take (refused above for the others) */
	sc->mem_fraction_static = f->mem_frac;
	if (f->sg_policy && (rc = sglang_policy_parse(f->sg_policy, &sc->sglang_policy, e)) < 0)
		return rc;
	sc->disable_overlap = f->no_overlap;
	sc->kv_offloading_gib = f->kv_off_gib;
	sc->kv_offloading_backend = f->kv_off_backend && strcmp(f->kv_off_backend, "lmcache") == 0
					    ? KV_OFFLOAD_LMCACHE : KV_OFFLOAD_NATIVE;
	sc->hicache = f->hicache;
	sc->hicache_ratio = f->hicache_ratio > 0 ? f->hicache_ratio : 2.0;
	sc->hicache_gb = f->hicache_gb;
	sc->lora = f->lora;
	sc->lora_max = f->lora_max_vl > 0 ? f->lora_max_vl : f->lora_max_sg;
	sc->lora_host = f->lora_host_vl > 0 ? f->lora_host_vl : f->lora_host_sg;
	sc->lora_rank = f->lora_rank;
	snprintf(sc->engine_version, sizeof(sc->engine_version), "%s",
		 f->engine_version ? f->engine_version : "");
	sc->moe_dist = f->moe_dist;
	sc->moe_format = f->moe_format;
	sc->moe_wdt_given = f->moe_dtype_given;
	sc->moe_wdt = f->moe_dtype;
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

void scenflags_out_config(const struct scenflags *f, const struct scenflags_ctx *x,
			  const struct scenario *sc, const struct scenario_state *st,
			  const struct wl_spec *wl, char *tables, size_t ntables, struct out_config *cfg)
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

void scenflags_ctx_release(struct scenflags_ctx *x)
{
	free(x->model);
	x->model = NULL;
	catalog_release(&x->env);
}
