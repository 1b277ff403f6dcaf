/* fields.h - the deployment field table: each engine knob of a deployment
 * as one row {name, flag spellings (vLLM's, then SGLang's where it
 * differs), experiment.json key, type, range, default, doc line}.  The flag
 * parser and its --help lines (cmd/), the resolved configuration's keys
 * (report/config.c) and sweep axes (plan/sweep.c) all read the table, so a
 * new knob is one row in fields.c and one member of struct deploy_knobs. */
#ifndef SERVESIM_DEPLOY_FIELDS_H
#define SERVESIM_DEPLOY_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <getopt.h>

#include "base/err.h"
#include "base/json.h"
#include "base/sbuf.h"

/* The engine knobs of one deployment: the flags' values before the engine
 * resolves them (struct scenflags), or the resolved ones (struct
 * scenario).  given: bit i set when row i of the table was set by a flag
 * or a sweep axis (deploy_given). */
struct deploy_knobs {
	int64_t max_num_batched_tokens, max_num_seqs, max_model_len, block_size;
	int64_t long_prefill_token_threshold;
	double gpu_memory_utilization;
	int64_t total_kv_blocks;      /* 0: from the memory plan */
	bool prefix_caching;
	/* the knobs one engine takes (engine_check_knobs refuses them for
	 * the others): SGLang's memory share (0: its rule), prefill cap (0:
	 * none), mixed chunks and overlap; KV offload to host memory (vLLM's
	 * size in GiB, 0: off; SGLang's HiCache with its ratio or size in GB);
	 * LoRA on and its largest rank (0: the engine's) */
	double mem_fraction_static;
	int64_t max_prefill_tokens;
	bool sglang_mixed_chunk, disable_overlap;
	double kv_offloading_gib;
	bool hicache;
	double hicache_ratio, hicache_gb;
	bool lora;
	int64_t lora_rank;
	/* copies of the whole deployment behind the router and the router's
	 * name as given (NULL: the caller's default, router_kind_of); SGLang's
	 * waiting-queue order (NULL: fcfs) and receive interval (0: 1);
	 * vLLM's KV offload connector (NULL: native); LoRA's limits in vLLM's
	 * flags and SGLang's (0: the engine's); EPLB on, vLLM's --eplb-config
	 * JSON (NULL: none), the redundant experts in vLLM's older flag and
	 * SGLang's, SGLang's rebalance interval (-1: not given) */
	int64_t replicas;
	const char *router;
	const char *schedule_policy;
	int64_t recv_interval;
	const char *kv_offloading_backend;
	int64_t max_loras, max_cpu_loras, max_loras_per_batch, max_loaded_loras;
	bool eplb;
	const char *eplb_config;
	int64_t num_redundant_experts, ep_num_redundant_experts, eplb_iterations;
	/* vLLM runs without DeepGEMM (the deep_gemm package absent or
	 * VLLM_USE_DEEP_GEMM=0): its dense block-fp8 linears on Hopper run its
	 * CUTLASS block-scaled kernel (cost/cutlassbs.c), not DeepGEMM */
	bool no_deep_gemm;
	/* SGLang's attention-DP layout: --enable-dp-lm-head (the LM head
	 * over each rank's attention TP group) and --moe-dense-tp-size (1:
	 * the dense FFN layers whole on each rank; 0: not given, all GPUs) */
	bool sglang_dp_lm_head;
	int64_t moe_dense_tp_size;
	uint64_t given;
};

/* Rows of the shipped table (deploy_table.row[DEPLOY_X]), in the order
 * --help lists a group's rows, the resolved configuration writes its
 * members and experiment.json's engine block its keys. */
enum deploy_id {
	DEPLOY_MAX_NUM_BATCHED_TOKENS, DEPLOY_SCHEDULE_POLICY, DEPLOY_MAX_PREFILL_TOKENS, DEPLOY_MIXED_CHUNK,
	DEPLOY_RECV_INTERVAL, DEPLOY_MEM_FRACTION_STATIC, DEPLOY_MAX_NUM_SEQS, DEPLOY_MAX_MODEL_LEN, DEPLOY_BLOCK_SIZE,
	DEPLOY_LONG_PREFILL_TOKEN_THRESHOLD, DEPLOY_GPU_MEMORY_UTILIZATION, DEPLOY_TOTAL_KV_BLOCKS,
	DEPLOY_PREFIX_CACHING, DEPLOY_DISABLE_OVERLAP, DEPLOY_KV_OFFLOADING_SIZE, DEPLOY_HICACHE, DEPLOY_HICACHE_RATIO,
	DEPLOY_HICACHE_SIZE, DEPLOY_LORA, DEPLOY_MAX_LORA_RANK, DEPLOY_REPLICAS, DEPLOY_ROUTER, DEPLOY_KV_OFFLOADING_BACKEND,
	DEPLOY_MAX_LORAS, DEPLOY_MAX_LORAS_PER_BATCH, DEPLOY_MAX_CPU_LORAS, DEPLOY_MAX_LOADED_LORAS, DEPLOY_EPLB,
	DEPLOY_EPLB_CONFIG, DEPLOY_NUM_REDUNDANT_EXPERTS, DEPLOY_EP_NUM_REDUNDANT_EXPERTS, DEPLOY_EPLB_ITERATIONS,
	DEPLOY_NO_DEEP_GEMM, DEPLOY_DP_LM_HEAD, DEPLOY_MOE_DENSE_TP_SIZE, DEPLOY__COUNT
};

/* Where a row's --help line goes (deploy_help prints one group). */
enum deploy_group { DEPLOY_G_ENGINE, DEPLOY_G_SGLANG, DEPLOY_G_OFFLOAD, DEPLOY_G_LORA, DEPLOY_G_POOL, DEPLOY_G_EPLB };

enum deploy_type {
	DEPLOY_INT,   /* an integer in [lo, hi] */
	DEPLOY_NUM,   /* a number in [lo, hi], (lo, hi] when lo_open */
	DEPLOY_OFF,   /* a switch: its flag (no value) turns a setting that is on by default off */
	DEPLOY_ON,    /* a switch that turns a setting that is off by default on */
	DEPLOY_STR    /* a string (const char *, NULL by default), one of choices when given */
};

/* Upper ends of ranges the simulation fixes (sim.h SIM_MAX_REPLICAS,
 * SIM_MAX_RECV_INTERVAL, workload.h WL_MAX_ADAPTERS; scenflags.c checks
 * they agree). */
#define DEPLOY_MAX_REPLICAS 1024
#define DEPLOY_MAX_RECV_INTERVAL 100000
#define DEPLOY_MAX_ADAPTERS 1048576
#define DEPLOY_SPELLINGS 3   /* flag spellings a row may have */
#define DEPLOY_MAX_FIELDS 64 /* bits of deploy_knobs.given */

struct deploy_field {
	const char *name;       /* the resolved configuration's key and the sweep axis */
	const char *flag[DEPLOY_SPELLINGS]; /* "--x" spellings: vLLM's first, then SGLang's; NULL-ended */
	const char *exp_key;    /* its key in experiment.json's engine block, or at its
				 * top level when exp_top (NULL: none; deploy_exp_read,
				 * deploy_exp_json) */
	enum deploy_type type;
	double lo, hi;
	bool lo_open;
	double def;             /* the default; 0 where an engine rule gives it (def_doc) */
	const char *def_doc;    /* the default in words (NULL: def as a number) */
	const char *arg;        /* the value in --help ("N", "F"; NULL for a switch) */
	const char *doc;        /* --help text */
	int axis;               /* 0: not a sweep axis; else the place among the
				 * deployment axes (1 varies slowest) */
	size_t off;             /* offset of the value from the knobs (offsetof) */
	enum deploy_group group;
	const char *unit;       /* after the range in a message (" GiB"; NULL: none) */
	bool own_json;          /* the resolved configuration writes it itself, where
				 * it applies (deploy_json and the CSV skip it) */
	const char *choices;    /* DEPLOY_STR: the values taken, "a|b" (NULL: any) */
	const char *aliases;    /* DEPLOY_STR: other spellings of them taken too, "x|y"
				 * (named after the choices in a message; NULL: none) */
	bool exp_top;           /* exp_key sits at experiment.json's top level, not in
				 * its engine block (deploy_exp_read_top) */
};

struct deploy_table {
	const struct deploy_field *row;
	size_t n;
};

/* The shipped rows. */
extern const struct deploy_table deploy_table;

/* The value of row i lives at base + row.off: base is a struct
 * deploy_knobs or a struct that starts with one (a test's extra rows). */
void deploy_defaults(const struct deploy_table *t, void *base);
bool deploy_given(const struct deploy_knobs *k, size_t i);
/* Row i from its flag text as spelled (flag, for the message); a switch
 * takes arg NULL.  Sets the given bit; SS_EUSAGE naming the flag, the
 * value and the range. */
int deploy_parse(const struct deploy_table *t, size_t i, const char *flag, const char *arg, void *base,
		 struct err *e);
/* A number onto row i (a sweep point's value; a switch: v 0 is off), given;
 * not for a DEPLOY_STR row. */
void deploy_set(const struct deploy_table *t, size_t i, double v, void *base);
double deploy_get(const struct deploy_table *t, size_t i, const void *base);
/* Row i by its name (a sweep axis), or -1. */
int deploy_find(const struct deploy_table *t, const char *name);
/* Every given row of src onto dst. */
void deploy_overlay(const struct deploy_table *t, void *dst, const void *src);
/* The rows as JSON members of the open object (name: value); after, when
 * not NULL, runs after each row (the caller's own members beside one). */
void deploy_json(const struct deploy_table *t, const void *base, struct jw *w,
		 void (*after)(struct jw *w, size_t i, const void *ctx), const void *ctx);
/* experiment.json's engine block: every row with an exp_key (not exp_top)
 * that o holds, in the row's range or one of its choices (SS_EDATA naming
 * ctx, the key, the value and the range), onto base (given); other rows
 * are left. */
int deploy_exp_read(const struct deploy_table *t, const struct json *o, const char *ctx, void *base,
		    struct err *e);
/* The same for the exp_top rows, from experiment.json's top level root.
 * A string row's value points into the JSON: copy it before freeing that. */
int deploy_exp_read_top(const struct deploy_table *t, const struct json *root, const char *ctx, void *base,
			struct err *e);
/* The engine block's keys (not exp_top) as members of the open object:
 * numbers above 0 (0 stands for the engine's rule or none), a switch that
 * is off by default when on, one that is on by default always. */
void deploy_exp_json(const struct deploy_table *t, const void *base, struct jw *w);
/* CSV: the names (",name" each) or the values (",value" each). */
void deploy_csv_names(const struct deploy_table *t, struct sbuf *out);
void deploy_csv_values(const struct deploy_table *t, const void *base, struct sbuf *out);
/* The --help lines of the rows of group g (two-column layout, 28 and 88
 * wide). */
void deploy_help(const struct deploy_table *t, enum deploy_group g, struct sbuf *out);

/* The table's flags as getopt entries appended at out[*n] (cap in all,
 * {0}-ended): code DEPLOY_CODE + row x DEPLOY_SPELLINGS + spelling.
 * deploy_option_row gives a code's row (-1: not a table flag),
 * deploy_option_flag its spelling, and deploy_option parses one into base
 * (1 handled, 0 not a table flag, <0 error naming the flag as spelled). */
enum { DEPLOY_CODE = 2000 };
void deploy_options(const struct deploy_table *t, struct option *out, size_t *n, size_t cap);
int deploy_option_row(const struct deploy_table *t, int code);
const char *deploy_option_flag(const struct deploy_table *t, int code);
int deploy_option(const struct deploy_table *t, int code, const char *arg, void *base, struct err *e);

#endif
