/* test_mfupack.c - the compact kernel tables (src/hw/mfupack.h) give the
 * CSV parse's grids, curves and labels bit for bit, for every GPU of
 * data/gpus.json with tables and every collection (each one first in the
 * fallback order once, so every section of every pack is read), and a pack
 * whose CSV changed, or made for other figures, is not used.  Every section
 * with a CSV is read from its pack (a section the reader refused would
 * fall back to the CSV silently and hide a slow start). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "hw/mfupack.h"
#include "base/paths.h"
#include "base/sbuf.h"

static bool grid_eq(const struct mfu_grid *a, const struct mfu_grid *b)
{
	size_t d, total = 1;

	if (a->dims != b->dims)
		return false;
	for (d = 0; d < 3; d++)
		if (a->len[d] != b->len[d])
			return false;
	for (d = 0; d < a->dims; d++) {
		if (memcmp(a->axis[d], b->axis[d], a->len[d] * sizeof(double)) != 0)
			return false;
		total *= a->len[d];
	}
	return memcmp(a->v, b->v, total * sizeof(double)) == 0;
}

static bool cfgs_eq(const struct mfu_attn_cfg *a, size_t na, const struct mfu_attn_cfg *b, size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (a[i].heads != b[i].heads || a[i].kv_heads != b[i].kv_heads ||
		    a[i].head_dim != b[i].head_dim || a[i].kv_dtype != b[i].kv_dtype ||
		    a[i].window != b[i].window || !grid_eq(&a[i].g, &b[i].g))
			return false;
	return true;
}

/* Every field of two loaded table sets, bit for bit. */
static bool tables_eq(const struct mfu_tables *a, const struct mfu_tables *b, const char **what)
{
	int d;

	for (d = 0; d < DT__COUNT; d++)
		if (a->have_gemm[d] != b->have_gemm[d] ||
		    (a->have_gemm[d] && !grid_eq(&a->gemm[d], &b->gemm[d]))) {
			*what = "gemm";
			return false;
		}
	*what = "attention";
	if (!cfgs_eq(a->prefill, a->nprefill, b->prefill, b->nprefill) ||
	    !cfgs_eq(a->decode, a->ndecode, b->decode, b->ndecode))
		return false;
	*what = "mla";
	if (!cfgs_eq(a->mla_prefill, a->nmla_prefill, b->mla_prefill, b->nmla_prefill) ||
	    !cfgs_eq(a->mla_decode, a->nmla_decode, b->mla_decode, b->nmla_decode))
		return false;
	*what = "sliding-window attention";
	if (!cfgs_eq(a->prefill_win, a->nprefill_win, b->prefill_win, b->nprefill_win) ||
	    !cfgs_eq(a->decode_win, a->ndecode_win, b->decode_win, b->ndecode_win))
		return false;
	*what = "allreduce";
	for (d = 0; d < 9; d++)
		if (a->ar_len[d] != b->ar_len[d] ||
		    (a->ar_len[d] && (memcmp(a->ar_size[d], b->ar_size[d], a->ar_len[d] * 8) != 0 ||
				      memcmp(a->ar_lat[d], b->ar_lat[d], a->ar_len[d] * 8) != 0)))
			return false;
	*what = "labels";
	if (strcmp(a->moe_path, b->moe_path) != 0 || strcmp(a->dir, b->dir) != 0 ||
	    strcmp(a->engine, b->engine) != 0 || strcmp(a->version, b->version) != 0 ||
	    strcmp(a->warning, b->warning) != 0 || a->nearest != b->nearest)
		return false;
	for (d = 0; d < MFU_P__COUNT; d++)
		if (strcmp(a->src[d], b->src[d]) != 0)
			return false;
	return true;
}

static bool moe_eq(const struct moetab *a, const struct moetab *b, enum moe_dist d)
{
	struct sbuf x, y;
	bool eq;

	if (!a || !b)
		return a == b;
	sb_init(&x);
	sb_init(&y);
	moetab_pack_dist(a, d, &x);
	moetab_pack_dist(b, d, &y);
	eq = x.len == y.len && memcmp(x.buf, y.buf, x.len) == 0;
	sb_release(&x);
	sb_release(&y);
	return eq;
}

/* The first section of pk that has a CSV in dir but is not read from the
 * pack, or NULL. */
static const char *sections_read(struct mfu_pack *pk, const char *dir)
{
	static const char *const attn[] = {"attn_prefill", "attn_decode", "mla_prefill", "mla_decode",
					   "attn_prefill_window", "attn_decode_window", "mla_prefill_absorbed"};
	static const enum mfupack_sec asec[] = {MFUPACK_ATTN_PREFILL, MFUPACK_ATTN_DECODE,
						MFUPACK_MLA_PREFILL, MFUPACK_MLA_DECODE,
						MFUPACK_ATTN_PREFILL_WIN, MFUPACK_ATTN_DECODE_WIN,
						MFUPACK_MLA_PREFILL_ABS};
	char csv[1800];
	struct mfu_tables t;
	unsigned got = 0;
	int k, rc;

	memset(&t, 0, sizeof(t));
	snprintf(csv, sizeof(csv), "%s/gemm.csv.gz", dir);
	rc = paths_exists(csv) ? mfupack_gemm(pk, csv, &t, &got) : 0;
	mfu_release(&t);
	if (rc < 0)
		return "gemm";
	for (k = 0; k < 7; k++) {
		snprintf(csv, sizeof(csv), "%s/%s.csv.gz", dir, attn[k]);
		rc = paths_exists(csv) ? mfupack_attn(pk, asec[k], csv, &t.prefill, &t.nprefill) : 0;
		mfu_release(&t);
		if (rc < 0)
			return attn[k];
	}
	snprintf(csv, sizeof(csv), "%s/allreduce.csv.gz", dir);
	rc = paths_exists(csv) ? mfupack_allreduce(pk, csv, &t) : 0;
	mfu_release(&t);
	if (rc < 0)
		return "allreduce";
	snprintf(csv, sizeof(csv), "%s/moe.csv.gz", dir);
	for (k = 0; k < MOE_DIST__COUNT && paths_exists(csv); k++) {
		struct moetab *m = NULL;
		rc = mfupack_moe(pk, (enum moe_dist)k, csv, &m);
		moetab_free(m);
		if (rc < 0)
			return moe_dist_name((enum moe_dist)k);
	}
	return NULL;
}

/* The packed grids are read in place (start-up faults no copies in; the
 * GPU's own measurements and the grids rebased on them are owned), the
 * parsed ones are not; a grid given arrays of its own keeps its values. */
static void in_place(struct mfu_tables *a, const struct mfu_tables *b, const char *gpu, const char *coll)
{
	struct mfu_grid *g = NULL;
	const struct mfu_grid *ref = NULL;
	size_t i, total;
	bool mapped = false, parsed = b->npacks == 0;
	int d;

	for (d = 0; d < DT__COUNT; d++) {
		parsed &= !b->gemm[d].mapped;
		if (a->have_gemm[d] && a->gemm[d].mapped && !g) {
			g = &a->gemm[d];
			ref = &b->gemm[d];
		}
	}
	for (i = 0; i < a->nprefill; i++)
		mapped |= a->prefill[i].g.mapped;
	for (i = 0; i < b->nprefill; i++)
		parsed &= !b->prefill[i].g.mapped;
	CHECK(a->npacks > 0 && (mapped || g) && parsed,
	      "%s %s: packed grids read in place, parsed ones owned", gpu, coll);
	if (!g)
		return;
	mfu_grid_unshare(g);
	total = g->len[0] * (g->dims > 1 ? g->len[1] : 1) * (g->dims > 2 ? g->len[2] : 1);
	CHECK(!g->mapped && memcmp(g->v, ref->v, total * sizeof(double)) == 0 &&
	      memcmp(g->axis[0], ref->axis[0], g->len[0] * sizeof(double)) == 0,
	      "%s %s: an unshared grid owns copies of the same values", gpu, coll);
}

/* One GPU and one collection first: packed against parsed. */
static void compare(const char *datadir, const struct gpu_spec *g, const char *coll)
{
	char engine[16], dir[1600];
	const char *dash = strchr(coll, '-'), *what = "";
	struct mfu_tables a, b;
	struct mfu_pack *pk;
	struct err e;
	int d;
	bool ok = true;

	snprintf(engine, sizeof(engine), "%.*s", (int)(dash - coll), coll);
	snprintf(dir, sizeof(dir), "%s/mfu/%s/%s", datadir, g->tables, coll);
	pk = mfupack_open(dir, g);
	CHECK(pk != NULL, "%s %s: pack present and made for this GPU's figures", g->id, coll);
	if (pk) {
		const char *bad = sections_read(pk, dir);
		CHECK(bad == NULL, "%s %s: every section with a CSV is read from the pack%s%s", g->id,
		      coll, bad ? ", not " : "", bad ? bad : "");
	}
	mfupack_close(pk);
	if (mfu_load_opt(&a, datadir, g, engine, "vllm", dash + 1, true, &e) < 0 ||
	    mfu_load_opt(&b, datadir, g, engine, "vllm", dash + 1, false, &e) < 0) {
		CHECK(0, "%s %s: load: %s", g->id, coll, e.msg);
		return;
	}
	for (d = 0; d < MOE_DIST__COUNT && ok; d++) {
		if (mfu_load_moe_opt(&a, g, (enum moe_dist)d, true, &e) < 0 ||
		    mfu_load_moe_opt(&b, g, (enum moe_dist)d, false, &e) < 0) {
			CHECK(0, "%s %s: moe: %s", g->id, coll, e.msg);
			ok = false;
		} else if (!moe_eq(a.moe, b.moe, (enum moe_dist)d)) {
			what = moe_dist_name((enum moe_dist)d);
			ok = false;
		}
	}
	if (ok)
		ok = tables_eq(&a, &b, &what);
	CHECK(ok, "%s %s: packed tables identical to the CSV parse%s%s", g->id, coll,
	      ok ? "" : ", differ in ", ok ? "" : what);
	in_place(&a, &b, g->id, coll);
	mfu_release(&a);
	mfu_release(&b);
}

static void test_all(const char *datadir, const struct gpu_db *db)
{
	size_t i;

	for (i = 0; i < db->n; i++) {
		const struct gpu_spec *g = &db->gpus[i];
		char base[1200];
		DIR *dd;
		struct dirent *de;
		if (!g->tables[0])
			continue;
		snprintf(base, sizeof(base), "%s/mfu/%s", datadir, g->tables);
		if (!(dd = opendir(base)))
			continue;
		while ((de = readdir(dd)) != NULL)
			if (de->d_name[0] != '.' && strchr(de->d_name, '-'))
				compare(datadir, g, de->d_name);
		closedir(dd);
	}
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	int rc = a && b ? 0 : -1;

	while (rc == 0 && (n = fread(buf, 1, sizeof(buf), a)) > 0)
		if (fwrite(buf, 1, n, b) != n)
			rc = -1;
	if (a)
		fclose(a);
	if (b && fclose(b) != 0)
		rc = -1;
	return rc;
}

/* A pack is ignored once its CSV changes, and for other GPU figures. */
/* The L40S of db and a fresh temporary folder in tmpl (a mkdtemp
 * template); NULL, with a failed check, when either is missing. */
static const struct gpu_spec *l40s_and_tmpdir(const struct gpu_db *db, char *tmpl)
{
	size_t i;

	for (i = 0; i < db->n; i++)
		if (strcmp(db->gpus[i].id, "l40s") == 0 && mkdtemp(tmpl))
			return &db->gpus[i];
	CHECK(0, "l40s and a temporary folder");
	return NULL;
}

static void test_stale(const char *datadir, const struct gpu_db *db)
{
	char tmpl[] = "/tmp/servesim-mfupack-XXXXXX", from[1200], to[1200];
	const struct gpu_spec *g = NULL;
	struct gpu_spec other;
	struct mfu_pack *pk;
	struct mfu_tables t;
	struct timespec ts[2];
	struct err e;
	unsigned got = 0;

	if (!(g = l40s_and_tmpdir(db, tmpl)))
		return;
	snprintf(from, sizeof(from), "%s/mfu/l40s/vllm-0.14.0/gemm.csv.gz", datadir);
	snprintf(to, sizeof(to), "%s/gemm.csv.gz", tmpl);
	if (copy_file(from, to) < 0 || mfupack_write(tmpl, g, &e) < 0) {
		CHECK(0, "pack a copied table: %s", e.msg);
		goto out;
	}
	memset(&t, 0, sizeof(t));
	pk = mfupack_open(tmpl, g);
	CHECK(pk && mfupack_gemm(pk, to, &t, &got) == 0 && t.have_gemm[DT_BF16],
	      "a fresh pack is read");
	mfu_release(&t);
	/* the CSV touched one second later: the section is stale */
	ts[0].tv_sec = ts[1].tv_sec = 1000000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	CHECK(pk && utimensat(AT_FDCWD, to, ts, 0) == 0 && mfupack_gemm(pk, to, &t, &got) == -1 &&
	      !t.have_gemm[DT_BF16], "a pack whose CSV changed is not used");
	mfupack_close(pk);
	other = *g;
	other.peak_flops[DT_BF16] *= 1.0000001;
	CHECK(mfupack_open(tmpl, &other) == NULL, "a pack made for other GPU figures is not used");
	{
		char pack[1300];
		snprintf(pack, sizeof(pack), "%s/compact-l40s.bin", tmpl);
		unlink(pack);
	}
out:
	unlink(to);
	rmdir(tmpl);
}

/* A windowed section is packed rebased on its collection's dense rows: it
 * is read only while both CSVs are as packed, and not packed at all
 * without the dense CSV beside it. */
static void test_stale_window(const char *datadir, const struct gpu_db *db)
{
	char tmpl[] = "/tmp/servesim-mfupack-XXXXXX", from[1200], win[1200], dense[1200], pack[1300];
	const struct gpu_spec *g = NULL;
	struct mfu_pack *pk;
	struct mfu_tables t;
	struct timespec ts[2];
	struct err e;

	if (!(g = l40s_and_tmpdir(db, tmpl)))
		return;
	memset(&t, 0, sizeof(t));
	snprintf(pack, sizeof(pack), "%s/compact-l40s.bin", tmpl);
	snprintf(win, sizeof(win), "%s/attn_prefill_window.csv.gz", tmpl);
	snprintf(dense, sizeof(dense), "%s/attn_prefill.csv.gz", tmpl);
	snprintf(from, sizeof(from), "%s/mfu/l40s/vllm-0.24.0/attn_prefill_window.csv.gz", datadir);
	if (copy_file(from, win) < 0 || mfupack_write(tmpl, g, &e) < 0) {
		CHECK(0, "pack a copied windowed table: %s", e.msg);
		goto out;
	}
	pk = mfupack_open(tmpl, g);
	CHECK(pk && mfupack_attn(pk, MFUPACK_ATTN_PREFILL_WIN, win, &t.prefill_win, &t.nprefill_win) == -1 &&
	      t.nprefill_win == 0, "a windowed table without its dense one is not packed");
	mfupack_close(pk);
	snprintf(from, sizeof(from), "%s/mfu/l40s/vllm-0.24.0/attn_prefill.csv.gz", datadir);
	if (copy_file(from, dense) < 0 || mfupack_write(tmpl, g, &e) < 0) {
		CHECK(0, "pack a copied dense table: %s", e.msg);
		goto out;
	}
	pk = mfupack_open(tmpl, g);
	CHECK(pk && mfupack_attn(pk, MFUPACK_ATTN_PREFILL_WIN, win, &t.prefill_win, &t.nprefill_win) == 0 &&
	      t.nprefill_win > 0, "a windowed table beside its dense one is read from the pack");
	mfu_release(&t);
	/* the dense CSV touched: the windowed grids were rebased on other rows */
	ts[0].tv_sec = ts[1].tv_sec = 1000000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	CHECK(pk && utimensat(AT_FDCWD, dense, ts, 0) == 0 &&
	      mfupack_attn(pk, MFUPACK_ATTN_PREFILL_WIN, win, &t.prefill_win, &t.nprefill_win) == -1 &&
	      t.nprefill_win == 0, "a windowed section whose dense CSV changed is not used");
	mfupack_close(pk);
out:
	unlink(pack);
	unlink(win);
	unlink(dense);
	rmdir(tmpl);
}

/* mfu_gemm_col_eval is mfu_gemm bit for bit, H6 on and off, every dtype
 * (with and without a table of its own), shapes on and off the grid. */
static void test_gemm_col(const char *datadir, const struct gpu_db *db)
{
	static const char *const gpus[] = {"h100-sxm", "b200", "h20", "mi355x", "ascend-a3"};
	static const double nk[][2] = {{4096, 4096}, {6144, 4096}, {14336, 4096}, {1536, 7168},
				       {57344, 8192}, {3, 5}, {1e6, 1e6}};
	size_t gi, i, j, bad = 0, n = 0;
	int dt, h6;

	for (gi = 0; gi < sizeof(gpus) / sizeof(gpus[0]); gi++) {
		const struct gpu_spec *g = NULL;
		struct mfu_tables t;
		struct err e;
		for (i = 0; i < db->n; i++)
			if (strcmp(db->gpus[i].id, gpus[gi]) == 0)
				g = &db->gpus[i];
		if (!g || mfu_load(&t, datadir, g, "vllm", NULL, NULL, &e) < 0) {
			CHECK(0, "load %s", gpus[gi]);
			continue;
		}
		for (h6 = 0; h6 < 2; h6++) {
			t.nearest = h6 == 1;
			for (dt = 0; dt < DT__COUNT; dt++)
				for (i = 0; i < sizeof(nk) / sizeof(nk[0]); i++) {
					struct mfu_gemm_col col;
					mfu_gemm_col_init(&t, (enum dtype)dt, nk[i][0], nk[i][1], &col);
					for (j = 1; j <= 20000; j += j < 64 ? 1 : j / 8 + 1) {
						double m = (double)j * (j % 3 ? 1.0 : 1.37);
						double a = mfu_gemm(&t, (enum dtype)dt, m, nk[i][0], nk[i][1]);
						double b = mfu_gemm_col_eval(&col, m);
						bad += memcmp(&a, &b, sizeof(a)) != 0;
						n++;
					}
				}
		}
		mfu_release(&t);
	}
	CHECK(bad == 0 && n > 10000, "GEMM column lookups identical to mfu_gemm (%zu of %zu differ)", bad, n);
}

int main(void)
{
	char datadir[1024];
	struct gpu_db db;

	if (fixture_load(datadir, sizeof(datadir), NULL, &db) < 0)
		return 1;
	test_all(datadir, &db);
	test_stale(datadir, &db);
	test_stale_window(datadir, &db);
	test_gemm_col(datadir, &db);
	gpu_db_release(&db);
	return check_done();
}
