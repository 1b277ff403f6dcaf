/* overrides.h - a workload spec's fields overridden the way benchmark
 * clients set them: rate, request count, duration, seed, a closed loop of
 * N clients, GuideLLM's rate types (synchronous, throughput, concurrent,
 * constant, poisson, sweep) and lengths given as MEAN[:STD].  Whatever
 * parses them (run's flags) fills struct wl_overrides; wl_overrides_apply
 * holds the rules. */
#ifndef SERVESIM_WORKLOAD_OVERRIDES_H
#define SERVESIM_WORKLOAD_OVERRIDES_H
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "workload/workload.h"

/* GuideLLM's --rate-type. */
enum wl_rate_type { WL_RT_NONE, WL_RT_SYNC, WL_RT_THROUGHPUT, WL_RT_CONCURRENT,
		    WL_RT_CONSTANT, WL_RT_POISSON, WL_RT_SWEEP };
/* "synchronous", ..., "sweep"; SS_EUSAGE naming flag otherwise. */
int wl_rate_type_parse(const char *flag, const char *arg, enum wl_rate_type *out, struct err *e);

struct wl_overrides {
	double rate, duration_s, p_mean, p_std, o_mean, o_std;  /* lengths: mean 0 = not given; each
								  * std after its mean (plan/wlflags.c) */
	int64_t nreq, seed, concurrency;
	bool rate_given, nreq_given, seed_given, conc_given, dur_given, len_given, dist_given;
	enum wl_dist_kind dist;
	enum wl_rate_type rate_type;
	const char *harness;             /* canonical name, or NULL */
	enum wl_prompt_kind prompt_kind; /* WL_PROMPTS_UNSET: the spec's */
};

/* The spec that length overrides without a workload file stand for: Poisson
 * 10 req/s, 1000 requests, the default lengths (source "flags"). */
void wl_overrides_base(struct wl_spec *wl);
/* Apply o to wl (loaded from src, which messages name; nonempty names what
 * must leave requests, e.g. "--duration") and validate the result.  With
 * WL_RT_SWEEP the rate counts benchmarks, which the caller runs. */
int wl_overrides_apply(const struct wl_overrides *o, const char *src, const char *nonempty, struct wl_spec *wl,
		       struct err *e);

#endif
