/* runjob.c - what `servesim run` simulates, built in one call (runjob.h). */
#define _GNU_SOURCE
#include "plan/runjob.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/sim.h"

/* Whether this process may run on a second CPU (its affinity mask, as
 * `taskset` sets it; else the CPUs online): with one, a producer thread
 * only takes turns with the simulation and costs its switches. */
static bool second_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set) >= 2;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

int run_job_prepare(const struct run_spec *s, struct run_job *j, struct err *e)
{
	const struct scenflags *sf = s->sf;
	int rc;

	memset(j, 0, sizeof(*j));
	catalog_init(&j->x.env);
	wl_spec_defaults(&j->wl);
	if ((rc = wl_source_build(s->wf, &j->x.env, &j->wl, j->origin, sizeof(j->origin), e)) < 0)
		return rc;
	{
		const char *in[5] = {s->wf->workload, sf->config, sf->tier2, j->wl.trace[0] ? j->wl.trace : NULL,
				     sf->calibration};
		const struct afile_out outs[3] = {{"--requests-out", s->requests_out, NULL},
						  {"--step-log", s->step_log, NULL}, {"--svg", s->svg, NULL}};
		if ((rc = afile_check_outputs(outs, 3, in, 5, 0, e)) < 0)
			return rc;
	}
	if ((rc = scenflags_build(s->sf, &j->wl, &j->x, &j->sc, e)) < 0)
		return rc;
	if (s->autoscale_max)
		j->sc.k.replicas = s->autoscale_max;
	j->sc.check_invariants = s->check_invariants;
	j->sc.exact_percentiles = s->exact_percentiles;
	j->sc.no_segments = s->no_segments;
	/* one simulation in the process: its open-loop arrivals drawn ahead
	 * on the second core (sim_cfg.arrival_thread), where it may use one */
	j->sc.arrival_thread = !s->no_arrival_thread && second_cpu();
	if ((rc = scenflags_run_build(s->ex, sf->allow_invalid, &j->x, &j->sc, &j->draft, e)) < 0)
		return rc;
	if (s->requests_out) {
		if ((rc = afile_open(&j->requests, s->requests_out, e)) < 0)
			return rc;
		j->requests_open = true;
		sim_requests_csv_header(j->requests.f, s->ex->spec_k > 0, s->ex->pd_prefill > 0);
		j->sc.requests_out = j->requests.f;
	}
	if (s->step_log) {
		if ((rc = afile_open(&j->steps, s->step_log, e)) < 0)
			return rc;
		j->steps_open = true;
		j->sc.step_log = j->steps.f;
	}
	if ((rc = scenario_start(&j->sc, j->x.env.data_dir, sf->allow_invalid, j->x.notes, sizeof(j->x.notes), &j->st,
				 e)) < 0)
		return rc;
	j->prepared = true;
	return 0;
}

int run_job_simulate(struct run_job *j, void (*tick)(void *ctx, const struct sim *s), void *ctx, struct err *e)
{
	return sim_run_ticking(j->st.sim, tick, ctx, e);
}

int run_job_commit(struct run_job *j, struct err *e)
{
	struct afile *outs[2];
	size_t n = 0;

	if (j->requests_open)
		outs[n++] = &j->requests;
	if (j->steps_open)
		outs[n++] = &j->steps;
	j->requests_open = j->steps_open = false;
	return afile_commit_all(outs, n, e);
}

void run_job_release(struct run_job *j)
{
	if (j->requests_open)
		afile_abort(&j->requests);
	if (j->prepared)
		scenario_release(&j->st);
	if (j->steps_open)
		afile_abort(&j->steps);
	wl_spec_release(&j->wl);
	free(j->draft);
	scenflags_ctx_release(&j->x);
}
