/* capacity.h - SLO capacity search: the highest request rate (Poisson, or
 * the workload's own open-loop process) or closed-loop concurrency that a
 * prepared scenario sustains while meeting a set of latency SLOs and,
 * optionally, a goodput floor (vLLM's goodput: a request is good when it
 * meets every SLO threshold; counted per request).
 *
 * Search: an exponential probe (x2 from cap_cfg.start, halving below it when
 * the start already fails) brackets the answer, then bisection narrows the
 * bracket to rel_tol of the lower end (1 %).  With nseeds > 1 the search runs
 * once per seed (seed, seed+1, ...) and the result carries the band. */
#ifndef SERVESIM_CAPACITY_H
#define SERVESIM_CAPACITY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "engine/scenario.h"
#include "sim/sim.h"

/* CAP_ITL_POOLED: vLLM bench serve's ITL, every gap between streamed chunks
 * pooled over the run (metric_set.itl_pooled_ms); a whole-run statistic, so
 * it takes no part in the per-request goodput. */
enum cap_metric { CAP_TTFT, CAP_ITL, CAP_TPOT, CAP_E2E, CAP_QUEUE, CAP_ITL_POOLED, CAP__NMETRIC };
enum cap_stat { CAP_MEAN, CAP_P50, CAP_P90, CAP_P95, CAP_P99, CAP__NSTAT };

#define CAP_MAX_SLOS 16
#define CAP_MAX_SEEDS 64

struct cap_slo {
	enum cap_metric metric;
	enum cap_stat stat;
	double limit_ms;
};

struct cap_cfg {
	struct cap_slo slo[CAP_MAX_SLOS];
	size_t nslo;
	double goodput_min;     /* share of arrived requests meeting every SLO; 0: none */
	bool concurrency;       /* search closed-loop concurrency instead of rate */
	/* a rate passes only when it also does not saturate (served >= 0.95 x
	 * offered, queue delay not growing): the sustainable rate */
	int nseeds;             /* 1 .. CAP_MAX_SEEDS */
	uint64_t seed;          /* first seed */
	double rel_tol;         /* bisection stops at hi - lo <= rel_tol x lo */
	double start;           /* first probe (req/s or clients) */
	/* the bracket's step from start (0: 2, the exponential probe); a
	 * start already near the answer (search's fine pass) steps less */
	double factor;
	double min_probe;       /* lowest rate probed before giving up */
	double max_probe;       /* highest rate probed before giving up */
	/* rate search: a probe that decides the answer must be long enough to
	 * judge (cap_search), else SS_EUSAGE; true lets a rough search (search's
	 * coarse pass) run on short probes */
	bool allow_short;
	/* rate search with num_requests (search.c): a failing probe stops as
	 * soon as its failure is decided by the requests completed so far
	 * (more over a percentile's limit than the rest could outvote, a
	 * mean's sum or the bad requests past what the rest could make
	 * good), so that the decision is the full run's; such a probe keeps
	 * pass = false only (cap_point.cut) and is run again in full where
	 * more of it is read: the answer's failing end (binding, reason,
	 * length check) and the saturation search */
	bool early_stop;
	/* the caller reads no saturation_rate: its search is skipped (NAN) */
	bool no_saturation;
	/* the caller reads cap_point.energy_j_per_output_token (search's
	 * operating point): the probes meter their steps' energy; otherwise
	 * they do not (sim_cfg.no_energy) and it is NAN */
	bool energy;
	/* the step-price memos the probes share (sim.h sim_memo): NULL, the
	 * search makes its own; a caller's lets searches over the same
	 * prepared scenario share them (search's coarse and fine passes) */
	struct sim_memo *memo;
};

/* One simulated point. */
struct cap_point {
	uint64_t seed;
	double offered;             /* req/s (rate search) or clients */
	double served;              /* departures per s over the arrival window after a warm-up */
	double arrival_rate;        /* arrivals per s over the same window: served is
				     * compared with it, so that the Poisson noise of
				     * the arrival count does not read as saturation */
	double value[CAP_MAX_SLOS]; /* each SLO's metric (NAN: nothing completed) */
	double goodput;             /* share of arrived requests meeting every SLO */
	size_t arrived, completed;
	double queue_growth;        /* s of queue delay per s of arrivals */
	double span_s;              /* from the first arrival to the last */
	double window_s;            /* the arrival window after the warm-up */
	size_t window_arrivals;     /* arrivals in it */
	double e2e_mean_s;          /* mean E2E of the completed requests */
	bool pass, saturated;
	int fail;                   /* index of the most violated SLO, CAP_FAIL_GOODPUT,
				     * CAP_FAIL_SATURATED, -1 none */
	double running_per_rank, queue_share; /* the run's load terms (metric_set) */
	/* the run's figures at this point (metric_set), what a search reports
	 * at its answer without running it again */
	double output_tokens, ttft_p90_ms, e2e_p90_ms, itl_mean_ms;
	size_t itl_n;
	double energy_j_per_output_token; /* NAN: no power figure (hw/power.h), or cap_cfg.energy off */
	bool cut;                   /* cap_cfg.early_stop stopped it: only pass (false) holds */
};
/* fail / binding codes beyond the SLO indices */
#define CAP_FAIL_GOODPUT(c) ((int)(c)->nslo)
#define CAP_FAIL_SATURATED(c) ((int)(c)->nslo + 1)

struct cap_result {
	bool found;                 /* false: unmet at the lowest probe (reason says) */
	double max_rate;            /* median over seeds of the per-seed answer */
	double band_lo, band_hi;    /* min and max over seeds */
	double per_seed[CAP_MAX_SEEDS];
	bool unbounded;             /* met even at max_probe */
	int binding;                /* fail code of the lowest failing probe above capacity, -1 */
	double saturation_rate;     /* NAN when not found (or concurrency search) */
	char reason[256];
	struct cap_point *curve;    /* every probe, sorted by seed then offered */
	size_t ncurve;
	size_t nsim;                /* simulations run: the probes, and cut ones run again */
};

void cap_cfg_defaults(struct cap_cfg *c);
/* The first probe (--start) in the search's range: clients in [1,
 * WL_MAX_CONCURRENCY] (rounded down) with concurrency, else a rate in
 * [min_probe, max_probe]; SS_EUSAGE. */
int cap_cfg_check_start(struct cap_cfg *c, struct err *e);
/* Parse "ttft_p90_ms=500,itl_mean_ms=30" (metrics ttft|itl|tpot|e2e|queue|itl_pooled,
 * statistics mean|p50|p90|p95|p99, limit > 0 in ms), appending to c->slo.
 * SS_EUSAGE naming the bad item and what was expected. */
int cap_slo_parse(const char *arg, struct cap_cfg *c, struct err *e);
/* The flags of capacity and search as a flag table's parsers (argtab.h
 * AT_FUNC): --slo LIST (cap_slo_parse into the struct cap_cfg at dst) and
 * --goodput-min F (the double at dst, in (0, 1]). */
int cap_slo_arg(const char *flag, const char *arg, void *dst, struct err *e);
int cap_goodput_arg(const char *flag, const char *arg, void *dst, struct err *e);
/* "ttft_p90_ms" (buffer of at least 32). */
void cap_slo_name(const struct cap_slo *s, char *buf, size_t n);
/* The SLOs of c as one line, "ttft_p90_ms <= 500, goodput >= 0.9" (cut to
 * n): capacity's and search's headers. */
void cap_slo_text(const struct cap_cfg *c, char *buf, size_t n);
/* The binding constraint of a result (cap_result.binding): an SLO's name,
 * "goodput", "saturation" or "none". */
void cap_binding_name(const struct cap_cfg *c, int binding, char *buf, size_t n);
/* The SLO's statistic out of a run's summary (NAN for an empty set). */
double cap_slo_value(const struct cap_slo *s, const struct metric_set *m);

/* Simulate the scenario prepared in st (its cost model and engine settings;
 * st->sim is not used) with wl at one rate (or concurrency) and seed. */
int cap_probe(const struct scenario_state *st, const struct wl_spec *wl, const struct cap_cfg *c,
	      double x, uint64_t seed, struct cap_point *out, struct err *e);
/* The requests a probe of a workload of n requests runs on st: n x the
 * replicas (sim_cfg.replicas), so that each replica sees as many as one
 * copy would (a probe's length decides what it can judge: a shorter one
 * reads a lower capacity). */
int64_t cap_probe_requests(const struct scenario_state *st, int64_t n);
/* The whole search.  wl must be an open-loop rate process (poisson,
 * constant, gamma) without stages for a rate search; any spec with lengths
 * for a concurrency search; with replicas its probes run
 * cap_probe_requests of its requests.  res->curve is heap-owned:
 * cap_result_release. */
int cap_search(const struct scenario_state *st, const struct wl_spec *wl, const struct cap_cfg *c,
	       struct cap_result *res, struct err *e);
void cap_result_release(struct cap_result *res);
/* The first seed's probe at its answer (the highest rate that met every
 * SLO), or NULL when nothing was found. */
const struct cap_point *cap_answer_point(const struct cap_cfg *c, const struct cap_result *res);

#endif
