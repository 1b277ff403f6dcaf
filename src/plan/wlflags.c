/* wlflags.c - run's workload flags (wlflags.h). */
#include "plan/wlflags.h"

#include <stdio.h>
#include <string.h>

#include "base/argval.h"

/* The flag into f->given, once. */
static void note_flag(void *base, const struct argtab_row *r)
{
	struct wl_source *f = base;
	size_t len = strlen(f->given), fl = strlen(r->flag);
	const char *p;

	if (r->off == offsetof(struct wl_source, workload))
		return;
	for (p = f->given; (p = strstr(p, r->flag)) != NULL; p += fl)
		if (p[fl] == '\0' || p[fl] == ',')
			return; /* given twice: named once */
	snprintf(f->given + len, sizeof(f->given) - len, "%s%s", len ? ", " : "", r->flag);
}

/* MEAN[:STD] into dst[0] and dst[1] (a mean and the std after it). */
static int parse_len(const char *flag, const char *arg, void *dst, struct err *e)
{
	double *mean = dst, *std = mean + 1;
	char buf[64], *colon;
	int rc;

	snprintf(buf, sizeof(buf), "%s", arg);
	colon = strchr(buf, ':');
	*std = 0;
	if (colon) {
		*colon = '\0';
		if ((rc = argval_num(flag, colon + 1, 0, false, std, e)) < 0)
			return rc;
	}
	return argval_num(flag, buf, 1, false, mean, e);
}

static int parse_rate_type(const char *flag, const char *arg, void *dst, struct err *e)
{
	return wl_rate_type_parse(flag, arg, dst, e);
}

static int parse_dist(const char *flag, const char *arg, void *dst, struct err *e)
{
	enum wl_dist_kind *d = dst;

	if (strcmp(arg, "lognormal") == 0)
		*d = WL_LOGNORMAL;
	else if (strcmp(arg, "normal") == 0)
		*d = WL_NORMAL;
	else if (strcmp(arg, "fixed") == 0)
		*d = WL_FIXED;
	else
		return err_set(e, SS_EUSAGE, "%s must be lognormal, normal or fixed, got '%s'", flag, arg);
	return 0;
}

static int parse_harness(const char *flag, const char *arg, void *dst, struct err *e)
{
	char names[160];

	if (!(*(const char **)dst = wl_harness_canonical(arg, names, sizeof(names))))
		return err_set(e, SS_EUSAGE, "%s must be one of %s, got '%s'", flag, names, arg);
	return 0;
}

static int parse_prompt_kind(const char *flag, const char *arg, void *dst, struct err *e)
{
	if (wl_prompt_kind_parse(arg, "", dst, NULL) < 0)
		return err_set(e, SS_EUSAGE, "%s must be chat or random, got '%s'", flag, arg);
	return 0;
}

static int parse_speedup(const char *flag, const char *arg, void *dst, struct err *e)
{
	int rc = argval_num(flag, arg, 0, true, dst, e);

	if (rc == 0 && *(double *)dst > 1e6)
		return err_set(e, SS_EUSAGE, "%s must be in (0, 1e6], got '%s'", flag, arg);
	return rc;
}

#define O(m) offsetof(struct wl_source, m)
#define G(m) .given = ARGTAB_GIVEN(struct wl_source, ov.m)
static const struct argtab_row rows[] = {
	AT_TXT("  --workload FILE           workload spec (JSON or YAML; default workloads/default.json)\n"
	       "                            (- reads a JSON spec from standard input)\n"
	       "  --rate R --num-requests N --duration S --seed S --concurrency N\n"
	       "                            override the spec's rate (open loop), request count,\n"
	       "                            duration, seed, or make it a closed loop of N clients\n"
	       "  --rate-type T             GuideLLM's: synchronous, throughput, concurrent, constant,\n"
	       "                            poisson, or sweep: synchronous, throughput, then constant\n"
	       "                            rates between them, --rate benchmarks in all (default 10)\n"
	       "  --prompt-tokens MEAN[:STD] --output-tokens MEAN[:STD] --dist lognormal|normal|fixed\n"
	       "                            lengths from flags (normal with a STD, else fixed, unless\n"
	       "                            --dist); without --workload they replace the default chat\n"
	       "                            workload by Poisson 10 req/s x 1000 requests, 512/128 tokens\n"
	       "  --harness H               the benchmark client driving the load (aiperf/genai-perf,\n"
	       "                            vllm-bench, sglang-bench, guidellm, inference-perf): the\n"
	       "                            engine's host terms measured under it (docs/engines.md)\n"
	       "  --prompt-kind chat|random what the prompts are: speculative decoding's acceptance\n"
	       "                            (default: random under aiperf, vllm-bench, sglang-bench)\n"
	       "  --trace-speedup X         a Mooncake trace's timestamps divided by X, as aiperf and\n"
	       "                            Dynamo replay one \"4x\" (docs/workloads.md)\n"),
	{AT_S("--workload", "FILE", O(workload), NULL)},
	{AT_N("--rate", "R", O(ov.rate), 0, true, NULL), G(rate_given)},
	{AT_I("--num-requests", "N", O(ov.nreq), 1, INT64_MAX, NULL), G(nreq_given)},
	{AT_F("--prompt-tokens", "MEAN[:STD]", O(ov.p_mean), parse_len, NULL), G(len_given)},
	{AT_F("--output-tokens", "MEAN[:STD]", O(ov.o_mean), parse_len, NULL), G(len_given)},
	{AT_I("--seed", "S", O(ov.seed), 0, INT64_MAX, NULL), G(seed_given)},
	{AT_I("--concurrency", "N", O(ov.concurrency), 1, WL_MAX_CONCURRENCY, NULL), G(conc_given)},
	{AT_N("--duration", "S", O(ov.duration_s), 0, true, NULL), G(dur_given)},
	{AT_F("--rate-type", "T", O(ov.rate_type), parse_rate_type, NULL)},
	{AT_F("--dist", "D", O(ov.dist), parse_dist, NULL), G(dist_given)},
	{AT_F("--harness", "H", O(ov.harness), parse_harness, NULL)},
	{AT_F("--prompt-kind", "K", O(ov.prompt_kind), parse_prompt_kind, NULL)},
	{AT_F("--trace-speedup", "X", O(trace_speedup), parse_speedup, NULL)},
};
const struct argtab wl_flags_tab = {.row = rows, .n = sizeof(rows) / sizeof(rows[0]), .noted = note_flag};
