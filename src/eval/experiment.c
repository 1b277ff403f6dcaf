/* experiment.c - reader of servesim's ground-truth experiment format. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/registry.h"
#include "eval/experiment.h"
#include "base/jfield.h"
#include "base/paths.h"
#include "readers/mooncake.h"

const char *ev_metric_name(enum ev_metric m)
{
	static const char *n[EM__COUNT] = {"ttft_mean_ms", "ttft_p90_ms", "itl_mean_ms",
					   "e2e_mean_ms", "e2e_p90_ms", "throughput_rps"};
	return (unsigned)m < EM__COUNT ? n[m] : "?";
}

static int stat_field(const struct json *st, const char *obj, const char *key, const char *ctx,
		      double *out, struct err *e)
{
	const struct json *o = json_get(st, obj);
	static const char *const keys[] = {"mean", "p50", "p90", "p99", "reported_mean", NULL};
	char c2[800];
	bool pres = false;
	int rc;

	*out = NAN;
	if (!o)
		return 0;
	snprintf(c2, sizeof(c2), "%s.%s", ctx, obj);
	if ((rc = json_check_keys(o, keys, c2, e)) < 0)
		return rc;
	if ((rc = json_opt_num(o, key, c2, out, &pres, e)) < 0)
		return rc;
	if (pres && !(*out >= 0 && *out <= GT_MAX_MS))
		return err_set(e, SS_EDATA, "%s: '%s' must be in [0, %g] ms, got %g", c2, key, GT_MAX_MS, *out);
	if (!pres)
		*out = NAN;
	return 0;
}

/* The engine block: name and version, then the deployment field table's
 * keys (deploy_exp_read) under the engine's rules: the limits an engine
 * leaves to its rules (SGLang's chunked_prefill_size by GPU,
 * max_running_requests by KV pool: absent = 0, experiment_scenario) are
 * optional for it and required of the others, max_model_len of all; an
 * engine's own settings refused for the others. */
static int parse_engine(const struct json *o, const char *ctx, struct experiment *x, struct err *e)
{
	const char *keys[DEPLOY__COUNT + 4] = {"name", "version", "moe_backend"};
	const struct engine_type *en;
	char c2[800], names[128];
	size_t nk = 3, i;
	const char *mb = NULL;
	int rc;

	for (i = 0; i < deploy_table.n; i++)
		if (deploy_table.row[i].exp_key && !deploy_table.row[i].exp_top)
			keys[nk++] = deploy_table.row[i].exp_key;
	keys[nk] = NULL;
	snprintf(c2, sizeof(c2), "%s: engine", ctx);
	if ((rc = json_check_keys(o, keys, c2, e)) < 0)
		return rc;
	if ((rc = jf_str(o, "version", c2, x->engine_version, sizeof(x->engine_version), false, e)) < 0 ||
	    (rc = jf_str(o, "name", c2, x->engine, sizeof(x->engine), false, e)) < 0 ||
	    (rc = json_opt_str(o, "moe_backend", c2, &mb, e)) < 0)
		return rc;
	if (mb && moe_backend_parse(mb, &x->moe_backend, NULL) < 0)
		return err_set(e, SS_EDATA,
			       "%s: 'moe_backend' must be TRTLLM, DEEPGEMM, CUTLASS, CUTEDSL, WIDEEP or default, got '%.40s'",
			       c2, mb);
	/* "unknown" (what import writes where the source names none) or a
	 * version the kernel collections can be matched to; any other word
	 * would silently take the default collection */
	if (x->engine_version[0] && strcmp(x->engine_version, "unknown") != 0 &&
	    engine_version_check(x->engine_version, NULL) < 0)
		return err_set(e, SS_EDATA, "%s: 'version' must be a version like 0.11.0 or 1.3.0rc20, or \"unknown\", got '%.40s'",
			       c2, x->engine_version);
	if (!(en = engine_find(x->engine))) {
		engine_names(names, sizeof(names), "or", false);
		return err_set(e, SS_EDATA, "%s: 'name' must be an engine servesim knows (%s), got '%s'", c2, names,
			       x->engine);
	}
	if (!(en->knobs & ENGINE_KNOB_MAX_PREFILL) && (json_get(o, "max_prefill_tokens") || json_get(o, "enable_mixed_chunk") ||
						      json_get(o, "scheduler_recv_interval"))) {
		const struct engine_type *owner = engine_owner(ENGINE_KNOB_MAX_PREFILL);
		return err_set(e, SS_EDATA,
			       "%s: 'max_prefill_tokens', 'enable_mixed_chunk' and 'scheduler_recv_interval' are %s's: give \"name\": \"%s\"",
			       c2, owner->title, owner->name);
	}
	if (!(en->knobs & ENGINE_KNOB_NO_DEEP_GEMM) && json_get(o, "no_deep_gemm")) {
		const struct engine_type *owner = engine_owner(ENGINE_KNOB_NO_DEEP_GEMM);
		return err_set(e, SS_EDATA, "%s: 'no_deep_gemm' is %s's: give \"name\": \"%s\"", c2, owner->title,
			       owner->name);
	}
	if (!(en->knobs & ENGINE_KNOB_DP_LM_HEAD) && (json_get(o, "enable_dp_lm_head") || json_get(o, "moe_dense_tp_size"))) {
		const struct engine_type *owner = engine_owner(ENGINE_KNOB_DP_LM_HEAD);
		return err_set(e, SS_EDATA, "%s: 'enable_dp_lm_head' and 'moe_dense_tp_size' are %s's: give \"name\": \"%s\"",
			       c2, owner->title, owner->name);
	}
	if (!(en->knobs & ENGINE_KNOB_MEM_FRACTION) && json_get(o, "mem_fraction_static")) {
		const struct engine_type *owner = engine_owner(ENGINE_KNOB_MEM_FRACTION);
		return err_set(e, SS_EDATA, "%s: 'mem_fraction_static' is %s's: give \"name\": \"%s\"", c2, owner->title,
			       owner->name);
	}
	if (!(en->knobs & ENGINE_KNOB_RULE_LIMITS) && !json_get(o, "max_num_batched_tokens"))
		return err_set(e, SS_EDATA, "%s: missing required key '%s'", c2, "max_num_batched_tokens");
	if (!(en->knobs & ENGINE_KNOB_RULE_LIMITS) && !json_get(o, "max_num_seqs"))
		return err_set(e, SS_EDATA, "%s: missing required key '%s'", c2, "max_num_seqs");
	if (!json_get(o, "max_model_len"))
		return err_set(e, SS_EDATA, "%s: missing required key '%s'", c2, "max_model_len");
	return deploy_exp_read(&deploy_table, o, c2, &x->k, e); /* (onto experiment_load's defaults) */
}

int experiment_load_requests(struct experiment *x, const char *file, bool server_side,
			     int64_t prefix, struct err *e);

static int parse_measured(const struct json *o, const char *ctx, struct experiment *x,
			  struct err *e)
{
	static const char *const keys[] = {"kind", "stages", "file", "server_side", "benchmarks",
					   "warmup_requests", "ttft_ms", "itl_ms", NULL};
	static const char *const skeys[] = {"index", "rate", "duration_s", "completed",
					    "achieved_rate", "ttft_ms", "itl_ms", "e2e_ms", NULL};
	char c2[800];
	const char *kind = NULL;
	const struct json *arr, *st;
	size_t i = 0;
	int rc;

	snprintf(c2, sizeof(c2), "%s: measured", ctx);
	if ((rc = json_check_keys(o, keys, c2, e)) < 0 || (rc = json_req_str(o, "kind", c2, &kind, e)) < 0)
		return rc;
	if (strcmp(kind, "requests") == 0) {
		const char *file = NULL;
		bool server = false;
		const struct json *bl = json_get(o, "benchmarks"), *b;
		if ((rc = json_req_str(o, "file", c2, &file, e)) < 0 ||
		    (rc = json_opt_bool(o, "server_side", c2, &server, e)) < 0)
			return rc;
		if ((rc = experiment_load_requests(x, file, server, x->wl.prefix_tokens, e)) < 0)
			return rc;
		for (b = json_first(bl); b; b = json_next(b)) {
			static const char *const bk[] = {"index", "strategy", "rate", NULL};
			int64_t idx;
			const char *strat = NULL;
			double rate = 0;
			if ((rc = json_check_keys(b, bk, c2, e)) < 0 ||
			    (rc = json_req_int(b, "index", c2, 0, GT_MAX_BENCH - 1, &idx, e)) < 0 ||
			    (rc = json_opt_str(b, "strategy", c2, &strat, e)) < 0 ||
			    (rc = json_opt_num(b, "rate", c2, &rate, NULL, e)) < 0)
				return rc;
			if (strat)
				snprintf(x->meas.b[idx].strategy, sizeof(x->meas.b[idx].strategy), "%s", strat);
			x->meas.b[idx].rate = rate;
		}
		return 0;
	}
	if (strcmp(kind, "closed") == 0) {
		/* a closed loop at fixed lengths: means over the requests after
		 * the warm-up (see exp_table_load) */
		struct measured_stage *m = &x->stages[0];
		int k;
		if (x->wl.process != WL_CONCURRENCY || x->wl.num_requests < 1)
			return err_set(e, SS_EDATA, "%s: kind \"closed\" needs a workload with process concurrency and num_requests",
				       c2);
		if ((rc = json_req_int(o, "warmup_requests", c2, 0, x->wl.num_requests - 1,
				       &x->warmup_requests, e)) < 0)
			return rc;
		for (k = 0; k < EM__COUNT; k++)
			m->v[k] = NAN;
		if ((rc = stat_field(o, "ttft_ms", "mean", c2, &m->v[EM_TTFT_MEAN], e)) < 0 ||
		    (rc = stat_field(o, "itl_ms", "mean", c2, &m->v[EM_ITL_MEAN], e)) < 0)
			return rc;
		if (!isnan(m->v[EM_TTFT_MEAN]) && !isnan(m->v[EM_ITL_MEAN]))
			m->v[EM_E2E_MEAN] = m->v[EM_TTFT_MEAN] + (x->wl.output.a - 1) * m->v[EM_ITL_MEAN];
		m->rate = (double)x->wl.concurrency;
		m->duration_s = 1;
		m->completed = x->wl.num_requests - x->warmup_requests;
		x->nstages = 1;
		x->kind = EXP_CLOSED;
		return 0;
	}
	if (strcmp(kind, "stages") != 0)
		return err_set(e, SS_EDATA, "%s: 'kind' must be \"stages\", \"requests\" or \"closed\", got \"%s\"",
			       c2, kind);
	arr = json_get(o, "stages");
	if (!arr || json_type_of(arr) != JSON_ARRAY || json_size(arr) == 0 || json_size(arr) > WL_MAX_STAGES)
		return err_set(e, SS_EDATA, "%s: 'stages' must be an array of 1..%d stages", c2, WL_MAX_STAGES);
	for (st = json_first(arr); st; st = json_next(st), i++) {
		struct measured_stage *m = &x->stages[i];
		char c3[900];
		int64_t idx;
		snprintf(c3, sizeof(c3), "%s.stages[%zu]", c2, i);
		if ((rc = json_check_keys(st, skeys, c3, e)) < 0 ||
		    (rc = json_req_int(st, "index", c3, 0, WL_MAX_STAGES - 1, &idx, e)) < 0 ||
		    (rc = json_req_num(st, "rate", c3, &m->rate, e)) < 0 ||
		    (rc = json_req_num(st, "duration_s", c3, &m->duration_s, e)) < 0 ||
		    (rc = json_req_int(st, "completed", c3, 0, INT64_MAX, &m->completed, e)) < 0)
			return rc;
		if (!(m->duration_s > 0 && m->duration_s <= WL_MAX_TIME_S))
			return err_set(e, SS_EDATA, "%s: 'duration_s' must be in (0, %g] s, got %g", c3, WL_MAX_TIME_S,
				       m->duration_s);
		if (!(m->rate >= 0 && m->rate <= WL_MAX_RATE))
			return err_set(e, SS_EDATA, "%s: 'rate' must be in [0, %g], got %g", c3, WL_MAX_RATE, m->rate);
		m->index = (int)idx;
		if ((rc = stat_field(st, "ttft_ms", "mean", c3, &m->v[EM_TTFT_MEAN], e)) < 0 ||
		    (rc = stat_field(st, "ttft_ms", "p90", c3, &m->v[EM_TTFT_P90], e)) < 0 ||
		    (rc = stat_field(st, "itl_ms", "mean", c3, &m->v[EM_ITL_MEAN], e)) < 0 ||
		    (rc = stat_field(st, "e2e_ms", "mean", c3, &m->v[EM_E2E_MEAN], e)) < 0 ||
		    (rc = stat_field(st, "e2e_ms", "p90", c3, &m->v[EM_E2E_P90], e)) < 0)
			return rc;
		m->v[EM_THROUGHPUT] = (double)m->completed / m->duration_s;
	}
	x->nstages = i;
	return 0;
}

/* file as an experiment names it: relative to the folder of its
 * experiment.json unless absolute. */
static void exp_file_path(const struct experiment *x, const char *file, char *out, size_t n)
{
	char dir[700];

	paths_dir(x->path, dir, sizeof(dir));
	if (file[0] == '/')
		snprintf(out, n, "%s", file);
	else
		snprintf(out, n, "%s/%s", dir, file);
}

/* A workload that replays a Mooncake trace (arrival process "mooncake"):
 * the file, relative to the experiment's folder, its first 'requests'
 * (0 or absent: all) and the 'speedup' its timestamps were divided by. */
static int load_mooncake(const struct json *o, const struct json *arr, const char *ctx, struct experiment *x,
			 struct err *e)
{
	static const char *const tk[] = {"arrival", NULL};
	static const char *const ak[] = {"process", "file", "requests", "speedup", NULL};
	char c3[820], p[1100];
	const char *file = NULL;
	int rc;

	snprintf(c3, sizeof(c3), "%s.arrival", ctx);
	x->trace_speedup = 1;
	if ((rc = json_check_keys(o, tk, ctx, e)) < 0 || (rc = json_check_keys(arr, ak, c3, e)) < 0 ||
	    (rc = json_req_str(arr, "file", c3, &file, e)) < 0 ||
	    (rc = json_opt_int(arr, "requests", c3, 0, INT64_MAX, &x->trace_requests, NULL, e)) < 0 ||
	    (rc = json_opt_num(arr, "speedup", c3, &x->trace_speedup, NULL, e)) < 0)
		return rc;
	snprintf(x->trace_file, sizeof(x->trace_file), "%s", file);
	exp_file_path(x, file, p, sizeof(p));
	if ((rc = mooncake_read(p, &x->wl, e)) < 0)
		return rc;
	return mooncake_slice(&x->wl, x->trace_requests, x->trace_speedup, c3, e);
}

int experiment_load(const char *path, struct experiment *x, struct err *e)
{
	/* (then the deployment field table's top-level keys: replicas, router) */
	static const char *const own[] = {"name", "source", "model", "gpu", "tp", "pp", "dp", "ep",
		"dtype", "kv_dtype", "precision", "engine", "workload", "workload_name", "measured", "checkpoint"};
	const char *keys[sizeof(own) / sizeof(own[0]) + DEPLOY__COUNT + 1];
	size_t nk = 0, i;
	struct json *root = NULL;
	const struct json *o;
	const char *dt = "bf16";
	int64_t v;
	int rc;

	memset(x, 0, sizeof(*x));
	wl_spec_defaults(&x->wl);
	deploy_defaults(&deploy_table, &x->k);
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		keys[nk++] = own[i];
	for (i = 0; i < deploy_table.n; i++)
		if (deploy_table.row[i].exp_key && deploy_table.row[i].exp_top)
			keys[nk++] = deploy_table.row[i].exp_key;
	keys[nk] = NULL;
	snprintf(x->path, sizeof(x->path), "%s", path);
	snprintf(x->format, sizeof(x->format), "servesim");
	if ((rc = json_parse_file(path, &root, e)) < 0)
		return rc;
	if ((rc = json_check_keys(root, keys, path, e)) < 0 ||
	    (rc = jf_str(root, "name", path, x->name, sizeof(x->name), true, e)) < 0 ||
	    (rc = jf_str(root, "source", path, x->source, sizeof(x->source), false, e)) < 0 ||
	    (rc = jf_str(root, "workload_name", path, x->workload_name, sizeof(x->workload_name),
			   false, e)) < 0 ||
	    (rc = jf_str(root, "model", path, x->model, sizeof(x->model), true, e)) < 0 ||
	    (rc = jf_str(root, "checkpoint", path, x->checkpoint, sizeof(x->checkpoint), false, e)) < 0 ||
	    (rc = jf_str(root, "gpu", path, x->gpu, sizeof(x->gpu), true, e)) < 0 ||
	    (rc = jf_str(root, "precision", path, x->precision, sizeof(x->precision), false, e)) < 0)
		goto out;
	x->tp = x->pp = x->dp = x->ep = 1;
	if ((rc = json_req_int(root, "tp", path, 1, 4096, &v, e)) < 0)
		goto out;
	x->tp = (int)v;
	if ((rc = jf_int(root, "pp", path, 1, 4096, &x->pp, e)) < 0 ||
	    (rc = jf_int(root, "dp", path, 1, 4096, &x->dp, e)) < 0 ||
	    (rc = jf_int(root, "ep", path, 1, 4096, &x->ep, e)) < 0)
		goto out;
	/* replicas and router: copies of the whole layout behind a router, as
	 * `run --replicas N --router R` deploys them */
	if ((rc = deploy_exp_read_top(&deploy_table, root, path, &x->k, e)) < 0)
		goto out;
	if (x->k.router) /* (its canonical name: the JSON's string goes with root) */
		x->k.router = router_name(router_kind_of(x->k.router, ROUTER_ROUND_ROBIN));
	if ((rc = json_opt_str(root, "dtype", path, &dt, e)) < 0)
		goto out;
	if ((rc = dtype_parse(dt, &x->dtype, e)) < 0) {
		rc = err_set(e, SS_EDATA, "%s: 'dtype' must be bf16, fp16, fp8 or fp4, got \"%s\"", path, dt);
		goto out;
	}
	dt = NULL;
	if ((rc = json_opt_str(root, "kv_dtype", path, &dt, e)) < 0)
		goto out;
	if (dt) {
		if (dtype_parse(dt, &x->kv_dtype, e) < 0 || (x->kv_dtype != DT_BF16 && x->kv_dtype != DT_FP16 &&
							      x->kv_dtype != DT_FP8)) {
			rc = err_set(e, SS_EDATA, "%s: 'kv_dtype' must be bf16, fp16 or fp8, got \"%s\"", path, dt);
			goto out;
		}
		x->kv_dtype_given = true;
	}
	if ((rc = jf_req(root, "engine", path, &o, e)) < 0 || (rc = parse_engine(o, path, x, e)) < 0 ||
	    (rc = jf_req(root, "workload", path, &o, e)) < 0)
		goto out;
	{
		char c2[800];
		const struct json *arr = json_get(o, "arrival");
		const char *proc = arr ? json_string(json_get(arr, "process")) : NULL;
		snprintf(c2, sizeof(c2), "%s: workload", path);
		if (proc && strcmp(proc, "mooncake") == 0) {
			if ((rc = load_mooncake(o, arr, c2, x, e)) < 0)
				goto out;
		} else if (proc && strcmp(proc, "trace") == 0) {
			/* per-request experiments replay their measured requests */
			static const char *const tk[] = {"seed", "arrival", "prefix_tokens", NULL};
			static const char *const ak[] = {"process", "file", NULL};
			char c3[820];
			const char *file;
			int64_t pt = 0, seed;
			snprintf(c3, sizeof(c3), "%s.arrival", c2);
			if ((rc = json_check_keys(o, tk, c2, e)) < 0 || (rc = json_check_keys(arr, ak, c3, e)) < 0 ||
			    (rc = json_opt_str(arr, "file", c3, &file, e)) < 0 ||
			    (rc = json_opt_int(o, "seed", c2, 0, INT64_MAX, &seed, NULL, e)) < 0 ||
			    (rc = json_opt_int(o, "prefix_tokens", c2, 0, WL_MAX_TOKENS, &pt, NULL, e)) < 0)
				goto out;
			wl_spec_defaults(&x->wl);
			x->wl.prefix_tokens = pt;
		} else if ((rc = wl_spec_from_json(o, c2, &x->wl, e)) < 0) {
			goto out;
		}
		snprintf(x->wl.source, sizeof(x->wl.source), "%s", x->name);
	}
	if ((rc = jf_req(root, "measured", path, &o, e)) == 0)
		rc = parse_measured(o, path, x, e);
out:
	json_free(root);
	if (rc < 0)
		experiment_release(x); /* what a trace or requests file loaded; callers release only loaded ones */
	return rc;
}

void experiment_release(struct experiment *x)
{
	wl_spec_release(&x->wl);
	gt_requests_release(&x->meas);
	free(x->replay);
	x->replay = NULL;
}

/* --- foreign folders and per-request experiments --- */

#include <sys/stat.h>

#include "readers/facts.h"
#include "base/afile.h"
#include "base/paths.h"
#include "base/alloc.h"
#include "base/csv.h"
#include "base/yaml.h"

static bool file_exists(const char *dir, const char *name, char *out, size_t n)
{
	struct stat sb;

	snprintf(out, n, "%s/%s", dir, name);
	return stat(out, &sb) == 0 && S_ISREG(sb.st_mode);
}

bool experiment_detect(const char *dir)
{
	char f[1200];

	return reader_of_dir(dir, f, sizeof(f)) != NULL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n = strlen(path);

	while (b && b[1] == '\0' && n > 1) { /* trailing slash */
		n--;
		b = memrchr(path, '/', n - 1);
	}
	return b ? b + 1 : path;
}

/* exp-config.yaml + engine facts (engine-facts.json or vllm.log) */
static int load_configs(const char *dir, const char *gpu, struct experiment *x, struct err *e)
{
	char p[1200];
	struct exp_config c;
	struct engine_facts f;
	int rc;

	facts_init(&f);
	if (!file_exists(dir, "exp-config.yaml", p, sizeof(p)))
		return err_set(e, SS_EDATA, "%s: no exp-config.yaml (model, tensor_parallelism, engine limits)", dir);
	if ((rc = facts_read_exp_config(p, &c, e)) < 0)
		return rc;
	if (file_exists(dir, "engine-facts.json", p, sizeof(p)) && (rc = facts_read_json(p, &f, e)) < 0)
		return rc;
	if (file_exists(dir, "vllm.log", p, sizeof(p)) && (rc = facts_read_log(p, &f, e)) < 0)
		return rc;
	snprintf(x->model, sizeof(x->model), "%s", c.model);
	snprintf(x->gpu, sizeof(x->gpu), "%s", gpu);
	x->tp = c.tp;
	x->pp = x->dp = x->ep = 1;
	x->dtype = DT_BF16;
	/* what the facts and exp-config.yaml give, else the bare files'
	 * documented defaults (exp_settings_base: max_num_seqs 256,
	 * max_model_len 4096) */
	experiment_default_knobs(&x->k, f.mns ? f.mns : c.mns ? c.mns : 256, f.mml ? f.mml : c.mml ? c.mml : 4096);
	if (f.mbt || c.mbt)
		x->k.max_num_batched_tokens = f.mbt ? f.mbt : c.mbt;
	x->k.total_kv_blocks = f.kv_blocks;
	x->k.prefix_caching = f.prefix_caching != 0; /* vLLM v1 default: on */
	snprintf(x->engine_version, sizeof(x->engine_version), "%s", f.version[0] ? f.version : "unknown");
	snprintf(x->name, sizeof(x->name), "%s", base_name(dir));
	snprintf(x->source, sizeof(x->source), "%s", dir);
	return 0;
}

/* GuideLLM's benchmark options as its profile.yaml records them (the
 * ground-truth folders of ../shared/data: rate-type, rate, max-requests,
 * random-seed, data) and the other `guidellm benchmark` options of the same
 * spelling; data holds its synthetic-data settings (SyntheticDatasetConfig:
 * prefix, prompt and output token counts with their stdev/min/max). */
static const char *const profile_keys[] = {"rate-type", "rate", "max-requests", "max-seconds",
	"random-seed", "data", "target", "model", "backend-type", "processor", "warmup-percent",
	"cooldown-percent", "output-path", NULL};
static const char *const profile_data_keys[] = {"prefix_tokens", "prompt_tokens",
	"prompt_tokens_stdev", "prompt_tokens_min", "prompt_tokens_max", "output_tokens",
	"output_tokens_stdev", "output_tokens_min", "output_tokens_max", "samples", NULL};

/* Shared prefix of GuideLLM synthetic data: data.prefix_tokens of
 * profile.yaml (GuideLLM's synthetic-data default is 0 when the key is
 * absent).  *found false when there is no profile.yaml; a malformed profile or
 * a bad value is an error, never a silent 0. */
static int profile_prefix_tokens(const char *dir, int64_t *prefix, bool *found, struct err *e)
{
	char p[1200];
	struct json *j;
	const struct json *d;
	int64_t v = 0;
	int rc;

	*prefix = 0;
	*found = file_exists(dir, "profile.yaml", p, sizeof(p));
	if (!*found)
		return 0;
	if ((rc = yaml_parse_file(p, &j, e)) < 0)
		return rc;
	if ((rc = jf_mapping(j, p, "GuideLLM options", e)) < 0 || (rc = json_check_keys(j, profile_keys, p, e)) < 0)
		goto out;
	d = json_get(j, "data");
	if (d && json_type_of(d) != JSON_OBJECT) {
		rc = err_set(e, SS_EDATA, "%s: 'data' must be a mapping of synthetic-data settings, got %s",
			     p, json_type_name(json_type_of(d)));
		goto out;
	}
	if (d) {
		char ctx[1300];
		size_t i;
		snprintf(ctx, sizeof(ctx), "%s: data", p);
		if ((rc = json_check_keys(d, profile_data_keys, ctx, e)) < 0)
			goto out;
		/* every count checked, not only the one used: a bad one means the
		 * profile is not what the run used */
		for (i = 0; profile_data_keys[i]; i++) {
			const char *k = profile_data_keys[i];
			int64_t n;
			double x;
			bool pres;
			if (!strstr(k, "_stdev")) {
				if ((rc = json_opt_int(d, k, ctx, 0, WL_MAX_TOKENS, &n, NULL, e)) < 0)
					goto out;
			} else if ((rc = json_opt_num(d, k, ctx, &x, &pres, e)) < 0) {
				goto out;
			} else if (pres && !(x >= 0 && x <= (double)WL_MAX_TOKENS)) {
				rc = err_set(e, SS_EDATA, "%s: '%s' must be in [0, %lld], got %g", ctx, k,
					     (long long)WL_MAX_TOKENS, x);
				goto out;
			}
		}
		if ((rc = json_opt_int(d, "prefix_tokens", ctx, 0, WL_MAX_TOKENS, &v, NULL, e)) < 0)
			goto out;
	}
	rc = 0;
out:
	json_free(j);
	*prefix = v;
	return rc;
}

static void build_replay(struct experiment *x, int64_t prefix)
{
	size_t i;

	x->replay = xcalloc(x->meas.n ? x->meas.n : 1, sizeof(*x->replay));
	for (i = 0; i < x->meas.n; i++) {
		const struct gt_request *r = &x->meas.r[i];
		struct wl_req *w = &x->replay[i];
		w->arrival_ns = (int64_t)llround(r->arrival_s * 1e9);
		w->prompt_tokens = r->prompt_tokens;
		w->output_tokens = r->output_tokens;
		w->prefix_group = prefix > 0 ? 0 : -1;
		w->prefix_tokens = prefix < r->prompt_tokens ? prefix : 0;
		w->content_id = -(int64_t)(i + 1);
		w->stage = r->stage;
	}
	wl_spec_defaults(&x->wl);
	x->wl.process = WL_TRACE;
	x->wl.prefix_tokens = prefix;
	x->wl.num_requests = 0;
	x->wl.records = x->replay;
	x->wl.nrecords = x->meas.n;
	snprintf(x->wl.source, sizeof(x->wl.source), "%s (replay)", x->name);
}

static int load_requests_csv(const char *path, struct gt_requests *g, struct err *e)
{
	static const char *const cols[] = {"arrival_s", "prompt_tokens", "output_tokens", "ttft_ms",
					   "e2e_ms", NULL};
	struct csv *c;
	int idx[5], sc, rc;

	memset(g, 0, sizeof(*g));
	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	{
		/* the one optional column; a slip of it ("Stage") refused */
		static const char *const opt[] = {"stage", NULL};
		static const char *const known[] = {"arrival_s", "prompt_tokens", "output_tokens", "ttft_ms",
						    "e2e_ms", "stage", NULL};
		if ((rc = csv_optional(c, opt, known, &sc, e)) < 0)
			goto out;
	}
	while ((rc = csv_next(c, e)) > 0) {
		static const struct gt_fields f = {"arrival_s", "prompt_tokens", "output_tokens", "ttft_ms", "e2e_ms"};
		double v[5], st = 0;
		char ctx[1500];
		struct gt_request *r;
		int k;
		for (k = 0; k < 5; k++)
			if ((rc = csv_num(c, idx[k], &v[k], e)) < 0)
				goto out;
		if (sc >= 0 && (rc = csv_num(c, sc, &st, e)) < 0)
			goto out;
		if (!(v[0] >= 0 && v[0] <= WL_MAX_TIME_S) || !(v[1] >= 1 && v[1] <= (double)WL_MAX_TOKENS) ||
		    !(v[2] >= 1 && v[2] <= (double)WL_MAX_TOKENS) || v[1] != floor(v[1]) ||
		    v[2] != floor(v[2]) || !(v[3] >= 0) || !(v[4] >= 0) || !(st >= 0) ||
		    st >= GT_MAX_BENCH || st != floor(st)) {
			rc = err_set(e, SS_EDATA, "%s:%zu: arrival_s in [0, %g], token counts integers in [1, %lld], "
				     "ttft_ms and e2e_ms >= 0 and stage an integer in [0, %d) expected",
				     path, csv_lineno(c), WL_MAX_TIME_S, (long long)WL_MAX_TOKENS, GT_MAX_BENCH);
			goto out;
		}
		snprintf(ctx, sizeof(ctx), "%s:%zu", path, csv_lineno(c));
		XGROW(g->r, g->cap, g->n + 1);
		r = &g->r[g->n];
		if ((rc = gt_request_set(r, ctx, &f, v[0], v[1], v[2], v[3], v[4], e)) < 0)
			goto out;
		g->n++;
		r->stage = (int)st;
		if ((size_t)st + 1 > g->nb)
			g->nb = (size_t)st + 1;
		g->b[(int)st].completed++;
	}
	if (rc == 0 && g->n == 0)
		rc = err_set(e, SS_EDATA, "%s: no requests", path);
out:
	csv_close(c);
	if (rc < 0)
		gt_requests_release(g);
	return rc < 0 ? rc : 0;
}

static void bench_spans(struct gt_requests *g)
{
	size_t i, k;

	for (k = 0; k < g->nb; k++) {
		g->b[k].start_s = INFINITY;
		g->b[k].end_s = -INFINITY;
	}
	for (i = 0; i < g->n; i++) {
		struct gt_bench *b = &g->b[g->r[i].stage];
		double end = g->r[i].arrival_s + g->r[i].e2e_ms * 1e-3;
		if (g->r[i].arrival_s < b->start_s)
			b->start_s = g->r[i].arrival_s;
		if (end > b->end_s)
			b->end_s = end;
	}
}

/* parallelism, dtypes and the engine limits of base */
static void copy_layout(const struct experiment *base, struct experiment *x)
{
	x->tp = base->tp;
	x->pp = base->pp;
	x->dp = base->dp;
	x->ep = base->ep;
	x->dtype = base->dtype;
	x->kv_dtype_given = base->kv_dtype_given;
	x->kv_dtype = base->kv_dtype;
	x->k.max_num_batched_tokens = base->k.max_num_batched_tokens;
	x->k.max_num_seqs = base->k.max_num_seqs;
	x->k.max_model_len = base->k.max_model_len;
	x->k.block_size = base->k.block_size;
	x->k.total_kv_blocks = base->k.total_kv_blocks;
	x->k.gpu_memory_utilization = base->k.gpu_memory_utilization;
	x->k.prefix_caching = base->k.prefix_caching;
	x->k.no_deep_gemm = base->k.no_deep_gemm;
	x->k.sglang_dp_lm_head = base->k.sglang_dp_lm_head;
	x->k.moe_dense_tp_size = base->k.moe_dense_tp_size;
}

/* model, GPU, parallelism and engine settings of base, for results that do
 * not record them */
static void copy_settings(const struct experiment *base, const char *path, struct experiment *x)
{
	snprintf(x->model, sizeof(x->model), "%s", base->model);
	snprintf(x->gpu, sizeof(x->gpu), "%s", base->gpu);
	snprintf(x->engine_version, sizeof(x->engine_version), "%s", base->engine_version);
	copy_layout(base, x);
	snprintf(x->name, sizeof(x->name), "%s", base_name(path));
	snprintf(x->source, sizeof(x->source), "%s", path);
}

/* A reader failed on file: when the file is another format, say which and
 * what reads it instead of the reader's parse error. */
static int foreign(const char *file, enum reader_id expected, int rc, struct err *e)
{
	char keys[300];
	const struct reader *f = reader_of_file(file, keys, sizeof(keys));

	if (!f || f->id == expected)
		return rc;
	return err_set(e, SS_EDATA, "%s: this is %s%s%s%s, not %s: give servesim %s", file, f->title,
		       keys[0] ? " (one JSON object per line, keys " : "", keys, keys[0] ? ")" : "",
		       reader_get(expected)->title, f->how);
}

/* per-request results: GuideLLM (RD_GUIDELLM) or OTel spans (RD_OTEL) in file */
static int read_requests(const char *file, enum reader_id fmt, int64_t prefix, struct experiment *x,
			 struct err *e)
{
	int rc;

	x->kind = EXP_REQUESTS;
	if (fmt == RD_GUIDELLM) {
		if ((rc = guidellm_read(file, &x->meas, e)) < 0) {
			/* a report with aggregate metrics only: its benchmarks as stages */
			struct err e2;
			int rc2 = guidellm_read_aggregates(file, &x->wl, x->stages, &x->nstages, &e2);
			if (rc2 == 1)
				return foreign(file, RD_GUIDELLM, rc, e);
			if (rc2 < 0) {
				*e = e2;
				return rc2;
			}
			x->kind = EXP_STAGES;
			snprintf(x->format, sizeof(x->format), "guidellm aggregates");
			snprintf(x->wl.source, sizeof(x->wl.source), "%s", x->name);
			return 0;
		}
		snprintf(x->format, sizeof(x->format), "guidellm %s", x->meas.era);
	} else {
		if ((rc = otel_read(file, &x->meas, e)) < 0)
			return foreign(file, RD_OTEL, rc, e);
		snprintf(x->format, sizeof(x->format), "otel");
	}
	build_replay(x, prefix);
	return 0;
}

static void apply_settings(struct experiment *x, const struct gt_settings *s,
			   const struct experiment *base, const char *gpu, int64_t longest);

static void dir_of(const char *path, char *dir, size_t n)
{
	char *slash;

	snprintf(dir, n, "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(dir, n, ".");
}

static void requests_replay(struct experiment *x, const char *path, const char *format)
{
	int64_t longest = 0;
	size_t i;

	for (i = 0; i < x->meas.n; i++)
		if (x->meas.r[i].prompt_tokens + x->meas.r[i].output_tokens > longest)
			longest = x->meas.r[i].prompt_tokens + x->meas.r[i].output_tokens;
	if (x->k.max_model_len < longest)
		x->k.max_model_len = longest;
	x->kind = EXP_REQUESTS;
	snprintf(x->format, sizeof(x->format), "%s", format);
	snprintf(x->name, sizeof(x->name), "%s", base_name(path));
	snprintf(x->source, sizeof(x->source), "%s", path);
	build_replay(x, 0);
}

/* vLLM engine request stats: the requests file (in dir, or path itself)
 * and meta.json beside it; LLMServingSim's config.json names the GPU. */
static int load_vllm_requests(const char *path, bool is_dir, const char *gpu,
			      const struct experiment *base, struct experiment *x, struct err *e)
{
	char dir[1000], f[1200], m[1200];
	struct gt_settings st;
	struct json *cfg;
	int rc;

	memset(&st, 0, sizeof(st));
	if (is_dir) {
		snprintf(dir, sizeof(dir), "%s", path);
		if (!file_exists(dir, "vllm_requests.jsonl", f, sizeof(f)))
			file_exists(dir, "requests.jsonl", f, sizeof(f));
	} else {
		dir_of(path, dir, sizeof(dir));
		snprintf(f, sizeof(f), "%s", path);
	}
	if ((file_exists(dir, "vllm_meta.json", m, sizeof(m)) || file_exists(dir, "meta.json", m, sizeof(m))) &&
	    (rc = vllm_meta_read(m, &st, e)) < 0)
		return rc;
	if (file_exists(dir, "config.json", m, sizeof(m)) && json_parse_file(m, &cfg, e) == 0) {
		/* {nodes: [{instances: [{hardware: "RTXPRO6000", ...}]}]} */
		const struct json *in = json_first(json_get(json_first(json_get(cfg, "nodes")), "instances"));
		const char *hw = json_string(json_get(in, "hardware"));
		if (hw && !st.gpu[0])
			snprintf(st.gpu, sizeof(st.gpu), "%s", hw);
		json_free(cfg);
	}
	wl_spec_defaults(&x->wl);
	apply_settings(x, &st, base, gpu, 0);
	if ((rc = vllm_requests_read(f, &x->meas, e)) < 0)
		return rc;
	requests_replay(x, is_dir ? path : f, "vllm-engine");
	return 0;
}

static int load_vcr(const char *path, const char *gpu, const struct experiment *base,
		    struct experiment *x, struct err *e)
{
	struct gt_settings st;
	int rc;

	if ((rc = vcr_read(path, &x->meas, &st, e)) < 0)
		return rc;
	wl_spec_defaults(&x->wl);
	apply_settings(x, &st, base, gpu, 0);
	requests_replay(x, path, "vcr");
	return 0;
}

int experiment_load_any(const char *path, const char *gpu, struct experiment *x, struct err *e)
{
	return experiment_load_with(path, gpu, NULL, x, e);
}

int experiment_load_with(const char *path, const char *gpu, const struct experiment *base,
			 struct experiment *x, struct err *e)
{
	char p[1200];
	const struct reader *r = reader_of_dir(path, p, sizeof(p));
	bool dir = r != NULL;
	int64_t prefix;
	bool have_profile;
	struct stat sb;
	int rc;

	memset(x, 0, sizeof(*x));
	if ((r && r->table) || (!r && exp_table_detect(path, p, sizeof(p))))
		return err_set(e, SS_EUSAGE,
			       "%s: %s holds one experiment per row or run: `servesim eval` and `servesim import` expand it",
			       path, (r ? r : reader_of_file(path, NULL, 0))->title);
	if (!r && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
		size_t n = strlen(path);
		char keys[300];
		if (n >= 15 && strcmp(path + n - 15, "experiment.json") == 0) {
			r = reader_get(RD_SERVESIM);
		} else {
			/* a bare results file: its content says which reader */
			r = reader_of_file(path, keys, sizeof(keys));
			if (r && r->id == RD_MOONCAKE)
				return err_set(e, SS_EUSAGE,
					       "%s: a Mooncake trace records arrivals, lengths and shared prefix blocks but "
					       "no latencies, so there is nothing to compare with; replay it with "
					       "`servesim run --workload %s` (simulated figures only), or compare a "
					       "benchmark that replayed it through an experiment.json whose workload "
					       "names it (docs/workloads.md)", path, path);
			if (!r || !(r->id == RD_GUIDELLM || r->id == RD_OTEL || r->id == RD_VLLM_REQUESTS ||
				    r->id == RD_VCR))
				return err_set(e, SS_EDATA,
					       "%s: not a results file servesim reads%s%s%s; expected GuideLLM results, vLLM OTel spans (traces.json), vLLM engine request stats (requests.jsonl), a vllm-vcr trace, vLLM bench serve JSON, SGLang bench_serving JSONL or an aiconfigurator silicon CSV",
					       path, keys[0] ? " (its first line is a JSON object with keys " : "",
					       keys, keys[0] ? ")" : "");
		}
	}
	if (!r) {
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && access(path, R_OK | X_OK) != 0)
			return err_set(e, SS_EDATA, "%s: cannot read the folder: %s", path, strerror(errno));
		return err_set(e, SS_EUSAGE,
			       "%s: not an experiment (expected experiment.json, an inference-perf result folder, GuideLLM results, vLLM OTel spans, vLLM engine request stats, a vllm-vcr trace, serving-benchmark results or an aiconfigurator silicon CSV)",
			       path);
	}
	switch (r->id) {
	case RD_SERVESIM:
		if (strstr(path, "experiment.json"))
			snprintf(p, sizeof(p), "%s", path);
		else
			snprintf(p, sizeof(p), "%s/experiment.json", path);
		return experiment_load(p, x, e);
	case RD_INFPERF:
		wl_spec_defaults(&x->wl);
		if ((rc = load_configs(path, gpu, x, e)) < 0)
			return rc;
		snprintf(x->format, sizeof(x->format), "inference-perf");
		x->kind = EXP_STAGES;
		rc = infperf_read(path, &x->wl, x->stages, &x->nstages, e);
		snprintf(x->wl.source, sizeof(x->wl.source), "%s", x->name);
		return rc;
	case RD_GUIDELLM:
	case RD_OTEL:
		wl_spec_defaults(&x->wl);
		if (!dir) {
			if (!base)
				return err_set(e, SS_EUSAGE,
					       "%s: a bare results file records no model or engine settings: give --experiment DIR (an experiment whose settings apply) or --model M with --tp N and the engine limits",
					       path);
			copy_settings(base, path, x);
			return read_requests(path, r->id, base->wl.prefix_tokens, x, e);
		}
		if (base && !file_exists(path, "exp-config.yaml", p, sizeof(p)))
			copy_settings(base, path, x);
		else if ((rc = load_configs(path, gpu, x, e)) < 0)
			return rc;
		reader_of_dir(path, p, sizeof(p)); /* the results file */
		/* the shared prefix: profile.yaml beside the results, else base's */
		if ((rc = profile_prefix_tokens(path, &prefix, &have_profile, e)) < 0)
			return rc;
		if (base && !have_profile)
			prefix = base->wl.prefix_tokens;
		else if (!have_profile)
			snprintf(x->warning, sizeof(x->warning),
				 "%s: no profile.yaml: the shared prefix is unknown and taken as 0 tokens "
				 "(give --experiment DIR of a run with the same data settings if it had one)",
				 path);
		return read_requests(p, r->id, prefix, x, e);
	case RD_VLLM_REQUESTS:
		return load_vllm_requests(path, dir, gpu, base, x, e);
	case RD_VCR:
		return load_vcr(path, gpu, base, x, e);
	default:
		return err_set(e, SS_EUSAGE, "%s: %s is read as a table of experiments", path, r->title);
	}
}

/* Called by experiment_load for measured.kind "requests". */
int experiment_load_requests(struct experiment *x, const char *file, bool server_side,
			     int64_t prefix, struct err *e);
int experiment_load_requests(struct experiment *x, const char *file, bool server_side,
			     int64_t prefix, struct err *e)
{
	char p[1400];
	int rc;

	exp_file_path(x, file, p, sizeof(p));
	if ((rc = load_requests_csv(p, &x->meas, e)) < 0)
		return rc;
	x->meas.server_side = server_side;
	bench_spans(&x->meas);
	x->kind = EXP_REQUESTS;
	build_replay(x, prefix);
	return 0;
}

static void write_stat(struct jw *w, const char *key, double mean, double p90)
{
	jw_obj(w, key);
	if (!isnan(mean))
		jw_num(w, "mean", mean);
	if (!isnan(p90))
		jw_num(w, "p90", p90);
	jw_end_obj(w);
}

/* A closed loop's length: a number when fixed, else its uniform range
 * (the only other shape exp_table_load gives) */
static void write_length(struct jw *w, const char *key, const struct wl_dist *d)
{
	if (d->kind != WL_UNIFORM) {
		jw_int(w, key, (int64_t)d->a);
		return;
	}
	jw_obj(w, key);
	jw_str(w, "dist", "uniform");
	jw_int(w, "min", (int64_t)d->a);
	jw_int(w, "max", (int64_t)d->b);
	jw_end_obj(w);
}

static void write_workload(struct jw *w, const struct wl_spec *s)
{
	size_t i;

	jw_obj(w, "workload");
	jw_int(w, "seed", (int64_t)s->seed);
	if (s->harness[0])
		jw_str(w, "harness", s->harness);
	if (s->prompt_kind != WL_PROMPTS_UNSET)
		jw_str(w, "prompt_kind", wl_prompt_kind_name(s->prompt_kind));
	jw_obj(w, "arrival");
	jw_str(w, "process", wl_process_name(s->process));
	if (s->nstages == 0 && s->process != WL_CONCURRENCY)
		jw_num(w, "rate", s->rate);
	jw_end_obj(w);
	if (s->nstages) {
		jw_arr(w, "stages");
		for (i = 0; i < s->nstages; i++) {
			jw_obj(w, NULL);
			jw_num(w, "rate", s->stages[i].rate);
			jw_num(w, "duration_s", s->stages[i].duration_s);
			jw_end_obj(w);
		}
		jw_end_arr(w);
	}
	if (s->sp_groups) {
		jw_obj(w, "shared_prefix");
		jw_int(w, "num_groups", s->sp_groups);
		jw_int(w, "num_prompts_per_group", s->sp_prompts);
		jw_int(w, "system_prompt_len", s->sp_system);
		jw_int(w, "question_len", s->sp_question);
		jw_int(w, "output_len", s->sp_output);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

static int experiment_write_in(const struct experiment *x, const char *dir, struct err *e);

int experiment_write(const struct experiment *x, const char *dir, struct err *e)
{
	char made[1200];
	int rc;

	if (paths_mkdir_p_made(dir, made, sizeof(made)) != 0)
		return err_set(e, SS_ERUNTIME, "%s: cannot create the folder: %s", dir, strerror(errno));
	/* a failed write (a full disk) leaves no folder it created */
	if ((rc = experiment_write_in(x, dir, e)) < 0)
		paths_rmdir_made(dir, made);
	return rc;
}

/* experiment.json (and requests.csv) into the folder dir, all or none. */
static int experiment_write_in(const struct experiment *x, const char *dir, struct err *e)
{
	char p[1200];
	struct afile af, ac;
	struct afile *both[2] = {&af, &ac};
	struct jw w;
	size_t i;
	int rc;

	snprintf(p, sizeof(p), "%s/experiment.json", dir);
	if ((rc = afile_open(&af, p, e)) < 0)
		return rc;
	jw_init(&w, af.f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "name", x->name);
	jw_str(&w, "source", x->source);
	if (x->workload_name[0])
		jw_str(&w, "workload_name", x->workload_name);
	jw_str(&w, "model", x->model);
	if (x->checkpoint[0])
		jw_str(&w, "checkpoint", x->checkpoint);
	jw_str(&w, "gpu", x->gpu);
	jw_int(&w, "tp", x->tp);
	jw_int(&w, "pp", x->pp);
	jw_int(&w, "dp", x->dp);
	jw_int(&w, "ep", x->ep);
	jw_str(&w, "dtype", dtype_name(x->dtype));
	if (x->kv_dtype_given)
		jw_str(&w, "kv_dtype", dtype_name(x->kv_dtype));
	else if (strcmp(x->format, "aic-silicon") == 0 && !x->kv_engine_auto &&
		 (x->dtype == DT_BF16 || x->dtype == DT_FP16 || x->dtype == DT_FP8))
		jw_str(&w, "kv_dtype", dtype_name(x->dtype)); /* eval's rule for silicon rows, written out */
	if (x->precision[0])
		jw_str(&w, "precision", x->precision);
	jw_obj(&w, "engine");
	jw_str(&w, "name", x->engine[0] ? x->engine : engine_default()->name);
	jw_str(&w, "version", x->engine_version[0] ? x->engine_version : "unknown");
	if (x->moe_backend != MOE_BACKEND_DEFAULT)
		jw_str(&w, "moe_backend", moe_backend_name(x->moe_backend));
	deploy_exp_json(&deploy_table, &x->k, &w); /* SGLang: its rules' limits (0) left out */
	jw_end_obj(&w);
	if (x->kind == EXP_CLOSED) {
		jw_obj(&w, "workload");
		jw_int(&w, "seed", (int64_t)x->wl.seed);
		jw_obj(&w, "arrival");
		jw_str(&w, "process", "concurrency");
		jw_int(&w, "concurrency", x->wl.concurrency);
		jw_end_obj(&w);
		jw_int(&w, "num_requests", x->wl.num_requests);
		if (x->wl.harness[0])
			jw_str(&w, "harness", x->wl.harness);
		write_length(&w, "prompt_tokens", &x->wl.prompt);
		write_length(&w, "output_tokens", &x->wl.output);
		jw_end_obj(&w);
		jw_obj(&w, "measured");
		jw_str(&w, "kind", "closed");
		jw_int(&w, "warmup_requests", x->warmup_requests);
		write_stat(&w, "ttft_ms", x->stages[0].v[EM_TTFT_MEAN], NAN);
		write_stat(&w, "itl_ms", x->stages[0].v[EM_ITL_MEAN], NAN);
		jw_end_obj(&w);
	} else if (x->kind == EXP_STAGES) {
		write_workload(&w, &x->wl);
		jw_obj(&w, "measured");
		jw_str(&w, "kind", "stages");
		jw_arr(&w, "stages");
		for (i = 0; i < x->nstages; i++) {
			const struct measured_stage *m = &x->stages[i];
			jw_obj(&w, NULL);
			jw_int(&w, "index", m->index);
			jw_num(&w, "rate", m->rate);
			jw_num(&w, "duration_s", m->duration_s);
			jw_int(&w, "completed", m->completed);
			write_stat(&w, "ttft_ms", m->v[EM_TTFT_MEAN], m->v[EM_TTFT_P90]);
			write_stat(&w, "itl_ms", m->v[EM_ITL_MEAN], NAN);
			write_stat(&w, "e2e_ms", m->v[EM_E2E_MEAN], m->v[EM_E2E_P90]);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
	} else {
		jw_obj(&w, "workload");
		jw_int(&w, "seed", 42);
		jw_obj(&w, "arrival");
		jw_str(&w, "process", "trace");
		jw_str(&w, "file", "requests.csv");
		jw_end_obj(&w);
		if (x->replay && x->meas.n && x->replay[0].prefix_tokens > 0)
			jw_int(&w, "prefix_tokens", x->replay[0].prefix_tokens);
		jw_end_obj(&w);
		jw_obj(&w, "measured");
		jw_str(&w, "kind", "requests");
		jw_str(&w, "file", "requests.csv");
		jw_bool(&w, "server_side", x->meas.server_side);
		jw_arr(&w, "benchmarks");
		for (i = 0; i < x->meas.nb; i++) {
			jw_obj(&w, NULL);
			jw_int(&w, "index", (int64_t)i);
			jw_str(&w, "strategy", x->meas.b[i].strategy);
			jw_num(&w, "rate", x->meas.b[i].rate);
			jw_end_obj(&w);
		}
		jw_end_arr(&w);
		jw_end_obj(&w);
	}
	jw_end_obj(&w);
	jw_finish(&w);
	if (x->kind == EXP_REQUESTS) {
		snprintf(p, sizeof(p), "%s/requests.csv", dir);
		if ((rc = afile_open(&ac, p, e)) < 0) {
			afile_abort(&af);
			return rc;
		}
		fprintf(ac.f, "arrival_s,prompt_tokens,output_tokens,ttft_ms,e2e_ms,stage\n");
		for (i = 0; i < x->meas.n; i++) {
			const struct gt_request *r = &x->meas.r[i];
			fprintf(ac.f, "%.6f,%lld,%lld,%.3f,%.3f,%d\n", r->arrival_s, (long long)r->prompt_tokens,
				(long long)r->output_tokens, r->ttft_ms, r->e2e_ms, r->stage);
		}
		return afile_commit_all(both, 2, e);
	}
	return afile_commit(&af, e);
}

/* the nominal mean of a length distribution (before clipping) */
static double dist_nominal(const struct wl_dist *d)
{
	double m = 0, prev = 0;
	size_t i;

	switch (d->kind) {
	case WL_UNIFORM:
		return (d->a + d->b) / 2;
	case WL_EMPIRICAL:
		for (i = 0; i < d->nvalues && d->cdf; i++) {
			m += d->values[i] * (d->cdf[i] - prev);
			prev = d->cdf[i];
		}
		return prev > 0 ? m / prev : 0;
	default:
		return d->a;
	}
}

void experiment_workload(const struct experiment *x, char *buf, size_t n)
{
	const struct wl_spec *w = &x->wl;

	if (x->workload_name[0]) {
		snprintf(buf, n, "%s", x->workload_name);
	} else if (x->trace_file[0]) {
		snprintf(buf, n, "mooncake %zu req x%g", w->nrecords, x->trace_speedup);
	} else if (x->kind == EXP_REQUESTS && x->meas.n > 0) {
		double pt = 0, ot = 0;
		size_t i;
		for (i = 0; i < x->meas.n; i++) {
			pt += (double)x->meas.r[i].prompt_tokens;
			ot += (double)x->meas.r[i].output_tokens;
		}
		snprintf(buf, n, "replay ~%.0f->~%.0f", pt / (double)x->meas.n, ot / (double)x->meas.n);
	} else if (w->sp_groups > 0) {
		snprintf(buf, n, "shared-prefix %lld+%lld->%lld", (long long)w->sp_system,
			 (long long)w->sp_question, (long long)w->sp_output);
	} else {
		snprintf(buf, n, "prompt ~%.0f out ~%.0f", dist_nominal(&w->prompt),
			 dist_nominal(&w->output));
	}
}

/* --- tables: aiconfigurator's silicon CSV, one closed-loop experiment per row --- */

#include <dirent.h>

bool exp_table_detect(const char *path, char *file, size_t n)
{
	char first[1][700];
	struct stat sb;

	if (stat(path, &sb) != 0)
		return false;
	if (S_ISREG(sb.st_mode)) {
		const struct reader *f = reader_of_file(path, NULL, 0);
		snprintf(file, n, "%s", path);
		return f && f->table;
	}
	if (!S_ISDIR(sb.st_mode) || aic_table_files(path, first, 1) == 0)
		return false;
	snprintf(file, n, "%s", first[0]);
	return true;
}

/* EXP_POOLS_FILE beside the silicon CSV file, when there is one. */
static bool pools_beside(const char *file, char *out, size_t n)
{
	char dir[700];

	paths_dir(file, dir, sizeof(dir));
	snprintf(out, n, "%s/%s", dir, EXP_POOLS_FILE);
	return paths_exists(out);
}

bool exp_table_pools(const char *path, char *out, size_t n)
{
	char file[700];

	return exp_table_detect(path, file, sizeof(file)) && pools_beside(file, out, n);
}

/* The pools file beside the table's silicon CSVs, when there is one. */
static int apply_pools(struct exp_table *t, struct err *e)
{
	char pools[760];
	int rc;

	if (!pools_beside(t->files[0], pools, sizeof(pools)))
		return 0;
	if ((rc = aic_pools_apply(&t->aic, pools, &t->pools_derived, e)) < 0)
		aic_table_release(&t->aic);
	return rc;
}

int exp_table_open(const char *path, const char *where, struct exp_table *t, struct err *e)
{
	struct stat sb;
	unsigned f;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!exp_table_detect(path, t->path, sizeof(t->path)))
		return err_set(e, SS_EDATA,
			       "%s: not an aiconfigurator silicon CSV (or a folder holding one) nor serving-benchmark results",
			       path);
	t->fmt = reader_of_file(t->path, NULL, 0)->id;
	if (t->fmt == RD_AIC) {
		/* a folder: every silicon CSV in it, in name order, as one table */
		size_t nf = 1;
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			nf = aic_table_files(path, t->files, EXP_TABLE_FILES);
			if (nf > EXP_TABLE_FILES)
				return err_set(e, SS_EDATA, "%s: %zu silicon CSVs (at most %d per folder)", path,
					       nf, EXP_TABLE_FILES);
		} else {
			snprintf(t->files[0], sizeof(t->files[0]), "%s", t->path);
		}
		t->nfiles = (unsigned)nf;
		for (f = 0; f < t->nfiles; f++) {
			struct aic_table one;
			size_t k;
			if ((rc = aic_read(t->files[f], where, &one, e)) < 0) {
				aic_table_release(&t->aic);
				return rc;
			}
			XGROW(t->aic.r, t->aic.cap, t->aic.n + one.n + 1);
			for (k = 0; k < one.n; k++) {
				one.r[k].file = f;
				t->aic.r[t->aic.n++] = one.r[k];
			}
			t->aic.total += one.total;
			t->aic.ncols = one.ncols;
			aic_table_release(&one);
		}
		t->total = t->aic.total;
		if ((rc = apply_pools(t, e)) < 0)
			return rc;
		/* one benchmark run recorded as two or three rows counts once
		 * (aicdup.c; eval/silicon/HARNESS.md, "Duplicate rows") */
		t->dups = aic_drop_duplicates(&t->aic);
		t->n = t->aic.n;
		return 0;
	}
	if (where)
		return err_set(e, SS_EUSAGE, "%s: --where filters aiconfigurator silicon CSVs, not %s", path,
			       reader_get(t->fmt)->title);
	if ((rc = bench_read(t->path, &t->bench, e)) < 0)
		return rc;
	t->n = t->total = t->bench.n;
	return 0;
}

void exp_table_release(struct exp_table *t)
{
	aic_table_release(&t->aic);
	bench_runs_release(&t->bench);
}

/* servesim dtype of a row: the GEMM quantisation (fp8, fp8_block -> fp8,
 * nvfp4 -> fp4), else `precision`, else the checkpoint's name suffix, else
 * bf16 (the rows without any are TRT-LLM 1.0.0rc3 bf16 runs). */
static enum dtype aic_dtype(const struct aic_row *r)
{
	const char *q = r->gemm_quant[0] ? r->gemm_quant : r->precision;
	size_t l = strlen(r->model);

	if (strncmp(q, "fp8", 3) == 0)
		return DT_FP8;
	if (strcmp(q, "nvfp4") == 0 || strcmp(q, "fp4") == 0 || strcmp(q, "w4a8") == 0)
		return DT_FP4;
	if (strcmp(q, "fp16") == 0)
		return DT_FP16;
	if (!q[0] && l > 4 && strcasecmp(r->model + l - 4, "-FP8") == 0)
		return DT_FP8;
	if (!q[0] && l > 6 && strcasecmp(r->model + l - 6, "-NVFP4") == 0)
		return DT_FP4;
	return DT_BF16;
}

/* The harness behind the silicon rows (eval/silicon/
 * HARNESS.md): genai-perf / aiperf at fixed concurrency C with
 * --request-count 10 C and --warmup-request-count 2 C (aiconfigurator
 * src/aiconfigurator/eval/benchmarks/genai_perf_runner.py).  The warm-up
 * results are dropped and the client waits for every warm-up response
 * before profiling starts (aiperf docs/tutorials/warmup.md, "Grace
 * Period"), so the measured phase starts from an idle server with C
 * requests at once.  The simulator has no cold-start state for the warm-up
 * to clear (random prompts: no prefix hits), so only the measured phase is
 * simulated: 10 C requests from t = 0, all measured. */
#define AIC_WARMUP_PER_CLIENT 0
/* InferenceX's --random-range-ratio (inferencex_row) */
#define AIC_IX_RANGE_RATIO 0.8
#define AIC_MEASURED_PER_CLIENT 10
/* aiconfigurator's benchmark generator (rule=benchmark) writes each
 * backend's engine limits from the deployment's max_batch_size and the
 * benchmark's ISL/OSL: the rules in
 * src/aiconfigurator/generator/rule_plugin/benchmark/{trtllm,vllm,sglang}.rule,
 * mapped to engine flags by generator/config/backend_config_mapping.yaml and
 * emitted by generator/config/backend_templates/{vllm,sglang}/cli_args*.j2
 * (ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce;
 * eval/silicon/HARNESS.md, "vLLM and SGLang rows").  The SDK hands the
 * generator tp, pp, dp, moe_tp, moe_ep, max_batch_size and the quantisation
 * only (generator/module_bridge.py, _build_worker_params): every other engine
 * setting is the engine's own default.
 * AIC_MNT_SLACK: the 1500 tokens every rule adds over ISL (+ max_batch_size
 * for an aggregated worker) in max_num_tokens / max_prefill_tokens, and over
 * ISL + OSL in vLLM's max_seq_len.  AIC_BLOCK: TensorRT-LLM's tokens_per_block
 * as trtllm.rule sets it (32). */
#define AIC_BLOCK 32
#define AIC_MNT_SLACK 1500
/* vLLM v1's default KV block (EngineArgs block_size: 16 on CUDA) and SGLang's
 * default page size (ServerArgs page_size: 1), neither set by the generator */
#define AIC_VLLM_BLOCK 16
#define AIC_SGLANG_PAGE 1

enum aic_backend { AIC_TRTLLM, AIC_VLLM, AIC_SGLANG };

static const char *const aic_backend_names[] = {"trtllm", "vllm", "sglang"};

/* The backend column as written by aiconfigurator (lower case; any case
 * accepted), or -1. */
static int aic_backend_of(const char *b)
{
	int k;

	for (k = AIC_TRTLLM; k <= AIC_SGLANG; k++)
		if (strcasecmp(b, aic_backend_names[k]) == 0)
			return k;
	return -1;
}

/* The layout one engine of a backend runs, as servesim's attention TP per
 * rank (*tp) and expert-parallel size (*ep), from the recorded tp_size,
 * attention_dp_size and MoE split (servesim's MoE TP is then
 * tp x attn_dp / ep).  0 and why set when the engine cannot run it as
 * recorded.  Agg rows and each pool of a disagg row (the rules cited
 * above). */
static int aic_engine_layout(int be, int rtp, int attn_dp, int moe_tp, int moe_ep, int *tp, int *ep,
			     char *why, size_t n)
{
	int moe = moe_tp * moe_ep;

	switch (be) {
	case AIC_TRTLLM:
		/* tp_size is the attention TP of each attention-DP rank, the MoE
		 * split moe_tp x moe_ep covers tp x attention_dp GPUs; servesim's
		 * dp ranks with ep > 1 are the same layout */
		*tp = rtp;
		*ep = moe_ep;
		return 1;
	case AIC_VLLM:
		/* --tensor-parallel-size tp_size, --data-parallel-size
		 * attention_dp_size and --enable-expert-parallel when moe_ep > 1
		 * (benchmark/vllm.rule; it keeps the SDK's tp).  vLLM then splits
		 * the experts over all tp x dp GPUs of the engine: EP = tp x dp
		 * with expert parallelism, else MoE TP = tp x dp (vLLM's
		 * FusedMoE parallel config), whatever moe_tp x moe_ep recorded. */
		*tp = rtp;
		*ep = moe_ep > 1 ? rtp * attn_dp : 1;
		return 1;
	case AIC_SGLANG:
		/* for an MoE model --tensor-parallel-size = moe_tp x moe_ep
		 * (benchmark/sglang.rule), --expert-parallel-size moe_ep and
		 * --enable-dp-attention with --data-parallel-size dp when dp > 1:
		 * each DP rank attends on tp / dp GPUs.  A recorded MoE split
		 * (moe_tp x moe_ep > 1) marks the MoE rows; a dense model keeps
		 * tp_size, its dp ranks are replicas behind SGLang's router. */
		if (moe > 1) {
			if (moe % attn_dp != 0) {
				snprintf(why, n, "sglang: tensor-parallel-size moe_tp x moe_ep not divisible by attention_dp_size");
				return 0;
			}
			*tp = moe / attn_dp;
		} else {
			*tp = rtp;
		}
		*ep = moe_ep;
		return 1;
	}
	return 0;
}

/* The layout each engine runs for an agg row, as servesim's (tp, pp, dp,
 * ep): tp the attention TP of one replica or attention-DP rank, dp the
 * ranks and replicas (several agg workers, concurrency > batch x attention
 * DP, are more replicas behind the router), ep the expert-parallel size. */
static int aic_layout(const struct aic_row *r, int be, struct experiment *x, char *why, size_t n)
{
	x->pp = r->pp;
	x->dp = r->attn_dp * r->workers;
	if (r->workers > 1 && r->moe_ep > 1) {
		snprintf(why, n, "several agg workers with expert parallelism (servesim's dp replicas would share experts)");
		return 0;
	}
	return aic_engine_layout(be, r->tp, r->attn_dp, r->moe_tp, r->moe_ep, &x->tp, &x->ep, why, n);
}

/* Did the generator write neither --max-prefill-tokens nor
 * --enable-mixed-chunk for this SGLang row?  Its launch arguments come from
 * a template per SGLang version
 * (generator/config/backend_templates/sglang/cli_args.<version>.j2).  The
 * first ones, 0.5.1.post1, 0.5.3.post2 and 0.5.4.post3 (ai-dynamo/
 * aiconfigurator 95ddf241a, 2025-12-04), emit neither flag: they gained
 * them on 2026-01-19 (fa895ffb1, as the misspelt --enable-mix-chunk; fixed
 * the same day, 07a377923), and the benchmark rule that sets them for agg
 * workers came on 2026-01-30 (71bb3d00e).  The templates of 0.5.6.post2 and
 * later (c46a56b02, 2026-01-23, onwards) carried both from their first
 * commit.  aiconfigurator's gap analysis had moved to SGLang 0.5.6.post2
 * (Dynamo 0.8.0 images) by 2026-01-23 (its silicon_sample.csv, Qwen3-32B on
 * H100, measured=2026-01-23), so its rows of the older versions ran with
 * SGLang's defaults for both: no mixed chunks, max_prefill_tokens 16384
 * (above the default chunk on these GPUs, which binds first).  The rows
 * themselves agree: Qwen3-32B 0.5.1.post1 on H100 (78 rows), TTFT / ITL
 * median |err| 71.3 / 23.4 % with mixed chunks, 7.8 / 10.0 % without
 * (eval/silicon/HARNESS.md, "SGLang rows of the first templates"). */
static bool aic_sglang_bare(const struct aic_row *r)
{
	return r->harness == AIC_HARNESS_AIPERF && engine_version_before(r->version, "0.5.6");
}

/* Engine limits per backend (the rules cited above). */
static void aic_limits(const struct aic_row *r, int be, struct experiment *x)
{
	x->k.max_num_seqs = r->batch; /* max_batch_size: batch_size per replica / rank */
	switch (be) {
	case AIC_TRTLLM:
		/* max_num_tokens = max_batch_size + ISL + 1500 rounded up to whole
		 * 32-token blocks (benchmark/trtllm.rule); TRT-LLM's default
		 * free_gpu_memory_fraction (0.9), no block reuse; scheduled with
		 * vLLM's scheduler and GUARANTEED_NO_EVICT admission (engine
		 * "trtllm": its admission, src/engine/trtllm.c) */
		x->k.max_num_batched_tokens = (r->batch + r->isl + AIC_MNT_SLACK + AIC_BLOCK - 1) / AIC_BLOCK * AIC_BLOCK;
		x->k.max_model_len = r->isl + r->osl;
		x->k.block_size = AIC_BLOCK;
		x->k.gpu_memory_utilization = 0.9;
		x->k.prefix_caching = false; /* synthetic random prompts: nothing to share */
		break;
	case AIC_VLLM:
		/* --max-num-seqs max_batch_size, --max-num-batched-tokens
		 * max_batch_size + ISL + 1500 (not rounded), --max-model-len
		 * ISL + OSL + 1500 (benchmark/vllm.rule); no --block-size,
		 * --gpu-memory-utilization or --no-enable-prefix-caching is
		 * written, so vLLM v1's defaults: block 16, 0.9, prefix caching
		 * on (random prompts share no block) */
		x->k.max_num_batched_tokens = r->batch + r->isl + AIC_MNT_SLACK;
		x->k.max_model_len = r->isl + r->osl + AIC_MNT_SLACK;
		x->k.block_size = AIC_VLLM_BLOCK;
		x->k.gpu_memory_utilization = 0.9;
		x->k.prefix_caching = true;
		break;
	case AIC_SGLANG:
		/* --max-running-requests max_batch_size, --max-prefill-tokens
		 * ISL + 1500, --enable-mixed-chunk (benchmark/sglang.rule); no
		 * --chunked-prefill-size (the mapping writes it only with
		 * enable_chunked_prefill, which nothing sets), --page-size,
		 * --mem-fraction-static, --context-length or
		 * --disable-radix-cache: SGLang's defaults, chunked_prefill_size
		 * by GPU memory (max_num_batched_tokens 0: resolved with the GPU in
		 * experiment_scenario), page 1, mem_fraction_static by its rule,
		 * radix cache on.  The KV is checked against the longest request
		 * (ISL + OSL) rather than the model's context length */
		x->k.max_num_batched_tokens = 0;
		if (aic_sglang_bare(r)) {
			x->k.max_prefill_tokens = 0;
			x->k.sglang_mixed_chunk = false;
		} else {
			x->k.max_prefill_tokens = r->isl + AIC_MNT_SLACK;
			x->k.sglang_mixed_chunk = true;
		}
		x->k.max_model_len = r->isl + r->osl;
		/* batch_size is an attention-DP rank's; SGLang's
		 * --max-running-requests under attention DP (an MoE row's, as
		 * aic_engine_layout) is the engine's: each rank runs it / dp
		 * (scenario_rank_seqs) */
		if (r->attn_dp > 1 && r->moe_tp * r->moe_ep > 1)
			x->k.max_num_seqs = r->batch * r->attn_dp;
		x->k.block_size = AIC_SGLANG_PAGE;
		x->k.gpu_memory_utilization = 0.9; /* unused: SGLang sizes by mem_fraction_static */
		x->k.prefix_caching = true;
		break;
	}
}

/* The TensorRT-LLM a Dynamo runtime image ships, by Dynamo release, as
 * aiconfigurator's generator records it (ai-dynamo/aiconfigurator @
 * 095f58a51c4ca8e61b66ec108d86f223f8d559ce,
 * src/aiconfigurator/generator/config/backend_version_matrix.yaml).  The
 * disaggregated TensorRT-LLM rows ran in ai-dynamo/tensorrtllm-runtime
 * images (aic_row.dynamo_image) and record the image's (Dynamo's) version
 * as backend_version, or a version of aiconfigurator's own; their kernel
 * collection is the one nearest the TensorRT-LLM inside (0.8.1.post2 ships
 * 1.2.0rc6, priced before with 1.3.0rc20's tables).  A patch release
 * (.postN, -dev.N) takes its base release's entry; a release the matrix
 * does not name (0.5.1) keeps backend_version. */
static const struct {
	const char *dynamo, *trtllm;
} dynamo_trtllm[] = {
	{"1.3.0", "1.3.0rc23"},   {"1.2.0", "1.3.0rc14"},     {"1.1.0", "1.3.0rc11"},
	{"1.0.0", "1.3.0rc5.post1"}, {"0.9.0", "1.3.0rc1"},   {"0.8.1", "1.2.0rc6.post1"},
	{"0.8.0", "1.2.0rc6.post1"}, {"0.7.1", "1.2.0rc3"},   {"0.7.0", "1.2.0rc2"},
	{"0.6.1", "1.1.0rc5"},    {"0.6.0", "1.1.0rc5"},
};

static void dynamo_trtllm_version(const char *dyn, char *out, size_t n)
{
	size_t len = strspn(dyn, "0123456789."), i;

	while (len > 0 && dyn[len - 1] == '.') /* "0.8.1.post2": the release is "0.8.1" */
		len--;
	for (i = 0; i < sizeof(dynamo_trtllm) / sizeof(dynamo_trtllm[0]); i++)
		if (strlen(dynamo_trtllm[i].dynamo) == len && strncmp(dyn, dynamo_trtllm[i].dynamo, len) == 0) {
			snprintf(out, n, "%s", dynamo_trtllm[i].trtllm);
			return;
		}
}

/* A mode=disagg row as a P/D experiment: prefill_num_workers prefill
 * workers and decode_num_workers decode workers, each one engine of its
 * pool's layout (attention-DP ranks included, as for agg rows).  Rows without the worker counts (the two sources that
 * leave batch and worker columns blank) are skipped: C clients over an
 * unknown number of workers cannot be replayed (read as one prefill and one
 * decode worker they come out 66 % off on TPOT, median, against 9.3 % for
 * the rows that record the counts; eval/silicon/HARNESS.md, "Disaggregated
 * rows").
 * Per-pool limits from the generator's rules: prefill max_batch_size =
 * prefill_batch_size (else 1) and max_num_tokens = ISL + 1500
 * (TensorRT-LLM: rounded up to 32-token blocks; an InferenceX row's own
 * recipe values where its pools line gives them), decode max_batch_size =
 * decode_batch_size per rank (else C / (decode workers x attention DP))
 * and max_num_tokens = that
 * batch (TensorRT-LLM: rounded up to 32); SGLang: --max-running-requests =
 * batch and --max-prefill-tokens ISL + 1500 on both pools,
 * chunked_prefill_size its default, no mixed chunks (the rule sets
 * enable_mixed_chunk for agg workers only). */
static int aic_pd_layout(const struct aic_row *r, int be, struct experiment *x, char *why, size_t n)
{
	const struct aic_pool *p = &r->pre, *d = &r->dec;
	int64_t dbatch;

	if (p->pp > 1 || d->pp > 1) {
		snprintf(why, n, "disagg pool with pipeline parallelism (not simulated with P/D)");
		return 0;
	}
	if (p->workers < 1 || d->workers < 1) {
		snprintf(why, n, "disagg row without prefill/decode worker counts (pool sizes not recorded)");
		return 0;
	}
	if (r->concurrency < 1) {
		snprintf(why, n, "disagg row without silicon_concurrency or decode batch x workers");
		return 0;
	}
	x->pd_prefill = p->workers;
	x->pd_decode = d->workers;
	x->pp = 1;
	/* a worker is one engine of its pool's layout, attention-DP ranks
	 * included (dp > 1: an MoE engine whose ranks step together) */
	x->dp = d->attn_dp;
	x->prefill_dp = p->attn_dp;
	if (!aic_engine_layout(be, d->tp, d->attn_dp, d->moe_tp, d->moe_ep, &x->tp, &x->ep, why, n) ||
	    !aic_engine_layout(be, p->tp, p->attn_dp, p->moe_tp, p->moe_ep, &x->prefill_tp, &x->prefill_ep,
			       why, n))
		return 0;
	/* batch sizes are per attention-DP rank */
	dbatch = d->batch > 0 ? d->batch
			      : (r->concurrency + (int64_t)x->pd_decode * x->dp - 1) / ((int64_t)x->pd_decode * x->dp);
	x->k.max_num_seqs = dbatch;
	x->prefill_max_num_seqs = p->batch > 0 ? p->batch : 1;
	x->ep_redundant = x->ep > 1 ? d->redundant : 0;
	x->prefill_ep_redundant = x->prefill_ep > 1 ? p->redundant : 0;
	/* (the reader took only names moe_backend_parse knows, or "") */
	if (d->moe_backend[0] && moe_backend_parse(d->moe_backend, &x->moe_backend, NULL) < 0)
		x->moe_backend = MOE_BACKEND_DEFAULT;
	if (p->moe_backend[0] && moe_backend_parse(p->moe_backend, &x->prefill_moe_backend, NULL) < 0)
		x->prefill_moe_backend = MOE_BACKEND_DEFAULT;
	switch (be) {
	case AIC_TRTLLM:
		x->k.max_num_batched_tokens = (dbatch + AIC_BLOCK - 1) / AIC_BLOCK * AIC_BLOCK;
		/* the recipe's own prefill limit where known (InferenceX's
		 * srt-slurm recipes: aic_pools_apply), else the generator's */
		x->prefill_max_num_batched_tokens =
			p->max_tokens > 0 ? p->max_tokens
					  : (r->isl + AIC_MNT_SLACK + AIC_BLOCK - 1) / AIC_BLOCK * AIC_BLOCK;
		break;
	case AIC_VLLM:
		x->k.max_num_batched_tokens = dbatch;
		x->prefill_max_num_batched_tokens = r->isl + AIC_MNT_SLACK;
		break;
	case AIC_SGLANG:
		x->k.sglang_mixed_chunk = false;
		x->prefill_max_num_batched_tokens = 0; /* the chunk default, as decode's */
		/* the batches are a rank's, --max-running-requests the engine's
		 * under attention DP (SGLang divides it: scenario_rank_seqs) */
		if (d->attn_dp > 1 && d->moe_tp * d->moe_ep > 1)
			x->k.max_num_seqs = dbatch * d->attn_dp;
		if (p->attn_dp > 1 && p->moe_tp * p->moe_ep > 1)
			x->prefill_max_num_seqs *= p->attn_dp;
		/* each pool's --mem-fraction-static where its recipe sets one
		 * (inferencex_pools.csv; 0: SGLang's rule) */
		x->k.mem_fraction_static = d->mem_fraction;
		x->prefill_mem_fraction_static = p->mem_fraction;
		break;
	}
	return 1;
}

/* InferenceX's TensorRT-LLM recipes (SemiAnalysisAI/InferenceX) set the
 * token budget and batch waiting themselves, not by aiconfigurator's rule:
 * - Llama-3.1-70B (benchmarks/70b_{fp4,fp8}_b200_trt_slurm.sh,
 *   70b_fp8_h200_trt_slurm.sh, 1b563c858 of 2025-09-18 to 24ea7def4 of
 *   2025-10-30; every row measured 2025-10-29): --max_num_tokens 16384, and
 *   at 1024/1024 below TP 8 batch_wait_timeout_iters 20 with
 *   batch_wait_max_tokens_ratio 0.9 ("will improve the performance, by
 *   default they are all zeros");
 * - gpt-oss (gptoss_fp4_{b200,h200}_trt*.sh, 2025-09 on): MAX_NUM_TOKENS
 *   20000;
 * - DeepSeek-R1 (dsr1_{fp4,fp8}_{b200,h200}_trt.sh): round64(CONC + ISL +
 *   64), at least 8192 from 64af5a771 (2026-01-21); the MTP scripts
 *   (..._trt_mtp.sh) round64((MTP + 1) x max_batch_size + ISL + 64), no
 *   floor; dsr1_fp8_b200_trt.sh at 1024/1024 from 64 clients
 *   (DELAY_BATCHING, ec7bafaae of 2026-01-29) batch_wait_timeout_iters 40
 *   with ratio 0.8 (TensorRT-LLM does not wait with attention DP).
 * The row's measured= day picks the recipe of the day. */
static void ix_trtllm_limits(const struct aic_row *r, bool deepseek, struct experiment *x)
{
	bool llama70 = strcasecmp(r->model, "meta-llama/Llama-3.1-70B") == 0;

	if (llama70) {
		x->k.max_num_batched_tokens = 16384;
		if (r->isl == 1024 && r->osl == 1024 && r->tp < 8) {
			x->batch_wait_iters = 20;
			x->batch_wait_ratio = 0.9;
		}
	} else if (strncasecmp(r->model, "openai/gpt-oss", 14) == 0) {
		x->k.max_num_batched_tokens = 20000;
	} else if (deepseek) {
		int64_t tok;
		if (x->spec_tokens > 0) {
			tok = (x->spec_tokens + 1) * x->k.max_num_seqs + r->isl + 64;
		} else {
			tok = r->concurrency + r->isl + 64;
		}
		tok = (tok + 63) / 64 * 64;
		if (x->spec_tokens == 0 && r->measured[0] && strcmp(r->measured, "2026-01-21") >= 0 && tok < 8192)
			tok = 8192;
		x->k.max_num_batched_tokens = tok;
		if (x->spec_tokens == 0 && r->attn_dp <= 1 && strcmp(r->precision, "fp8") == 0 &&
		    strcmp(r->system, "b200_sxm") == 0 && r->isl == 1024 && r->osl == 1024 && r->concurrency >= 64 &&
		    r->measured[0] && strcmp(r->measured, "2026-01-29") >= 0) {
			x->batch_wait_iters = 40;
			x->batch_wait_ratio = 0.8;
		}
	}
}

/* InferenceX's vLLM launch scripts (SemiAnalysisAI/InferenceX; the script
 * of the row's measured= day):
 * - the KV cache: gpt-oss and MiniMax-M2.5 on H100 the default (auto: bf16);
 *   gpt-oss on B200 from 25506e87c (2025-12-05, "Upgrade vLLM to v0.11.2")
 *   --kv-cache-dtype fp8; Llama-3.1-70B (70b_{fp4,fp8}_b200_docker.sh,
 *   70b_fp8_{h100,h200}_slurm.sh @ ac1998a5, the rows of 2025-10-29) fp8,
 *   the fp4 rows too;
 * - vLLM's FlashInfer all-reduce + RMSNorm fusion on B200 only:
 *   Llama-3.1-70B (the same scripts: pass_config enable_fi_allreduce_fusion,
 *   VLLM_FLASHINFER_ALLREDUCE_FUSION_THRESHOLDS_MB {"2":32,"4":32,"8":8})
 *   and gpt-oss (gptoss_fp4_b200_docker.sh @ e06929c7 of 2025-11-02: the
 *   same thresholds; from 25506e87c fuse_allreduce_rms with vLLM's default
 *   thresholds, on SM100 64 / 32 / 1 MiB at TP 2 / 4 / 8:
 *   vllm-project/vllm vllm/compilation/passes/fusion/allreduce_rms_fusion.py
 *   @ 0052812d, FI_ALLREDUCE_FUSION_MAX_SIZE_MB).  The H100 / H200 scripts
 *   and MiniMax-M2.5's set none: vLLM's default for the version
 *   (engine_type.ar_fused_bytes; on from 0.16). */
static void ix_vllm_launch(const struct aic_row *r, struct experiment *x)
{
	const double mib = 1024.0 * 1024.0;
	bool gptoss = strncasecmp(r->model, "openai/gpt-oss", 14) == 0;
	bool llama70 = strcasecmp(r->model, "meta-llama/Llama-3.1-70B") == 0;
	bool b200 = strcmp(r->system, "b200_sxm") == 0;
	bool new_oss = r->measured[0] && strcmp(r->measured, "2025-12-05") >= 0;

	if (gptoss || (strncasecmp(r->model, "MiniMaxAI/", 10) == 0 && strcmp(r->system, "h100_sxm") == 0))
		x->kv_engine_auto = true;
	if (llama70 || (gptoss && b200 && new_oss)) {
		x->kv_dtype_given = true;
		x->kv_dtype = DT_FP8;
	}
	if (!b200 || !(llama70 || gptoss)) {
		/* a row that records no version runs the engine's newest rules
		 * (evaluate.c); one measured before vLLM fused by default (PR
		 * 34299, 2026-02-11) ran unfused */
		if (!r->version[0] && (!r->measured[0] || strcmp(r->measured, "2026-02-11") < 0))
			x->ar_fused_bytes = -1;
		return;
	}
	if (gptoss && new_oss)
		x->ar_fused_bytes = (r->tp <= 2 ? 64.0 : r->tp <= 4 ? 32.0 : 1.0) * mib;
	else
		x->ar_fused_bytes = (r->tp <= 4 ? 32.0 : 8.0) * mib;
}

/* A row InferenceX measured (aic_row.harness; eval/silicon/HARNESS.md, "Two
 * harnesses"): its client and the launch settings of its recipes where they
 * differ from the generator's rules above.  The client is InferenceX's copy
 * of vLLM's benchmark_serving (benchmarks/benchmark_lib.sh,
 * run_benchmark_serving): random prompts whose input and output lengths are
 * drawn uniformly from [floor(0.8 L), L] (--random-range-ratio 0.8, the
 * workflows' default; utils/bench_serving/benchmark_serving.py
 * sample_random_requests), 10 C prompts at --max-concurrency C with
 * --request-rate inf, after 2 C warm-up requests it waits for.  The
 * recipes (benchmarks/single_node/fixed_seq_len/<model>_<precision>_<gpu>.sh,
 * SemiAnalysisAI/InferenceX @ 843c6254f; the rows were measured in March and
 * April 2026 with the scripts of then, which may differ in details):
 * - SGLang: no --enable-mixed-chunk; DeepSeek-R1 on H200 (dsr1_fp8_h200.sh)
 *   with --chunked-prefill-size and --max-prefill-tokens 32768 and the
 *   default KV dtype (auto: bf16); on B200 / B300 (dsr1_{fp8,fp4}_b{200,300}.sh)
 *   an fp8 KV cache and --scheduler-recv-interval 30 at C >= 16 on TP 8 (fp8)
 *   or any TP (fp4), else 10, 1 with attention DP; fp8: chunked prefill and
 *   max prefill 32768 and --mem-fraction-static 0.82 on TP 8, 8192 and 0.95
 *   on TP 4; fp4: chunked prefill 16384 (32768 with attention DP),
 *   --mem-fraction-static 0.85.  H200: --mem-fraction-static 0.82.
 * - vLLM: gpt-oss (gptoss_fp4_*.sh) and MiniMax-M2.5 on H100
 *   (minimaxm2.5_fp8_h100.sh) with the default KV dtype; MiniMax-M2.5
 *   elsewhere with --kv-cache-dtype fp8 (the row's precision, as the
 *   generator's rows).
 * - TensorRT-LLM: kv_cache_config dtype fp8 (the row's precision); with
 *   attention DP, attention_dp_config enable_balance: DeepSeek-R1
 *   (dsr1_{fp4,fp8}_{b200,h200}_trt[_mtp].sh, since 2025-09-18, before
 *   every row) timeout_iters 60 and batching_wait_iters 0, gpt-oss-120b on
 *   B200 (gptoss_fp4_b200_trt.sh, since 2025-11-03) TensorRT-LLM's defaults
 *   (AttentionDpConfig: 50 and 10); the recipes' token budget and batch
 *   waiting (ix_trtllm_limits). */
/* InferenceX's client (kimbochen/bench_serving, then its copy in
 * utils/bench_serving) sent no warm-up requests until d053ae24e
 * (SemiAnalysisAI/InferenceX, 2026-01-21, "adding warmup": --num-warmups
 * 2 C from then on), and from 15b7c00b0 (2025-10-06, "removing persistent
 * cache from b200") the B200 runner mounts no FlashInfer JIT cache
 * (FLASHINFER_WORKSPACE_BASE): an aggregated row measured before the
 * warm-up came in starts from a cold server (experiment.cold_start), its
 * first measured requests paying what the server does on first use.  (Its
 * P/D rows ran srt-slurm's own client, not this one.) */
#define IX_WARMUP_FROM "2026-01-21"

/* The prompts per client of a run before the warm-up came in: the B200
 * runner (runners/launch_b200-nvd.sh, later launch_b200-dgxc.sh, until
 * d053ae24e) sent 20 C at OSL 8192 and 50 C otherwise for the models
 * "deepseek-ai/DeepSeek-R1-0528" (the fp8 SGLang configs) and
 * "nvidia/DeepSeek-R1-0528-FP4" (the fp4 SGLang configs until 17d5e204f,
 * 2025-11-03, which moved them to "nvidia/DeepSeek-R1-0528-FP4-V2"), 10 C
 * for every other model.  Only SGLang's rows are read this way: the
 * TensorRT-LLM configs named other checkpoints and ran other runners. */
static int64_t ix_cold_prompts(const struct aic_row *r, int be, bool deepseek, bool fp4)
{
	if (be != AIC_SGLANG || !deepseek || strcmp(r->system, "b200_sxm") != 0 ||
	    (fp4 && strcmp(r->measured, "2025-11-03") >= 0))
		return AIC_MEASURED_PER_CLIENT;
	return r->osl >= 8192 ? 20 : 50;
}

/* InferenceX's DeepSeek-R1 fp4 TensorRT-LLM runs (eval/silicon/HARNESS.md,
 * "fp4ckpt"): every config names nvidia/DeepSeek-R1-0528-FP4-V2
 * (SemiAnalysisAI/InferenceX .github/configs/nvidia-master.yaml:
 * dsr1-fp4-b200-trt and -trt-mtp; the dynamo-trt configs' dsr1 fp4 path,
 * /mnt/lustre01/models/deepseek-r1-0528-fp4-v2 in the multi-node launch
 * script, srt-slurm's "dsr1-fp4"), whose q_a, q_b, kv_a and kv_b
 * projections are bf16 and o_proj nvfp4 (data/models/deepseek-r1-0528-fp4-v2
 * .json), and every one runs an fp8 KV cache: kv_cache_config dtype fp8 in
 * dsr1_fp4_b200_trt.sh and dsr1_fp4_b200_trt_mtp.sh (agg) and on both
 * pools of all 129 b200-fp4, b300-fp4, gb200-fp4 and gb300-fp4 srt-slurm
 * TensorRT-LLM recipes (NVIDIA/srt-slurm @ c88ef731 recipes/trtllm/).  The
 * fp8 rows run the model's own checkpoint with the fp8 cache their
 * precision already gives.  The InferenceX dumps name the same DeepSeek-R1
 * runs DeepSeek-V3 too (HARNESS.md, "Duplicate rows"; InferenceX has no
 * DeepSeek-V3 config).  SGLang's aggregated fp4 runs ran the same
 * checkpoint with an fp8 KV cache (HARNESS.md, "ckptattn"): the
 * dsr1-fp4-b200-sglang and dsr1-fp4-b300-sglang configs name
 * nvidia/DeepSeek-R1-0528-FP4-V2 from the first (17d5e204f, 2025-11-03)
 * through the rows' last day (c52a8e97d, 2026-04-25), and their scripts
 * (benchmarks/dsr1_fp4_b200_docker.sh, then single_node/dsr1_fp4_b200.sh
 * and dsr1_fp4_b300.sh) launch SGLang with --kv-cache-dtype fp8_e4m3 and
 * --quantization modelopt_fp4, the q/kv projections left as stored.  The
 * rows measured before that config ran nvidia/DeepSeek-R1-0528-FP4, the v1
 * checkpoint (dsr1-tmpl.yml at e06929c70, 2025-11-01), which servesim does
 * not ship: they keep the model file.  Its P/D runs are not changed here:
 * several srt-slurm recipes set SGLANG_NVFP4_CKPT_FP8_GEMM_IN_ATTN=1 (fp8
 * attention GEMMs) and the rows do not say which recipe ran. */
#define IX_DSR1_FP4_CHECKPOINT "nvidia/DeepSeek-R1-0528-FP4-v2"
#define IX_SGLANG_DSR1_FP4_V2_FROM "2025-11-03"
/* The GLM-5 fp4 TensorRT-LLM P/D rows (source_file 2026-03-25.csv, measured
 * 2026-04-02; HARNESS.md "ckptffn"): the 13 srt-slurm recipes
 * recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/ISL{1K,8K}_OSL1K/STP/
 * (NVIDIA/srt-slurm b8ae71a5, 2026-04-03) list exactly the rows' 22
 * concurrencies and decode layouts, load models/GLM-5-NVFP4 in a TensorRT-LLM
 * image of 2026-04-02, and set kv_cache_config dtype fp8 on both pools.
 * nvidia/GLM-5-NVFP4 (data/models/glm-5-nvfp4.json: its hf_quant_config.json)
 * keeps every attention projection and the indexer bf16 and quantises the
 * dense and shared FFNs with the routed experts; it declares an fp8 cache. */
#define IX_GLM5_FP4_CHECKPOINT "nvidia/GLM-5-NVFP4"

static void inferencex_row(const struct aic_row *r, int be, struct experiment *x)
{
	bool deepseek = strncasecmp(r->model, "deepseek-ai/", 12) == 0, fp4 = strcmp(r->precision, "fp4") == 0;

	snprintf(x->wl.harness, sizeof(x->wl.harness), "vllm-bench");
	if ((be == AIC_TRTLLM || (be == AIC_SGLANG && strcmp(r->mode, "agg") == 0 && r->measured[0] &&
				  strcmp(r->measured, IX_SGLANG_DSR1_FP4_V2_FROM) >= 0)) && fp4 &&
	    (strcasecmp(r->model, "deepseek-ai/DeepSeek-R1") == 0 || strcasecmp(r->model, "deepseek-ai/DeepSeek-V3") == 0)) {
		snprintf(x->checkpoint, sizeof(x->checkpoint), "%s", IX_DSR1_FP4_CHECKPOINT);
		x->kv_dtype_given = true;
		x->kv_dtype = DT_FP8;
	}
	if (be == AIC_TRTLLM && fp4 && strcmp(r->mode, "disagg") == 0 && strcasecmp(r->model, "zhipuai/GLM-5") == 0) {
		snprintf(x->checkpoint, sizeof(x->checkpoint), "%s", IX_GLM5_FP4_CHECKPOINT);
		x->kv_dtype_given = true;
		x->kv_dtype = DT_FP8;
	}
	if (strcmp(r->mode, "agg") == 0 && r->measured[0] && strcmp(r->measured, IX_WARMUP_FROM) < 0) {
		x->cold_start = true;
		x->wl.num_requests = ix_cold_prompts(r, be, deepseek, fp4) * r->concurrency;
	}
	/* Its MTP runs wrap each random prompt in the model's chat template
	 * (--use-chat-template: on every single-node MTP script, a blocking
	 * review rule since InferenceX PR 647, "without this arg, MTP
	 * acceptance rates are artificially high for DeepSeek with MTP"; on
	 * every run of srt-slurm's sa-bench, the P/D client, NVIDIA/srt-slurm
	 * @ a968ea23 src/srtctl/benchmarks/scripts/sa-bench/bench.sh).  The
	 * model answers a chat turn in text, so its drafts are accepted as on
	 * text prompts: the text curve, not the random-token one. */
	if (x->spec_tokens > 0)
		x->wl.prompt_kind = WL_PROMPTS_CHAT;
	/* SGLang DeepSeek-R1 fp4 on B200 ran expert-parallel MoE at EP = TP
	 * from its first script: dsr1_fp4_b200_docker.sh passed
	 * --enable-ep-moe (SGLang then sets ep_size = tp_size) until
	 * d8fe8f73e (2025-11-10), then --ep-size $EP_SIZE with the config's
	 * ep: 4 and ep: 8 for the TP 4 and TP 8 entries (nvidia-master.yaml,
	 * the same commit).  The rows measured before the config had the field
	 * (2025-11-02, 2025-11-10) record moe_ep_size 1. */
	if (be == AIC_SGLANG && deepseek && fp4 && strcmp(r->system, "b200_sxm") == 0 && x->ep == 1 && x->dp == 1)
		x->ep = x->tp;
	x->wl.prompt.kind = x->wl.output.kind = WL_UNIFORM;
	x->wl.prompt.a = floor(AIC_IX_RANGE_RATIO * (double)r->isl);
	x->wl.prompt.b = (double)r->isl;
	x->wl.output.a = floor(AIC_IX_RANGE_RATIO * (double)r->osl);
	x->wl.output.b = (double)r->osl;
	if (be == AIC_SGLANG && strcmp(r->mode, "agg") == 0) {
		x->k.sglang_mixed_chunk = false;
		x->k.max_prefill_tokens = 0;
		if (deepseek && strcmp(r->system, "h200_sxm") == 0) {
			x->k.max_num_batched_tokens = x->k.max_prefill_tokens = 32768;
			x->k.mem_fraction_static = 0.82;
			x->kv_engine_auto = true;
		} else if (deepseek && (strcmp(r->system, "b200_sxm") == 0 || strcmp(r->system, "b300_sxm") == 0)) {
			if (r->attn_dp > 1)
				x->k.recv_interval = 1;
			else
				x->k.recv_interval = r->concurrency >= 16 && (fp4 || r->tp >= 8) ? 30 : 10;
			if (fp4) {
				x->k.max_num_batched_tokens = r->attn_dp > 1 ? 32768 : 16384;
				x->k.mem_fraction_static = 0.85;
			} else if (x->spec_tokens > 0) {
				/* dsr1_fp8_b200_mtp.sh (TP 8 only): chunked
				 * prefill and max prefill 16384 */
				x->k.max_num_batched_tokens = x->k.max_prefill_tokens = 16384;
				x->k.mem_fraction_static = 0.82;
			} else {
				x->k.max_num_batched_tokens = x->k.max_prefill_tokens = r->tp >= 8 ? 32768 : 8192;
				x->k.mem_fraction_static = r->tp >= 8 ? 0.82 : 0.95;
			}
		}
	} else if (be == AIC_TRTLLM && strcmp(r->mode, "agg") == 0) {
		if (r->attn_dp > 1 && deepseek) {
			x->adp_timeout_iters = 60;
			x->adp_batching_wait_iters = 0;
		} else if (r->attn_dp > 1 && strncasecmp(r->model, "openai/gpt-oss", 14) == 0 &&
			   strcmp(r->system, "b200_sxm") == 0) {
			x->adp_timeout_iters = 50;
			x->adp_batching_wait_iters = 10;
		}
		ix_trtllm_limits(r, deepseek, x);
	} else if (be == AIC_VLLM && strcmp(r->mode, "agg") == 0) {
		ix_vllm_launch(r, x);
	}
}

/* A row that ran multi-token prediction (aic_pools_apply): its draft depth,
 * and the token budget that makes room for the drafts, which ride in every
 * decode step.  P/D decode pools: batch x (1 + drafts), as the recipes size
 * max_num_tokens (InferenceX's ..._batchB_eplb0_mtpK.yaml; TensorRT-LLM's
 * rounded up to its block).  Aggregated TensorRT-LLM: the drafts on top of
 * the generator's budget ((MTP + 1) x max_batch_size + ISL + slack:
 * dsr1_*_trt_mtp.sh).  SGLang sizes its budget apart from the drafts. */
static void mtp_budget(const struct aic_row *r, int be, bool disagg, struct experiment *x)
{
	int64_t tok;

	x->spec_tokens = r->spec_tokens;
	if (x->spec_tokens <= 0 || be == AIC_SGLANG)
		return;
	if (!disagg) {
		if (be == AIC_TRTLLM)
			x->k.max_num_batched_tokens += (int64_t)x->spec_tokens * x->k.max_num_seqs;
		return;
	}
	tok = x->k.max_num_seqs * (1 + x->spec_tokens);
	x->k.max_num_batched_tokens = be == AIC_TRTLLM ? (tok + AIC_BLOCK - 1) / AIC_BLOCK * AIC_BLOCK : tok;
}

static int aic_row_load(const struct exp_table *t, size_t i, struct experiment *x, char *why,
			size_t n)
{
	const struct aic_row *r = &t->aic.r[i];
	struct measured_stage *ms;
	int k, be;

	memset(x, 0, sizeof(*x));
	if (strcmp(r->mode, "agg") != 0 && strcmp(r->mode, "disagg") != 0) {
		snprintf(why, n, "mode %.40s (expected agg or disagg)", r->mode[0] ? r->mode : "(empty)");
		return 0;
	}
	if ((be = aic_backend_of(r->backend)) < 0) {
		snprintf(why, n, "backend %.40s (expected trtllm, vllm or sglang)", r->backend[0] ? r->backend : "(empty)");
		return 0;
	}
	snprintf(x->name, sizeof(x->name), "%s", r->id);
	snprintf(x->source, sizeof(x->source), "%.480s:%zu", t->files[r->file], r->line);
	snprintf(x->path, sizeof(x->path), "%s", t->files[r->file]);
	snprintf(x->format, sizeof(x->format), "aic-silicon");
	x->skippable = true;
	snprintf(x->model, sizeof(x->model), "%s", r->model);
	snprintf(x->gpu, sizeof(x->gpu), "%s", r->system);
	/* the engine picks the scheduler (sglang: SGLang's; vllm, trtllm:
	 * vLLM's, trtllm with GUARANTEED_NO_EVICT admission) and, with the
	 * version, the kernel collection: that engine's nearest to
	 * backend_version, its newest when the row records none */
	snprintf(x->engine, sizeof(x->engine), "%s", aic_backend_names[be]);
	snprintf(x->engine_version, sizeof(x->engine_version), "%.31s", r->version[0] ? r->version : "unknown");
	if (be == AIC_TRTLLM && r->dynamo_image[0])
		dynamo_trtllm_version(r->dynamo_image, x->engine_version, sizeof(x->engine_version));
	snprintf(x->precision, sizeof(x->precision), "precision=%s gemm=%s moe=%s", r->precision,
		 r->gemm_quant, r->moe_quant);
	if (strcmp(r->mode, "disagg") == 0) {
		/* the backend's block, memory and cache settings as for agg
		 * rows, then each pool's limits */
		aic_limits(r, be, x);
		if (!aic_pd_layout(r, be, x, why, n))
			return 0;
		if (r->spec_tokens < 0) {
			snprintf(why, n, "disagg row with multi-token prediction of unrecorded depth");
			return 0;
		}
		mtp_budget(r, be, true, x);
	} else {
		if (!aic_layout(r, be, x, why, n))
			return 0;
		/* engine limits: batch_size per replica (the closed loop of C
		 * spreads C / dp over the replicas) and the backend's generated
		 * token budget */
		aic_limits(r, be, x);
		if (r->spec_tokens < 0) {
			snprintf(why, n, "agg row with multi-token prediction of unrecorded depth");
			return 0;
		}
		mtp_budget(r, be, false, x);
	}
	x->dtype = aic_dtype(r);
	x->kind = EXP_CLOSED;
	x->warmup_requests = AIC_WARMUP_PER_CLIENT * r->concurrency;
	wl_spec_defaults(&x->wl);
	x->wl.process = WL_CONCURRENCY;
	x->wl.concurrency = r->concurrency;
	x->wl.num_requests = (AIC_WARMUP_PER_CLIENT + AIC_MEASURED_PER_CLIENT) * r->concurrency;
	x->wl.prompt.kind = x->wl.output.kind = WL_FIXED;
	x->wl.prompt.a = (double)r->isl;
	x->wl.output.a = (double)r->osl;
	snprintf(x->wl.harness, sizeof(x->wl.harness), "aiperf"); /* genai-perf / aiperf (HARNESS.md) */
	if (r->harness == AIC_HARNESS_INFERENCEX)
		inferencex_row(r, be, x);
	snprintf(x->wl.source, sizeof(x->wl.source), "%s", x->name);
	snprintf(x->workload_name, sizeof(x->workload_name), "%lld/%lld", (long long)r->isl,
		 (long long)r->osl);
	ms = &x->stages[0];
	ms->index = 0;
	ms->rate = (double)r->concurrency;
	ms->duration_s = 1;
	ms->completed = x->wl.num_requests - x->warmup_requests;
	for (k = 0; k < EM__COUNT; k++)
		ms->v[k] = NAN;
	ms->v[EM_TTFT_MEAN] = r->ttft_ms;
	ms->v[EM_ITL_MEAN] = r->tpot_ms;
	/* mean E2E = mean TTFT + (mean output - 1) x mean TPOT: exact at a
	 * fixed output length; with InferenceX's uniform lengths up to the
	 * covariance of a request's length and its TPOT */
	ms->v[EM_E2E_MEAN] = r->ttft_ms + (dist_nominal(&x->wl.output) - 1) * r->tpot_ms;
	ms->itl_reported_ms = r->tpot_ms;
	x->nstages = 1;
	return 1;
}

void experiment_default_knobs(struct deploy_knobs *k, int64_t max_num_seqs, int64_t max_model_len)
{
	deploy_defaults(&deploy_table, k);
	k->max_num_batched_tokens = 8192; /* vLLM's per-GPU rule on a >= 70 GiB GPU other than A100 (issue 10) */
	k->max_num_seqs = max_num_seqs;
	k->max_model_len = max_model_len;
}

/* Engine settings of results that record only some: what the file says,
 * else base's (--experiment / --model flags), else the defaults of
 * experiment_default_knobs with vLLM's max_num_seqs for a >= 70 GiB GPU
 * other than A100 (1024: vLLM's per-GPU default rule, issue 10) and
 * max_model_len from the longest request (0, raised below): these results
 * come from vLLM servers launched with its defaults, unlike the bare files
 * of exp_settings_base whose flags document 256 and 4096. */
static void apply_settings(struct experiment *x, const struct gt_settings *s,
			   const struct experiment *base, const char *gpu, int64_t longest)
{
	if (base) {
		copy_layout(base, x);
		snprintf(x->engine_version, sizeof(x->engine_version), "%s", base->engine_version);
	} else {
		x->tp = x->pp = x->dp = x->ep = 1;
		x->dtype = DT_BF16;
		experiment_default_knobs(&x->k, 1024, 0);
		snprintf(x->engine_version, sizeof(x->engine_version), "unknown");
	}
	snprintf(x->model, sizeof(x->model), "%s", s->model[0] ? s->model : base ? base->model : "");
	snprintf(x->gpu, sizeof(x->gpu), "%s", s->gpu[0] ? s->gpu : base ? base->gpu : gpu);
	if (s->engine[0])
		snprintf(x->engine, sizeof(x->engine), "%s", s->engine);
	if (s->version[0])
		snprintf(x->engine_version, sizeof(x->engine_version), "%s", s->version);
	if (s->tp)
		x->tp = s->tp;
	if (s->dp)
		x->dp = s->dp;
	if (s->max_num_seqs)
		x->k.max_num_seqs = s->max_num_seqs;
	if (s->max_num_batched_tokens)
		x->k.max_num_batched_tokens = s->max_num_batched_tokens;
	if (s->max_model_len)
		x->k.max_model_len = s->max_model_len;
	if (s->block_size)
		x->k.block_size = s->block_size;
	if (strcmp(s->dtype, "float16") == 0 || strcmp(s->dtype, "half") == 0)
		x->dtype = DT_FP16;
	if (x->k.max_model_len < longest)
		x->k.max_model_len = longest;
	x->skippable = true;
}

/* A length distribution from per-request counts (empirical, owned by the
 * spec) or, without them, fixed at the mean. */
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void lengths_dist(struct wl_dist *d, const double *v, size_t n, double mean)
{
	double *s;
	size_t i, k = 0;

	memset(d, 0, sizeof(*d));
	d->min = 1;
	d->max = WL_MAX_TOKENS;
	if (!v || n == 0) {
		d->kind = WL_FIXED;
		d->a = mean >= 1 ? floor(mean + 0.5) : 1;
		return;
	}
	s = xmalloc(xmul(n, sizeof(double)));
	memcpy(s, v, n * sizeof(double));
	qsort(s, n, sizeof(double), cmp_dbl);
	d->kind = WL_EMPIRICAL;
	d->values = xmalloc(xmul(n, sizeof(double)));
	d->cdf = xmalloc(xmul(n, sizeof(double)));
	for (i = 0; i < n; i++) {
		double x = s[i] >= 1 ? s[i] : 1;
		if (k && d->values[k - 1] == x) {
			d->cdf[k - 1] = (double)(i + 1) / (double)n;
			continue;
		}
		d->values[k] = x;
		d->cdf[k] = (double)(i + 1) / (double)n;
		k++;
	}
	d->nvalues = k;
	free(s);
}

/* One serving-benchmark run as an experiment: its load regenerated (a
 * closed loop at max_concurrency, all requests at once for rate inf, else
 * Poisson / gamma arrivals at request_rate), its aggregates compared. */
static int bench_run_load(const struct exp_table *t, size_t i, const char *gpu,
			  const struct experiment *base, struct experiment *x, char *why, size_t n,
			  struct err *e)
{
	const struct bench_run *r = &t->bench.r[i];
	struct measured_stage *ms;
	struct gt_settings st;
	int64_t longest = 0;
	size_t k;

	memset(x, 0, sizeof(*x));
	memset(&st, 0, sizeof(st));
	snprintf(st.model, sizeof(st.model), "%s", r->model);
	snprintf(st.engine, sizeof(st.engine), "%s",
		 strncmp(r->backend, "sglang", 6) == 0 ? "sglang" : strstr(r->backend, "vllm") ? "vllm" : "");
	for (k = 0; k < r->nlens; k++)
		if ((int64_t)(r->in_lens[k] + r->out_lens[k]) > longest)
			longest = (int64_t)(r->in_lens[k] + r->out_lens[k]);
	if (!r->nlens)
		longest = (int64_t)ceil(r->mean_in + r->mean_out);
	apply_settings(x, &st, base, gpu, longest);
	if (!x->model[0]) {
		snprintf(why, n, "no model recorded (give --model M or --experiment DIR)");
		return 0;
	}
	snprintf(x->name, sizeof(x->name), "%s#%zu", base_name(t->path), i + 1);
	snprintf(x->source, sizeof(x->source), "%.500s", t->path);
	snprintf(x->path, sizeof(x->path), "%s", t->path);
	snprintf(x->format, sizeof(x->format), "%s", t->bench.tool);
	x->kind = EXP_CLOSED;
	wl_spec_defaults(&x->wl);
	snprintf(x->wl.harness, sizeof(x->wl.harness), "%s", t->bench.tool); /* vllm-bench, sglang-bench */
	x->wl.num_requests = r->completed;
	if (r->max_concurrency > 0 && isinf(r->request_rate)) {
		x->wl.process = WL_CONCURRENCY;
		x->wl.concurrency = r->max_concurrency;
	} else if (isinf(r->request_rate)) {
		/* every request sent at t = 0 */
		x->wl.process = WL_CONCURRENCY;
		x->wl.concurrency = r->completed;
	} else {
		/* vLLM: gamma gaps of shape burstiness (cv 1/sqrt(burstiness));
		 * a max_concurrency cap on top of a rate is not modelled */
		x->wl.process = r->burstiness == 1 ? WL_POISSON : WL_GAMMA;
		x->wl.rate = r->request_rate;
		x->wl.cv = 1 / sqrt(r->burstiness);
	}
	lengths_dist(&x->wl.prompt, r->in_lens, r->nlens, r->mean_in);
	lengths_dist(&x->wl.output, r->out_lens, r->nlens, r->mean_out);
	snprintf(x->wl.source, sizeof(x->wl.source), "%s", x->name);
	ms = &x->stages[0];
	for (k = 0; k < EM__COUNT; k++)
		ms->v[k] = NAN;
	ms->rate = r->completed / r->duration_s;
	ms->duration_s = r->duration_s;
	ms->completed = r->completed;
	ms->v[EM_TTFT_MEAN] = r->ttft_mean;
	ms->v[EM_TTFT_P90] = r->ttft_p90;
	ms->v[EM_ITL_MEAN] = r->tpot_mean;
	ms->v[EM_E2E_MEAN] = r->e2e_mean;
	ms->v[EM_E2E_P90] = r->e2e_p90;
	ms->v[EM_THROUGHPUT] = r->throughput;
	ms->itl_reported_ms = r->itl_mean;
	x->nstages = 1;
	(void)e;
	return 1;
}

int exp_table_load(const struct exp_table *t, size_t i, const char *gpu,
		   const struct experiment *base, struct experiment *x, char *why, size_t n,
		   struct err *e)
{
	if (t->fmt == RD_AIC)
		return aic_row_load(t, i, x, why, n);
	return bench_run_load(t, i, gpu, base, x, why, n, e);
}

void skip_reason_norm(const char *msg, char *out, size_t n)
{
	size_t k, o = 0, word = 0, prev = 0; /* where this word and the one before start */

	if (n == 0)
		return;
	for (k = 0; msg[k] && o + 1 < n; k++) {
		if (k > 0 && msg[k - 1] == ' ') {
			prev = word;
			word = k;
		}
		if (word == k && msg[k] >= '0' && msg[k] <= '9' &&
		    !(prev < k && msg[prev] == '-' && msg[prev + 1] == '-')) {
			out[o++] = 'N';
			while (msg[k + 1] == '.' || (msg[k + 1] >= '0' && msg[k + 1] <= '9'))
				k++;
		} else {
			out[o++] = msg[k];
		}
	}
	out[o] = '\0';
}

void skip_tally_add(struct skip_tally *s, const char *reason)
{
	size_t i;

	s->total++;
	for (i = 0; i < s->n; i++)
		if (strcmp(s->reason[i], reason) == 0) {
			s->count[i]++;
			return;
		}
	if (s->n == SKIP_MAX_REASONS) {
		s->other++;
		return;
	}
	snprintf(s->reason[s->n], sizeof(s->reason[0]), "%s", reason);
	s->count[s->n++] = 1;
}
