/* autoscale.h - autoscaling replay: a pool of replicas whose serving count
 * follows a policy over a time-varying load (`run --autoscale MIN:MAX`).
 *
 * The simulation holds MAX replicas (sim_cfg.replicas); the policy decides
 * every interval how many serve.  A replica scaled up holds its GPUs from
 * the decision on and takes arrivals once its weights are loaded and it is
 * warm (load_s + warmup_s later); one scaled down takes no new arrival,
 * runs what it holds to the end (no request is lost) and gives its GPUs
 * back when empty.  Scale-downs follow the highest recommendation of the
 * last grace_s (Kubernetes HPA's scale-down stabilisation window), so a
 * short dip does not shed replicas; scale-ups act at once.  docs/autoscale.md
 * states the policies and where each number comes from. */
#ifndef SERVESIM_AUTOSCALE_H
#define SERVESIM_AUTOSCALE_H
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "deploy/catalog.h"
#include "engine/scenario.h"

struct sim;
struct cost_model;

/* utilization: the HPA rule on KV / batch-slot use, replicas x use /
 * target; slo: Dynamo's SLA planner (predict the next interval's load,
 * size the pool so the predicted TTFT and ITL meet the SLOs). */
enum autoscale_policy { AS_UTILIZATION, AS_SLO };

/* "utilization" (alias util) or "slo": 0, or SS_EUSAGE naming the names. */
int autoscale_policy_parse(const char *arg, enum autoscale_policy *out, struct err *e);
const char *autoscale_policy_name(enum autoscale_policy p);

/* Defaults (docs/autoscale.md gives their sources). */
#define AS_DEFAULT_TARGET 0.7
#define AS_DEFAULT_INTERVAL_S 60.0
#define AS_DEFAULT_STORAGE_GB_S 2.0
#define AS_DEFAULT_WARMUP_S 30.0
#define AS_DEFAULT_GRACE_S 300.0
/* The most decisions one replay makes (an interval of 1 ms over a day
 * would make 86 million): past it the replay fails (SS_EUSAGE) rather than
 * run for hours and hold their rows. */
#define AS_MAX_INTERVALS 1000000

struct autoscale_cfg {
	int min, max;                   /* replicas: 1 <= min <= max <= sim_nreplicas */
	enum autoscale_policy policy;
	double target;                  /* utilization: target use of KV / batch slots, (0, 1] */
	double interval_s;              /* a decision every interval_s (> 0) */
	double load_s, warmup_s;        /* a scale-up serves load_s + warmup_s after its decision */
	double grace_s;                 /* scale-down stabilisation window (>= 0) */
	double slo_ttft_ms, slo_itl_ms; /* per-request SLOs (NAN: none); slo needs one */
	int gpus_per_replica;
	double usd_per_gpu_hour;        /* NAN: no price */
	/* slo: one replica's step prices and limits (its profile) */
	const struct cost_model *cost;
	int64_t max_num_batched_tokens, max_num_seqs, kv_tokens;
};

/* The defaults above (policy utilization, no SLO, max 0: off). */
void autoscale_cfg_defaults(struct autoscale_cfg *c);
/* --autoscale MIN:MAX into c->min, c->max (1 <= MIN <= MAX <=
 * SIM_MAX_REPLICAS); SS_EUSAGE. */
int autoscale_range_parse(const char *arg, struct autoscale_cfg *c, struct err *e);
/* The autoscaling flags taken together: flag_given (one of the policy's
 * own flags, --slo-*, --prices or --svg) needs --autoscale MIN:MAX; the slo
 * policy needs an SLO (SS_EUSAGE). */
int autoscale_cfg_check(const struct autoscale_cfg *c, bool flag_given, struct err *e);

/* The serving and provisioned (GPU-holding: serving, loading, draining)
 * replicas from time_s on. */
struct autoscale_point {
	double time_s;
	int replicas, provisioned;
};

/* One interval [start_s, end_s) (the last may be short): arrivals, completions and
 * their p90 TTFT and mean ITL (ms, NAN: none), the time-weighted mean use
 * of the serving replicas (max of KV share and (running + waiting) /
 * max_num_seqs), and the replicas the policy asked for at its end. */
struct autoscale_interval {
	double start_s, end_s;
	uint64_t arrivals, completed;
	double ttft_p90_ms, itl_mean_ms, utilization;
	int desired;
};

struct autoscale_result {
	struct autoscale_point *pts;
	size_t npts;
	struct autoscale_interval *iv;
	size_t niv;
	double duration_s;              /* the run's span (0 .. last event) */
	double gpu_hours;               /* provisioned GPUs over the span */
	double gpu_hours_fixed;         /* max replicas' GPUs over the same span */
	double cost_usd, cost_usd_fixed; /* NAN without a price */
	uint64_t slo_met;               /* completed within every SLO given */
	double slo_attainment;          /* slo_met / arrived; NAN without SLOs */
	int peak;                       /* most serving replicas */
	uint64_t scale_ups, scale_downs; /* replicas added and removed */
};

/* Run the simulation s (built with cfg->max replicas, not stepped yet) to
 * its end under the policy; the result's arrays are the caller's to
 * release (autoscale_result_release).  <0 on a simulation error or a bad
 * configuration (SS_EUSAGE naming it). */
int autoscale_run(struct sim *s, const struct autoscale_cfg *cfg, struct autoscale_result *r, struct err *e);
/* What the policy needs of a prepared deployment, into c: its GPUs per
 * replica, the weights' load time on a scale-up (their bytes on every GPU of
 * a replica over storage_gb_s GB/s), one replica's step prices and limits,
 * and the GPU's price from the table at prices_path (NULL: the catalog's
 * data/prices.json). */
int autoscale_prepare(struct autoscale_cfg *c, const struct scenario *sc, const struct scenario_state *st,
		      double storage_gb_s, const char *prices_path, struct catalog *cat, struct err *e);
void autoscale_result_release(struct autoscale_result *r);

#endif
