/* tests/prop/prop.c - conservation by property (issue 30).
 *
 * Draws random valid configurations across the simulator's modes (dense and
 * MoE/MLA models; vLLM, SGLang and TensorRT-LLM admission; TP, PP, DP,
 * attention-DP + EP, P/D, replicas behind each router, LoRA adapters, speculative
 * decoding, closed loops, traces, multi-turn sessions with KV offload,
 * shared prefixes, several GPUs), runs each through `servesim run --format
 * json` twice and checks:
 *   - the command ends with a documented status (0, or 2/3 refusing the
 *     configuration with a message) and no signal;
 *   - on success, every request is accounted for: arrived = completed +
 *     rejected, rejected = too long + KV capacity, completed <= arrived;
 *   - no number of the output is negative, NaN or infinite (JSON holds no
 *     NaN; a number that is none is null);
 *   - the second run's bytes are the first's.
 * Prints "ok ..." per case and "N passed, M failed"; fails too when fewer
 * than half the drawn configurations run (a menu that only draws refusals
 * would check nothing).
 * usage: prop SERVESIM_BIN CASES SEED */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/json.h"
#include "base/pcg32.h"

static struct pcg32 rng;

static int pick(int n)
{
	return (int)pcg32_bounded(&rng, (uint32_t)n);
}

static const char *choose(const char *const *v, int n)
{
	return v[pick(n)];
}

#define CHOOSE(v) choose(v, (int)(sizeof(v) / sizeof((v)[0])))

/* Append to the command line. */
__attribute__((format(printf, 3, 4))) static void add(char *cmd, size_t n, const char *fmt, ...)
{
	size_t l = strlen(cmd);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd + l, n - l, fmt, ap);
	va_end(ap);
}

/* One random configuration's arguments (after `servesim run`). */
static void draw(char *cmd, size_t n, const char *trace)
{
	static const char *const dense[] = {"llama-3.1-8b", "qwen3-8b", "llama-3.1-70b", "qwen3-32b"};
	static const char *const moe[] = {"qwen3-30b-a3b", "mixtral-8x7b", "deepseek-v3", "gpt-oss-20b",
					  "deepseek-v2-lite"};
	static const char *const gpus[] = {"h100", "h200", "b200", "a100"};
	static const char *const engines[] = {"vllm", "sglang", "trtllm"};
	static const char *const dists[] = {"fixed", "normal", "lognormal"};
	static const int tps[] = {1, 2, 4, 8};
	bool is_moe = pick(2) == 1;
	const char *model = is_moe ? CHOOSE(moe) : CHOOSE(dense);
	int tp = tps[pick(4)], mode = pick(8);
	const char *gpu = CHOOSE(gpus), *engine = CHOOSE(engines);

	if (strcmp(model, "deepseek-v3") == 0) { /* 671 B: eight H200 or B200 */
		tp = 8;
		gpu = pick(2) ? "h200" : "b200";
	}

	cmd[0] = 0;
	add(cmd, n, " --model %s", model);
	add(cmd, n, " --gpu %s", gpu);
	add(cmd, n, " --engine %s", engine);
	add(cmd, n, " --tp %lld", (long long)(tp));
	add(cmd, n, " --num-requests %lld", (long long)(40 + pick(160)));
	add(cmd, n, " --seed %lld", (long long)(pick(1000)));
	switch (mode) {
	case 0: /* pipeline */
		add(cmd, n, " --pp %lld", (long long)(2));
		break;
	case 1: { /* replicas / attention-DP (+ EP = TP x DP for an MoE model) */
		int dp = 2 + 2 * pick(2);
		add(cmd, n, " --dp %d", dp);
		if (is_moe && pick(2))
			add(cmd, n, " --ep %d", tp * dp);
		break;
	}
	case 2: /* P/D */
		add(cmd, n, " --disaggregate %s", pick(2) ? "1p1d" : "2p1d");
		break;
	case 3: /* speculative decoding */
		add(cmd, n, " --speculative-tokens %lld", (long long)(1 + pick(3)));
		if (strcmp(model, "deepseek-v3") != 0 && pick(2))
			add(cmd, n, " --speculative-method ngram --acceptance-rate 0.%d", 3 + pick(6));
		else if (strcmp(model, "deepseek-v3") != 0)
			add(cmd, n, " --speculative-method eagle");
		break;
	case 4: /* a trace (bursts, long prompts, shared prefix groups) */
		add(cmd, n, " --workload %s", trace);
		return;
	case 5: /* multi-turn sessions (workloads/sessions.json, from the
		 * repository root), their context carried over, with a host KV
		 * tier below the GPU's as the engine offloads it */
		add(cmd, n, " --workload workloads/sessions.json");
		if (strcmp(engine, "vllm") == 0 && pick(2))
			add(cmd, n, " --kv-offloading-size %d", 1 + pick(64));
		else if (strcmp(engine, "sglang") == 0 && pick(2))
			add(cmd, n, " --enable-hierarchical-cache");
		return;
	case 6: /* LoRA adapters (workloads/lora.json: 16 by Zipf popularity)
		 * under each engine's limits (TensorRT-LLM refuses them) */
		add(cmd, n, " --workload workloads/lora.json --enable-lora");
		if (strcmp(engine, "sglang") == 0)
			add(cmd, n, " --max-loras-per-batch %d", 1 + pick(8));
		else
			add(cmd, n, " --max-loras %d --max-lora-rank %d", 1 + pick(8), pick(2) ? 8 : 64);
		break;
	default:
		break;
	}
	if (strcmp(engine, "sglang") == 0 && pick(3) == 0) /* SGLang's own scheduling knobs */
		add(cmd, n, " --scheduler-recv-interval %d%s", 2 + pick(40), pick(3) == 0 ? " --enable-mixed-chunk" : "");
	if (pick(4) == 0) { /* replicas of the whole deployment behind a router */
		static const char *const routers[] = {"round-robin", "least-loaded", "kv-aware"};
		add(cmd, n, " --replicas %d --router %s", 2 + pick(2), CHOOSE(routers));
	}
	if (pick(3) == 0)
		add(cmd, n, " --concurrency %lld", (long long)(1 + pick(64)));
	else
		add(cmd, n, " --rate %lld", (long long)(1 + pick(60)));
	{
		const char *d = CHOOSE(dists);
		int pt = 16 + pick(3000), ot = 1 + pick(600);
		bool fixed = strcmp(d, "fixed") == 0;
		add(cmd, n, " --dist %s --prompt-tokens %d", d, pt);
		if (!fixed)
			add(cmd, n, ":%d", 1 + pick(pt));
		add(cmd, n, " --output-tokens %d", ot);
		if (!fixed)
			add(cmd, n, ":%d", 1 + pick(ot));
	}
	if (pick(4) == 0)
		add(cmd, n, " --max-num-seqs %lld", (long long)(1 + pick(64)));
	if (pick(5) == 0)
		add(cmd, n, " --max-num-batched-tokens %lld", (long long)(256 + pick(4096)));
}

/* Run the command; its standard output in *out (heap), the exit status (or
 * 128 + signal) returned. */
static int run(const char *cmd, char **out, size_t *len)
{
	FILE *p = popen(cmd, "r");
	size_t cap = 1 << 16, k;
	int st;

	*len = 0;
	*out = malloc(cap);
	if (!p || !*out)
		return -1;
	while ((k = fread(*out + *len, 1, cap - *len, p)) > 0) {
		*len += k;
		if (*len == cap) {
			char *g = realloc(*out, cap * 2);
			if (!g)
				break;
			*out = g;
			cap *= 2;
		}
	}
	st = pclose(p);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first number of the tree that is negative or not finite: its key in
 * *bad (false when none). */
static bool bad_number(const struct json *j, const char *key, char *bad, size_t n)
{
	const struct json *c;

	if (json_type_of(j) == JSON_NUMBER) {
		double v = json_number(j);
		/* slopes are signed: a queue that drains has a negative growth */
		bool signed_ok = key && strncmp(key, "queue_growth", 12) == 0;
		if (!isfinite(v) || (v < 0 && !signed_ok)) {
			snprintf(bad, n, "%s = %g", key ? key : "(element)", v);
			return true;
		}
		return false;
	}
	if (json_type_of(j) != JSON_ARRAY && json_type_of(j) != JSON_OBJECT)
		return false;
	for (c = json_first(j); c; c = json_next(c))
		if (bad_number(c, json_type_of(j) == JSON_OBJECT ? json_key(c) : key, bad, n))
			return true;
	return false;
}

static long long num(const struct json *o, const char *k)
{
	return json_ll(json_get(o, k), -1);
}

/* The checks of a successful run's output; "" or why it fails in why. */
static void check_output(const char *text, size_t len, char *why, size_t n)
{
	struct json *root = NULL;
	const struct json *s;
	struct err e;
	char bad[200];
	long long arr, comp, rej, rtl, rkv;

	why[0] = 0;
	if (json_parse(text, len, "output", &root, &e) < 0) {
		snprintf(why, n, "output is not JSON: %s", e.msg);
		return;
	}
	s = json_get(root, "summary");
	if (!s) {
		snprintf(why, n, "no summary");
	} else {
		arr = num(s, "arrived"), comp = num(s, "completed"), rej = num(s, "rejected");
		rtl = num(s, "rejected_too_long"), rkv = num(s, "rejected_kv_capacity");
		if (arr < 0 || comp < 0 || rej < 0 || arr != comp + rej || rej != rtl + rkv)
			snprintf(why, n, "requests not conserved: arrived %lld, completed %lld, rejected %lld (%lld + %lld)",
				 arr, comp, rej, rtl, rkv);
		else if (bad_number(root, NULL, bad, sizeof(bad)))
			snprintf(why, n, "a number that is negative or not finite: %s", bad);
	}
	json_free(root);
}

int main(int argc, char **argv)
{
	char args[1024], cmd[1600], trace[] = "/tmp/servesim-prop-XXXXXX.csv",
	     spec[] = "/tmp/servesim-prop-XXXXXX.json", why[1400];
	int cases, i, pass = 0, fail = 0, ran = 0, fd;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: prop SERVESIM_BIN CASES SEED\n");
		return 2;
	}
	cases = atoi(argv[2]);
	pcg32_seed(&rng, strtoull(argv[3], NULL, 10), 54);
	fd = mkstemps(trace, 4);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "prop: cannot write a temporary trace\n");
		return 1;
	}
	/* a trace with bursts, long prompts and shared prefix groups */
	fprintf(f, "arrival_s,prompt_tokens,output_tokens,prefix_group\n");
	for (i = 0; i < 120; i++)
		fprintf(f, "%.3f,%d,%d,%d\n", (i / 10) * 0.5 + (i % 10) * 0.001, 32 + (i * 97) % 4000, 1 + (i * 31) % 300,
			i % 3 == 0 ? -1 : i % 4);
	fclose(f);
	fd = mkstemps(spec, 5);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "prop: cannot write a temporary workload\n");
		return 1;
	}
	fprintf(f, "{\"arrival\": {\"process\": \"trace\", \"file\": \"%s\"}}\n", trace);
	fclose(f);
	for (i = 0; i < cases; i++) {
		char *o1 = NULL, *o2 = NULL;
		size_t l1 = 0, l2 = 0;
		int rc1, rc2;
		draw(args, sizeof(args), spec);
		snprintf(cmd, sizeof(cmd), "%s run%s --format json 2>/dev/null", argv[1], args);
		rc1 = run(cmd, &o1, &l1);
		why[0] = 0;
		if (rc1 == 0) {
			ran++;
			check_output(o1, l1, why, sizeof(why));
			if (!why[0]) {
				rc2 = run(cmd, &o2, &l2);
				if (rc2 != 0 || l2 != l1 || memcmp(o1, o2, l1) != 0)
					snprintf(why, sizeof(why), "the rerun differs (exit %d, %zu bytes against %zu)", rc2, l2,
						 l1);
			}
		} else if (rc1 != 2 && rc1 != 3) {
			snprintf(why, sizeof(why), "exit %d (0, or 2/3 refusing the configuration, expected)", rc1);
		}
		if (why[0]) {
			fail++;
			printf("FAIL prop case %d: run%s: %s\n", i, args, why);
		} else {
			pass++;
			printf("ok   prop case %d (exit %d): run%s\n", i, rc1, args);
		}
		free(o1);
		free(o2);
	}
	remove(trace);
	remove(spec);
	if (cases > 0 && ran * 2 < cases) {
		fail++;
		printf("FAIL prop: only %d of %d configurations ran (the rest refused): the menu checks too little\n", ran,
		       cases);
	} else {
		printf("ok   prop: %d of %d configurations ran, the rest refused with status 2 or 3\n", ran, cases);
		pass++;
	}
	printf("%d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
