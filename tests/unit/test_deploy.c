/* test_deploy.c - the deployment field table (deploy/fields.h): a knob added
 * through the table alone (a test-only row after the shipped ones) is a
 * flag in both spellings with its range and --help line, a key of the
 * JSON the resolved configuration writes, a key of experiment.json's engine
 * block (read and written), and a sweep axis; the shipped
 * rows are consistent (names, spellings, defaults in range). */
#define _GNU_SOURCE
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "deploy/fields.h"
#include "deploy/catalog.h"
#include "deploy/fields.h"
#include "plan/grid.h"
#include "plan/sweep.h"
#include "sim/sim.h"

/* The knobs a deployment has plus the test's own, after them. */
struct knobs_plus {
	struct deploy_knobs k;
	int64_t draft_window;
};

static struct deploy_field rows[DEPLOY__COUNT + 1];
static struct deploy_table table;

/* The shipped rows and one more: the only place the test knob is named. */
static void table_with_test_row(void)
{
	memcpy(rows, deploy_table.row, sizeof(struct deploy_field) * DEPLOY__COUNT);
	rows[DEPLOY__COUNT] = (struct deploy_field){"draft_window", {"--draft-window", "--speculative-window"},
		"draft_window", DEPLOY_INT, 1, 64, false, 4, NULL, "N", "draft tokens a test engine looks ahead",
		8, offsetof(struct knobs_plus, draft_window), DEPLOY_G_ENGINE, NULL, false, NULL, NULL, false};
	table = (struct deploy_table){rows, DEPLOY__COUNT + 1};
}

/* argv through getopt with the table's options only; rc of the last
 * table flag (or of an unknown one: -1). */
static int parse(int argc, char **argv, struct knobs_plus *kp, struct err *e)
{
	struct option lo[320] = {{"help", no_argument, 0, 'h'}};
	size_t n = 1;
	int c, rc = 0;

	deploy_options(&table, lo, &n, 320);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if ((rc = deploy_option(&table, c, optarg, kp, e)) <= 0)
			return rc == 0 ? -1 : rc;
	}
	return rc;
}

static void test_flag(void)
{
	struct knobs_plus kp;
	struct err e;
	char a0[] = "x", a1[] = "--speculative-window", a2[] = "12", a3[] = "--page-size", a4[] = "32",
	     a5[] = "--no-prefix-caching", b1[] = "--draft-window", b2[] = "65";
	char *ok[] = {a0, a1, a2, a3, a4, a5, NULL}, *bad[] = {a0, b1, b2, NULL};
	int rc;

	deploy_defaults(&table, &kp);
	CHECK(kp.draft_window == 4 && kp.k.block_size == 16 && kp.k.gpu_memory_utilization == 0.9 &&
		      kp.k.prefix_caching && kp.k.given == 0,
	      "defaults from the table: draft_window %lld, block_size %lld", (long long)kp.draft_window,
	      (long long)kp.k.block_size);
	err_clear(&e);
	rc = parse(6, ok, &kp, &e);
	CHECK(rc == 1 && kp.draft_window == 12 && deploy_given(&kp.k, DEPLOY__COUNT) && kp.k.block_size == 32 &&
		      !kp.k.prefix_caching && !deploy_given(&kp.k, DEPLOY_MAX_NUM_SEQS),
	      "the test knob as a flag in its second spelling, beside SGLang's spellings of shipped knobs (rc %d: %s)",
	      rc, e.msg);
	deploy_defaults(&table, &kp);
	err_clear(&e);
	rc = parse(3, bad, &kp, &e);
	CHECK(rc == -SS_EUSAGE && strcmp(e.msg, "--draft-window must be in [1, 64], got 65") == 0 &&
		      kp.draft_window == 4,
	      "its range from the table, the flag as spelled in the message: %s", e.msg);
}

/* Switches that turn a knob on, and a range with its unit. */
static void test_switch_unit(void)
{
	struct knobs_plus kp;
	struct err e;
	char a0[] = "x", a1[] = "--enable-lora", a2[] = "--kv-offloading-size", a3[] = "2000000";
	char *argv[] = {a0, a1, a2, a3, NULL};
	int rc;

	deploy_defaults(&table, &kp);
	err_clear(&e);
	rc = parse(4, argv, &kp, &e);
	CHECK(rc == -SS_EUSAGE && kp.k.lora && deploy_given(&kp.k, DEPLOY_LORA) &&
		      strcmp(e.msg, "--kv-offloading-size must be in (0, 1048576] GiB, got 2e+06") == 0,
	      "--enable-lora on; the range's unit in the message: %s", e.msg);
	CHECK(kp.k.hicache_ratio == 2 && !deploy_given(&kp.k, DEPLOY_HICACHE_RATIO), "HiCache's ratio defaults to 2");
}

/* A string knob: one of its choices, the choices named when it is not,
 * and overlaid as the numbers are. */
static void test_string(void)
{
	struct knobs_plus kp, resolved;
	struct err e;
	char a0[] = "x", a1[] = "--schedule-policy", a2[] = "lpm", b2[] = "random", c1[] = "--kv-offloading-backend",
	     c2[] = "disk";
	char *ok[] = {a0, a1, a2, NULL}, *bad[] = {a0, a1, b2, NULL}, *bad2[] = {a0, c1, c2, NULL};
	int rc;

	deploy_defaults(&table, &kp);
	deploy_defaults(&table, &resolved);
	CHECK(kp.k.schedule_policy == NULL && kp.k.replicas == 1 && kp.k.num_redundant_experts == -1,
	      "string knobs default to none; replicas 1; a not-given count -1");
	err_clear(&e);
	rc = parse(3, ok, &kp, &e);
	deploy_overlay(&table, &resolved, &kp);
	CHECK(rc == 1 && kp.k.schedule_policy == a2 && deploy_given(&kp.k, DEPLOY_SCHEDULE_POLICY) &&
		      resolved.k.schedule_policy == a2 && deploy_given(&resolved.k, DEPLOY_SCHEDULE_POLICY),
	      "a string flag taken and overlaid (rc %d: %s)", rc, e.msg);
	err_clear(&e);
	rc = parse(3, bad, &kp, &e);
	CHECK(rc == -SS_EUSAGE && strcmp(e.msg, "--schedule-policy must be fcfs or lpm, got 'random'") == 0,
	      "its choices in the message: %s", e.msg);
	err_clear(&e);
	rc = parse(3, bad2, &kp, &e);
	CHECK(rc == -SS_EUSAGE && strcmp(e.msg, "--kv-offloading-backend must be native or lmcache, got 'disk'") == 0,
	      "%s", e.msg);
}

/* replicas and the router are rows too (one home for them, not a copy in
 * struct experiment): the router's name as a flag, with its aliases, and
 * both read from experiment.json's top level, not its engine block; each
 * spelling the row takes names a router (sim's router_kind_of). */
/* experiment.json's text parsed into *o (the one there freed first; the
 * caller frees the last: kp's strings point into it) and read through the
 * table into kp: its top level (top) or its engine block; 0 or the error's
 * status. */
static int exp_read(const char *text, bool top, struct json **o, struct knobs_plus *kp, struct err *e)
{
	int rc;

	json_free(*o);
	*o = NULL;
	err_clear(e);
	rc = json_parse(text, strlen(text), "experiment.json", o, e);
	if (rc == 0)
		rc = top ? deploy_exp_read_top(&table, *o, "experiment.json", kp, e)
			 : deploy_exp_read(&table, *o, "experiment.json: engine", kp, e);
	return rc;
}

static void test_router(void)
{
	static const char text[] = "{\"replicas\": 4, \"router\": \"kv\", \"engine\": {}}";
	static const char bad[] = "{\"router\": \"random\"}";
	const struct deploy_field *f = &deploy_table.row[DEPLOY_ROUTER];
	struct knobs_plus kp;
	struct json *o = NULL;
	struct err e;
	char a0[] = "x", a1[] = "--router", a2[] = "rr", b2[] = "random", name[32];
	char *ok[] = {a0, a1, a2, NULL}, *badv[] = {a0, a1, b2, NULL};
	const char *p, *bar;
	bool all = true;
	int rc;

	deploy_defaults(&table, &kp);
	CHECK(kp.k.router == NULL && router_kind_of(kp.k.router, ROUTER_LEAST_OUTSTANDING) == ROUTER_LEAST_OUTSTANDING,
	      "no router given: the caller's default");
	err_clear(&e);
	rc = parse(3, ok, &kp, &e);
	CHECK(rc == 1 && kp.k.router == a2 && deploy_given(&kp.k, DEPLOY_ROUTER) &&
		      router_kind_of(kp.k.router, ROUTER_LEAST_OUTSTANDING) == ROUTER_ROUND_ROBIN,
	      "--router rr: round-robin (rc %d: %s)", rc, e.msg);
	err_clear(&e);
	rc = parse(3, badv, &kp, &e);
	CHECK(rc == -SS_EUSAGE && strcmp(e.msg, "--router must be round-robin, least-loaded or kv-aware (or rr, lo, "
						 "least-outstanding, kv), got 'random'") == 0,
	      "the choices, then the aliases in the message: %s", e.msg);
	deploy_defaults(&table, &kp);
	rc = exp_read(text, false, &o, &kp, &e);
	CHECK(rc == 0 && kp.k.replicas == 1 && kp.k.router == NULL, "not engine-block keys (rc %d: %s)", rc, e.msg);
	if (rc == 0)
		rc = exp_read(text, true, &o, &kp, &e);
	CHECK(rc == 0 && kp.k.replicas == 4 && deploy_given(&kp.k, DEPLOY_REPLICAS) &&
		      router_kind_of(kp.k.router, ROUTER_ROUND_ROBIN) == ROUTER_KV_AWARE,
	      "replicas 4, router kv from the top level (rc %d: %s)", rc, e.msg);
	rc = exp_read(bad, true, &o, &kp, &e);
	CHECK(rc == -SS_EDATA && strcmp(e.msg, "experiment.json: 'router' must be round-robin, least-loaded or kv-aware "
						 "(or rr, lo, least-outstanding, kv), got 'random'") == 0,
	      "a data error in experiment.json: %s", e.msg);
	for (p = f->choices; p; p = bar ? bar + 1 : NULL) {
		bar = strchr(p, '|');
		snprintf(name, sizeof(name), "%.*s", (int)(bar ? bar - p : (long)strlen(p)), p);
		all = all && strcmp(router_name(router_kind_of(name, ROUTER_KV_AWARE)), name) == 0 &&
		      router_kind_of(name, ROUTER_KV_AWARE) == router_kind_of(name, ROUTER_ROUND_ROBIN);
	}
	for (p = f->aliases; p; p = bar ? bar + 1 : NULL) {
		bar = strchr(p, '|');
		snprintf(name, sizeof(name), "%.*s", (int)(bar ? bar - p : (long)strlen(p)), p);
		all = all && router_kind_of(name, ROUTER_KV_AWARE) == router_kind_of(name, ROUTER_ROUND_ROBIN);
	}
	CHECK(all, "each choice names its router, each alias a router");
	json_free(o);
}

static void test_help(void)
{
	struct sbuf sb;

	sb_init(&sb);
	deploy_help(&table, DEPLOY_G_ENGINE, &sb);
	CHECK(strstr(sb.buf, "\n  --draft-window N | --speculative-window N\n") != NULL,
	      "help: the test knob's line, both spellings");
	CHECK(strstr(sb.buf, "\n                            draft tokens a test engine looks ahead (default 4)\n") != NULL,
	      "help: its doc and default");
	CHECK(strstr(sb.buf, "\n  --block-size N | --page-size N\n") != NULL, "help: a shipped row's line");
	sb_release(&sb);
}

static void test_json(void)
{
	struct knobs_plus kp;
	struct jw w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	deploy_defaults(&table, &kp);
	deploy_set(&table, DEPLOY__COUNT, 9, &kp);
	jw_init(&w, f, false);
	jw_obj(&w, NULL);
	deploy_json(&table, &kp, &w, NULL, NULL);
	jw_end_obj(&w);
	fclose(f);
	CHECK(buf && strstr(buf, "\"draft_window\":9") && strstr(buf, "\"block_size\":16") &&
		      strstr(buf, "\"prefix_caching\":true"),
	      "a JSON key of the resolved configuration: %s", buf ? buf : "");
	free(buf);
}

/* experiment.json's engine block goes through the table (experiment.c
 * calls deploy_exp_read and deploy_exp_json): the test knob is read from
 * its key in its range and written back, beside shipped keys. */
static void test_experiment(void)
{
	static const char text[] = "{\"max_num_batched_tokens\": 4096, \"draft_window\": 12, "
				   "\"enable_prefix_caching\": false}";
	static const char bad[] = "{\"draft_window\": 65}";
	struct knobs_plus kp;
	struct json *o = NULL;
	struct jw w;
	struct err e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	deploy_defaults(&table, &kp);
	rc = exp_read(text, false, &o, &kp, &e);
	CHECK(rc == 0 && kp.draft_window == 12 && deploy_given(&kp.k, DEPLOY__COUNT) &&
		      kp.k.max_num_batched_tokens == 4096 && !kp.k.prefix_caching && kp.k.block_size == 16,
	      "the test knob read from its experiment.json key (rc %d: %s)", rc, e.msg);
	f = open_memstream(&buf, &len);
	jw_init(&w, f, false);
	jw_obj(&w, NULL);
	deploy_exp_json(&table, &kp, &w);
	jw_end_obj(&w);
	fclose(f);
	CHECK(buf && strstr(buf, "\"draft_window\":12") && strstr(buf, "\"max_num_batched_tokens\":4096") &&
		      strstr(buf, "\"enable_prefix_caching\":false") && strstr(buf, "\"block_size\":16") &&
		      !strstr(buf, "\"max_num_seqs\""),
	      "and written back with the shipped keys (0: left to the engine's rule): %s", buf ? buf : "");
	free(buf);
	rc = exp_read(bad, false, &o, &kp, &e);
	CHECK(rc == -SS_EDATA && strcmp(e.msg, "experiment.json: engine: 'draft_window' must be in [1, 64], got 65") == 0,
	      "in the row's range: %s", e.msg);
	json_free(o);
}

static void test_axis(void)
{
	struct knobs_plus kp;
	struct grid g;
	struct err e;
	size_t n = 0;
	int rc;

	grid_init(&g);
	deploy_defaults(&table, &kp);
	err_clear(&e);
	rc = sweep_axis_add(&g, &table, DEPLOY__COUNT, "--draft-window", "2:8:2", &e);
	if (rc == 0)
		rc = sweep_axis_add(&g, &table, DEPLOY_GPU_MEMORY_UTILIZATION, "--gpu-memory-utilization", "0.8,0.9", &e);
	if (rc == 0)
		rc = grid_size(&g, &n, &e);
	CHECK(rc == 0 && n == 8 && strcmp(g.ax[0].name, "draft_window") == 0, "a sweep axis by its name: %zu points (%s)",
	      n, e.msg);
	sweep_point_fields(&g, 5, &table, &kp); /* draft_window 6, utilization 0.9 */
	CHECK(kp.draft_window == 6 && kp.k.gpu_memory_utilization == 0.9 && deploy_given(&kp.k, DEPLOY__COUNT),
	      "a point's values onto the knobs: draft_window %lld, utilization %g", (long long)kp.draft_window,
	      kp.k.gpu_memory_utilization);
	grid_release(&g);
	grid_init(&g);
	err_clear(&e);
	rc = sweep_axis_add(&g, &table, DEPLOY__COUNT, "--draft-window", "32,80", &e);
	CHECK(rc == -SS_EUSAGE && strstr(e.msg, "--draft-window: 80 out of range") != NULL,
	      "an axis keeps the row's range: %s", e.msg);
	err_clear(&e);
	rc = sweep_axis_add(&g, &table, DEPLOY_GPU_MEMORY_UTILIZATION, "--gpu-memory-utilization", "0,0.5", &e);
	CHECK(rc == -SS_EUSAGE && strstr(e.msg, "0 out of range, expected above 0, up to 1") != NULL,
	      "an open bound stays open on an axis: %s", e.msg);
	grid_release(&g);
}

static void test_overlay(void)
{
	struct knobs_plus flags, resolved;

	deploy_defaults(&table, &flags);
	deploy_defaults(&table, &resolved);
	resolved.k.max_num_batched_tokens = 2048; /* an engine rule's value */
	resolved.k.block_size = 1;
	deploy_set(&table, DEPLOY_BLOCK_SIZE, 64, &flags);
	deploy_set(&table, DEPLOY__COUNT, 7, &flags);
	deploy_overlay(&table, &resolved, &flags);
	CHECK(resolved.k.block_size == 64 && resolved.k.max_num_batched_tokens == 2048 && resolved.draft_window == 7,
	      "given knobs over the resolved ones, the rest kept");
}

/* Every shipped row: a name found by deploy_find, "--" spellings not
 * shared with another row, a fixed default in its range. */
static void test_shipped(void)
{
	size_t i, j, s, t;
	bool ok = deploy_table.n == DEPLOY__COUNT && DEPLOY__COUNT < DEPLOY_MAX_FIELDS;

	for (i = 0; i < deploy_table.n; i++) {
		const struct deploy_field *f = &deploy_table.row[i];
		ok = ok && deploy_find(&deploy_table, f->name) == (int)i && f->doc && f->flag[0];
		ok = ok && (f->def_doc || (f->lo_open ? f->def > f->lo : f->def >= f->lo && f->def <= f->hi));
		for (s = 0; s < DEPLOY_SPELLINGS && f->flag[s]; s++) {
			ok = ok && strncmp(f->flag[s], "--", 2) == 0;
			for (j = 0; j < deploy_table.n; j++)
				for (t = 0; t < DEPLOY_SPELLINGS && deploy_table.row[j].flag[t]; t++)
					ok = ok && ((i == j && s == t) || strcmp(f->flag[s], deploy_table.row[j].flag[t]) != 0);
		}
	}
	CHECK(ok, "the shipped rows: %zu, names and spellings unique, defaults in range", deploy_table.n);
	CHECK(deploy_find(&deploy_table, "max_num_seqs") == DEPLOY_MAX_NUM_SEQS && deploy_find(&deploy_table, "nope") < 0,
	      "rows by name");
}

/* A GPU list (roofline's --gpu G[,G2,...]): each name found, in order;
 * none, or more than the caller holds, refused naming the flag. */
static void test_gpu_list(void)
{
	struct catalog c;
	const struct gpu_spec *gs[2];
	size_t n = 9;
	struct err e;

	catalog_init(&c);
	CHECK(catalog_find_gpus(&c, "--gpu", "h100,a100", gs, 2, &n, &e) == 0 && n == 2 &&
		      !strcmp(gs[0]->id, "h100-sxm") && !strcmp(gs[1]->id, "a100-sxm-80gb"),
	      "two GPUs in order (%zu: %s, %s)", n, n > 0 ? gs[0]->id : "", n > 1 ? gs[1]->id : "");
	err_clear(&e);
	CHECK(catalog_find_gpus(&c, "--gpu", "h100,a100,h200", gs, 2, &n, &e) == -SS_EUSAGE &&
		      strstr(e.msg, "--gpu: at most 2 GPUs"),
	      "three for two places: %s", e.msg);
	err_clear(&e);
	CHECK(catalog_find_gpus(&c, "--gpu", ",", gs, 2, &n, &e) == -SS_EUSAGE && n == 0 &&
		      strstr(e.msg, "--gpu: an empty item in ','"),
	      "an empty item: %s", e.msg);
	err_clear(&e);
	CHECK(catalog_find_gpus(&c, "--gpu", "h100,h100-sxm", gs, 2, &n, &e) == -SS_EUSAGE &&
		      strstr(e.msg, "--gpu: h100-sxm given twice ('h100-sxm')"),
	      "one GPU twice: %s", e.msg);
	err_clear(&e);
	CHECK(catalog_find_gpus(&c, "--gpu", "", gs, 2, &n, &e) == -SS_EUSAGE && n == 0 &&
		      strstr(e.msg, "--gpu: give at least one GPU"),
	      "none: %s", e.msg);
	catalog_release(&c);
}

int main(void)
{
	test_gpu_list();
	table_with_test_row();
	test_flag();
	test_switch_unit();
	test_string();
	test_router();
	test_help();
	test_json();
	test_experiment();
	test_axis();
	test_overlay();
	test_shipped();
	return check_done();
}
