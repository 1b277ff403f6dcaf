/* wlflags.h - the workload flags of `servesim run` as a flag table
 * (argtab.h) over a struct wl_source: a workload file (or
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
 * builds it and says which, for the header: each flag but --workload is
 * named in wl_source.given once, in the order given).  The table's help
 * is its section of run's --help.  A zeroed struct wl_source is the
 * default. */
#ifndef SERVESIM_PLAN_WLFLAGS_H
#define SERVESIM_PLAN_WLFLAGS_H
#include "base/argtab.h"
#include "plan/wlsource.h"

extern const struct argtab wl_flags_tab;

#endif
