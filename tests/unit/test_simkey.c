/* test_simkey.c - the same simulation once (eval/simkey.h): which rows
 * share a key, the outcomes kept by key, and a row taken from another
 * run's outcome against the row of its own run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "eval/simkey.h"

/* A closed experiment of 4 clients, 40 requests of 300 -> 40 tokens, on
 * Llama-3.1-8B (m) on one H100 (g), named name with measured means. */
static void closed(struct experiment *x, const char *name, double ttft_ms)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->name, sizeof(x->name), "%s", name);
	snprintf(x->source, sizeof(x->source), "%s.csv", name);
	snprintf(x->model, sizeof(x->model), "llama-3.1-8b");
	snprintf(x->gpu, sizeof(x->gpu), "h100");
	snprintf(x->engine, sizeof(x->engine), "vllm");
	x->kind = EXP_CLOSED;
	x->tp = x->pp = x->dp = x->ep = 1;
	x->dtype = DT_BF16;
	experiment_default_knobs(&x->k, 256, 4096);
	fixture_wl(&x->wl, WL_CONCURRENCY, 0, 40, 7);
	snprintf(x->wl.source, sizeof(x->wl.source), "%s", name);
	x->wl.concurrency = 4;
	x->wl.prompt.kind = x->wl.output.kind = WL_FIXED;
	x->wl.prompt.a = 300;
	x->wl.output.a = 40;
	x->nstages = 1;
	for (int k = 0; k < EM__COUNT; k++)
		x->stages[0].v[k] = NAN;
	x->stages[0].v[EM_TTFT_MEAN] = ttft_ms;
}

static bool key_of(const struct experiment *x, const struct model_cfg *m, const struct gpu_spec *g,
		   struct eval_simkey *k)
{
	struct eval_job j;

	memset(&j, 0, sizeof(j));
	j.x = x;
	j.m = m;
	j.g = g;
	return eval_simkey_of(&j, k);
}

static bool same(const struct eval_simkey *a, const struct eval_simkey *b)
{
	return a->h[0] == b->h[0] && a->h[1] == b->h[1];
}

int main(void)
{
	static struct model_registry reg;
	static struct gpu_db db;
	char dir[1024];
	struct model_cfg *m = calloc(1, sizeof(*m));
	struct experiment *x = calloc(1, sizeof(*x)), *y = calloc(1, sizeof(*y));
	const struct gpu_spec *g;
	struct eval_simkey kx, ky;
	struct eval_simcache c;
	struct eval_outcome oc, oc2;
	struct eval_row rx[2], ry[2], rz[2];
	struct eval_opts o;
	struct err e;
	size_t nx = 0, ny = 0, nz = 0, i;
	bool kept;
	char r1[] = "round-robin", r2[] = "round-robin";

	if (fixture_load(dir, sizeof(dir), &reg, &db) < 0)
		return 1;
	if (!m || !x || !y || registry_load_model(&reg, "llama-3.1-8b", m, &e) < 0 || gpu_find(&db, "h100", &g, &e) < 0) {
		printf("# set-up: %s\n", e.msg);
		return 1;
	}

	/* keys: what only the rows read is not in them */
	closed(x, "run_a_1", 30.0);
	closed(y, "run_b_2", 31.5);
	snprintf(y->warning, sizeof(y->warning), "a side file was missing");
	CHECK(key_of(x, m, g, &kx) && key_of(y, m, g, &ky) && same(&kx, &ky),
	      "two rows of one simulation (names, sources, measurements apart) share a key");
	y->wl.seed++;
	CHECK(key_of(y, m, g, &ky) && !same(&kx, &ky), "another seed: another key");
	closed(y, "run_b_2", 31.5);
	snprintf(y->engine_version, sizeof(y->engine_version), "0.11.0");
	CHECK(key_of(y, m, g, &ky) && !same(&kx, &ky), "another engine version: another key");
	closed(y, "run_b_2", 31.5);
	y->k.max_num_seqs = 8;
	CHECK(key_of(y, m, g, &ky) && !same(&kx, &ky), "another limit: another key");
	closed(y, "run_b_2", 31.5);
	x->k.router = r1;
	y->k.router = r2;
	CHECK(key_of(x, m, g, &kx) && key_of(y, m, g, &ky) && same(&kx, &ky), "a knob's string by its content");
	r2[0] = 'R';
	CHECK(key_of(y, m, g, &ky) && !same(&kx, &ky), "another string: another key");
	x->k.router = y->k.router = NULL;
	closed(y, "run_b_2", 31.5);
	y->warmup_requests = 4;
	CHECK(!key_of(y, m, g, &ky), "a warm-up (per-request means): no key");
	y->warmup_requests = 0;
	y->kind = EXP_STAGES;
	CHECK(!key_of(y, m, g, &ky), "a staged experiment: no key");

	/* the cache */
	eval_simcache_init(&c);
	memset(&oc, 0, sizeof(oc));
	CHECK(eval_simcache_find(&c, &kx) == NULL, "an empty cache finds nothing");
	for (i = 0; i < 1000; i++) {
		struct eval_simkey k = {{i * 0x9e3779b97f4a7c15ULL + 1, i}};
		oc.max_model_len = (int64_t)i;
		eval_simcache_add(&c, &k, &oc);
	}
	for (i = 0; i < 1000; i++) {
		struct eval_simkey k = {{i * 0x9e3779b97f4a7c15ULL + 1, i}};
		const struct eval_outcome *f = eval_simcache_find(&c, &k);
		if (!f || f->max_model_len != (int64_t)i)
			break;
	}
	CHECK(i == 1000 && c.n == 1000, "1,000 outcomes kept and found (%zu)", i);
	{
		struct eval_simkey k = {{1, 5}};
		CHECK(eval_simcache_find(&c, &k) == NULL, "a key sharing one hash is another key");
	}
	eval_simcache_release(&c);

	/* a row from another run's outcome is the row of its own run */
	memset(&o, 0, sizeof(o));
	cost_default_overheads(&o.ov);
	closed(x, "run_a_1", 30.0);
	closed(y, "run_b_2", 31.5);
	CHECK(eval_experiment_keep(x, m, g, &o, dir, rx, 2, &nx, &e, &oc, &kept) == 0 && kept && nx == 1,
	      "the first run keeps its outcome");
	if (nx == 0)
		printf("# %s\n", e.msg);
	CHECK(eval_experiment(y, m, g, &o, dir, ry, 2, &ny, &e) == 0 && ny == 1, "the second row's own run");
	eval_experiment_from(y, m, g, &o, &oc, rz, 2, &nz);
	CHECK(nz == 1 && memcmp(&ry[0], &rz[0], sizeof(ry[0])) == 0,
	      "its row from the first run's outcome: the same bytes (TTFT %.6g ms, APE %.6g)", rz[0].pred[EM_TTFT_MEAN],
	      rz[0].ape[EM_TTFT_MEAN]);
	CHECK(strcmp(rz[0].experiment, "run_b_2") == 0 && rz[0].meas[EM_TTFT_MEAN] == 31.5 &&
		      rz[0].pred[EM_TTFT_MEAN] == rx[0].pred[EM_TTFT_MEAN] && !(rz[0].ape[EM_TTFT_MEAN] == rx[0].ape[EM_TTFT_MEAN]),
	      "its name and measurements, the first run's prediction");
	ny = 0;
	CHECK(eval_experiment_keep(y, m, g, &o, dir, ry, 2, &ny, &e, &oc2, &kept) == 0 && kept &&
		      oc2.p.completed == oc.p.completed && oc2.p.ttft_ms.mean == oc.p.ttft_ms.mean &&
		      oc2.p.e2e_ms.p90 == oc.p.e2e_ms.p90 && oc2.t.completed == oc.t.completed &&
		      oc2.t.steps == oc.t.steps && oc2.max_model_len == oc.max_model_len,
	      "the same outcome kept by either run (%llu completed in %llu steps)", (unsigned long long)oc.t.completed,
	      (unsigned long long)oc.t.steps);

	free(m);
	free(x);
	free(y);
	return check_done();
}
