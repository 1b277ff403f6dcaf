/* gpu.c - data/gpus.json reader and lookups. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "hw/gpu.h"
#include "base/json.h"

static const char *const dtype_names[DT__COUNT] = {"bf16", "fp16", "fp8", "fp4", "int4"};

const char *dtype_name(enum dtype d)
{
	return (unsigned)d < DT__COUNT ? dtype_names[d] : "?";
}

double dtype_bytes(enum dtype d)
{
	switch (d) {
	case DT_BF16: case DT_FP16: return 2.0;
	case DT_FP8: return 1.0;
	case DT_FP4: return 0.5;
	case DT_INT4: return 0.5;
	default: return 2.0;
	}
}

enum dtype dtype_compute(enum dtype d)
{
	return d == DT_INT4 ? DT_BF16 : d;
}

int dtype_arg(const char *flag, const char *arg, void *dst, struct err *e)
{
	(void)flag;
	return dtype_parse(arg, dst, e);
}

int dtype_parse(const char *s, enum dtype *out, struct err *e)
{
	int i;

	for (i = 0; i < DT__COUNT; i++) {
		if (strcasecmp(s, dtype_names[i]) == 0) {
			*out = (enum dtype)i;
			return 0;
		}
	}
	return err_set(e, SS_EUSAGE, "unknown dtype '%s' (expected bf16, fp16, fp8, fp4 or int4)", s);
}

/* Defaults for the node keys, so gpus.json only lists exceptions:
 * 8 GPUs per node and per NVLink domain (HGX/DGX H100, H200, B200 and
 * A100 baseboards: NVIDIA DGX H100 / B200 user guides); one 400 Gb/s
 * InfiniBand NDR ConnectX-7 port per GPU (same guides: 8 x CX-7 400 Gb/s
 * compute ports per 8-GPU node), i.e. 50 GB/s per GPU (the exceptions,
 * B300 and GB300's 800 Gb/s ConnectX-8 and A100's 200 Gb/s ConnectX-6, in
 * gpus.json: data/PROVENANCE.md). */
#define GPU_DEFAULT_PER_NODE 8
#define GPU_DEFAULT_INTERNODE_GBIT 400.0
/* the host link when gpus.json names none: PCIe 5.0 x16, 32 GT/s x 16
 * lanes = 64 GB/s each way (PCI-SIG PCIe 5.0 base specification) */
#define GPU_DEFAULT_HOST_LINK "PCIe 5.0 x16"
#define GPU_DEFAULT_HOST_LINK_GBPS 64.0

static int parse_nodes(const struct json *o, const char *ctx, struct gpu_spec *g, struct err *e)
{
	int64_t v;
	double gbit = GPU_DEFAULT_INTERNODE_GBIT;
	bool pres = false;
	int rc;

	g->gpus_per_node = GPU_DEFAULT_PER_NODE;
	if (json_get(o, "gpus_per_node")) {
		if ((rc = json_req_int(o, "gpus_per_node", ctx, 1, 1024, &v, e)) < 0)
			return rc;
		g->gpus_per_node = (int)v;
	}
	g->nvlink_domain = g->gpus_per_node;
	if (json_get(o, "nvlink_domain")) {
		if ((rc = json_req_int(o, "nvlink_domain", ctx, 1, 4096, &v, e)) < 0)
			return rc;
		g->nvlink_domain = (int)v;
	}
	if ((rc = json_opt_num(o, "internode_gbit", ctx, &gbit, &pres, e)) < 0)
		return rc;
	if (!(gbit > 0))
		return err_set(e, SS_EDATA, "%s: 'internode_gbit' must be > 0, got %g", ctx, gbit);
	g->internode_bw = gbit * 1e9 / 8.0;
	/* the link to host memory (KV offload): its name and GB/s one way */
	{
		const char *hl = GPU_DEFAULT_HOST_LINK;
		double gbps = GPU_DEFAULT_HOST_LINK_GBPS;
		if ((rc = json_opt_str(o, "host_link", ctx, &hl, e)) < 0)
			return rc;
		if (!hl[0] || strlen(hl) >= sizeof(g->host_link))
			return err_set(e, SS_EDATA, "%s: 'host_link' must be a short name (\"PCIe 5.0 x16\"), got '%s'",
				       ctx, hl);
		snprintf(g->host_link, sizeof(g->host_link), "%s", hl);
		if ((rc = json_opt_num(o, "host_link_gbps", ctx, &gbps, &pres, e)) < 0)
			return rc;
		if (!(gbps > 0 && gbps < 1e5))
			return err_set(e, SS_EDATA, "%s: 'host_link_gbps' must be in (0, 1e5) GB/s, got %g", ctx, gbps);
		g->host_link_bw = gbps * 1e9;
	}
	return 0;
}

static int parse_gpu(const struct json *o, const char *src, size_t idx, void *slot, struct err *e)
{
	struct gpu_spec *g = slot;
	static const char *const keys[] = {"id", "name", "aliases", "tflops", "hbm_gb", "hbm_tbps",
		"bw_eff", "link_gbps", "sm_count", "tables", "tables_of", "mem_mib", "gpus_per_node",
		"nvlink_domain", "internode_gbit", "compute_eff_scale", "measured", "gemm_tflops_sustained",
		"family", "board_power_w", "idle_power_w", "host_link", "host_link_gbps", "vendor", NULL};
	static const char *const dkeys[] = {"bf16", "fp16", "fp8", "fp4", NULL};
	char ctx[600];
	const char *s;
	const struct json *al, *tf;
	double v;
	int64_t sm;
	int rc, i;

	snprintf(ctx, sizeof(ctx), "%s: gpus[%zu]", src, idx);
	memset(g, 0, sizeof(*g));
	if ((rc = json_check_keys(o, keys, ctx, e)) < 0)
		return rc;
	if ((rc = json_req_str(o, "id", ctx, &s, e)) < 0)
		return rc;
	snprintf(g->id, sizeof(g->id), "%s", s);
	snprintf(ctx, sizeof(ctx), "%s: gpus[%zu] (%s)", src, idx, g->id);
	if ((rc = json_req_str(o, "name", ctx, &s, e)) < 0)
		return rc;
	snprintf(g->name, sizeof(g->name), "%s", s);
	s = "";
	if ((rc = json_opt_str(o, "tables", ctx, &s, e)) < 0)
		return rc;
	snprintf(g->tables, sizeof(g->tables), "%s", s);
	s = "";
	if ((rc = json_opt_str(o, "tables_of", ctx, &s, e)) < 0)
		return rc;
	snprintf(g->tables_of, sizeof(g->tables_of), "%s", s);
	if (g->tables[0] && g->tables_of[0])
		return err_set(e, SS_EDATA, "%s: give 'tables' or 'tables_of', not both", ctx);
	s = "";
	if ((rc = json_opt_str(o, "measured", ctx, &s, e)) < 0)
		return rc;
	if (strlen(s) >= sizeof(g->measured) || strchr(s, '/') || strchr(s, '.'))
		return err_set(e, SS_EDATA, "%s: 'measured' must be a GPU id (no '/' or '.'), got '%s'", ctx, s);
	snprintf(g->measured, sizeof(g->measured), "%s", s);
	s = "other";
	if ((rc = json_opt_str(o, "family", ctx, &s, e)) < 0)
		return rc;
	if (!s[0] || strlen(s) >= sizeof(g->family) || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(s))
		return err_set(e, SS_EDATA, "%s: 'family' must be a short lower-case name (hopper, blackwell, ampere, ada, other), got '%s'",
			       ctx, s);
	snprintf(g->family, sizeof(g->family), "%s", s);
	s = "nvidia";
	if ((rc = json_opt_str(o, "vendor", ctx, &s, e)) < 0)
		return rc;
	if (strcmp(s, "nvidia") != 0 && strcmp(s, "amd") != 0 && strcmp(s, "huawei") != 0)
		return err_set(e, SS_EDATA, "%s: 'vendor' must be nvidia, amd or huawei, got '%s'", ctx, s);
	snprintf(g->vendor, sizeof(g->vendor), "%s", s);
	al = json_get(o, "aliases");
	if (al) {
		const struct json *a;
		if (json_type_of(al) != JSON_ARRAY || json_size(al) > 4)
			return err_set(e, SS_EDATA, "%s: 'aliases' must be an array of at most 4 strings", ctx);
		for (a = json_first(al); a; a = json_next(a)) {
			if (json_type_of(a) != JSON_STRING)
				return err_set(e, SS_EDATA, "%s: 'aliases' must hold strings", ctx);
			snprintf(g->aliases[g->naliases++], sizeof(g->aliases[0]), "%s", json_string(a));
		}
	}
	tf = json_get(o, "tflops");
	if (!tf)
		return err_set(e, SS_EDATA, "%s: missing required key 'tflops'", ctx);
	if ((rc = json_check_keys(tf, dkeys, ctx, e)) < 0)
		return rc;
	for (i = 0; i < DT__COUNT; i++) {
		bool pres = false;
		if (i == DT_INT4) /* weight-only: computes at the bf16 rate */
			continue;
		if ((rc = json_opt_num(tf, dtype_names[i], ctx, &v, &pres, e)) < 0)
			return rc;
		if (pres && !(v > 0))
			return err_set(e, SS_EDATA, "%s: 'tflops.%s' must be > 0, got %g", ctx,
				       dtype_names[i], v);
		g->peak_flops[i] = pres ? v * 1e12 : 0;
	}
	if (g->peak_flops[DT_BF16] <= 0)
		return err_set(e, SS_EDATA, "%s: missing required key 'tflops.bf16'", ctx);
	g->peak_flops[DT_INT4] = g->peak_flops[DT_BF16];
	memcpy(g->table_peak, g->peak_flops, sizeof(g->table_peak));
	if ((rc = json_req_num(o, "hbm_gb", ctx, &v, e)) < 0)
		return rc;
	if (!(v > 0))
		return err_set(e, SS_EDATA, "%s: 'hbm_gb' must be > 0, got %g", ctx, v);
	g->hbm_bytes = v * 1e9;
	g->mem_bytes = g->hbm_bytes;
	{
		bool pres = false;
		if ((rc = json_opt_num(o, "mem_mib", ctx, &v, &pres, e)) < 0)
			return rc;
		if (pres && !(v > 0))
			return err_set(e, SS_EDATA, "%s: 'mem_mib' must be > 0, got %g", ctx, v);
		if (pres)
			g->mem_bytes = v * 1048576.0;
	}
	if ((rc = json_req_num(o, "hbm_tbps", ctx, &v, e)) < 0)
		return rc;
	if (!(v > 0))
		return err_set(e, SS_EDATA, "%s: 'hbm_tbps' must be > 0, got %g", ctx, v);
	g->hbm_bw = v * 1e12;
	g->table_hbm_bw = g->hbm_bw;
	{
		bool pres = false;
		if ((rc = json_opt_num(o, "compute_eff_scale", ctx, &v, &pres, e)) < 0)
			return rc;
		if (pres && !(v >= 1 && v <= 3))
			return err_set(e, SS_EDATA, "%s: 'compute_eff_scale' must be in [1, 3], got %g", ctx, v);
		g->compute_eff_scale = pres ? v : 1.0;
	}
	{
		bool pres = false;
		if ((rc = json_opt_num(o, "gemm_tflops_sustained", ctx, &v, &pres, e)) < 0)
			return rc;
		if (pres && !(v > 0 && v * 1e12 <= g->peak_flops[DT_BF16]))
			return err_set(e, SS_EDATA, "%s: 'gemm_tflops_sustained' must be in (0, tflops.bf16 = %g], got %g",
				       ctx, g->peak_flops[DT_BF16] / 1e12, v);
		g->gemm_max_flops = pres ? v * 1e12 : 0;
	}
	{
		bool pres = false, ipres = false;
		double idle = 0;
		if ((rc = json_opt_num(o, "board_power_w", ctx, &v, &pres, e)) < 0 ||
		    (rc = json_opt_num(o, "idle_power_w", ctx, &idle, &ipres, e)) < 0)
			return rc;
		if (pres && !(v >= 50 && v <= 5000))
			return err_set(e, SS_EDATA, "%s: 'board_power_w' must be in [50, 5000] W, got %g", ctx, v);
		if (ipres && !pres)
			return err_set(e, SS_EDATA, "%s: 'idle_power_w' needs 'board_power_w'", ctx);
		if (ipres && !(idle > 0 && idle < v))
			return err_set(e, SS_EDATA, "%s: 'idle_power_w' must be in (0, board_power_w = %g) W, got %g",
				       ctx, v, idle);
		g->board_power_w = pres ? v : 0;
		g->idle_power_w = ipres ? idle : 0;
	}
	if ((rc = json_req_num(o, "bw_eff", ctx, &v, e)) < 0)
		return rc;
	if (!(v > 0 && v <= 1))
		return err_set(e, SS_EDATA, "%s: 'bw_eff' must be in (0, 1], got %g", ctx, v);
	g->bw_eff = v;
	if ((rc = json_req_num(o, "link_gbps", ctx, &v, e)) < 0)
		return rc;
	if (!(v > 0))
		return err_set(e, SS_EDATA, "%s: 'link_gbps' must be > 0, got %g", ctx, v);
	g->link_bw = v * 1e9;
	if ((rc = json_req_int(o, "sm_count", ctx, 1, 100000, &sm, e)) < 0)
		return rc;
	g->sm_count = (int)sm;
	return parse_nodes(o, ctx, g, e);
}

/* What the GPUs of db (read from path) take from the others they name:
 * borrowed tables, the figures of their own measurements' GPU. */
static int gpu_db_link(struct gpu_db *db, const char *path, struct err *e)
{
	size_t i;

	/* borrowed tables: the lender's folder, and its peaks, against which
	 * the tables' latencies turn into utilisation (MFU carries over) */
	for (i = 0; i < db->n; i++) {
		struct gpu_spec *g = &db->gpus[i];
		size_t j;
		if (!g->tables_of[0])
			continue;
		for (j = 0; j < db->n; j++)
			if (j != i && strcasecmp(db->gpus[j].id, g->tables_of) == 0 && db->gpus[j].tables[0])
				break;
		if (j == db->n) {
			return err_set(e, SS_EDATA, "%s: gpus[%zu] (%s): 'tables_of' names '%s', which is not a GPU with its own tables",
				       path, i, g->id, g->tables_of);
		}
		memcpy(g->tables, db->gpus[j].tables, sizeof(g->tables));
		memcpy(g->table_peak, db->gpus[j].peak_flops, sizeof(g->table_peak));
		g->table_hbm_bw = db->gpus[j].hbm_bw;
		/* the lender's sustained GEMM rate carries over as a fraction of
		 * the peak, like the tables' efficiencies; not where the borrower's
		 * compute-bound kernels run nearer their peak (compute_eff_scale:
		 * the H20's measured MFU reaches 0.952) */
		if (g->gemm_max_flops <= 0 && db->gpus[j].gemm_max_flops > 0 && g->compute_eff_scale == 1.0)
			g->gemm_max_flops = db->gpus[j].gemm_max_flops / db->gpus[j].peak_flops[DT_BF16] *
					    g->peak_flops[DT_BF16];
	}
	/* own measurements: the figures of the GPU they were measured on */
	for (i = 0; i < db->n; i++) {
		struct gpu_spec *g = &db->gpus[i];
		size_t j;
		if (!g->measured[0])
			continue;
		for (j = 0; j < db->n; j++)
			if (strcasecmp(db->gpus[j].id, g->measured) == 0)
				break;
		if (j == db->n) {
			return err_set(e, SS_EDATA, "%s: gpus[%zu] (%s): 'measured' names '%s', which is not a GPU id",
				       path, i, g->id, g->measured);
		}
		memcpy(g->meas_peak, db->gpus[j].peak_flops, sizeof(g->meas_peak));
		g->meas_hbm_bw = db->gpus[j].hbm_bw;
	}
	return 0;
}

int gpu_db_load(struct gpu_db *db, const char *path, struct err *e)
{
	static const char *const top[] = {"gpus", NULL};
	void *v;
	int rc;

	memset(db, 0, sizeof(*db));
	if ((rc = json_load_records(path, top, true, sizeof(*db->gpus), parse_gpu, &v, &db->n, e)) < 0)
		return rc;
	db->gpus = v;
	if ((rc = gpu_db_link(db, path, e)) < 0)
		gpu_db_release(db);
	return rc;
}

void gpu_db_release(struct gpu_db *db)
{
	free(db->gpus);
	db->gpus = NULL;
	db->n = 0;
}

int gpu_find(const struct gpu_db *db, const char *name, const struct gpu_spec **out,
	     struct err *e)
{
	char list[512];
	size_t i, off = 0;
	int k;

	for (i = 0; i < db->n; i++) {
		const struct gpu_spec *g = &db->gpus[i];
		if (strcasecmp(g->id, name) == 0) {
			*out = g;
			return 0;
		}
		for (k = 0; k < g->naliases; k++) {
			if (strcasecmp(g->aliases[k], name) == 0) {
				*out = g;
				return 0;
			}
		}
	}
	list[0] = '\0';
	for (i = 0; i < db->n && off < sizeof(list) - 64; i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					db->gpus[i].id);
	return err_set(e, SS_EUSAGE, "unknown gpu '%s' (known: %s; 'servesim gpus' lists aliases)",
		       name, list);
}

int gpu_find_result_name(const struct gpu_db *db, const char *name, const struct gpu_spec **out,
			 struct err *e)
{
	char low[48];
	size_t k;
	int rc = gpu_find(db, name, out, e);

	if (rc == 0)
		return 0;
	for (k = 0; name[k] && k + 1 < sizeof(low); k++)
		low[k] = name[k] == '_' ? '-' : (char)tolower((unsigned char)name[k]);
	low[k] = '\0';
	return gpu_find(db, low, out, NULL) == 0 ? 0 : rc;
}

const struct gpu_spec *gpu_from_device_name(const struct gpu_db *db, const char *device)
{
	char buf[128], *w, *save = NULL;
	const struct gpu_spec *g = NULL;

	snprintf(buf, sizeof(buf), "%s", device);
	for (w = strtok_r(buf, " -_", &save); w && !g; w = strtok_r(NULL, " -_", &save))
		if (gpu_find(db, w, &g, NULL) < 0)
			g = NULL;
	return g;
}
