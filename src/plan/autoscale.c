/* autoscale.c - the autoscaling replay: drives one simulation event by
 * event, and at each interval's end asks the policy how many replicas
 * should serve; replicas start (after loading and warm-up), drain and stop
 * as sim_set_routable lets the router see them. */
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "plan/autoscale.h"
#include "base/alloc.h"
#include "base/argval.h"
#include "base/stats.h"
#include "cost/cost.h"
#include "plan/prices.h"
#include "sim/sim.h"

int autoscale_policy_parse(const char *arg, enum autoscale_policy *out, struct err *e)
{
	if (strcmp(arg, "utilization") == 0 || strcmp(arg, "util") == 0) {
		*out = AS_UTILIZATION;
		return 0;
	}
	if (strcmp(arg, "slo") == 0) {
		*out = AS_SLO;
		return 0;
	}
	return err_set(e, SS_EUSAGE, "--autoscale-policy must be utilization or slo, got '%s'", arg);
}

int autoscale_cfg_check(const struct autoscale_cfg *c, bool flag_given, struct err *e)
{
	if (flag_given && !c->max)
		return err_set(e, SS_EUSAGE, "--autoscale-*, --slo-ttft-ms, --slo-itl-ms, --prices and --svg need "
			       "--autoscale MIN:MAX");
	if (c->policy == AS_SLO && isnan(c->slo_ttft_ms) && isnan(c->slo_itl_ms))
		return err_set(e, SS_EUSAGE, "--autoscale-policy slo needs an SLO: --slo-ttft-ms and/or --slo-itl-ms");
	return 0;
}

int autoscale_range_parse(const char *arg, struct autoscale_cfg *c, struct err *e)
{
	long long v[2];

	if (!argval_pattern(arg, "#:#", v, 2) || v[0] < 1 || v[1] < v[0] || v[1] > SIM_MAX_REPLICAS)
		return err_set(e, SS_EUSAGE, "--autoscale must be MIN:MAX replicas with 1 <= MIN <= MAX <= %d, got '%s'",
			       SIM_MAX_REPLICAS, arg);
	c->min = (int)v[0];
	c->max = (int)v[1];
	return 0;
}

void autoscale_cfg_defaults(struct autoscale_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->target = AS_DEFAULT_TARGET;
	c->interval_s = AS_DEFAULT_INTERVAL_S;
	c->warmup_s = AS_DEFAULT_WARMUP_S;
	c->grace_s = AS_DEFAULT_GRACE_S;
	c->slo_ttft_ms = c->slo_itl_ms = NAN;
}

const char *autoscale_policy_name(enum autoscale_policy p)
{
	return p == AS_SLO ? "slo" : "utilization";
}

enum rstate { R_OFF, R_LOADING, R_READY, R_DRAINING };

struct scaler {
	struct sim *s;
	const struct autoscale_cfg *c;
	struct autoscale_result *r;
	int n;                       /* replicas in the simulation */
	enum rstate *st;
	int64_t *ready_ns;           /* R_LOADING: when it serves */
	int64_t *on_ns;              /* not R_OFF: since when it holds its GPUs */
	int *ix;                     /* the serving ones, for sim_set_routable */
	int nready, nloading, ndraining;
	double gpu_s;                /* replica-seconds provisioned so far */
	/* the interval being observed: its completions' TTFT (and ITL of those
	 * with one), prompt and output tokens, the time integral of the use
	 * and of the running requests per serving replica, from int_ns on */
	float *ttft, *itl;
	size_t nttft, nitl, cap_ttft, cap_itl;
	double isl_sum, osl_sum;
	double use_int, run_int, use_now, run_now;
	int64_t int_ns, iv_start_ns;
	uint64_t arrived0;
	/* the slo policy's correction factors (Dynamo's: actual / expected) */
	double corr_ttft, corr_itl;
	double last_isl, last_osl;
	double last_rate;             /* the previous interval's arrival rate (NAN: none yet) */
	size_t cap_pts, cap_iv;
};

static void on_row(void *ctx, const struct sim_req_row *row)
{
	struct scaler *sc = ctx;
	const struct autoscale_cfg *c = sc->c;

	if (!row->completed)
		return;
	XGROW(sc->ttft, sc->cap_ttft, sc->nttft + 1);
	sc->ttft[sc->nttft++] = (float)row->ttft_ms;
	if (row->output_tokens > 1) {
		XGROW(sc->itl, sc->cap_itl, sc->nitl + 1);
		sc->itl[sc->nitl++] = (float)row->itl_ms;
	}
	sc->isl_sum += (double)row->prompt_tokens;
	sc->osl_sum += (double)row->output_tokens;
	if ((isnan(c->slo_ttft_ms) || row->ttft_ms <= c->slo_ttft_ms) &&
	    (isnan(c->slo_itl_ms) || row->output_tokens <= 1 || row->itl_ms <= c->slo_itl_ms))
		sc->r->slo_met++;
}

/* The serving replicas' mean use and running requests now. */
static void sample(struct scaler *sc)
{
	struct sim_replica_load l;
	double use = 0, run = 0;
	int i;

	for (i = 0; i < sc->n; i++) {
		double u, q;
		if (sc->st[i] != R_READY)
			continue;
		sim_replica_load(sc->s, i, &l);
		u = l.kv_total > 0 ? l.kv_used / l.kv_total : 0;
		q = l.max_seqs > 0 ? (double)(l.running + l.waiting) / (double)l.max_seqs : 0;
		use += u > q ? u : q;
		run += (double)l.running;
	}
	sc->use_now = sc->nready ? use / sc->nready : 0;
	sc->run_now = sc->nready ? run / sc->nready : 0;
}

/* The integrals up to t_ns at the values sampled last. */
static void integrate(struct scaler *sc, int64_t t_ns)
{
	double dt = (double)(t_ns - sc->int_ns) * 1e-9;

	sc->use_int += sc->use_now * dt;
	sc->run_int += sc->run_now * dt;
	sc->int_ns = t_ns;
}

static void point(struct scaler *sc, int64_t t_ns)
{
	struct autoscale_result *r = sc->r;
	int prov = sc->nready + sc->nloading + sc->ndraining;

	if (r->npts > 0 && r->pts[r->npts - 1].replicas == sc->nready && r->pts[r->npts - 1].provisioned == prov)
		return;
	if (r->npts > 0 && r->pts[r->npts - 1].time_s == (double)t_ns * 1e-9) {
		r->pts[r->npts - 1].replicas = sc->nready; /* the same instant: its last state */
		r->pts[r->npts - 1].provisioned = prov;
	} else {
		XGROW(r->pts, sc->cap_pts, r->npts + 1);
		r->pts[r->npts++] = (struct autoscale_point){(double)t_ns * 1e-9, sc->nready, prov};
	}
	if (sc->nready > r->peak)
		r->peak = sc->nready;
}

static void routable(struct scaler *sc)
{
	int i, k = 0;

	for (i = 0; i < sc->n; i++)
		if (sc->st[i] == R_READY)
			sc->ix[k++] = i;
	sim_set_routable(sc->s, sc->ix, k);
}

static void turn_off(struct scaler *sc, int i, int64_t t_ns)
{
	sc->gpu_s += (double)(t_ns - sc->on_ns[i]) * 1e-9;
	sc->st[i] = R_OFF;
}

/* Draining replicas that hold nothing any more give their GPUs back. */
static void drained(struct scaler *sc, int64_t t_ns)
{
	struct sim_replica_load l;
	int i;

	for (i = 0; i < sc->n && sc->ndraining > 0; i++) {
		if (sc->st[i] != R_DRAINING)
			continue;
		sim_replica_load(sc->s, i, &l);
		if (l.running + l.waiting == 0) {
			turn_off(sc, i, t_ns);
			sc->ndraining--;
			point(sc, t_ns);
		}
	}
}

/* Loading replicas due by t_ns serve from now on. */
static void ready_due(struct scaler *sc, int64_t t_ns)
{
	bool any = false;
	int i;

	for (i = 0; i < sc->n; i++)
		if (sc->st[i] == R_LOADING && sc->ready_ns[i] <= t_ns) {
			sc->st[i] = R_READY;
			sc->nloading--;
			sc->nready++;
			any = true;
		}
	if (any) {
		routable(sc);
		point(sc, t_ns);
	}
}

static int64_t next_ready(const struct scaler *sc)
{
	int64_t t = INT64_MAX;
	int i;

	for (i = 0; i < sc->n && sc->nloading > 0; i++)
		if (sc->st[i] == R_LOADING && sc->ready_ns[i] < t)
			t = sc->ready_ns[i];
	return t;
}

/* Serve with target replicas (serving + loading) from t_ns: a scale-up
 * takes draining replicas back first (still loaded), then starts stopped
 * ones; a scale-down cancels loading ones first (the newest), then drains
 * serving ones (the highest index). */
static void apply(struct scaler *sc, int target, int64_t t_ns)
{
	int64_t delay_ns = (int64_t)llround((sc->c->load_s + sc->c->warmup_s) * 1e9);
	int cur = sc->nready + sc->nloading, i;

	for (i = 0; i < sc->n && cur < target; i++)
		if (sc->st[i] == R_DRAINING) {
			sc->st[i] = R_READY;
			sc->ndraining--;
			sc->nready++;
			cur++;
			sc->r->scale_ups++;
		}
	for (i = 0; i < sc->n && cur < target; i++)
		if (sc->st[i] == R_OFF) {
			sc->st[i] = R_LOADING;
			sc->on_ns[i] = t_ns;
			sc->ready_ns[i] = t_ns + delay_ns;
			sc->nloading++;
			cur++;
			sc->r->scale_ups++;
		}
	for (i = sc->n - 1; i >= 0 && cur > target; i--)
		if (sc->st[i] == R_LOADING) {
			turn_off(sc, i, t_ns);
			sc->nloading--;
			cur--;
			sc->r->scale_downs++;
		}
	for (i = sc->n - 1; i >= 0 && cur > target; i--)
		if (sc->st[i] == R_READY) {
			sc->st[i] = R_DRAINING;
			sc->nready--;
			sc->ndraining++;
			cur--;
			sc->r->scale_downs++;
		}
	routable(sc);
	ready_due(sc, t_ns); /* no delay: serving at once */
	drained(sc, t_ns);
	point(sc, t_ns);
}

/* One step's seconds on one replica: n prompt chunks of len new tokens
 * (no prefix), or d decoding requests attending ctx tokens each. */
static double step_s(const struct cost_model *cm, int64_t n, int64_t len, int64_t d, double ctx)
{
	int64_t lens[64], pre[64] = {0};
	struct step_desc sd;
	int64_t k;

	memset(&sd, 0, sizeof(sd));
	if (n > 64)
		n = 64;
	for (k = 0; k < n; k++)
		lens[k] = len;
	sd.nchunks = n;
	sd.chunk_len = lens;
	sd.chunk_prefix = pre;
	sd.ndecode = d;
	sd.decode_ctx_sum = (double)d * ctx;
	sd.nlogits = n + d;
	return cost_step_s(cm, &sd);
}

/* Dynamo's SLA planner (docs/autoscale.md) on an aggregated pool: the
 * next interval's load predicted constant (its request rate, mean prompt
 * and output tokens); a replica's decode throughput at the largest batch
 * whose step meets the ITL target divided by the ITL correction (actual /
 * expected ITL at the observed batch), and its prefill throughput over
 * full token budgets, the prefill load scaled by min(1, TTFT correction)
 * as the planner does; a replica's time splits between the two.  The TTFT
 * target bounds the prefill share (ours: a replica busy with prefill a
 * share rho makes an arrival wait about t_prefill / (1 - rho), so rho <=
 * 1 - t_prefill / TTFT target). */
static int slo_desired(struct scaler *sc, double rate, double isl, double osl, double ttft_ms, double itl_ms,
		       double run_mean)
{
	const struct autoscale_cfg *c = sc->c;
	const struct cost_model *cm = c->cost;
	int64_t mbt = c->max_num_batched_tokens, len = (int64_t)llround(isl), chunk, nper, bmax, lo, hi;
	double ctx = isl + osl / 2, t_pre, thpt_p, thpt_d, rho_max = 1, itl_tgt, need;

	if (len < 1)
		len = 1;
	chunk = len < mbt ? len : mbt;
	nper = mbt / chunk > 0 ? mbt / chunk : 1;
	thpt_p = (double)(nper * chunk) / step_s(cm, nper, chunk, 0, 0);
	t_pre = (double)((len + chunk - 1) / chunk) * step_s(cm, 1, chunk, 0, 0);
	if (!isnan(ttft_ms) && t_pre > 0)
		sc->corr_ttft = ttft_ms * 1e-3 / t_pre;
	bmax = (int64_t)((double)c->kv_tokens / (isl + osl));
	if (bmax > c->max_num_seqs)
		bmax = c->max_num_seqs;
	if (bmax < 1)
		bmax = 1;
	if (!isnan(itl_ms) && run_mean >= 1) {
		int64_t b = (int64_t)llround(run_mean);
		sc->corr_itl = itl_ms * 1e-3 / step_s(cm, 0, 0, b < bmax ? b : bmax, ctx);
	}
	lo = 1;
	hi = bmax;
	if (!isnan(c->slo_itl_ms)) {
		itl_tgt = c->slo_itl_ms * 1e-3 / sc->corr_itl;
		/* the largest batch whose decode step meets the target (1 when none) */
		while (lo < hi) {
			int64_t mid = lo + (hi - lo + 1) / 2;
			if (step_s(cm, 0, 0, mid, ctx) <= itl_tgt)
				lo = mid;
			else
				hi = mid - 1;
		}
	} else {
		lo = bmax;
	}
	thpt_d = (double)lo / step_s(cm, 0, 0, lo, ctx);
	if (!isnan(c->slo_ttft_ms)) {
		rho_max = 1 - t_pre / (c->slo_ttft_ms * 1e-3);
		if (rho_max < 0.05)
			rho_max = 0.05;
	}
	need = rate * isl * fmin(1, sc->corr_ttft) / thpt_p / rho_max + rate * osl / thpt_d;
	return need > (double)c->max ? c->max : (int)ceil(need - 1e-9);
}

/* The arrival rate the slo policy sizes for: the last interval's rate
 * carried along its trend from the interval before to the end of the next
 * interval plus the scale-up delay (when a replica started now would
 * serve until), never below 0.  Dynamo's planner predicts the next
 * interval's load with a constant, ARIMA, Kalman or Prophet model; the
 * linear trend is our stand-in for the ones that follow a ramp. */
static double predict_rate(struct scaler *sc, double rate, double span)
{
	const struct autoscale_cfg *c = sc->c;
	double prev = sc->last_rate, ahead = span / 2 + c->interval_s + c->load_s + c->warmup_s, p;

	sc->last_rate = rate;
	if (isnan(prev) || !(span > 0))
		return rate;
	p = rate + (rate - prev) / c->interval_s * ahead;
	return p > 0 ? p : 0;
}

/* The interval ending at t_ns: its figures, the policy's answer and (act)
 * the target after the scale-down window applied. */
static void decide(struct scaler *sc, int64_t t_ns, bool act)
{
	const struct autoscale_cfg *c = sc->c;
	struct autoscale_result *r = sc->r;
	struct autoscale_interval iv;
	struct dist_summary d;
	double span = (double)(t_ns - sc->iv_start_ns) * 1e-9;
	size_t k;
	int want, target, cur = sc->nready + sc->nloading;
	uint64_t arrived = sim_totals(sc->s)->arrived;

	integrate(sc, t_ns);
	memset(&iv, 0, sizeof(iv));
	iv.start_s = (double)sc->iv_start_ns * 1e-9;
	iv.end_s = (double)t_ns * 1e-9;
	iv.arrivals = arrived - sc->arrived0;
	iv.completed = sc->nttft;
	iv.ttft_p90_ms = iv.itl_mean_ms = NAN;
	if (sc->nttft) {
		stats_summarise(sc->ttft, sc->nttft, &d);
		iv.ttft_p90_ms = d.p90;
		sc->last_isl = sc->isl_sum / (double)sc->nttft;
		sc->last_osl = sc->osl_sum / (double)sc->nttft;
	}
	if (sc->nitl) {
		double sum = 0;
		for (k = 0; k < sc->nitl; k++)
			sum += sc->itl[k];
		iv.itl_mean_ms = sum / (double)sc->nitl;
	}
	iv.utilization = span > 0 ? sc->use_int / span : 0;
	if (c->policy == AS_UTILIZATION) {
		/* HPA: ceil(current x use / target), inside its 10 % tolerance no change */
		double ratio = iv.utilization / c->target;
		want = fabs(ratio - 1) <= 0.1 ? sc->nready : (int)ceil(sc->nready * ratio - 1e-9);
	} else if (sc->last_isl > 0) {
		double ttft_mean = NAN;
		if (sc->nttft) {
			double sum = 0;
			for (k = 0; k < sc->nttft; k++)
				sum += sc->ttft[k];
			ttft_mean = sum / (double)sc->nttft;
		}
		want = slo_desired(sc, predict_rate(sc, span > 0 ? (double)iv.arrivals / span : 0, span), sc->last_isl,
				   sc->last_osl, ttft_mean, iv.itl_mean_ms, span > 0 ? sc->run_int / span : 0);
	} else {
		want = cur; /* nothing seen yet to size from */
	}
	want = want < c->min ? c->min : want > c->max ? c->max : want;
	iv.desired = want;
	XGROW(r->iv, sc->cap_iv, r->niv + 1);
	r->iv[r->niv++] = iv;
	target = want;
	if (want < cur) /* scale down to the highest recommendation of the window */
		for (k = r->niv; k-- > 0 && r->iv[k].end_s >= iv.end_s - c->grace_s - 1e-9;)
			if (r->iv[k].desired > target)
				target = r->iv[k].desired;
	if (act && target != cur)
		apply(sc, target, t_ns);
	sc->nttft = sc->nitl = 0;
	sc->isl_sum = sc->osl_sum = 0;
	sc->use_int = sc->run_int = 0;
	sc->iv_start_ns = t_ns;
	sc->arrived0 = arrived;
}

static int check_cfg(const struct autoscale_cfg *c, int n, struct err *e)
{
	if (!(c->min >= 1 && c->min <= c->max && c->max <= n))
		return err_set(e, SS_EUSAGE, "--autoscale MIN:MAX needs 1 <= MIN <= MAX <= %d replicas, got %d:%d", n,
			       c->min, c->max);
	if (!(c->interval_s > 0 && c->interval_s <= 1e6))
		return err_set(e, SS_EUSAGE, "--autoscale-interval-s must be in (0, 1e6] s, got %g", c->interval_s);
	if (!(c->target > 0 && c->target <= 1))
		return err_set(e, SS_EUSAGE, "--autoscale-target must be in (0, 1], got %g", c->target);
	if (!(c->load_s >= 0 && c->warmup_s >= 0 && c->grace_s >= 0 && c->load_s + c->warmup_s <= 1e6 &&
	      c->grace_s <= 1e9))
		return err_set(e, SS_EUSAGE, "the scale-up delay (%g s loading + %g s warm-up) and the grace period "
			       "(%g s) must be >= 0 and finite", c->load_s, c->warmup_s, c->grace_s);
	if (c->policy == AS_SLO && ((isnan(c->slo_ttft_ms) && isnan(c->slo_itl_ms)) || !c->cost))
		return err_set(e, SS_EUSAGE, "--autoscale-policy slo needs an SLO: --slo-ttft-ms and/or --slo-itl-ms");
	return 0;
}

int autoscale_run(struct sim *s, const struct autoscale_cfg *c, struct autoscale_result *r, struct err *e)
{
	struct scaler sc;
	int64_t iv_ns = (int64_t)llround(c->interval_s * 1e9), next_dec = iv_ns, end_ns;
	int i, rc;
	uint64_t arrived;

	memset(r, 0, sizeof(*r));
	if ((rc = check_cfg(c, sim_nreplicas(s), e)) < 0)
		return rc;
	memset(&sc, 0, sizeof(sc));
	sc.s = s;
	sc.c = c;
	sc.r = r;
	sc.n = sim_nreplicas(s);
	sc.st = xcalloc((size_t)sc.n, sizeof(*sc.st));
	sc.ready_ns = xcalloc((size_t)sc.n, sizeof(*sc.ready_ns));
	sc.on_ns = xcalloc((size_t)sc.n, sizeof(*sc.on_ns));
	sc.ix = xcalloc((size_t)sc.n, sizeof(*sc.ix));
	sc.corr_ttft = sc.corr_itl = 1;
	sc.last_rate = NAN;
	for (i = 0; i < c->min; i++)
		sc.st[i] = R_READY; /* the pool serves its minimum from the start */
	sc.nready = c->min;
	routable(&sc);
	point(&sc, 0);
	sim_on_request(s, on_row, &sc);
	for (;;) {
		int64_t t_ev = sim_next_event_ns(s), t_ready = next_ready(&sc);
		int64_t t_ctl = t_ready < next_dec ? t_ready : next_dec;
		if (t_ev == INT64_MAX)
			break;
		if (t_ev <= t_ctl) {
			if ((rc = sim_step(s, e)) < 0)
				goto out;
			integrate(&sc, sim_now_ns(s));
			if (sc.ndraining)
				drained(&sc, sim_now_ns(s));
			sample(&sc);
			if (rc == 0)
				break;
			continue;
		}
		integrate(&sc, t_ctl);
		ready_due(&sc, t_ctl);
		if (t_ctl == next_dec && r->niv >= AS_MAX_INTERVALS) {
			rc = err_set(e, SS_EUSAGE, "--autoscale-interval-s %g makes more than %d decisions by %.6g s of "
				     "simulated time; take a longer interval", c->interval_s, AS_MAX_INTERVALS,
				     (double)t_ctl * 1e-9);
			goto out;
		}
		if (t_ctl == next_dec) {
			decide(&sc, t_ctl, true);
			next_dec += iv_ns;
		}
		sample(&sc);
	}
	if ((rc = sim_step(s, e)) < 0) /* every request completed or rejected */
		goto out;
	end_ns = sim_now_ns(s);
	if (end_ns > sc.iv_start_ns) /* the last, partial interval: figures only */
		decide(&sc, end_ns, false);
	for (i = 0; i < sc.n; i++)
		if (sc.st[i] != R_OFF)
			turn_off(&sc, i, end_ns);
	arrived = sim_totals(s)->arrived;
	r->duration_s = (double)end_ns * 1e-9;
	r->gpu_hours = sc.gpu_s * c->gpus_per_replica / 3600;
	r->gpu_hours_fixed = r->duration_s * c->max * c->gpus_per_replica / 3600;
	if (end_ns > 0)
		sim_set_provisioned_share(s, sc.gpu_s / (r->duration_s * sc.n));
	r->cost_usd = r->gpu_hours * c->usd_per_gpu_hour;
	r->cost_usd_fixed = r->gpu_hours_fixed * c->usd_per_gpu_hour;
	r->slo_attainment = isnan(c->slo_ttft_ms) && isnan(c->slo_itl_ms) ? NAN
			    : arrived ? (double)r->slo_met / (double)arrived : NAN;
	rc = 0;
out:
	sim_on_request(s, NULL, NULL);
	sim_set_routable(s, NULL, 0);
	free(sc.st);
	free(sc.ready_ns);
	free(sc.on_ns);
	free(sc.ix);
	free(sc.ttft);
	free(sc.itl);
	return rc;
}

int autoscale_prepare(struct autoscale_cfg *c, const struct scenario *sc, const struct scenario_state *st,
		      double storage_gb_s, const char *prices_path, struct catalog *cat, struct err *e)
{
	struct prices pr;
	char path[1200];
	int rc;

	c->gpus_per_replica = scenario_gpus_per_replica(sc);
	c->load_s = st->mp.weight_bytes * c->gpus_per_replica / (storage_gb_s * 1e9);
	c->cost = &st->cost;
	c->max_num_batched_tokens = st->sc.max_num_batched_tokens;
	c->max_num_seqs = st->sc.max_num_seqs;
	c->kv_tokens = st->sc.total_kv_blocks * st->sc.block_size;
	snprintf(path, sizeof(path), "%s/prices.json", cat->data_dir);
	if ((rc = prices_load(prices_path ? prices_path : path, &pr, e)) < 0)
		return rc;
	if ((rc = catalog_load_gpus(cat, e)) == 0)
		rc = prices_find(&pr, &cat->gpus, sc->gpu->id, &c->usd_per_gpu_hour, e);
	prices_release(&pr);
	return rc;
}

void autoscale_result_release(struct autoscale_result *r)
{
	free(r->pts);
	free(r->iv);
	memset(r, 0, sizeof(*r));
}
