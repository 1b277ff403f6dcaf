/* fields.c - the deployment field table (fields.h) and what reads it: flag
 * values with range checks, defaults, sweep values, JSON and CSV members,
 * --help lines. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "deploy/fields.h"
#include "base/argval.h"

#define OFF(m) offsetof(struct deploy_knobs, m)

/* Ranges and defaults: vLLM's EngineArgs (vllm/engine/arg_utils.py) and
 * SGLang's ServerArgs (sglang/srt/server_args.py) where they fix one; the
 * rule-given defaults are applied by scenario_defaults and the engines. */
static const struct deploy_field rows[DEPLOY__COUNT] = {
	[DEPLOY_MAX_NUM_BATCHED_TOKENS] = {"max_num_batched_tokens", {"--max-num-batched-tokens", "--chunked-prefill-size"},
		"max_num_batched_tokens", DEPLOY_INT, 1, 1 << 20, false, 0,
		"8192 on a GPU with >= 70 GiB other than A100, else 2048; SGLang: its rule by GPU memory",
		"N", "tokens one step schedules, prompt chunks and decodes", 2,
		OFF(max_num_batched_tokens), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_MAX_NUM_SEQS] = {"max_num_seqs", {"--max-num-seqs", "--max-running-requests"}, "max_num_seqs",
		DEPLOY_INT, 1, 1 << 16, false, 0,
		"1024 on a GPU with >= 70 GiB other than A100, else 256; SGLang: its rule from the KV pool; under SGLang's attention DP a given N is the engine's, N / dp a rank's",
		"N", "requests one step runs", 1, OFF(max_num_seqs), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_MAX_MODEL_LEN] = {"max_model_len", {"--max-model-len", "--context-length"}, "max_model_len",
		DEPLOY_INT, 1, 1 << 24, false, 0, "the model's max_position_embeddings",
		"N", "longest prompt + output a request may have", 3, OFF(max_model_len), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_BLOCK_SIZE] = {"block_size", {"--block-size", "--page-size"}, "block_size", DEPLOY_INT, 1, 1024,
		false, 16, "16; SGLang 1", "N", "tokens per KV block", 4, OFF(block_size), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_LONG_PREFILL_TOKEN_THRESHOLD] = {"long_prefill_token_threshold", {"--long-prefill-token-threshold"},
		NULL, DEPLOY_INT, 0, 1 << 24, false, 0, "0 = off", "N",
		"longest chunk one step takes of a long prompt", 5, OFF(long_prefill_token_threshold), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_GPU_MEMORY_UTILIZATION] = {"gpu_memory_utilization", {"--gpu-memory-utilization"},
		"gpu_memory_utilization", DEPLOY_NUM, 0, 1, true, 0.9, NULL, "F",
		"share of GPU memory for weights, activations and the KV cache", 7, OFF(gpu_memory_utilization), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_TOTAL_KV_BLOCKS] = {"total_kv_blocks", {"--total-kv-blocks"}, "total_kv_blocks", DEPLOY_INT, 1,
		1 << 28, false, 0, "from the memory plan", "N", "KV blocks per replica, as vLLM logs them", 6,
		OFF(total_kv_blocks), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_PREFIX_CACHING] = {"prefix_caching", {"--no-prefix-caching", "--disable-radix-cache"},
		"enable_prefix_caching", DEPLOY_OFF, 0, 1, false, 1, "on", NULL,
		"turns automatic prefix caching off", 0, OFF(prefix_caching), DEPLOY_G_ENGINE, NULL, false},
	[DEPLOY_MEM_FRACTION_STATIC] = {"mem_fraction_static", {"--mem-fraction-static"}, "mem_fraction_static",
		DEPLOY_NUM, 0, 1, true, 0, "SGLang's rule", "F", "weights + KV pool as a share of GPU memory", 0,
		OFF(mem_fraction_static), DEPLOY_G_SGLANG, NULL, true},
	[DEPLOY_MAX_PREFILL_TOKENS] = {"max_prefill_tokens", {"--max-prefill-tokens"}, "max_prefill_tokens", DEPLOY_INT,
		1, 1 << 24, false, 0, "16384 (SGLang's)", "N",
		"prompt tokens one prefill batch takes (before SGLang 0.5.13, past its first request a prompt joins only while it fits)", 0,
		OFF(max_prefill_tokens), DEPLOY_G_SGLANG, NULL, true},
	[DEPLOY_MIXED_CHUNK] = {"enable_mixed_chunk", {"--enable-mixed-chunk"}, "enable_mixed_chunk", DEPLOY_ON, 0, 1,
		false, 0, "off", NULL, "prefill batches carry the running decoders' tokens", 0, OFF(sglang_mixed_chunk),
		DEPLOY_G_SGLANG, NULL, true},
	[DEPLOY_DISABLE_OVERLAP] = {"disable_overlap_schedule", {"--disable-overlap-schedule"}, NULL, DEPLOY_ON, 0, 1,
		false, 0, "off: overlapped with the GPU's previous batch", NULL,
		"the CPU overhead terms add to each step", 0, OFF(disable_overlap), DEPLOY_G_SGLANG, NULL, true},
	[DEPLOY_KV_OFFLOADING_SIZE] = {"kv_offloading_size_gib", {"--kv-offloading-size"}, NULL, DEPLOY_NUM, 0,
		1048576, true, 0, "off", "GiB",
		"vLLM: a host KV tier of GiB over the TP ranks (LRU; blocks the GPU prefix cache evicts go there, "
		"prefix hits load back)", 0, OFF(kv_offloading_gib), DEPLOY_G_OFFLOAD, " GiB", true},
	[DEPLOY_HICACHE] = {"enable_hierarchical_cache", {"--enable-hierarchical-cache"}, NULL, DEPLOY_ON, 0, 1, false, 0,
		"off", NULL, "SGLang HiCache: a host KV tier of --hicache-ratio x the device pool or --hicache-size GB "
		"per GPU", 0, OFF(hicache), DEPLOY_G_OFFLOAD, NULL, true},
	[DEPLOY_HICACHE_RATIO] = {"hicache_ratio", {"--hicache-ratio"}, NULL, DEPLOY_NUM, 0, 1000, true, 2, NULL, "R",
		"HiCache's host pool over the device pool", 0, OFF(hicache_ratio), DEPLOY_G_OFFLOAD, NULL, true},
	[DEPLOY_HICACHE_SIZE] = {"hicache_size_gb", {"--hicache-size"}, NULL, DEPLOY_NUM, 0, 1048576, true, 0,
		"by the ratio", "GB", "HiCache's host pool per GPU, over the ratio", 0, OFF(hicache_gb), DEPLOY_G_OFFLOAD,
		" GB", true},
	[DEPLOY_LORA] = {"enable_lora", {"--enable-lora"}, NULL, DEPLOY_ON, 0, 1, false, 0, "off", NULL,
		"serve the adapters the workload's requests name", 0, OFF(lora), DEPLOY_G_LORA, NULL, true},
	[DEPLOY_MAX_LORA_RANK] = {"lora_max_lora_rank", {"--max-lora-rank"}, NULL, DEPLOY_INT, 1, 4096, false, 0, "16",
		"R", "largest adapter rank", 0, OFF(lora_rank), DEPLOY_G_LORA, NULL, true},
	[DEPLOY_REPLICAS] = {"replicas", {"--replicas"}, "replicas", DEPLOY_INT, 1, DEPLOY_MAX_REPLICAS, false, 1, NULL, "N",
		"independent copies of the whole deployment (TP x PP x DP x EP, both P/D pools) behind the router", 0,
		OFF(replicas), DEPLOY_G_POOL, NULL, true, NULL, NULL, true},
	/* the spellings sim/engine.c's router_kind_of maps (test_deploy checks
	 * they agree); the default is the caller's (router_kind_of): run's
	 * least-loaded, an experiment's round-robin (docs/formats.md) */
	[DEPLOY_ROUTER] = {"router", {"--router"}, "router", DEPLOY_STR, 0, 0, false, 0, "least-loaded", "R",
		"picks a replica, then a DP rank in it: round-robin, least-loaded or kv-aware (llm-d's prefix-cache + "
		"load scorers); aliases rr, lo, least-outstanding, kv", 0, OFF(router), DEPLOY_G_POOL, NULL, true,
		"round-robin|least-loaded|kv-aware", "rr|lo|least-outstanding|kv", true},
	[DEPLOY_SCHEDULE_POLICY] = {"schedule_policy", {"--schedule-policy"}, NULL, DEPLOY_STR, 0, 0, false, 0, "fcfs",
		"fcfs|lpm", "waiting-queue order", 0, OFF(schedule_policy), DEPLOY_G_SGLANG, NULL, true, "fcfs|lpm"},
	[DEPLOY_RECV_INTERVAL] = {"scheduler_recv_interval", {"--scheduler-recv-interval"}, "scheduler_recv_interval", DEPLOY_INT, 1,
		DEPLOY_MAX_RECV_INTERVAL, false, 0, "1", "N",
		"while it runs, the scheduler polls for new requests every N decode batches or after any other batch", 0,
		OFF(recv_interval), DEPLOY_G_SGLANG, NULL, true},
	[DEPLOY_KV_OFFLOADING_BACKEND] = {"kv_offloading_backend", {"--kv-offloading-backend"}, NULL, DEPLOY_STR, 0, 0,
		false, 0, "native", "native|lmcache",
		"vLLM's OffloadingConnector (loads beside the step) or LMCache's (synchronous load and store)", 0,
		OFF(kv_offloading_backend), DEPLOY_G_OFFLOAD, NULL, true, "native|lmcache"},
	[DEPLOY_MAX_LORAS] = {"max_loras", {"--max-loras"}, NULL, DEPLOY_INT, 1, 4096, false, 0, "1", "N",
		"vLLM: adapters per step", 0, OFF(max_loras), DEPLOY_G_LORA, NULL, true},
	[DEPLOY_MAX_LORAS_PER_BATCH] = {"max_loras_per_batch", {"--max-loras-per-batch"}, NULL, DEPLOY_INT, 1, 4096,
		false, 0, "8", "N", "SGLang: adapters per batch, the base model one of them", 0, OFF(max_loras_per_batch),
		DEPLOY_G_LORA, NULL, true},
	[DEPLOY_MAX_CPU_LORAS] = {"max_cpu_loras", {"--max-cpu-loras"}, NULL, DEPLOY_INT, 1, DEPLOY_MAX_ADAPTERS, false, 0,
		"--max-loras", "M", "vLLM: adapters in host memory", 0, OFF(max_cpu_loras), DEPLOY_G_LORA, NULL, true},
	[DEPLOY_MAX_LOADED_LORAS] = {"max_loaded_loras", {"--max-loaded-loras"}, NULL, DEPLOY_INT, 1, DEPLOY_MAX_ADAPTERS,
		false, 0, "all", "M", "SGLang: adapters in host memory", 0, OFF(max_loaded_loras), DEPLOY_G_LORA, NULL,
		true},
	[DEPLOY_EPLB] = {"enable_eplb", {"--enable-eplb"}, NULL, DEPLOY_ON, 0, 1, false, 0, "off", NULL,
		"redundant experts placed by DeepSeek's EPLB", 0, OFF(eplb), DEPLOY_G_EPLB, NULL, true},
	[DEPLOY_EPLB_CONFIG] = {"eplb_config", {"--eplb-config"}, NULL, DEPLOY_STR, 0, 0, false, 0,
		"num_redundant_experts 0, step_interval 3000", "JSON",
		"vLLM's EPLBConfig: num_redundant_experts, step_interval, use_async", 0, OFF(eplb_config), DEPLOY_G_EPLB,
		NULL, true},
	[DEPLOY_NUM_REDUNDANT_EXPERTS] = {"num_redundant_experts", {"--num-redundant-experts"}, NULL, DEPLOY_INT, 0,
		1 << 16, false, -1, "0", "N", "vLLM's older flag for num_redundant_experts", 0,
		OFF(num_redundant_experts), DEPLOY_G_EPLB, NULL, true},
	[DEPLOY_EP_NUM_REDUNDANT_EXPERTS] = {"ep_num_redundant_experts", {"--ep-num-redundant-experts"}, NULL,
		DEPLOY_INT, 0, 1 << 16, false, -1, "0", "N", "SGLang: redundant experts", 0, OFF(ep_num_redundant_experts),
		DEPLOY_G_EPLB, NULL, true},
	[DEPLOY_EPLB_ITERATIONS] = {"eplb_rebalance_num_iterations", {"--eplb-rebalance-num-iterations"}, NULL,
		DEPLOY_INT, 1, 1099511627776.0, false, -1, "1000", "N", "SGLang: steps between rebalances", 0,
		OFF(eplb_iterations), DEPLOY_G_EPLB, NULL, true},
	/* vLLM's is_deep_gemm_supported (vllm/utils/deep_gemm.py):
	 * VLLM_USE_DEEP_GEMM (on by default) and the deep_gemm package, which
	 * vLLM's own images install and its PyPI wheel does not depend on */
	[DEPLOY_NO_DEEP_GEMM] = {"no_deep_gemm", {"--no-deep-gemm"}, "no_deep_gemm", DEPLOY_ON, 0, 1, false, 0,
		"off: vLLM's images carry DeepGEMM", NULL,
		"vLLM without DeepGEMM (a pip-installed vLLM, or VLLM_USE_DEEP_GEMM=0): block-fp8 dense linears on "
		"Hopper run its CUTLASS block-scaled GEMM", 0, OFF(no_deep_gemm), DEPLOY_G_ENGINE, NULL, true},
	/* SGLang's server arguments (python/sglang/srt/server_args.py:
	 * enable_dp_lm_head False, moe_dense_tp_size None, choices [1]) */
	[DEPLOY_DP_LM_HEAD] = {"enable_dp_lm_head", {"--enable-dp-lm-head"}, "enable_dp_lm_head", DEPLOY_ON, 0, 1, false, 0, "off", NULL,
		"under attention DP, the LM head vocab-parallel over each rank's own TP group, not all GPUs (no "
		"gather of the ranks' logits)", 0, OFF(sglang_dp_lm_head), DEPLOY_G_SGLANG, NULL, true},
	[DEPLOY_MOE_DENSE_TP_SIZE] = {"moe_dense_tp_size", {"--moe-dense-tp-size"}, "moe_dense_tp_size", DEPLOY_INT, 1, 1, false, 0,
		"all GPUs", "1", "under attention DP, 1 keeps the dense FFN layers on each rank's own GPUs, not split "
		"over all GPUs", 0, OFF(moe_dense_tp_size), DEPLOY_G_SGLANG, NULL, true},
};

const struct deploy_table deploy_table = {rows, DEPLOY__COUNT};

/* arg one of "a|b|c" */
static bool choice_ok(const char *choices, const char *arg)
{
	size_t n = strlen(arg);
	const char *p;

	for (p = choices; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
		if (strncmp(p, arg, n) == 0 && (p[n] == '|' || p[n] == '\0'))
			return true;
	return false;
}

/* "FLAG must be a, b or c (or x, y), got 'ARG'": f's choices, then its
 * aliases */
static int bad_choice(const struct deploy_field *f, int code, const char *flag, const char *arg, struct err *e)
{
	struct sbuf list;
	const char *p, *bar;
	int rc;

	sb_init(&list);
	for (p = f->choices; p; p = bar ? bar + 1 : NULL) {
		bar = strchr(p, '|');
		if (p != f->choices)
			sb_printf(&list, "%s", bar ? ", " : " or ");
		sb_put(&list, p, bar ? (size_t)(bar - p) : strlen(p));
	}
	for (p = f->aliases; p; p = bar ? bar + 1 : NULL) {
		bar = strchr(p, '|');
		sb_printf(&list, "%s", p == f->aliases ? " (or " : ", ");
		sb_put(&list, p, bar ? (size_t)(bar - p) : strlen(p));
		if (!bar)
			sb_putc(&list, ')');
	}
	rc = err_set(e, code, "%s must be %s, got '%s'", flag, list.buf, arg);
	sb_release(&list);
	return rc;
}

/* the rows with an exp_key at experiment.json's top level (top) or in its
 * engine block, from o */
static int exp_read(const struct deploy_table *t, const struct json *o, const char *ctx, bool top, void *base,
		    struct err *e)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < t->n && rc == 0; i++) {
		const struct deploy_field *f = &t->row[i];
		bool pres = false, b = false;
		const char *str = NULL;
		char flag[900];
		int64_t n = 0;
		double x = 0;

		if (!f->exp_key || f->exp_top != top || !json_get(o, f->exp_key))
			continue;
		switch (f->type) {
		case DEPLOY_INT:
			if ((rc = json_opt_int(o, f->exp_key, ctx, (int64_t)f->lo, (int64_t)f->hi, &n, &pres, e)) == 0)
				deploy_set(t, i, (double)n, base);
			break;
		case DEPLOY_NUM:
			if ((rc = json_opt_num(o, f->exp_key, ctx, &x, &pres, e)) < 0)
				break;
			if (!(f->lo_open ? x > f->lo : x >= f->lo) || !(x <= f->hi))
				return err_set(e, SS_EDATA, "%s: '%s' must be in %c%g, %g]%s, got %g", ctx, f->exp_key,
					       f->lo_open ? '(' : '[', f->lo, f->hi, f->unit ? f->unit : "", x);
			deploy_set(t, i, x, base);
			break;
		case DEPLOY_OFF: case DEPLOY_ON:
			if ((rc = json_opt_bool(o, f->exp_key, ctx, &b, e)) == 0)
				deploy_set(t, i, b, base);
			break;
		case DEPLOY_STR:
			if ((rc = json_opt_str(o, f->exp_key, ctx, &str, e)) < 0)
				break;
			snprintf(flag, sizeof(flag), "%s: '%s'", ctx, f->exp_key);
			if (f->choices && !choice_ok(f->choices, str) && !(f->aliases && choice_ok(f->aliases, str)))
				return bad_choice(f, SS_EDATA, flag, str, e);
			/* (the string lives as long as the parsed JSON) */
			*(const char **)((char *)base + f->off) = str;
			((struct deploy_knobs *)base)->given |= UINT64_C(1) << i;
			break;
		}
	}
	return rc;
}

int deploy_exp_read(const struct deploy_table *t, const struct json *o, const char *ctx, void *base,
		    struct err *e)
{
	return exp_read(t, o, ctx, false, base, e);
}

int deploy_exp_read_top(const struct deploy_table *t, const struct json *root, const char *ctx, void *base,
			struct err *e)
{
	return exp_read(t, root, ctx, true, base, e);
}

void deploy_exp_json(const struct deploy_table *t, const void *base, struct jw *w)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct deploy_field *f = &t->row[i];
		double v;

		if (!f->exp_key || f->exp_top)
			continue;
		v = deploy_get(t, i, base);
		if (f->type == DEPLOY_INT && v > 0)
			jw_int(w, f->exp_key, (int64_t)v);
		else if (f->type == DEPLOY_NUM && v > 0)
			jw_num(w, f->exp_key, v);
		else if (f->type == DEPLOY_OFF || (f->type == DEPLOY_ON && v != 0))
			jw_bool(w, f->exp_key, v != 0);
	}
}

static void *at(const struct deploy_field *f, void *base)
{
	return (char *)base + f->off;
}

static const void *cat_(const struct deploy_field *f, const void *base)
{
	return (const char *)base + f->off;
}

void deploy_set(const struct deploy_table *t, size_t i, double v, void *base)
{
	const struct deploy_field *f = &t->row[i];

	assert(i < t->n && t->n <= DEPLOY_MAX_FIELDS);
	switch (f->type) {
	case DEPLOY_INT: *(int64_t *)at(f, base) = (int64_t)v; break;
	case DEPLOY_NUM: *(double *)at(f, base) = v; break;
	case DEPLOY_OFF: case DEPLOY_ON: *(bool *)at(f, base) = v != 0; break;
	case DEPLOY_STR: assert(v == 0); *(const char **)at(f, base) = NULL; break;
	}
	((struct deploy_knobs *)base)->given |= UINT64_C(1) << i;
}

double deploy_get(const struct deploy_table *t, size_t i, const void *base)
{
	const struct deploy_field *f = &t->row[i];

	switch (f->type) {
	case DEPLOY_INT: return (double)*(const int64_t *)cat_(f, base);
	case DEPLOY_NUM: return *(const double *)cat_(f, base);
	case DEPLOY_OFF: case DEPLOY_ON: return *(const bool *)cat_(f, base) ? 1 : 0;
	case DEPLOY_STR: break;
	}
	return NAN;
}

void deploy_defaults(const struct deploy_table *t, void *base)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		deploy_set(t, i, t->row[i].def, base);
	((struct deploy_knobs *)base)->given = 0;
}

bool deploy_given(const struct deploy_knobs *k, size_t i)
{
	return (k->given >> i) & 1;
}

int deploy_parse(const struct deploy_table *t, size_t i, const char *flag, const char *arg, void *base,
		 struct err *e)
{
	const struct deploy_field *f = &t->row[i];
	int64_t n;
	double x;
	int rc;

	switch (f->type) {
	case DEPLOY_INT:
		if ((rc = argval_int(flag, arg, (int64_t)f->lo, (int64_t)f->hi, &n, e)) < 0)
			return rc;
		x = (double)n;
		break;
	case DEPLOY_NUM:
		if ((rc = argval_num(flag, arg, f->lo, f->lo_open, &x, e)) < 0)
			return rc;
		if (x > f->hi)
			return err_set(e, SS_EUSAGE, "%s must be in %c%g, %.15g]%s, got %g", flag, f->lo_open ? '(' : '[',
				       f->lo, f->hi, f->unit ? f->unit : "", x);
		break;
	case DEPLOY_STR:
		if (f->choices && !choice_ok(f->choices, arg) && !(f->aliases && choice_ok(f->aliases, arg)))
			return bad_choice(f, SS_EUSAGE, flag, arg, e);
		*(const char **)at(f, base) = arg;
		((struct deploy_knobs *)base)->given |= UINT64_C(1) << i;
		return 0;
	default:
		x = f->type == DEPLOY_ON; /* the switch turns it on or off */
	}
	deploy_set(t, i, x, base);
	return 0;
}

int deploy_find(const struct deploy_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->row[i].name, name) == 0)
			return (int)i;
	return -1;
}

void deploy_overlay(const struct deploy_table *t, void *dst, const void *src)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (!deploy_given(src, i))
			continue;
		if (t->row[i].type == DEPLOY_STR) {
			*(const char **)at(&t->row[i], dst) = *(const char *const *)cat_(&t->row[i], src);
			((struct deploy_knobs *)dst)->given |= UINT64_C(1) << i;
		} else {
			deploy_set(t, i, deploy_get(t, i, src), dst);
		}
	}
}

void deploy_json(const struct deploy_table *t, const void *base, struct jw *w,
		 void (*after)(struct jw *w, size_t i, const void *ctx), const void *ctx)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct deploy_field *f = &t->row[i];
		if (f->own_json)
			continue;
		switch (f->type) {
		case DEPLOY_INT: jw_int(w, f->name, *(const int64_t *)cat_(f, base)); break;
		case DEPLOY_NUM: jw_num(w, f->name, *(const double *)cat_(f, base)); break;
		case DEPLOY_OFF: case DEPLOY_ON: jw_bool(w, f->name, *(const bool *)cat_(f, base)); break;
		case DEPLOY_STR: jw_str(w, f->name, *(const char *const *)cat_(f, base)); break;
		}
		if (after)
			after(w, i, ctx);
	}
}

void deploy_csv_names(const struct deploy_table *t, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!t->row[i].own_json)
			sb_printf(out, ",%s", t->row[i].name);
}

void deploy_csv_values(const struct deploy_table *t, const void *base, struct sbuf *out)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct deploy_field *f = &t->row[i];
		if (f->own_json)
			continue;
		switch (f->type) {
		case DEPLOY_INT: sb_printf(out, ",%lld", (long long)*(const int64_t *)cat_(f, base)); break;
		case DEPLOY_NUM: sb_printf(out, ",%g", *(const double *)cat_(f, base)); break;
		case DEPLOY_OFF: case DEPLOY_ON: sb_printf(out, ",%s", *(const bool *)cat_(f, base) ? "true" : "false"); break;
		case DEPLOY_STR: {
			const char *v = *(const char *const *)cat_(f, base);
			sb_printf(out, ",%s", v ? v : "");
			break;
		}
		}
	}
}

/* text into out from column col, wrapped at 88 with later lines from 28 */
static void wrap(struct sbuf *out, size_t col, const char *text)
{
	const char *p = text;
	bool first = true;

	while (*p) {
		size_t wl = strcspn(p, " ");
		if (!first && col + 1 + wl > 88) {
			sb_printf(out, "\n%28s", "");
			col = 28;
		} else if (!first) {
			sb_putc(out, ' ');
			col++;
		}
		sb_put(out, p, wl);
		col += wl;
		first = false;
		p += wl;
		while (*p == ' ')
			p++;
	}
	sb_putc(out, '\n');
}

void deploy_help(const struct deploy_table *t, enum deploy_group g, struct sbuf *out)
{
	char text[600];
	size_t i, s, head;

	for (i = 0; i < t->n; i++) {
		const struct deploy_field *f = &t->row[i];
		size_t start = out->len;

		if (f->group != g)
			continue;
		/* every spelling, then the text from column 28 (on a line of
		 * its own when they take more than 26 columns) */
		for (s = 0; s < DEPLOY_SPELLINGS && f->flag[s]; s++)
			sb_printf(out, "%s%s%s%s", s ? " | " : "  ", f->flag[s], f->arg ? " " : "", f->arg ? f->arg : "");
		head = out->len - start;
		if (head <= 26)
			sb_printf(out, "%*s", (int)(28 - head), "");
		else
			sb_printf(out, "\n%28s", "");
		if (f->def_doc)
			snprintf(text, sizeof(text), "%s (default %s)", f->doc, f->def_doc);
		else
			snprintf(text, sizeof(text), "%s (default %g)", f->doc, f->def);
		wrap(out, 28, text);
	}
}

void deploy_options(const struct deploy_table *t, struct option *out, size_t *n, size_t cap)
{
	size_t i, k;

	for (i = 0; i < t->n; i++)
		for (k = 0; k < DEPLOY_SPELLINGS && t->row[i].flag[k]; k++) {
			assert(*n + 1 < cap);
			out[(*n)++] = (struct option){t->row[i].flag[k] + 2,
						      t->row[i].type == DEPLOY_OFF || t->row[i].type == DEPLOY_ON
							      ? no_argument : required_argument,
						      0, DEPLOY_CODE + (int)(i * DEPLOY_SPELLINGS + k)};
		}
	out[*n] = (struct option){0, 0, 0, 0};
}

int deploy_option_row(const struct deploy_table *t, int code)
{
	if (code < DEPLOY_CODE || code >= DEPLOY_CODE + (int)(t->n * DEPLOY_SPELLINGS))
		return -1;
	return (code - DEPLOY_CODE) / DEPLOY_SPELLINGS;
}

const char *deploy_option_flag(const struct deploy_table *t, int code)
{
	int row = deploy_option_row(t, code);

	return row < 0 ? NULL : t->row[row].flag[(code - DEPLOY_CODE) % DEPLOY_SPELLINGS];
}

int deploy_option(const struct deploy_table *t, int code, const char *arg, void *base, struct err *e)
{
	int row = deploy_option_row(t, code), rc;

	if (row < 0)
		return 0;
	rc = deploy_parse(t, (size_t)row, deploy_option_flag(t, code), arg, base, e);
	return rc < 0 ? rc : 1;
}
