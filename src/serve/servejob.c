/* servejob.c - the deployment `servesim serve` serves (servejob.h). */
#include "serve/servejob.h"

#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "sim/sim.h"

int serve_job_prepare(struct scenflags *sf, struct serve_cfg *cfg, struct serve_job *j, struct err *e)
{
	const struct model_entry *me;
	int rc;

	memset(j, 0, sizeof(*j));
	catalog_init(&j->x.env);
	wl_spec_defaults(&j->wl);
	if ((rc = scenflags_build(sf, &j->wl, &j->x, &j->sc, e)) < 0 ||
	    (rc = scenario_start(&j->sc, j->x.env.data_dir, sf->allow_invalid, j->x.notes, sizeof(j->x.notes), &j->st,
				 e)) < 0)
		return rc;
	j->prepared = true;
	me = registry_find(&j->x.env.reg, j->x.model->id);
	if (!cfg->model_name)
		cfg->model_name = me && me->hf[0] ? me->hf : j->x.model->id;
	snprintf(j->what, sizeof(j->what), "%s on %s (TP %d PP %d DP %d), engine %s, %.4g x real time",
		 cfg->model_name, j->x.gpu->id, j->sc.par.tp, j->sc.par.pp, j->sc.par.dp, j->sc.engine->name,
		 cfg->speed);
	return 0;
}

int serve_job_run(struct serve_job *j, const char *requests_out, const char *config, struct serve_cfg *cfg,
		  struct err *e)
{
	struct afile af;
	int rc;

	cfg->requests_out = NULL;
	if (requests_out) {
		if ((rc = afile_check(requests_out, &config, 1, e)) < 0 || (rc = afile_open(&af, requests_out, e)) < 0)
			return rc;
		sim_requests_csv_header(af.f, false, false);
		cfg->requests_out = af.f;
	}
	rc = serve_run(&j->st, &j->wl, cfg, e);
	if (requests_out) {
		if (rc == 0)
			rc = afile_commit(&af, e);
		else
			afile_abort(&af);
	}
	return rc;
}

void serve_job_release(struct serve_job *j)
{
	if (j->prepared)
		scenario_release(&j->st);
	wl_spec_release(&j->wl);
	scenflags_ctx_release(&j->x);
}
