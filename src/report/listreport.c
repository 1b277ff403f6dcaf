/* listreport.c - the models and GPUs listings: what data/ knows. */
#include <stdbool.h>
#include <stdio.h>

#include "report/listreport.h"
#include "base/json.h"
#include "hw/mfu.h"
#include "hw/power.h"
#include "report/outfmt.h"

/* The n aliases of a model or GPU (fixed-width names, stride bytes apart)
 * as "a,b,c" into al (cap bytes). */
static void join_aliases(char *al, size_t cap, const char *aliases, size_t stride, int n)
{
	size_t off = 0;
	int k;

	al[0] = '\0';
	for (k = 0; k < n; k++)
		off += (size_t)snprintf(al + off, cap - off, "%s%s", k ? "," : "", aliases + (size_t)k * stride);
}

static void jw_aliases(struct jw *w, const char *aliases, size_t stride, int n)
{
	int k;

	jw_arr(w, "aliases");
	for (k = 0; k < n; k++)
		jw_str(w, NULL, aliases + (size_t)k * stride);
	jw_end_arr(w);
}

void out_models_text(FILE *f, const struct catalog_model_row *r, size_t n)
{
	size_t i;

	fprintf(f, "%-26s %-13s %6s %10s %10s  %-42s %s\n", "id", "family", "layers", "total", "active", "hf",
		"aliases");
	for (i = 0; i < n; i++) {
		const struct model_entry *me = r[i].me;
		char t[32], a[32], al[200];

		join_aliases(al, sizeof(al), me->aliases[0], sizeof(me->aliases[0]), me->naliases);
		if (r[i].ok) {
			out_fmt_count(t, sizeof(t), r[i].pc.total);
			out_fmt_count(a, sizeof(a), r[i].pc.active);
			fprintf(f, "%-26s %-13s %6lld %10s %10s  %-42s %s\n", me->id, r[i].model_type,
				(long long)r[i].layers, t, a, me->hf, al);
		} else {
			fprintf(f, "%-26s %-13s %6s %10s %10s  %-42s %s\n", me->id, "unsupported", "-", "-", "-",
				me->hf, al);
		}
	}
}

void out_models_json(FILE *f, const struct catalog_model_row *r, size_t n)
{
	struct jw w;
	size_t i;

	jw_init(&w, f, true);
	jw_arr(&w, NULL);
	for (i = 0; i < n; i++) {
		const struct model_entry *me = r[i].me;
		jw_obj(&w, NULL);
		jw_str(&w, "id", me->id);
		jw_str(&w, "hf", me->hf);
		jw_str(&w, "file", me->file);
		jw_aliases(&w, me->aliases[0], sizeof(me->aliases[0]), me->naliases);
		jw_bool(&w, "supported", r[i].ok);
		if (r[i].ok) {
			jw_str(&w, "model_type", r[i].model_type);
			jw_int(&w, "layers", r[i].layers);
			jw_num(&w, "params_total", r[i].pc.total);
			jw_num(&w, "params_active", r[i].pc.active);
		} else {
			jw_str(&w, "error", r[i].error);
		}
		jw_end_obj(&w);
	}
	jw_end_arr(&w);
	jw_finish(&w);
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

void out_gpus_text(FILE *f, const struct gpu_db *db)
{
	size_t i;

	fprintf(f, "%-14s %8s %8s %8s %6s %7s %6s %6s %5s %6s %6s  %-29s %s\n", "id", "bf16", "fp8", "fp4",
		"HBM GB", "TB/s", "bw_eff", "link", "SMs", "W", "idle W", "tables", "aliases");
	for (i = 0; i < db->n; i++) {
		const struct gpu_spec *g = &db->gpus[i];
		char al[200], f8[16], f4[16], pw[16] = "-", iw[16] = "-", tb[160];
		struct power_model pm;

		join_aliases(al, sizeof(al), g->aliases[0], sizeof(g->aliases[0]), g->naliases);
		snprintf(f8, sizeof(f8), g->peak_flops[DT_FP8] > 0 ? "%.1f" : "-", g->peak_flops[DT_FP8] / 1e12);
		snprintf(f4, sizeof(f4), g->peak_flops[DT_FP4] > 0 ? "%.1f" : "-", g->peak_flops[DT_FP4] / 1e12);
		if (power_model_of(g, &pm)) {
			snprintf(pw, sizeof(pw), "%.0f", pm.board_w);
			snprintf(iw, sizeof(iw), "%.1f", pm.idle_w);
		}
		gpus_tables_label(g, tb, sizeof(tb));
		fprintf(f, "%-14s %8.1f %8s %8s %6.0f %7.3f %6.2f %6.0f %5d %6s %6s  %-29s %s\n", g->id,
			g->peak_flops[DT_BF16] / 1e12, f8, f4, g->hbm_bytes / 1e9, g->hbm_bw / 1e12, g->bw_eff,
			g->link_bw / 1e9, g->sm_count, pw, iw, tb, al);
	}
}

void out_gpus_json(FILE *f, const struct gpu_db *db, const char *data_dir)
{
	struct jw w;
	size_t i, j;
	int d;

	jw_init(&w, f, true);
	jw_arr(&w, NULL);
	for (i = 0; i < db->n; i++) {
		const struct gpu_spec *g = &db->gpus[i];
		char names[32][64];
		size_t nc = mfu_collections(data_dir, g->tables, names, 32);
		struct power_model pm;

		jw_obj(&w, NULL);
		jw_str(&w, "id", g->id);
		jw_str(&w, "name", g->name);
		jw_aliases(&w, g->aliases[0], sizeof(g->aliases[0]), g->naliases);
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
		if (power_model_of(g, &pm)) {
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
	}
	jw_end_arr(&w);
	jw_finish(&w);
}
