/* mfuload.c - choosing a GPU's kernel collections for an engine and version
 * and loading their tables: from the compact packs written by `make`
 * (mfupack.c) when they are current, else from the CSVs (mfu.c's parse). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "hw/mfu.h"
#include "hw/moetab.h"
#include "base/paths.h"
#include "hw/mfupack.h"

/* "0.24.0", "1.3.0rc20", "1.1.0-dev.2" as one comparable number:
 * major*1e6 + minor*1e3 + patch (release-candidate suffixes ignored). */
static double version_num(const char *v)
{
	double part[3] = {0, 0, 0};
	int i = 0;

	while (*v && i < 3) {
		if (*v >= '0' && *v <= '9') {
			/* digits only: strtod would read "1e5" */
			part[i] = (double)strtol(v, (char **)&v, 10);
			i++;
		} else if (*v == '.') {
			v++;
		} else {
			break;
		}
	}
	return part[0] * 1e6 + part[1] * 1e3 + part[2];
}

/* snprintf whose truncation is harmless here (a too-long path simply does
 * not exist; a too-long label is cut): the result is used so the compiler
 * knows truncation was considered. */
#define FMT(dst, ...) snprintf((dst), sizeof(dst), __VA_ARGS__)

struct coll {
	char name[64];        /* "<engine>-<version>" */
	char engine[16];
	double ver;
	double rank;          /* fallback order: lower first */
};

static int cmp_coll(const void *a, const void *b)
{
	const struct coll *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The collections under base, ranked for (engine, version), fallback's
 * first among the other engines' (NULL: none preferred). */
static size_t list_collections(const char *base, const char *engine, const char *fallback,
			       const char *version, struct coll *out, size_t cap)
{
	DIR *d = opendir(base);
	struct dirent *de;
	size_t n = 0, i;
	double want = version && *version ? version_num(version) : -1, newest = -1;
	bool any_engine = false;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL && n < cap) {
		const char *dash = strchr(de->d_name, '-');
		if (de->d_name[0] == '.' || !dash || (size_t)(dash - de->d_name) >= sizeof(out[n].engine))
			continue;
		if (strlen(de->d_name) >= sizeof(out[n].name))
			continue;
		memcpy(out[n].name, de->d_name, strlen(de->d_name) + 1);
		memcpy(out[n].engine, de->d_name, (size_t)(dash - de->d_name));
		out[n].engine[dash - de->d_name] = '\0';
		out[n].ver = version_num(dash + 1);
		n++;
	}
	closedir(d);
	for (i = 0; i < n; i++)
		if (strcmp(out[i].engine, engine) == 0) {
			any_engine = true;
			if (out[i].ver > newest)
				newest = out[i].ver;
		}
	for (i = 0; i < n; i++) {
		/* same engine by version distance (the requested version, else the
		 * newest), then the fallback's newest first, then the others newest
		 * first */
		if (strcmp(out[i].engine, engine) == 0)
			out[i].rank = fabs(out[i].ver - (want >= 0 ? want : newest)) - (want >= 0 ? 0 : 0);
		else if (fallback && strcmp(out[i].engine, fallback) == 0)
			out[i].rank = 1e12 - out[i].ver;
		else
			out[i].rank = 2e12 - out[i].ver;
	}
	(void)any_engine;
	qsort(out, n, sizeof(*out), cmp_coll);
	return n;
}

static void set_src(struct mfu_tables *t, enum mfu_part p, const char *gtab, const char *coll,
		    const char *file)
{
	FMT(t->src[p], "mfu/%.31s/%.48s/%.20s", gtab, coll, file);
}

/* Whether a GEMM table could still add a dtype: one not loaded yet that
 * the tables' GPU can price.  Once none is left, the later collections'
 * GEMM files (every row of which mfu_csv_gemm would skip) are not read. */
static bool gemm_wanted(const struct mfu_tables *t, const struct gpu_spec *g)
{
	static const enum dtype read[] = {DT_BF16, DT_FP8, DT_FP4}; /* the ones mfu_csv_gemm reads */
	size_t i;

	for (i = 0; i < sizeof(read) / sizeof(read[0]); i++)
		if (!t->have_gemm[read[i]] && g->table_peak[read[i]] > 0)
			return true;
	return false;
}

/* The pack of a collection, opened on first use; NULL when there is none
 * (or packs are not used). */
struct lazy_pack {
	struct mfu_pack *p;
	bool tried, use;
	const char *dir;
	const struct gpu_spec *g;
};

static struct mfu_pack *lazy_pack(struct lazy_pack *lp)
{
	if (!lp->tried && lp->use)
		lp->p = mfupack_open(lp->dir, lp->g);
	lp->tried = true;
	return lp->p;
}

/* The tables keep the pack of a collection open (closed by mfu_release): its
 * grids were read from it in place (mfupack.c). */
static void keep_pack(struct mfu_tables *t, struct mfu_pack *p)
{
	if (!p)
		return;
	t->packs = xreallocarray(t->packs, t->npacks + 1, sizeof(*t->packs));
	mfupack_detach(p, &t->packs[t->npacks++]);
}

static int load_attn_part(struct lazy_pack *lp, enum mfupack_sec sec, const char *path,
			  bool prefill, struct mfu_attn_cfg **out, size_t *nout, struct err *e)
{
	struct mfu_pack *pk = lazy_pack(lp);

	if (pk && mfupack_attn(pk, sec, path, out, nout) == 0)
		return 0;
	return mfu_csv_attn(path, prefill, lp->g, out, nout, e);
}

/* Append the configurations of src (n of them) to *dst; those *dst holds
 * already (same heads, kv heads, head dim and kv dtype: the GPU's own) are
 * kept as shadows, the reference mfu_attn_anchor_own rebases on; src is
 * consumed. */
static void merge_cfgs(struct mfu_attn_cfg **dst, size_t *nd, struct mfu_attn_cfg *src, size_t n)
{
	size_t i, j, k = *nd;

	*dst = xreallocarray(*dst, *nd + n + 1, sizeof(**dst));
	for (i = 0; i < n; i++) {
		for (j = 0; j < *nd; j++)
			if ((*dst)[j].heads == src[i].heads && (*dst)[j].kv_heads == src[i].kv_heads &&
			    (*dst)[j].head_dim == src[i].head_dim && (*dst)[j].kv_dtype == src[i].kv_dtype)
				break;
		(*dst)[k] = src[i];
		(*dst)[k++].shadow = j < *nd;
	}
	*nd = k;
	free(src);
}

/* Load one attention part of a collection into *cfg / *n, merged by
 * configuration after what is there already (the GPU's own measurements). */
static int load_attn_merge(struct lazy_pack *lp, enum mfupack_sec sec, const char *path,
			   bool prefill, struct mfu_attn_cfg **cfg, size_t *n, struct err *e)
{
	struct mfu_attn_cfg *got = NULL;
	size_t ngot = 0;
	int rc;

	if (!*n)
		return load_attn_part(lp, sec, path, prefill, cfg, n, e);
	if ((rc = load_attn_part(lp, sec, path, prefill, &got, &ngot, e)) < 0)
		return rc;
	merge_cfgs(cfg, n, got, ngot);
	return 0;
}

/* A collection's table of one attention kind (file.csv.gz under base/coll)
 * merged into *cfg / *n and part p labelled with it, unless p has its
 * source already or the collection has no such file. */
static int load_attn_kind(struct lazy_pack *lp, struct mfu_tables *t, enum mfu_part p,
			  enum mfupack_sec sec, bool prefill, const char *base, const char *gtab,
			  const char *coll, const char *file, struct mfu_attn_cfg **cfg, size_t *n,
			  struct err *e)
{
	char path[900];
	int rc;

	FMT(path, "%.700s/%.63s/%.24s.csv.gz", base, coll, file);
	if (t->src[p][0] || !paths_exists(path))
		return 0;
	if ((rc = load_attn_merge(lp, sec, path, prefill, cfg, n, e)) < 0)
		return rc;
	set_src(t, p, gtab, coll, file);
	return 0;
}

/* A collection's sliding-window table at path into *out / *n, rebased on
 * the dense table of the same collection (dense_path): the one loaded into
 * *dense already when it came from this collection (dense_src is its
 * label), else read for the purpose.  Without a dense table in the
 * collection the windowed one is left out (*n stays 0).  From a pack the
 * grids come rebased already (mfupack.c), and nothing else is read. */
static int load_window_part(struct lazy_pack *lp, enum mfupack_sec sec, const char *path,
			    bool prefill, const char *dense_path, bool dense_here,
			    const struct mfu_attn_cfg *dense, size_t ndense, struct mfu_attn_cfg **out,
			    size_t *n, struct err *e)
{
	struct mfu_pack *pk;
	struct mfu_attn_cfg *own = NULL, *win = NULL;
	size_t nown = 0, nwin = 0;
	int rc;

	if (!dense_here && !paths_exists(dense_path))
		return 0;
	/* a pack holds the grids already rebased (mfupack.c) */
	pk = lazy_pack(lp);
	if (pk && mfupack_attn(pk, sec, path, &win, &nwin) == 0) {
		*out = win;
		*n = nwin;
		return 0;
	}
	if (!dense_here) {
		if ((rc = load_attn_part(lp, prefill ? MFUPACK_ATTN_PREFILL : MFUPACK_ATTN_DECODE,
					 dense_path, prefill, &own, &nown, e)) < 0)
			return rc;
		dense = own;
		ndense = nown;
	}
	if ((rc = mfu_csv_attn_window(path, prefill, lp->g, &win, &nwin, e)) < 0)
		goto out;
	mfu_attn_window_rebase(win, nwin, dense, ndense, prefill);
	*out = win;
	*n = nwin;
	rc = 0;
out:
	{
		struct mfu_tables tmp; /* the dense rows read for the purpose */
		memset(&tmp, 0, sizeof(tmp));
		tmp.prefill = own;
		tmp.nprefill = nown;
		mfu_release(&tmp);
	}
	return rc;
}

/* Whether c has fewer KV heads than every configuration of a collection
 * (not the GPU's own) among cfg (n of them) at c's head size and KV dtype,
 * one of which there is. */
static bool below_timed_kv_heads(const struct mfu_attn_cfg *cfg, size_t n, const struct mfu_attn_cfg *c)
{
	size_t i;
	bool any = false;

	for (i = 0; i < n; i++)
		if (!cfg[i].own && cfg[i].head_dim == c->head_dim && cfg[i].kv_dtype == c->kv_dtype) {
			if (cfg[i].kv_heads <= c->kv_heads)
				return false;
			any = true;
		}
	return any;
}

/* Fill the gaps of the decode-attention grid *cfg / *n from a later
 * collection of the same engine (its table at path): a configuration with
 * fewer KV heads per GPU than any the chosen collection times at its head
 * size (derive.py leaves out vLLM 0.14.0's Hopper rows with fewer than 8,
 * timed under FA3's split plan for the collector's 8: aiconfigurator
 * #1004, derive.py FA3_AOT_PLANNED_KV_HEADS) is taken from the first later
 * collection that times it, rather than extrapolated from more KV heads
 * (fewer heads leave a decode fewer CTAs to spread the keys over, which
 * the kernel's split plan answers and a per-byte rate does not).  Other
 * configurations keep the nearest-configuration rule (mfu.c), as before.
 * *added counts the configurations taken. */
static int fill_decode_gaps(struct lazy_pack *lp, const char *path, struct mfu_attn_cfg **cfg, size_t *n,
			    size_t *added, struct err *e)
{
	struct mfu_attn_cfg *got = NULL;
	size_t ngot = 0, i, j, n0 = *n, k = *n;
	int rc;

	*added = 0;
	if ((rc = load_attn_part(lp, MFUPACK_ATTN_DECODE, path, false, &got, &ngot, e)) < 0)
		return rc;
	*cfg = xreallocarray(*cfg, *n + ngot + 1, sizeof(**cfg));
	for (i = 0; i < ngot; i++) {
		for (j = 0; j < k; j++)
			if ((*cfg)[j].heads == got[i].heads && (*cfg)[j].kv_heads == got[i].kv_heads &&
			    (*cfg)[j].head_dim == got[i].head_dim && (*cfg)[j].kv_dtype == got[i].kv_dtype)
				break;
		if (j < k || !below_timed_kv_heads(*cfg, n0, &got[i])) {
			mfu_grid_release(&got[i].g);
			continue;
		}
		(*cfg)[k++] = got[i];
		(*added)++;
	}
	*n = k;
	free(got);
	return 0;
}

/* The spec under which g's own measurements turn into utilisation: those
 * of the GPU they were measured on (mfu.c's borrowed_s carries them to g
 * by roofline efficiency: H20-3e runs the H20's kernels at its own
 * bandwidth where they are memory-bound), without the borrowed tables'
 * compute_eff_scale. */
static void own_spec(const struct gpu_spec *g, struct gpu_spec *own)
{
	*own = *g;
	memcpy(own->table_peak, g->meas_peak, sizeof(own->table_peak));
	own->table_hbm_bw = g->meas_hbm_bw;
	own->compute_eff_scale = 1.0;
}

/* The first collection folder under data/mfu/<g->measured>/ (one is
 * shipped: infersim-<commit>), into dir; false when there is none. */
static bool own_dir(const char *data_dir, const struct gpu_spec *g, char *dir, size_t cap)
{
	char base[700], best[64] = "";
	DIR *d;
	struct dirent *de;

	FMT(base, "%.640s/mfu/%.47s", data_dir, g->measured);
	if (!(d = opendir(base)))
		return false;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "infersim-", 9) == 0 && strlen(de->d_name) < sizeof(best) &&
		    (!best[0] || strcmp(de->d_name, best) > 0))
			memcpy(best, de->d_name, strlen(de->d_name) + 1);
	closedir(d);
	if (!best[0])
		return false;
	snprintf(dir, cap, "%s/%s", base, best);
	return true;
}

/* Load g's own measurements (the CSVs: a few hundred rows each). */
static int load_own(struct mfu_tables *t, const char *data_dir, const struct gpu_spec *g,
		    struct err *e)
{
	static const char *const attn_file[] = {"attn_prefill", "attn_decode", "mla_prefill", "mla_decode"};
	static const enum mfu_part attn_part[] = {MFU_P_ATTN_PREFILL, MFU_P_ATTN_DECODE,
						  MFU_P_MLA_PREFILL, MFU_P_MLA_DECODE};
	struct mfu_attn_cfg **cfg[] = {&t->prefill, &t->decode, &t->mla_prefill, &t->mla_decode};
	size_t *ncfg[] = {&t->nprefill, &t->ndecode, &t->nmla_prefill, &t->nmla_decode};
	struct gpu_spec own;
	char dir[800], path[900], rel[112];
	const char *coll;
	unsigned got = 0;
	size_t i, j;
	int rc;

	if (!g->measured[0] || !own_dir(data_dir, g, dir, sizeof(dir)))
		return 0;
	own_spec(g, &own);
	coll = strrchr(dir, '/') + 1;
	FMT(rel, "mfu/%.31s/%.48s", g->measured, coll);
	FMT(path, "%.800s/gemm.csv.gz", dir);
	if (paths_exists(path) && (rc = mfu_csv_gemm(t, path, &own, &got, e)) < 0)
		return rc;
	for (i = 0; i < DT__COUNT; i++) {
		enum mfu_part p = i == DT_FP8 ? MFU_P_GEMM_FP8 : i == DT_FP4 ? MFU_P_GEMM_FP4 : MFU_P_GEMM_BF16;
		if (got & (1u << i)) {
			FMT(t->src[p], "%.90s/gemm", rel);
			FMT(t->src_own[p], "%.90s/gemm", rel);
		}
	}
	for (i = 0; i < 4; i++) {
		FMT(path, "%.800s/%.20s.csv.gz", dir, attn_file[i]);
		if (!paths_exists(path))
			continue;
		if ((rc = mfu_csv_attn(path, i == 0 || i == 2, &own, cfg[i], ncfg[i], e)) < 0)
			return rc;
		for (j = 0; j < *ncfg[i]; j++)
			(*cfg[i])[j].own = true;
		FMT(t->src_own[attn_part[i]], "%.90s/%.20s", rel, attn_file[i]);
	}
	FMT(path, "%.800s/moe.csv.gz", dir);
	if (paths_exists(path)) {
		FMT(t->moe_own_path, "%.699s", path);
		FMT(t->src_own[MFU_P_MOE], "%.90s/moe", rel);
	}
	return 0;
}

int mfu_find_file(const char *data_dir, const struct gpu_spec *g, const char *engine,
		  const char *fallback, const char *version, const char *file, char *path, size_t path_cap, char *src,
		  size_t src_cap)
{
	struct coll cs[32];
	char base[700];
	size_t n, i, stem;

	if (!g->tables[0])
		return 0;
	snprintf(base, sizeof(base), "%s/mfu/%s", data_dir, g->tables);
	n = list_collections(base, engine, fallback, version, cs, sizeof(cs) / sizeof(cs[0]));
	stem = strcspn(file, ".");
	for (i = 0; i < n; i++) {
		snprintf(path, path_cap, "%.700s/%.63s/%s", base, cs[i].name, file);
		if (paths_exists(path)) {
			snprintf(src, src_cap, "mfu/%.31s/%.48s/%.*s", g->tables, cs[i].name, (int)stem, file);
			return 1;
		}
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

size_t mfu_collections(const char *data_dir, const char *tables, char (*names)[64], size_t cap)
{
	struct coll cs[32];
	char base[700];
	size_t n, i;

	if (!tables[0])
		return 0;
	FMT(base, "%.640s/mfu/%.31s", data_dir, tables);
	n = list_collections(base, "", NULL, NULL, cs, sizeof(cs) / sizeof(cs[0]));
	if (n > cap)
		n = cap;
	for (i = 0; i < n; i++)
		memcpy(names[i], cs[i].name, sizeof(names[i]));
	qsort(names, n, sizeof(names[0]), cmp_name);
	return n;
}

int mfu_load(struct mfu_tables *t, const char *data_dir, const struct gpu_spec *g,
	     const char *engine, const char *fallback, const char *version, struct err *e)
{
	return mfu_load_opt(t, data_dir, g, engine, fallback, version, true, e);
}

int mfu_load_opt(struct mfu_tables *t, const char *data_dir, const struct gpu_spec *g,
		 const char *engine, const char *fallback, const char *version, bool use_pack,
		 struct err *e)
{
	struct coll cs[32];
	char base[700], path[900], cdir[800], dec_engine[16] = "";
	size_t n, i;
	int rc, k;

	memset(t, 0, sizeof(*t));
	if (!g->tables[0]) {
		snprintf(t->warning, sizeof(t->warning),
			 "no measured kernel tables for %s: using default MFU (GEMM %.2f, prefill attention %.2f, decode attention %.2f) and the roofline for fused MoE",
			 g->id, MFU_DEFAULT_GEMM, MFU_DEFAULT_ATTN_PREFILL, MFU_DEFAULT_ATTN_DECODE);
		return 0;
	}
	snprintf(base, sizeof(base), "%s/mfu/%s", data_dir, g->tables);
	FMT(t->dir, "%.599s", base);
	n = list_collections(base, engine, fallback, version, cs, sizeof(cs) / sizeof(cs[0]));
	if (n == 0) {
		snprintf(t->warning, sizeof(t->warning),
			 "no kernel collections in data/mfu/%s: using default MFU", g->tables);
		return 0;
	}
	if (strcmp(cs[0].engine, engine) != 0)
		snprintf(t->warning, sizeof(t->warning),
			 "no %s kernel tables for %s: using the %s collection", engine, g->id, cs[0].name);
	{
		const char *dash = strchr(cs[0].name, '-');
		snprintf(t->engine, sizeof(t->engine), "%s", cs[0].engine);
		snprintf(t->version, sizeof(t->version), "%s", dash ? dash + 1 : "");
	}
	if ((rc = load_own(t, data_dir, g, e)) < 0)
		goto fail;
	for (i = 0; i < n; i++) {
		unsigned got = 0;
		struct lazy_pack lp = {NULL, false, use_pack, cdir, g};
		FMT(cdir, "%.700s/%.63s", base, cs[i].name);
		FMT(path, "%.700s/%.63s/gemm.csv.gz", base, cs[i].name);
		if (gemm_wanted(t, g) && paths_exists(path)) {
			struct mfu_pack *pk = lazy_pack(&lp);
			if (!(pk && mfupack_gemm(pk, path, t, &got) == 0) &&
			    (rc = mfu_csv_gemm(t, path, g, &got, e)) < 0)
				goto fail_pack;
		}
		if (got & (1u << DT_BF16))
			set_src(t, MFU_P_GEMM_BF16, g->tables, cs[i].name, "gemm");
		if (got & (1u << DT_FP8))
			set_src(t, MFU_P_GEMM_FP8, g->tables, cs[i].name, "gemm");
		if (got & (1u << DT_FP4))
			set_src(t, MFU_P_GEMM_FP4, g->tables, cs[i].name, "gemm");
		if ((rc = load_attn_kind(&lp, t, MFU_P_ATTN_PREFILL, MFUPACK_ATTN_PREFILL, true, base, g->tables, cs[i].name,
					 "attn_prefill", &t->prefill, &t->nprefill, e)) < 0)
			goto fail_pack;
		FMT(path, "%.700s/%.63s/attn_decode.csv.gz", base, cs[i].name);
		if (!t->src[MFU_P_ATTN_DECODE][0] && paths_exists(path)) {
			if ((rc = load_attn_merge(&lp, MFUPACK_ATTN_DECODE, path, false, &t->decode,
						 &t->ndecode, e)) < 0)
				goto fail_pack;
			set_src(t, MFU_P_ATTN_DECODE, g->tables, cs[i].name, "attn_decode");
			FMT(dec_engine, "%s", cs[i].engine);
		} else if (t->src[MFU_P_ATTN_DECODE][0] && strcmp(cs[i].engine, dec_engine) == 0 && paths_exists(path)) {
			size_t added;
			if ((rc = fill_decode_gaps(&lp, path, &t->decode, &t->ndecode, &added, e)) < 0)
				goto fail_pack;
			if (added) {
				size_t len = strlen(t->src[MFU_P_ATTN_DECODE]);
				snprintf(t->src[MFU_P_ATTN_DECODE] + len, sizeof(t->src[0]) - len,
					 "; gaps: mfu/%.20s/%.24s/attn_decode", g->tables, cs[i].name);
			}
		}
		FMT(path, "%.700s/%.63s/allreduce.csv.gz", base, cs[i].name);
		if (!t->src[MFU_P_ALLREDUCE][0] && paths_exists(path)) {
			struct mfu_pack *pk = lazy_pack(&lp);
			if (!(pk && mfupack_allreduce(pk, path, t) == 0) &&
			    (rc = mfu_csv_allreduce(t, path, e)) < 0)
				goto fail_pack;
			set_src(t, MFU_P_ALLREDUCE, g->tables, cs[i].name, "allreduce");
		}
		if ((rc = load_attn_kind(&lp, t, MFU_P_MLA_PREFILL, MFUPACK_MLA_PREFILL, true, base, g->tables, cs[i].name,
					 "mla_prefill", &t->mla_prefill, &t->nmla_prefill, e)) < 0)
			goto fail_pack;
		if ((rc = load_attn_kind(&lp, t, MFU_P_MLA_DECODE, MFUPACK_MLA_DECODE, false, base, g->tables, cs[i].name,
					 "mla_decode", &t->mla_decode, &t->nmla_decode, e)) < 0)
			goto fail_pack;
		if ((rc = load_attn_kind(&lp, t, MFU_P_MLA_PREFILL_ABS, MFUPACK_MLA_PREFILL_ABS, true, base, g->tables, cs[i].name,
					 "mla_prefill_absorbed", &t->mla_prefill_abs, &t->nmla_prefill_abs, e)) < 0)
			goto fail_pack;
		for (k = 0; k < 2; k++) {
			/* sliding-window tables: the first collection that has them,
			 * rebased on its own dense rows */
			enum mfu_part wp = k ? MFU_P_ATTN_DECODE_WIN : MFU_P_ATTN_PREFILL_WIN;
			enum mfu_part dp = k ? MFU_P_ATTN_DECODE : MFU_P_ATTN_PREFILL;
			const char *dn = k ? "attn_decode" : "attn_prefill";
			char dsrc[112], dpath[900];
			FMT(path, "%.700s/%.63s/%s_window.csv.gz", base, cs[i].name, dn);
			if (t->src[wp][0] || !paths_exists(path))
				continue;
			FMT(dpath, "%.700s/%.63s/%s.csv.gz", base, cs[i].name, dn);
			FMT(dsrc, "mfu/%.31s/%.48s/%.20s", g->tables, cs[i].name, dn); /* as set_src */
			if ((rc = load_window_part(&lp, k ? MFUPACK_ATTN_DECODE_WIN : MFUPACK_ATTN_PREFILL_WIN,
						   path, !k, dpath, strcmp(t->src[dp], dsrc) == 0,
						   k ? t->decode : t->prefill, k ? t->ndecode : t->nprefill,
						   k ? &t->decode_win : &t->prefill_win,
						   k ? &t->ndecode_win : &t->nprefill_win, e)) < 0)
				goto fail_pack;
			if (k ? t->ndecode_win : t->nprefill_win) {
				char wn[32];
				FMT(wn, "%s_window", dn);
				set_src(t, wp, g->tables, cs[i].name, wn);
			}
		}
		FMT(path, "%.700s/%.63s/moe.csv.gz", base, cs[i].name);
		if (paths_exists(path)) { /* loaded on demand */
			if (!t->moe_path[0]) {
				FMT(t->moe_path, "%.699s", path);
				set_src(t, MFU_P_MOE, g->tables, cs[i].name, "moe");
			} else if (t->nmoe_more < MFU_MOE_MORE) {
				FMT(t->moe_more_path[t->nmoe_more], "%.699s", path);
				FMT(t->moe_more_src[t->nmoe_more], "mfu/%.31s/%.48s/moe", g->tables, cs[i].name);
				t->nmoe_more++;
			}
		}
		keep_pack(t, lp.p);
		continue;
fail_pack:
		keep_pack(t, lp.p);
		goto fail;
	}
	if (g->measured[0]) {
		mfu_attn_extend_own(t->prefill, t->nprefill);
		mfu_attn_extend_own(t->decode, t->ndecode);
		mfu_attn_extend_own(t->mla_prefill, t->nmla_prefill);
		mfu_attn_extend_own(t->mla_decode, t->nmla_decode);
		mfu_attn_anchor_own(t->prefill, t->nprefill);
		mfu_attn_anchor_own(t->decode, t->ndecode);
		mfu_attn_anchor_own(t->mla_prefill, t->nmla_prefill);
		mfu_attn_anchor_own(t->mla_decode, t->nmla_decode);
	}
	return 0;
fail:
	mfu_release(t);
	return rc;
}

int mfu_load_moe(struct mfu_tables *t, const struct gpu_spec *g, enum moe_dist d, struct err *e)
{
	return mfu_load_moe_opt(t, g, d, true, e);
}

/* The MoE table at path for distribution d into *tab (a no-op when d's
 * rows are there): from the pack beside it when one is current, else the
 * CSV's rows of d only (the others, two thirds of a 100k-row table, are not
 * parsed). */
static int load_moe_at(struct mfu_tables *t, const char *path, const struct gpu_spec *g, enum moe_dist d,
		       bool use_pack, struct moetab **tab, struct err *e)
{
	if (moetab_has_dist(*tab, d))
		return 0;
	if (use_pack) {
		char dir[700];
		const char *slash = strrchr(path, '/');
		struct mfu_pack *pk;
		int used;
		FMT(dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
		pk = mfupack_open(dir, g);
		used = pk && mfupack_moe(pk, d, path, tab) == 0;
		if (used) {
			keep_pack(t, pk); /* the curves were read from it in place */
			return 0;
		}
		mfupack_close(pk);
	}
	return moetab_load_dist(path, g, d, tab, e);
}

int mfu_load_moe_opt(struct mfu_tables *t, const struct gpu_spec *g, enum moe_dist d,
		     bool use_pack, struct err *e)
{
	size_t i;
	int rc;

	if (t->moe_own_path[0] && !moetab_has_dist(t->moe_own, d)) {
		struct gpu_spec own;
		own_spec(g, &own);
		if ((rc = moetab_load_dist(t->moe_own_path, &own, d, &t->moe_own, e)) < 0)
			return rc;
	}
	if (!t->moe_path[0])
		return 0;
	if ((rc = load_moe_at(t, t->moe_path, g, d, use_pack, &t->moe, e)) < 0)
		return rc;
	for (i = 0; i < t->nmoe_more; i++)
		if ((rc = load_moe_at(t, t->moe_more_path[i], g, d, use_pack, &t->moe_more[i], e)) < 0)
			return rc;
	return 0;
}

int mfu_load_dir(struct mfu_tables *t, const char *dir, const struct gpu_spec *g, struct err *e)
{
	char path[900];
	unsigned got = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/gemm.csv.gz", t->dir);
	if (paths_exists(path) && (rc = mfu_csv_gemm(t, path, g, &got, e)) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/attn_prefill.csv.gz", t->dir);
	if (paths_exists(path) && (rc = mfu_csv_attn(path, true, g, &t->prefill, &t->nprefill, e)) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/attn_decode.csv.gz", t->dir);
	if (paths_exists(path) && (rc = mfu_csv_attn(path, false, g, &t->decode, &t->ndecode, e)) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/allreduce.csv.gz", t->dir);
	if (paths_exists(path) && (rc = mfu_csv_allreduce(t, path, e)) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/moe.csv.gz", t->dir);
	if (paths_exists(path))
		FMT(t->moe_path, "%.699s", path);
	{
		static const char *const fn[MFU_P__COUNT] = {"gemm", "gemm", "gemm", "attn_prefill",
			"attn_decode", "allreduce", "moe", "mla_prefill", "mla_decode",
			"attn_prefill_window", "attn_decode_window", "mla_prefill_absorbed"};
		bool have[MFU_P__COUNT];
		int k;
		have[MFU_P_GEMM_BF16] = t->have_gemm[DT_BF16];
		have[MFU_P_GEMM_FP8] = t->have_gemm[DT_FP8];
		have[MFU_P_GEMM_FP4] = t->have_gemm[DT_FP4];
		have[MFU_P_ATTN_PREFILL] = t->nprefill > 0;
		have[MFU_P_ATTN_DECODE] = t->ndecode > 0;
		have[MFU_P_ALLREDUCE] = t->ar_len[2] + t->ar_len[4] + t->ar_len[8] > 0;
		have[MFU_P_MOE] = t->moe_path[0] != '\0';
		have[MFU_P_MLA_PREFILL] = have[MFU_P_MLA_DECODE] = false;
		have[MFU_P_ATTN_PREFILL_WIN] = have[MFU_P_ATTN_DECODE_WIN] = have[MFU_P_MLA_PREFILL_ABS] = false;
		for (k = 0; k < MFU_P__COUNT; k++)
			if (have[k])
				snprintf(t->src[k], sizeof(t->src[k]), "%s/%s", dir, fn[k]);
	}
	if (!t->have_gemm[DT_BF16] || !t->nprefill || !t->ndecode)
		snprintf(t->warning, sizeof(t->warning),
			 "incomplete kernel tables in %s: defaults fill the gaps", t->dir);
	return 0;
fail:
	mfu_release(t);
	return rc;
}

