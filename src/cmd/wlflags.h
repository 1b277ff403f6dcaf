/* wlflags.h - the workload flags of `servesim run`: a workload file (or
 * workloads/default.json) whose fields flags override, GuideLLM's rate
 * types, and flag-defined length distributions.
 *
 *   --workload FILE            the spec (default workloads/default.json)
 *   --rate R                   open-loop rate (stages dropped; a closed-loop
 *                              spec becomes Poisson)
 *   --num-requests N --duration S --seed S --concurrency N (closed loop)
 *   --rate-type T              GuideLLM's: synchronous (1 client), throughput
 *                              (every request at once), concurrent (--concurrency
 *                              or --rate clients), constant, poisson
 *   --prompt-tokens MEAN[:STD] --output-tokens MEAN[:STD] --dist D
 *                              lengths (D lognormal|normal|fixed; default normal
 *                              with a STD, fixed without)
 * Without --workload, length flags replace the default workload by a
 * flag-defined one (Poisson 10 req/s, 1000 requests, 512/128 tokens unless
 * given); the other flags only override its fields (wl_source_build
 * builds it and says which, for the header). */
#ifndef SERVESIM_CMD_WLFLAGS_H
#define SERVESIM_CMD_WLFLAGS_H
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/wlsource.h"

enum { WLF = 1200 };
#define WLFLAGS_OPTIONS \
	{"workload", required_argument, 0, WLF}, {"rate", required_argument, 0, WLF + 1}, \
	{"num-requests", required_argument, 0, WLF + 2}, \
	{"prompt-tokens", required_argument, 0, WLF + 3}, \
	{"output-tokens", required_argument, 0, WLF + 4}, {"seed", required_argument, 0, WLF + 5}, \
	{"concurrency", required_argument, 0, WLF + 6}, {"duration", required_argument, 0, WLF + 7}, \
	{"rate-type", required_argument, 0, WLF + 8}, {"dist", required_argument, 0, WLF + 9}, \
	{"harness", required_argument, 0, WLF + 10}, {"prompt-kind", required_argument, 0, WLF + 11}, \
	{"trace-speedup", required_argument, 0, WLF + 12}

#define WLFLAGS_HELP \
	"  --workload FILE           workload spec (JSON or YAML; default workloads/default.json)\n" \
	"                            (- reads a JSON spec from standard input)\n" \
	"  --rate R --num-requests N --duration S --seed S --concurrency N\n" \
	"                            override the spec's rate (open loop), request count,\n" \
	"                            duration, seed, or make it a closed loop of N clients\n" \
	"  --rate-type T             GuideLLM's: synchronous, throughput, concurrent, constant,\n" \
	"                            poisson, or sweep: synchronous, throughput, then constant\n" \
	"                            rates between them, --rate benchmarks in all (default 10)\n" \
	"  --prompt-tokens MEAN[:STD] --output-tokens MEAN[:STD] --dist lognormal|normal|fixed\n" \
	"                            lengths from flags (normal with a STD, else fixed, unless\n" \
	"                            --dist); without --workload they replace the default chat\n" \
	"                            workload by Poisson 10 req/s x 1000 requests, 512/128 tokens\n" \
	"  --harness H               the benchmark client driving the load (aiperf/genai-perf,\n" \
	"                            vllm-bench, sglang-bench, guidellm, inference-perf): the\n" \
	"                            engine's host terms measured under it (docs/engines.md)\n" \
	"  --prompt-kind chat|random what the prompts are: speculative decoding's acceptance\n" \
	"                            (default: random under aiperf, vllm-bench, sglang-bench)\n" \
	"  --trace-speedup X         a Mooncake trace's timestamps divided by X, as aiperf and\n" \
	"                            Dynamo replay one \"4x\" (docs/workloads.md)\n"

void wlflags_defaults(struct wl_source *f);
/* 1 handled, 0 not ours, <0 error. */
int wlflags_option(int code, const char *arg, struct wl_source *f, struct err *e);

#endif
