/* gsweep.c - GuideLLM's sweep profile (synchronous, throughput, then
 * constant rates between the two) as simulations of one scenario. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/gsweep.h"
#include "sim/sim.h"

const char *gsweep_kind_name(enum gsweep_kind k)
{
	switch (k) {
	case GSWEEP_SYNC: return "synchronous";
	case GSWEEP_THROUGHPUT: return "throughput";
	case GSWEEP_CONSTANT: return "constant";
	}
	return "?";
}

/* One benchmark: simulate, summarise, judge. */
static int bench(const struct scenario_state *st, struct gsweep_point *p, struct err *e)
{
	struct sim_cfg sc = st->sc;
	struct sim *s = NULL;
	int rc, k;

	sc.requests_out = NULL;
	sc.step_log = NULL;
	if ((rc = sim_new(&sc, &st->cost, &p->wl, &s, e)) < 0 || (rc = sim_run(s, e)) < 0)
		goto out;
	sim_summary(s, -1, &p->m);
	p->arrived = (size_t)sim_totals(s)->arrived;
	p->rejected = 0;
	for (k = 0; k < REJ__COUNT; k++)
		p->rejected += (size_t)sim_totals(s)->rejected[k];
	rc = run_status_sim(&p->wl, s, &p->status, e);
out:
	sim_free(s);
	return rc;
}

int gsweep_run(const struct scenario_state *st, const struct wl_spec *wl, int k,
	       struct gsweep_point *out, struct err *e)
{
	double lo, hi;
	int i, rc;

	if (k < 3 || k > GSWEEP_MAX)
		return err_set(e, SS_EUSAGE, "--rate-type sweep: --rate is the number of benchmarks, 3 to %d, got %d",
			       GSWEEP_MAX, k);
	if (wl->num_requests <= 0)
		return err_set(e, SS_EUSAGE, "--rate-type sweep runs every benchmark on num_requests requests: give --num-requests N");
	for (i = 0; i < k; i++) {
		struct gsweep_point *p = &out[i];
		memset(p, 0, sizeof(*p));
		p->wl = *wl;
		p->wl.nstages = 0;
		p->wl.duration_s = 0;
		if (i == 0) { /* GuideLLM synchronous: one request at a time */
			p->kind = GSWEEP_SYNC;
			p->wl.process = WL_CONCURRENCY;
			p->wl.concurrency = 1;
		} else if (i == 1) { /* GuideLLM throughput: every request at once */
			p->kind = GSWEEP_THROUGHPUT;
			p->wl.process = WL_CONCURRENCY;
			p->wl.concurrency = wl->num_requests;
		} else { /* GuideLLM's constant rates strictly between the two */
			lo = out[0].m.throughput_rps;
			hi = out[1].m.throughput_rps;
			if (!(lo > 0) || !(hi > 0))
				return err_set(e, SS_ERUNTIME,
					       "--rate-type sweep: the %s benchmark completed no request, no rates to sweep",
					       lo > 0 ? "throughput" : "synchronous");
			p->kind = GSWEEP_CONSTANT;
			p->wl.process = WL_CONSTANT;
			p->wl.rate = lo + (hi - lo) * (double)(i - 1) / (double)(k - 1);
		}
		if ((rc = bench(st, p, e)) < 0)
			return rc;
	}
	return 0;
}
