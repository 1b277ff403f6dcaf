/* caprun.c - the capacity of one deployment given as flags (caprun.h). */
#include "plan/caprun.h"

#include <string.h>

#include "sim/sim.h"

int cap_job_run(struct scenflags *sf, const char *workload, int64_t nreq, bool seed_given, int64_t seed,
		struct cap_cfg *cc, struct cap_job *j, struct err *e)
{
	int rc;

	memset(j, 0, sizeof(*j));
	catalog_init(&j->x.env);
	wl_spec_defaults(&j->wl);
	if ((rc = catalog_load_workload(&j->x.env, workload, &j->wl, e)) < 0)
		return rc;
	if (nreq)
		j->wl.num_requests = nreq;
	cc->seed = seed_given ? (uint64_t)seed : j->wl.seed;
	if (cc->concurrency && j->wl.num_requests == 0)
		j->wl.num_requests = 1000;
	if ((rc = scenflags_build(sf, &j->wl, &j->x, &j->sc, e)) < 0)
		return rc;
	if ((rc = scenario_start(&j->sc, j->x.env.data_dir, sf->allow_invalid, j->x.notes, sizeof(j->x.notes), &j->st,
				 e)) < 0)
		return rc;
	j->prepared = true;
	/* the simulation scenario_prepare built is `run`'s; every probe makes
	 * its own, and this one (every rank's pools and queues) would stay
	 * resident beside theirs (as search.c frees it) */
	sim_free(j->st.sim);
	j->st.sim = NULL;
	if ((rc = cap_search(&j->st, &j->wl, cc, &j->res, e)) < 0)
		return rc;
	j->have_res = true;
	if ((j->pt = cap_answer_point(cc, &j->res)))
		return acc_confidence_at(j->x.env.data_dir, &j->sc, j->pt->running_per_rank, j->pt->queue_share, false,
					 &j->conf, e);
	return 0;
}

void cap_job_release(struct cap_job *j)
{
	if (j->have_res)
		cap_result_release(&j->res);
	if (j->prepared)
		scenario_release(&j->st);
	wl_spec_release(&j->wl);
	scenflags_ctx_release(&j->x);
}
