/* workload.h - workload specs and request generators.
 *
 * A spec (JSON; see README "Workload spec") gives a seed, an arrival process
 * (or closed-loop concurrency), optional back-to-back stages, and length
 * distributions, or one of the two generators our ground truth used
 * (inference-perf shared_prefix, GuideLLM synthetic data).  Requests are
 * generated lazily in arrival order, so a million-request run holds only the
 * requests in flight.  Every draw comes from a PCG32 stream per source. */
#ifndef SERVESIM_WORKLOAD_H
#define SERVESIM_WORKLOAD_H
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/json.h"

enum wl_process {
	WL_POISSON,        /* exponential gaps at `rate` */
	WL_CONSTANT,       /* exact 1/rate spacing (GuideLLM constant) */
	WL_GAMMA,          /* gamma gaps with coefficient of variation `cv` */
	WL_UNIFORM_COUNT,  /* inference-perf constant: floor(rate x duration) sorted uniform points per stage */
	WL_POISSON_COUNT,  /* inference-perf poisson: a Poisson count per second, uniform within it */
	WL_CONCURRENCY,    /* closed loop: `concurrency` clients, next request on completion */
	WL_TRACE           /* replay a CSV: arrival_s,prompt_tokens,output_tokens[,prefix_group] */
};

/* WL_DATASET: lengths shaped like a public dataset's (data/datasets.json):
 * quantile table values[] at probabilities cdf[], log-linear between them;
 * a prompt and an output of the same dataset are drawn jointly, through a
 * Gaussian copula of correlation rho. */
enum wl_dist_kind { WL_FIXED, WL_UNIFORM, WL_NORMAL, WL_LOGNORMAL, WL_EMPIRICAL, WL_DATASET };

struct wl_dist {
	enum wl_dist_kind kind;
	double a, b;           /* fixed: a; uniform: [a,b]; normal/lognormal: mean a, stdev b */
	int64_t min, max;      /* clip (inclusive) */
	double *values, *cdf;  /* empirical */
	size_t nvalues;
	double ln_mu, ln_sigma; /* lognormal: parameters of the underlying normal (wl_dist_prepare) */
	char dataset[32];      /* WL_DATASET: its name (a = the dataset's mean) */
	double rho;            /* WL_DATASET: the copula correlation of its prompts and outputs */
};

#define WL_MAX_STAGES 64
/* The most points of a rate curve (wl_spec.curve_t). */
#define WL_MAX_CURVE 256

/* Ranges every spec is checked against (spec.c), so that no count or time
 * overflows when it becomes an integer:
 * - token counts: 1 .. 2^24, the largest --max-model-len servesim accepts;
 * - times: at most 1e9 s (31.7 years; int64 nanoseconds hold 292 years);
 * - rates: 1e-6 .. 1e9 requests/s (one request in 11.6 days .. one per ns);
 * - closed-loop clients: 1 .. 2^24;
 * - gamma cv: 1e-3 .. 1e2, i.e. shape k = 1/cv^2 in [1e-4, 1e6], where the
 *   Marsaglia-Tsang sampler and U^(1/k) stay within a double;
 * - requests a workload may generate: WL_DEFAULT_MAX_REQUESTS unless
 *   max_requests (run --max-requests) says otherwise; every request in flight
 *   holds memory, and 1e12 planned requests were OOM-killed at 24 GB while
 *   10 M-request runs finish (issue 15).  Open loops are checked before
 *   anything is allocated (wl_spec_check_size); a closed loop bounded by its
 *   duration only issues as many requests as the engine completes, so its
 *   generator fails (SS_EUSAGE) when it would issue one past the limit. */
#define WL_MAX_TOKENS ((int64_t)1 << 24)
#define WL_MAX_TIME_S 1e9
/* A spec file's size (an empirical distribution of a million values fits
 * many times over; /dev/zero as --workload read 1 GiB first). */
#define WL_MAX_SPEC_BYTES ((size_t)64 << 20)
#define WL_MIN_RATE 1e-6
#define WL_MAX_RATE 1e9
#define WL_MIN_CV 1e-3
#define WL_MAX_CV 1e2
#define WL_DEFAULT_MAX_REQUESTS ((int64_t)20000000)
#define WL_MAX_CONCURRENCY (1 << 24) /* clients of a closed loop */

struct wl_stage {
	double rate;           /* requests/s (or concurrency for closed loop stages) */
	double duration_s;
};

/* The prompts a workload sends: "chat" (real text), "random" (a benchmark
 * client's synthetic prompts); unset: random under a benchmark client that
 * sends synthetic prompts by default (aiperf, vllm-bench, sglang-bench),
 * chat otherwise. */
enum wl_prompt_kind { WL_PROMPTS_UNSET, WL_PROMPTS_CHAT, WL_PROMPTS_RANDOM };

struct wl_spec {
	uint64_t seed;
	enum wl_process process;
	double rate, cv;
	int64_t concurrency;
	int64_t num_requests;  /* 0 = until the stages / duration end */
	double duration_s;     /* 0 = no limit besides num_requests */
	struct wl_stage stages[WL_MAX_STAGES];
	size_t nstages;
	/* a rate curve instead of stages (ncurve >= 2; poisson, gamma and
	 * constant arrivals): the rate goes linearly from curve_rate[i] at
	 * curve_t[i] s to curve_rate[i+1] at curve_t[i+1] (curve_t[0] = 0,
	 * increasing); the workload ends with the curve (or duration_s).  The
	 * process runs at rate 1 in operational time u = the integral of the
	 * rate, and an arrival at u comes at the t whose integral is u */
	double curve_t[WL_MAX_CURVE], curve_rate[WL_MAX_CURVE];
	size_t ncurve;
	struct wl_dist prompt, output;
	int64_t prefix_tokens; /* GuideLLM: shared by every request */
	/* inference-perf shared_prefix generator (groups > 0 when used) */
	int64_t sp_groups, sp_prompts, sp_system, sp_question, sp_output;
	char trace[512];
	char source[512];
	/* trace replay from memory instead of a file (process WL_TRACE, trace ""):
	 * requests in arrival order; not owned */
	const struct wl_req *records;
	size_t nrecords;
	/* tokens per block of the records' keys (wl_req.keys; Mooncake: 512) */
	int64_t key_tokens;
	/* what a reader built for the spec (records, their keys), freed by
	 * wl_spec_release; NULL when the records are someone else's */
	struct wl_req *own_records;
	int64_t *own_keys;
	int64_t max_requests;  /* 0: WL_DEFAULT_MAX_REQUESTS */
	/* the benchmark client that drives the load ("" = none said): its
	 * request settings cost the engine per-step and per-request host time
	 * that the engines' host terms hold per harness (engine_host_for);
	 * wl_harness_canonical lists the names */
	char harness[24];
	/* what the prompts are (wl_prompt_kind resolves WL_PROMPTS_UNSET):
	 * speculative decoding accepts drafts at a rate that depends on the
	 * text (data/specdec/README.md) */
	enum wl_prompt_kind prompt_kind;
	/* multi-turn sessions (sess.count > 0): the arrival process starts
	 * sessions; each turn after the first arrives a think time after the
	 * previous turn's last token reached its client, its prompt being the
	 * session's context so far (every earlier prompt and output) plus
	 * tool-output and new user tokens (a prompt_tokens draw) */
	struct wl_sessions {
		int64_t count;          /* sessions started (0: no sessions) */
		struct wl_dist turns;   /* turns per session, 1 .. WL_MAX_TURNS */
		struct wl_dist think_ms; /* think time, milliseconds (0 .. WL_MAX_THINK_MS) */
		struct wl_dist tool;    /* tool-output tokens before each later turn (0 ..) */
	} sess;
	/* LoRA (adapters > 0): every request names one of `adapters` LoRA
	 * adapters (wl_req.lora 1 .. adapters), drawn from stream 13 by
	 * popularity rank: Zipf of exponent zipf_s (P(k) ~ k^-s), or uniform
	 * when zipf_s is 0; a session's later turns keep its first turn's.  A
	 * trace names them in its optional 'adapter' column instead (0 or
	 * empty: the base model). */
	struct wl_lora {
		int64_t adapters;
		double zipf_s;
	} lora;
	/* images (on): every request sends count images (a draw from stream
	 * 14; a trace's optional 'images' column instead) of width x height
	 * pixels, placed after its shared prefix; each image is, with
	 * probability repeat (stream 15), the image sent just before it (a hot
	 * image many users ask about: the engines' encoder cache may hold it),
	 * else a new one.  The model's processor rule turns each into prompt
	 * tokens (model_image_tokens); a session's later turns send none. */
	struct wl_images {
		bool on;
		struct wl_dist count;
		int64_t width, height;
		double repeat;
	} images;
	/* draws shared with the generators of other copies of this spec
	 * (wl_draws_new), not owned; NULL: none */
	struct wl_draws *draws;
};

/* The most images one request may send, and the largest image side in
 * pixels. */
#define WL_MAX_IMAGES 64
#define WL_MAX_IMAGE_SIDE ((int64_t)1 << 16)

/* flag's value "WxH": an image's width and height in pixels, each 1 to
 * WL_MAX_IMAGE_SIDE (SS_EUSAGE naming the flag otherwise). */
int wl_image_size_parse(const char *flag, const char *arg, int64_t *w, int64_t *h, struct err *e);

/* The most LoRA adapters a workload may name (wl_lora.adapters, a trace's
 * adapter column). */
#define WL_MAX_ADAPTERS ((int64_t)1 << 20)

/* Sessions: the most turns one session may have, the longest think time
 * (ms, one hour), the most sessions one workload may start, and the first
 * prefix group of the sessions' groups (session i's requests carry group
 * WL_SESSION_GROUP0 + i: above any group a spec or trace names). */
#define WL_MAX_TURNS 1024
#define WL_MAX_THINK_MS ((int64_t)3600000)
#define WL_MAX_SESSIONS ((int64_t)1 << 24)
#define WL_SESSION_GROUP0 ((int64_t)1 << 40)

struct wl_req {
	int64_t arrival_ns;
	int64_t prompt_tokens, output_tokens;
	int64_t prefix_tokens;   /* leading tokens shared with others of the same group */
	int64_t prefix_group;    /* -1: none */
	int64_t content_id;      /* identical prompts share it; unique otherwise */
	int stage;
	/* sessions: its turn (1, 2, ...; 0: not a session's request); its
	 * session is prefix_group - WL_SESSION_GROUP0, and prefix_tokens
	 * covers its prompt and output (the whole of it is the session's
	 * content, which later turns carry) */
	int32_t turn;
	/* the content of its prompt by blocks of wl_spec.key_tokens tokens
	 * (a Mooncake trace's hash_ids): keys[j] names block j's content and
	 * everything before it, so requests whose keys agree up to j share
	 * those blocks' KV; NULL (nkeys 0): none.  Not owned (the spec's). */
	const int64_t *keys;
	int32_t nkeys;
	/* LoRA: the adapter it runs with (1 .. WL_MAX_ADAPTERS; 0: the base
	 * model) */
	int32_t lora;
	/* images it sends (0 .. WL_MAX_IMAGES; wl_images): image 0 is image
	 * number image_id of the workload, image k > 0 the one before it when
	 * bit k of image_new is clear (a repeat), else the next new one
	 * (wl_image_id) */
	int32_t images;
	int64_t image_id;
	uint64_t image_new;
};

/* The workload's number of image k of a request (k < images). */
int64_t wl_image_id(int64_t image_id, uint64_t image_new, int32_t k);

/* The canonical name of a benchmark harness (its aliases: genai-perf ->
 * aiperf, "vllm bench serve" -> vllm-bench, ...), NULL when unknown; the
 * names in words in list (n bytes) when list is not NULL. */
const char *wl_harness_canonical(const char *name, char *list, size_t n);
/* The prompt kind s sends, unset resolved (see enum wl_prompt_kind). */
enum wl_prompt_kind wl_prompt_kind(const struct wl_spec *s);
/* "chat", "random" ("unset" for WL_PROMPTS_UNSET). */
const char *wl_prompt_kind_name(enum wl_prompt_kind k);
/* "chat" or "random"; SS_EUSAGE naming the values otherwise. */
int wl_prompt_kind_parse(const char *name, const char *src, enum wl_prompt_kind *out, struct err *e);
void wl_spec_defaults(struct wl_spec *s);
int wl_spec_from_json(const struct json *root, const char *src, struct wl_spec *s,
		      struct err *e);
int wl_spec_load(const char *path, struct wl_spec *s, struct err *e);
void wl_spec_release(struct wl_spec *s);
/* Check a spec built by hand (flags); SS_EUSAGE naming the field. */
int wl_spec_validate(const struct wl_spec *s, const char *src, struct err *e);
const char *wl_process_name(enum wl_process p);
/* "fixed", "uniform", "normal", "lognormal", "empirical" */
const char *wl_dist_kind_name(enum wl_dist_kind k);
/* Requests the spec will generate (expected count for random processes;
 * INFINITY when only a trace or the simulation bounds it). */
double wl_spec_expected_requests(const struct wl_spec *s);
/* SS_EUSAGE when the spec would generate more than its max_requests
 * (checked by wl_gen_new before anything is allocated). */
int wl_spec_check_size(const struct wl_spec *s, const char *src, struct err *e);
/* The most requests s may generate: its max_requests, else
 * WL_DEFAULT_MAX_REQUESTS. */
int64_t wl_spec_max_requests(const struct wl_spec *s);

/* The random draws of a spec's generators that do not depend on its rate
 * or request count, kept by request index and shared by the generators
 * of copies of one spec that differ in those alone (the probes of a
 * capacity search, one per seed): the arrival stream's unit draws (Poisson
 * log U, gamma variates) and the prompt and output lengths.  The first
 * generator to reach an index draws it and keeps it (with its streams'
 * state after it), the others read it: the same values bit for bit,
 * without the logs and exps of drawing them again.  Used by a poisson,
 * gamma or constant spec without stages, a rate curve, sessions or a
 * shared_prefix generator (the others draw as usual), for its first 2^20
 * requests. */
struct wl_draws;
struct wl_draws *wl_draws_new(void);
void wl_draws_free(struct wl_draws *d);

struct wl_gen;
int wl_gen_new(const struct wl_spec *s, struct wl_gen **out, struct err *e);
void wl_gen_free(struct wl_gen *g);
/* Next request.  Open loop: arrivals in time order, now_ns ignored.  Closed
 * loop: the request a client issues at now_ns.  Returns 1, 0 when the
 * workload is exhausted, or a negative status (trace errors). */
int wl_gen_next(struct wl_gen *g, int64_t now_ns, struct wl_req *out, struct err *e);
/* SS_EUSAGE naming src when s brings no request at all (a duration
 * shorter than the first arrival: --duration 1e-300 ran nothing and said
 * ok); its first request drawn on a generator of its own. */
int wl_spec_check_nonempty(const struct wl_spec *s, const char *src, struct err *e);
bool wl_gen_closed_loop(const struct wl_gen *g);
/* Sessions: the turn after r (a session's request) whose last token
 * reached its client at done_ns: 1 with it in *out (arrival a think time
 * later), 0 when r was the session's last turn. */
int wl_gen_next_turn(struct wl_gen *g, const struct wl_req *r, int64_t done_ns, struct wl_req *out);
int64_t wl_gen_concurrency(const struct wl_gen *g);
/* Stage index of a time (closed loop stages and reporting). */
int wl_stage_of(const struct wl_spec *s, int64_t t_ns);
/* The mean a distribution states: fixed, uniform's midpoint, normal's and
 * lognormal's unclipped mean, the mean of an empirical one's values
 * (unweighted). */
double wl_dist_mean(const struct wl_dist *d);
/* The datasets data/datasets.json describes, in words ("a, b, c"). */
int wl_datasets_list(char *out, size_t n, struct err *e);
/* Sample a length distribution (exposed for tests). */
struct pcg32;
int64_t wl_dist_sample(const struct wl_dist *d, struct pcg32 *r);
/* Derive the lognormal's underlying normal from mean and stdev (called by
 * the generator; tests that build a wl_dist by hand call it too). */
void wl_dist_prepare(struct wl_dist *d);
/* A prompt and an output length drawn jointly from two WL_DATASET
 * distributions of one dataset (the prompt's stream r_p, the output's
 * r_o), as the generator draws them. */
void wl_dataset_pair(const struct wl_dist *p, const struct wl_dist *o, struct pcg32 *r_p, struct pcg32 *r_o,
		     int64_t *prompt, int64_t *output);

#endif
