/* models.c - `servesim models` and `servesim gpus`: what data/ knows. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "base/alloc.h"
#include "base/json.h"
#include "hw/mfu.h"
#include "hw/power.h"

static const char models_usage[] =
	"usage: servesim models [--format text|json]\n"
	"\n"
	"Lists the models in data/models/index.json: id, HF name, aliases, family,\n"
	"layers, parameters (total / active per token), and whether servesim supports\n"
	"the architecture.  Any config.json can also be used with --config PATH.\n";

static const char gpus_usage[] =
	"usage: servesim gpus [--format text|json]\n"
	"\n"
	"Lists the GPUs in data/gpus.json: id, aliases, dense peak TFLOP/s per dtype,\n"
	"HBM capacity (GB) and bandwidth (TB/s), default bandwidth efficiency,\n"
	"interconnect GB/s, SM count, board power and idle power (W; - where no\n"
	"figure is published: such GPUs report no energy, docs/energy.md) and the\n"
	"measured kernel tables that price it: the data/mfu/ folder (a lender's, named\n"
	"after it, where the GPU borrows another's; + the GPU's own measurements), -\n"
	"where none (defaults); JSON lists each folder's collections (docs/hardware.md).\n"
	"Sources: data/PROVENANCE.md.\n";

static int parse_list(int argc, char **argv, const char *cmd, const char *usage,
		      enum out_format *fmt, struct err *e)
{
	static const struct option lo[] = {
		{"format", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int c, rc;

	*fmt = FMT_TEXT;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 1;
		}
		if (c != 'f')
			return cli_bad_option(cmd, argv[optind - 1], e);
		if ((rc = cli_format(optarg, false, fmt, e)) < 0)
			return rc;
	}
	if (optind < argc)
		return err_set(e, SS_EUSAGE, "%s: unexpected argument '%s'", cmd, argv[optind]);
	return 0;
}

int cmd_models(int argc, char **argv, struct err *e)
{
	struct catalog env;
	enum out_format fmt;
	struct jw w;
	size_t i;
	int rc = parse_list(argc, argv, "models", models_usage, &fmt, e), k;
	struct model_cfg *m;

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	catalog_init(&env);
	if ((rc = catalog_load_registry(&env, e)) < 0) {
		catalog_release(&env);
		return rc;
	}
	m = xcalloc(1, sizeof(*m));
	if (fmt == FMT_JSON) {
		jw_init(&w, stdout, true);
		jw_arr(&w, NULL);
	} else {
		printf("%-26s %-13s %6s %10s %10s  %-42s %s\n", "id", "family", "layers", "total",
		       "active", "hf", "aliases");
	}
	for (i = 0; i < env.reg.n; i++) {
		const struct model_entry *me = &env.reg.entries[i];
		struct err le;
		struct param_counts pc;
		char path[1400], t[32], a[32], al[200] = "";
		size_t off = 0;
		int ok;

		err_clear(&le);
		snprintf(path, sizeof(path), "%s/%s", env.reg.dir, me->file);
		ok = model_load_file(path, me->id, m, &le) == 0;
		if (ok)
			model_params(m, &pc);
		for (k = 0; k < me->naliases; k++)
			off += (size_t)snprintf(al + off, sizeof(al) - off, "%s%s", k ? "," : "",
						me->aliases[k]);
		if (fmt == FMT_JSON) {
			jw_obj(&w, NULL);
			jw_str(&w, "id", me->id);
			jw_str(&w, "hf", me->hf);
			jw_str(&w, "file", me->file);
			jw_arr(&w, "aliases");
			for (k = 0; k < me->naliases; k++)
				jw_str(&w, NULL, me->aliases[k]);
			jw_end_arr(&w);
			jw_bool(&w, "supported", ok);
			if (ok) {
				jw_str(&w, "model_type", m->model_type);
				jw_int(&w, "layers", m->layers);
				jw_num(&w, "params_total", pc.total);
				jw_num(&w, "params_active", pc.active);
			} else {
				jw_str(&w, "error", le.msg);
			}
			jw_end_obj(&w);
		} else if (ok) {
			fmt_count(t, sizeof(t), pc.total);
			fmt_count(a, sizeof(a), pc.active);
			printf("%-26s %-13s %6lld %10s %10s  %-42s %s\n", me->id, m->model_type,
			       (long long)m->layers, t, a, me->hf, al);
		} else {
			printf("%-26s %-13s %6s %10s %10s  %-42s %s\n", me->id, "unsupported", "-", "-",
			       "-", me->hf, al);
		}
	}
	if (fmt == FMT_JSON) {
		jw_end_arr(&w);
		jw_finish(&w);
	}
	free(m);
	catalog_release(&env);
	return 0;
}

/* key: "mfu/<folder>", or null for "" */
static void jw_mfu_dir(struct jw *w, const char *key, const char *folder)
{
	char dir[64];

	if (!folder[0]) {
		jw_null(w, key);
		return;
	}
	snprintf(dir, sizeof(dir), "mfu/%s", folder);
	jw_str(w, key, dir);
}

/* The text listing's tables column: "h200_sxm", "b200_sxm (b200's)",
 * "h20 + h100_sxm (h100-sxm's)", or "-" without tables. */
static void gpus_tables_label(const struct gpu_spec *g, char *out, size_t cap)
{
	size_t off = 0;

	out[0] = '\0';
	if (g->measured[0])
		off += (size_t)snprintf(out, cap, "%s%s", g->measured, g->tables[0] ? " + " : "");
	if (g->tables[0] && off < cap)
		snprintf(out + off, cap - off, g->tables_of[0] ? "%s (%s's)" : "%s", g->tables, g->tables_of);
	if (!out[0])
		snprintf(out, cap, "-");
}

int cmd_gpus(int argc, char **argv, struct err *e)
{
	struct catalog env;
	enum out_format fmt;
	struct jw w;
	size_t i;
	int rc = parse_list(argc, argv, "gpus", gpus_usage, &fmt, e), k, d;

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	catalog_init(&env);
	if ((rc = catalog_load_gpus(&env, e)) < 0) {
		catalog_release(&env);
		return rc;
	}
	if (fmt == FMT_JSON) {
		jw_init(&w, stdout, true);
		jw_arr(&w, NULL);
	} else {
		printf("%-14s %8s %8s %8s %6s %7s %6s %6s %5s %6s %6s  %-29s %s\n", "id", "bf16", "fp8",
		       "fp4", "HBM GB", "TB/s", "bw_eff", "link", "SMs", "W", "idle W", "tables", "aliases");
	}
	for (i = 0; i < env.gpus.n; i++) {
		const struct gpu_spec *g = &env.gpus.gpus[i];
		char al[200] = "", f8[16], f4[16], pw[16] = "-", iw[16] = "-", tb[160];
		size_t off = 0;
		struct power_model pm;
		bool have_power = power_model_of(g, &pm);
		for (k = 0; k < g->naliases; k++)
			off += (size_t)snprintf(al + off, sizeof(al) - off, "%s%s", k ? "," : "",
						g->aliases[k]);
		if (fmt == FMT_JSON) {
			char names[32][64];
			size_t nc = mfu_collections(env.data_dir, g->tables, names, 32), j;
			jw_obj(&w, NULL);
			jw_str(&w, "id", g->id);
			jw_str(&w, "name", g->name);
			jw_arr(&w, "aliases");
			for (k = 0; k < g->naliases; k++)
				jw_str(&w, NULL, g->aliases[k]);
			jw_end_arr(&w);
			jw_obj(&w, "peak_tflops");
			for (d = 0; d < DT__COUNT; d++)
				if (g->peak_flops[d] > 0)
					jw_num(&w, dtype_name((enum dtype)d), g->peak_flops[d] / 1e12);
			jw_end_obj(&w);
			jw_num(&w, "hbm_gb", g->hbm_bytes / 1e9);
			jw_num(&w, "hbm_tb_per_s", g->hbm_bw / 1e12);
			jw_num(&w, "bw_eff", g->bw_eff);
			jw_num(&w, "link_gb_per_s", g->link_bw / 1e9);
			jw_int(&w, "sm_count", g->sm_count);
			if (have_power) {
				jw_num(&w, "board_power_w", pm.board_w);
				jw_num(&w, "idle_power_w", pm.idle_w);
			} else {
				jw_null(&w, "board_power_w");
				jw_null(&w, "idle_power_w");
			}
			jw_obj(&w, "tables");
			jw_mfu_dir(&w, "dir", g->tables);
			if (g->tables_of[0])
				jw_str(&w, "of", g->tables_of);
			else
				jw_null(&w, "of");
			jw_arr(&w, "collections");
			for (j = 0; j < nc; j++)
				jw_str(&w, NULL, names[j]);
			jw_end_arr(&w);
			jw_mfu_dir(&w, "measured", g->measured);
			jw_end_obj(&w);
			jw_end_obj(&w);
			continue;
		}
		snprintf(f8, sizeof(f8), g->peak_flops[DT_FP8] > 0 ? "%.1f" : "-",
			 g->peak_flops[DT_FP8] / 1e12);
		snprintf(f4, sizeof(f4), g->peak_flops[DT_FP4] > 0 ? "%.1f" : "-",
			 g->peak_flops[DT_FP4] / 1e12);
		if (have_power) {
			snprintf(pw, sizeof(pw), "%.0f", pm.board_w);
			snprintf(iw, sizeof(iw), "%.1f", pm.idle_w);
		}
		gpus_tables_label(g, tb, sizeof(tb));
		printf("%-14s %8.1f %8s %8s %6.0f %7.3f %6.2f %6.0f %5d %6s %6s  %-29s %s\n", g->id,
		       g->peak_flops[DT_BF16] / 1e12, f8, f4, g->hbm_bytes / 1e9, g->hbm_bw / 1e12,
		       g->bw_eff, g->link_bw / 1e9, g->sm_count, pw, iw, tb, al);
	}
	if (fmt == FMT_JSON) {
		jw_end_arr(&w);
		jw_finish(&w);
	}
	catalog_release(&env);
	return 0;
}
