/* sweep.c - simulate one point of a sweep (its row is written by
 * report/sweepreport.c). */
#include "plan/sweep.h"

#include <math.h>
#include <string.h>

#include "report/out.h"

int sweep_simulate(const struct scenario_state *st, const struct wl_spec *wl, struct sweep_result *r,
		   struct err *e)
{
	struct sim_cfg sc = st->sc;
	struct sim *s = NULL;
	const struct sim_totals *t;
	struct out_status os;
	size_t k;
	int rc;

	memset(r, 0, sizeof(*r));
	sc.requests_out = NULL;
	sc.step_log = NULL;
	if ((rc = sim_new(&sc, &st->cost, wl, &s, e)) < 0 || (rc = sim_run(s, e)) < 0)
		goto out;
	sim_summary(s, -1, &r->m);
	t = sim_totals(s);
	r->arrived = t->arrived;
	r->completed = t->completed;
	for (k = 0; k < REJ__COUNT; k++)
		r->rejected += t->rejected[k];
	r->preemptions = t->preemptions;
	r->duration_s = (double)t->duration_ns * 1e-9;
	/* the status `run` prints (report/summary.c): one sustainability test */
	if ((rc = out_status_sim(wl, s, &os, e)) < 0)
		goto out;
	r->offered_rps = wl->process == WL_POISSON || wl->process == WL_CONSTANT || wl->process == WL_GAMMA
				 ? wl->rate : NAN;
	r->served_rps = os.served_rps;
	out_status_line(&os, r->status, sizeof(r->status));
out:
	sim_free(s);
	return rc;
}
