/* fixture.c - the unit tests' shared set-up (fixture.h). */
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "base/err.h"
#include "base/paths.h"
#include "engine/registry.h"

int fixture_load(char *datadir, size_t n, struct model_registry *reg, struct gpu_db *db)
{
	char path[1200];
	struct err e;

	paths_data_dir(datadir, n);
	snprintf(path, sizeof(path), "%s/models", datadir);
	if (reg && registry_load(reg, path, &e) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/gpus.json", datadir);
	if (db && gpu_db_load(db, path, &e) < 0)
		goto fail;
	return 0;
fail:
	printf("# %s\n", e.msg);
	return -1;
}

void fixture_cost_cfg(struct cost_cfg *cc, int64_t max_tokens, int64_t max_seqs, int64_t graph_max)
{
	memset(cc, 0, sizeof(*cc));
	cc->wdt = cc->kvdt = DT_BF16;
	cost_default_overheads(&cc->ov);
	cc->engine = engine_default()->cost;
	cc->max_tokens = max_tokens;
	cc->max_seqs = max_seqs;
	cc->graph_max = graph_max;
}

void fixture_wl(struct wl_spec *w, enum wl_process process, double rate, int64_t n, uint64_t seed)
{
	wl_spec_defaults(w);
	snprintf(w->source, sizeof(w->source), "test");
	w->seed = seed;
	w->process = process;
	w->rate = rate;
	w->num_requests = n;
}

void fixture_curve(struct wl_spec *w, size_t npts, const double *t, const double *rate)
{
	size_t i;

	wl_spec_defaults(w);
	w->num_requests = 0;
	w->ncurve = npts;
	for (i = 0; i < npts; i++) {
		w->curve_t[i] = t[i];
		w->curve_rate[i] = rate[i];
	}
}

void fixture_sp(struct wl_spec *w, int64_t groups, int64_t prompts, int64_t system, int64_t question,
		int64_t output)
{
	w->sp_groups = groups;
	w->sp_prompts = prompts;
	w->sp_system = system;
	w->sp_question = question;
	w->sp_output = output;
}

void fixture_sp_spec(struct wl_spec *w, enum wl_process process, double rate, int64_t n, int64_t groups,
		     int64_t prompts, int64_t system, int64_t question, int64_t output)
{
	wl_spec_defaults(w);
	w->process = process;
	w->rate = rate;
	w->num_requests = n;
	fixture_sp(w, groups, prompts, system, question, output);
}
