/* infperf.c - inference-perf result folders (see measured.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "readers/measured.h"
#include "workload/workload.h"
#include "base/yaml.h"

static int stat_of(const struct json *lat, const char *metric, const char *ctx, double *mean,
		   double *p90, struct err *e)
{
	const struct json *m = json_get(lat, metric);
	int rc;

	if (!m)
		return err_set(e, SS_EDATA, "%s: missing 'successes.latency.%s'", ctx, metric);
	if ((rc = json_req_num(m, "mean", ctx, mean, e)) < 0)
		return rc;
	if (p90 && (rc = json_req_num(m, "p90", ctx, p90, e)) < 0)
		return rc;
	return 0;
}

int infperf_read(const char *dir, struct wl_spec *wl, struct measured_stage *st, size_t *nst,
		 struct err *e)
{
	char path[1200];
	struct json *cfg = NULL, *m = NULL;
	const struct json *data, *sp, *load, *stages, *s;
	const char *type = NULL;
	int64_t groups, prompts, sys, q, out;
	size_t i = 0;
	int rc;

	wl_spec_defaults(wl);
	*nst = 0;
	snprintf(path, sizeof(path), "%s/results/config.yaml", dir);
	if ((rc = yaml_parse_file(path, &cfg, e)) < 0)
		return rc;
	data = json_get(cfg, "data");
	sp = json_get(data, "shared_prefix");
	load = json_get(cfg, "load");
	stages = json_get(load, "stages");
	if (!sp || !stages || json_type_of(stages) != JSON_ARRAY || json_size(stages) == 0 ||
	    json_size(stages) > WL_MAX_STAGES) {
		rc = err_set(e, SS_EDATA, "%s: expected data.shared_prefix and load.stages (1..%d)", path,
			     WL_MAX_STAGES);
		goto out;
	}
	if ((rc = json_req_int(sp, "num_groups", path, 1, 1 << 20, &groups, e)) < 0 ||
	    (rc = json_req_int(sp, "num_prompts_per_group", path, 1, 1 << 20, &prompts, e)) < 0 ||
	    (rc = json_req_int(sp, "system_prompt_len", path, 0, 1 << 24, &sys, e)) < 0 ||
	    (rc = json_req_int(sp, "question_len", path, 1, 1 << 24, &q, e)) < 0 ||
	    (rc = json_req_int(sp, "output_len", path, 1, 1 << 24, &out, e)) < 0 ||
	    (rc = json_req_str(load, "type", path, &type, e)) < 0)
		goto out;
	wl->sp_groups = groups;
	wl->sp_prompts = prompts;
	wl->sp_system = sys;
	wl->sp_question = q;
	wl->sp_output = out;
	wl->num_requests = 0;
	wl->process = strcmp(type, "poisson") == 0 ? WL_POISSON_COUNT : WL_UNIFORM_COUNT;
	snprintf(wl->source, sizeof(wl->source), "%s", dir);
	for (s = json_first(stages); s; s = json_next(s), i++) {
		double rate, dur;
		if ((rc = json_req_num(s, "rate", path, &rate, e)) < 0 ||
		    (rc = json_req_num(s, "duration", path, &dur, e)) < 0)
			goto out;
		if (!(rate > 0) || !(dur > 0)) {
			rc = err_set(e, SS_EDATA, "%s: load.stages[%zu]: rate and duration must be > 0", path, i);
			goto out;
		}
		wl->stages[i].rate = rate;
		wl->stages[i].duration_s = dur;
	}
	wl->nstages = i;
	for (i = 0; i < wl->nstages; i++) {
		struct measured_stage *ms = &st[i];
		const struct json *succ, *lat, *ls;
		double ttft, ttft90, e2e, e2e90, itl = NAN, cnt;
		snprintf(path, sizeof(path), "%s/results/stage_%zu_lifecycle_metrics.json", dir, i);
		if ((rc = json_parse_file(path, &m, e)) < 0)
			goto out;
		succ = json_get(m, "successes");
		lat = json_get(succ, "latency");
		ls = json_get(m, "load_summary");
		(void)ls;
		if (!lat) {
			rc = err_set(e, SS_EDATA, "%s: missing 'successes.latency'", path);
			goto out;
		}
		if ((rc = json_req_num(succ, "count", path, &cnt, e)) < 0 ||
		    (rc = stat_of(lat, "time_to_first_token", path, &ttft, &ttft90, e)) < 0 ||
		    (rc = stat_of(lat, "request_latency", path, &e2e, &e2e90, e)) < 0)
			goto out;
		stat_of(lat, "inter_token_latency", path, &itl, NULL, e);
		memset(ms, 0, sizeof(*ms));
		ms->index = (int)i;
		ms->rate = wl->stages[i].rate;
		ms->duration_s = wl->stages[i].duration_s;
		ms->completed = (int64_t)cnt;
		ms->v[EM_TTFT_MEAN] = ttft * 1e3;
		ms->v[EM_TTFT_P90] = ttft90 * 1e3;
		ms->v[EM_E2E_MEAN] = e2e * 1e3;
		ms->v[EM_E2E_P90] = e2e90 * 1e3;
		ms->v[EM_ITL_MEAN] = (e2e - ttft) * 1e3 / (double)(out > 1 ? out - 1 : 1);
		ms->v[EM_THROUGHPUT] = cnt / ms->duration_s;
		ms->itl_reported_ms = itl * 1e3;
		json_free(m);
		m = NULL;
	}
	*nst = wl->nstages;
	rc = 0;
out:
	json_free(m);
	json_free(cfg);
	return rc;
}
