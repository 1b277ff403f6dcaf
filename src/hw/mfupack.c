/* mfupack.c - compact kernel tables (see mfupack.h).
 *
 * Why a pack per (collection, GPU) and not per collection: the grids hold
 * utilisation, and a latency becomes utilisation against the GPU's peaks
 * (and, for borrowed tables, its roofline), before the holes are filled; so
 * the filled grids are only the same for the same figures.  `make` writes a
 * pack for every GPU of data/gpus.json with tables, so each start maps
 * finished grids and reads them in place instead of ~100k strtod, log and
 * hole-filling scans.
 *
 * Layout (native byte order and doubles; every count is a u64):
 *   header: magic "SSMFUPK1", format version, byte-order probe, double
 *           probe, DT__COUNT, the GPU figures the values depend on
 *           (peak_flops, hbm_bw, table_peak, table_hbm_bw, compute_eff_scale), section count,
 *           then per section: present, offset, length, and the size and
 *           modification time (s, ns) of its CSV file when packed;
 *   sections: GEMM (per dtype: present, grid), attention, MLA and
 *           sliding-window attention (config count; per config heads,
 *           kv_heads, head_dim, kv dtype, window (0: full), grid; windowed
 *           grids already rebased on the collection's dense rows by
 *           mfu_attn_window_rebase, valid only while the dense CSV is as
 *           packed too),
 *           all-reduce (per GPU count 0..8: length, log sizes, log
 *           latencies), MoE per distribution (moetab_pack_dist);
 *   grid:   dims, len[3], the dims axes, the len[0] x .. values. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/afile.h"
#include "base/alloc.h"
#include "hw/mfupack.h"

#define PACK_MAGIC "SSMFUPK1"
#define PACK_VERSION 7u
#define PACK_BOM UINT64_C(0x0102030405060708)
#define PACK_DPROBE (1.0 / 3.0)

/* The figures of a GPU that its grids depend on (mfu.c borrowed_s and the
 * utilisation; moetab.c's rooflines). */
struct figures {
	double peak[DT__COUNT], hbm_bw, table_peak[DT__COUNT], table_hbm_bw, compute_eff_scale;
};

struct sec {
	uint64_t present, off, len;
	int64_t size, mtime_s, mtime_ns;
};

struct hdr {
	char magic[8];
	uint64_t version, bom;
	double dprobe;
	uint64_t ndt;
	struct figures fig;
	uint64_t nsec;
	struct sec sec[MFUPACK__COUNT];
};

/* The file is mapped whole and read in place: its sections are copied into
 * the grids once, so reading them into a buffer first (pread) only faulted
 * in as many fresh pages again; a read-only mapping of the page cache,
 * populated in one call, costs a fraction of that at start-up. */
struct mfu_pack {
	const unsigned char *map;
	size_t size;
	struct hdr h;
};

static const char *const sec_file[MFUPACK__COUNT] = {
	"gemm.csv.gz", "attn_prefill.csv.gz", "attn_decode.csv.gz", "allreduce.csv.gz",
	"mla_prefill.csv.gz", "mla_decode.csv.gz", "attn_prefill_window.csv.gz",
	"attn_decode_window.csv.gz", "mla_prefill_absorbed.csv.gz", "moe.csv.gz", "moe.csv.gz", "moe.csv.gz"};

/* --- grids --- */

static size_t grid_total(const struct mfu_grid *g)
{
	size_t d, total = 1;

	for (d = 0; d < g->dims; d++)
		total = xmul(total, g->len[d]);
	return total;
}

static void put_grid(struct sbuf *sb, const struct mfu_grid *g)
{
	size_t d;

	bytes_put_u64(sb, g->dims);
	for (d = 0; d < 3; d++)
		bytes_put_u64(sb, g->len[d]);
	for (d = 0; d < g->dims; d++)
		bytes_put(sb, g->axis[d], g->len[d] * sizeof(double));
	bytes_put(sb, g->v, grid_total(g) * sizeof(double));
}

/* n doubles of r: in place (aligned already) or a copy. */
static double *grid_f64s(struct bytes_rd *r, size_t n, bool mapped)
{
	bool aligned;

	if (mapped) /* read-only: mfu_grid.mapped */
		return (double *)(uintptr_t)bytes_view_f64s(r, n, &aligned);
	return bytes_get_f64s(r, n);
}

/* A grid of r; in_place: its arrays read in place where aligned (the
 * buffer then outlives the grid), all or none, so it owns them or not. */
static void get_grid(struct bytes_rd *r, struct mfu_grid *g, bool in_place)
{
	size_t d, total = 1;
	bool mapped = in_place;

	memset(g, 0, sizeof(*g));
	g->dims = bytes_get_u64(r);
	for (d = 0; d < 3; d++)
		g->len[d] = bytes_get_u64(r);
	if (r->bad || g->dims < 1 || g->dims > 3) {
		r->bad = true;
		g->dims = 0;
		return;
	}
	for (d = 0; d < g->dims; d++) {
		size_t left = (size_t)(r->end - r->p) / sizeof(double);
		if (g->len[d] < 1 || g->len[d] > left || total > left / g->len[d]) {
			r->bad = true;
			return;
		}
		total *= g->len[d];
	}
	if (mapped && ((uintptr_t)r->p & (_Alignof(double) - 1)) != 0)
		mapped = false; /* the axes and values follow each other: all or none */
	g->mapped = mapped;
	for (d = 0; d < g->dims && !r->bad; d++) {
		g->axis[d] = grid_f64s(r, g->len[d], mapped);
		if (!r->bad && !bytes_ascending(g->axis[d], g->len[d], true))
			r->bad = true; /* axes are sorted distinct logs */
	}
	g->v = grid_f64s(r, total, mapped);
}

/* --- reading --- */

static void figures_of(const struct gpu_spec *g, struct figures *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->peak, g->peak_flops, sizeof(f->peak));
	f->hbm_bw = g->hbm_bw;
	memcpy(f->table_peak, g->table_peak, sizeof(f->table_peak));
	f->table_hbm_bw = g->table_hbm_bw;
	f->compute_eff_scale = g->compute_eff_scale;
}

/* compact-<id>.bin, or false for an id that is not a plain file name */
static bool pack_name(const char *coll_dir, const struct gpu_spec *g, char *out, size_t n)
{
	int k;

	if (!g->id[0] || g->id[0] == '.' || strchr(g->id, '/'))
		return false;
	k = snprintf(out, n, "%s/compact-%s.bin", coll_dir, g->id);
	return k > 0 && (size_t)k < n;
}

struct mfu_pack *mfupack_open(const char *coll_dir, const struct gpu_spec *g)
{
	char path[1024];
	struct mfu_pack *p;
	struct figures f;
	struct stat st;
	void *map;
	int fd;

	if (!pack_name(coll_dir, g, path, sizeof(path)))
		return NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(struct hdr) ||
	    (uint64_t)st.st_size > SIZE_MAX / 2 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	close(fd);
	p = xcalloc(1, sizeof(*p));
	p->map = map;
	p->size = (size_t)st.st_size;
	figures_of(g, &f);
	memcpy(&p->h, p->map, sizeof(p->h));
	if (memcmp(p->h.magic, PACK_MAGIC, 8) != 0 || p->h.version != PACK_VERSION ||
	    p->h.bom != PACK_BOM || p->h.dprobe != PACK_DPROBE || p->h.ndt != DT__COUNT ||
	    p->h.nsec != MFUPACK__COUNT || memcmp(&p->h.fig, &f, sizeof(f)) != 0) {
		mfupack_close(p);
		return NULL;
	}
	return p;
}

void mfupack_detach(struct mfu_pack *p, struct mfu_map *m)
{
	m->addr = p->map;
	m->len = p->size;
	free(p);
}

void mfupack_close(struct mfu_pack *p)
{
	if (!p)
		return;
	munmap((void *)p->map, p->size);
	free(p);
}

/* Whether section s is packed and csv_path is as it was when packed. */
static bool sec_fresh(const struct mfu_pack *p, enum mfupack_sec s, const char *csv_path)
{
	const struct sec *x = &p->h.sec[s];
	struct stat st;

	return x->present && stat(csv_path, &st) == 0 && (int64_t)st.st_size == x->size &&
	       (int64_t)st.st_mtim.tv_sec == x->mtime_s && (int64_t)st.st_mtim.tv_nsec == x->mtime_ns;
}

/* The dense attention section a windowed one is rebased on, and that
 * section's CSV beside csv_path (the windowed table's) in out; false when
 * s is not windowed or the path does not fit. */
static bool dense_of_window(enum mfupack_sec s, const char *csv_path, enum mfupack_sec *dense, char *out,
			    size_t cap)
{
	const char *slash;
	int n;

	if (s != MFUPACK_ATTN_PREFILL_WIN && s != MFUPACK_ATTN_DECODE_WIN)
		return false;
	*dense = s == MFUPACK_ATTN_PREFILL_WIN ? MFUPACK_ATTN_PREFILL : MFUPACK_ATTN_DECODE;
	slash = strrchr(csv_path, '/');
	n = snprintf(out, cap, "%.*s%s", slash ? (int)(slash - csv_path + 1) : 0, csv_path, sec_file[*dense]);
	return n > 0 && (size_t)n < cap;
}

/* The payload of section s if it is there and csv_path is as packed (a
 * windowed section: and its collection's dense CSV too, which its grids
 * were rebased on). */
static const unsigned char *read_sec(struct mfu_pack *p, enum mfupack_sec s, const char *csv_path,
				     size_t *len)
{
	const struct sec *x = &p->h.sec[s];
	enum mfupack_sec ds;
	char dense[1024];

	if (!sec_fresh(p, s, csv_path) || x->off > p->size || x->len > p->size - x->off)
		return NULL;
	if (s == MFUPACK_ATTN_PREFILL_WIN || s == MFUPACK_ATTN_DECODE_WIN) {
		if (!dense_of_window(s, csv_path, &ds, dense, sizeof(dense)) || !sec_fresh(p, ds, dense))
			return NULL;
	}
	*len = (size_t)x->len;
	return p->map + x->off;
}

int mfupack_parse_gemm(const unsigned char *buf, size_t len, struct mfu_tables *t, unsigned *got,
		       bool in_place)
{
	struct mfu_grid g[DT__COUNT];
	bool have[DT__COUNT];
	struct bytes_rd r;
	int d;

	if (!buf)
		return -1;
	r.p = buf;
	r.end = buf + len;
	r.bad = false;
	memset(g, 0, sizeof(g));
	for (d = 0; d < DT__COUNT; d++) {
		have[d] = bytes_get_u64(&r) != 0;
		if (have[d])
			get_grid(&r, &g[d], in_place);
	}
	for (d = 0; d < DT__COUNT; d++) {
		if (!r.bad && r.p == r.end && have[d] && !t->have_gemm[d]) {
			t->gemm[d] = g[d];
			t->have_gemm[d] = true;
			*got |= 1u << d;
		} else {
			mfu_grid_release(&g[d]);
		}
	}
	return r.bad || r.p != r.end ? -1 : 0;
}

int mfupack_gemm(struct mfu_pack *p, const char *csv_path, struct mfu_tables *t, unsigned *got)
{
	size_t len = 0;
	const unsigned char *buf = read_sec(p, MFUPACK_GEMM, csv_path, &len);

	return buf ? mfupack_parse_gemm(buf, len, t, got, true) : -1;
}

int mfupack_parse_attn(const unsigned char *buf, size_t len, struct mfu_attn_cfg **out,
		       size_t *nout, bool in_place)
{
	struct bytes_rd r;
	struct mfu_attn_cfg *cfg = NULL;
	size_t n, i;

	if (!buf)
		return -1;
	r.p = buf;
	r.end = buf + len;
	r.bad = false;
	n = bytes_get_u64(&r);
	if (n > len / 64)
		r.bad = true;
	if (!r.bad && n > 0)
		cfg = xcalloc(n, sizeof(*cfg));
	for (i = 0; i < n && !r.bad; i++) {
		int64_t v[5];
		bytes_get(&r, v, sizeof(v));
		cfg[i].heads = (int)v[0];
		cfg[i].kv_heads = (int)v[1];
		cfg[i].head_dim = (int)v[2];
		cfg[i].kv_dtype = v[3] == DT_FP8 ? DT_FP8 : DT_BF16;
		cfg[i].window = v[4] > 0 && v[4] <= 1000000000 ? (int)v[4] : 0;
		get_grid(&r, &cfg[i].g, in_place);
		/* an attention grid is (log batch, log length): mfu_attn_eval_log
		 * and the per-length rows read exactly two coordinates */
		if (!r.bad && cfg[i].g.dims != 2)
			r.bad = true;
	}
	if (r.bad || r.p != r.end) {
		for (i = 0; cfg && i < n; i++)
			mfu_grid_release(&cfg[i].g);
		free(cfg);
		return -1;
	}
	*out = cfg;
	*nout = n;
	return 0;
}

int mfupack_attn(struct mfu_pack *p, enum mfupack_sec sec, const char *csv_path,
		 struct mfu_attn_cfg **out, size_t *nout)
{
	size_t len = 0;
	const unsigned char *buf = read_sec(p, sec, csv_path, &len);

	return buf ? mfupack_parse_attn(buf, len, out, nout, true) : -1;
}

int mfupack_parse_allreduce(const unsigned char *buf, size_t len, struct mfu_tables *t)
{
	size_t n[9];
	double *sz[9], *l[9];
	struct bytes_rd r;
	int k;

	if (!buf)
		return -1;
	r.p = buf;
	r.end = buf + len;
	r.bad = false;
	for (k = 0; k < 9; k++) {
		n[k] = bytes_get_u64(&r);
		sz[k] = bytes_get_f64s(&r, n[k]);
		l[k] = bytes_get_f64s(&r, n[k]);
		if (!r.bad && !bytes_ascending(sz[k], n[k], false))
			r.bad = true;
	}
	for (k = 0; k < 9; k++) {
		if (r.bad || r.p != r.end) {
			free(sz[k]);
			free(l[k]);
			continue;
		}
		t->ar_size[k] = sz[k];
		t->ar_lat[k] = l[k];
		t->ar_len[k] = n[k];
	}
	return r.bad || r.p != r.end ? -1 : 0;
}

int mfupack_allreduce(struct mfu_pack *p, const char *csv_path, struct mfu_tables *t)
{
	size_t len = 0;
	const unsigned char *buf = read_sec(p, MFUPACK_ALLREDUCE, csv_path, &len);

	return buf ? mfupack_parse_allreduce(buf, len, t) : -1;
}

int mfupack_moe(struct mfu_pack *p, enum moe_dist d, const char *csv_path, struct moetab **t)
{
	size_t len = 0;
	const unsigned char *buf;

	if ((unsigned)d >= MOE_DIST__COUNT)
		return -1;
	if (!(buf = read_sec(p, (enum mfupack_sec)(MFUPACK_MOE_0 + d), csv_path, &len)))
		return -1;
	return moetab_view_dist(buf, len, d, t);
}

/* --- writing --- */

/* The MoE table with every distribution, parsed once for the three MoE
 * sections (moetab_pack_dist takes one distribution's curves, in the order
 * loading that distribution alone gives: test_mfupack checks it). */
struct moe_all {
	struct moetab *t;
	bool tried, ok;
};

/* The payload of section s parsed from csv (false: it does not parse). */
static bool pack_sec(enum mfupack_sec s, const char *csv, const struct gpu_spec *g,
		     struct moe_all *moe, struct sbuf *out)
{
	struct mfu_tables t;
	struct err e;
	bool ok = false;
	int d, k;
	size_t i;

	memset(&t, 0, sizeof(t));
	switch (s) {
	case MFUPACK_GEMM: {
		unsigned got = 0;
		if (mfu_csv_gemm(&t, csv, g, &got, &e) < 0)
			break;
		for (d = 0; d < DT__COUNT; d++) {
			bytes_put_u64(out, t.have_gemm[d]);
			if (t.have_gemm[d])
				put_grid(out, &t.gemm[d]);
		}
		ok = true;
		break;
	}
	case MFUPACK_ATTN_PREFILL:
	case MFUPACK_ATTN_DECODE:
	case MFUPACK_MLA_PREFILL:
	case MFUPACK_MLA_DECODE:
	case MFUPACK_ATTN_PREFILL_WIN:
	case MFUPACK_ATTN_DECODE_WIN:
	case MFUPACK_MLA_PREFILL_ABS: {
		bool prefill = s == MFUPACK_ATTN_PREFILL || s == MFUPACK_MLA_PREFILL ||
			       s == MFUPACK_ATTN_PREFILL_WIN || s == MFUPACK_MLA_PREFILL_ABS;
		bool win = s == MFUPACK_ATTN_PREFILL_WIN || s == MFUPACK_ATTN_DECODE_WIN;
		if ((win ? mfu_csv_attn_window(csv, prefill, g, &t.prefill, &t.nprefill, &e)
			 : mfu_csv_attn(csv, prefill, g, &t.prefill, &t.nprefill, &e)) < 0)
			break;
		if (win) {
			/* rebased here once, on the collection's own dense rows
			 * (held in t.decode, released with t), as mfuload.c's
			 * CSV path does when it has no pack */
			enum mfupack_sec ds;
			char dense[1024];
			if (!dense_of_window(s, csv, &ds, dense, sizeof(dense)) ||
			    mfu_csv_attn(dense, prefill, g, &t.decode, &t.ndecode, &e) < 0)
				break;
			mfu_attn_window_rebase(t.prefill, t.nprefill, t.decode, t.ndecode, prefill);
		}
		bytes_put_u64(out, t.nprefill);
		for (i = 0; i < t.nprefill; i++) {
			const struct mfu_attn_cfg *c = &t.prefill[i];
			int64_t v[5] = {c->heads, c->kv_heads, c->head_dim, c->kv_dtype, c->window};
			bytes_put(out, v, sizeof(v));
			put_grid(out, &c->g);
		}
		ok = true;
		break;
	}
	case MFUPACK_ALLREDUCE:
		if (mfu_csv_allreduce(&t, csv, &e) < 0)
			break;
		for (k = 0; k < 9; k++) {
			bytes_put_u64(out, t.ar_len[k]);
			bytes_put(out, t.ar_size[k], t.ar_len[k] * sizeof(double));
			bytes_put(out, t.ar_lat[k], t.ar_len[k] * sizeof(double));
		}
		ok = true;
		break;
	default:
		if (!moe->tried) {
			moe->tried = true;
			moe->ok = moetab_load(csv, g, &moe->t, &e) == 0;
		}
		if (!moe->ok)
			break;
		moetab_pack_dist(moe->t, (enum moe_dist)(s - MFUPACK_MOE_0), out);
		ok = true;
		break;
	}
	mfu_release(&t);
	return ok;
}

int mfupack_write(const char *coll_dir, const struct gpu_spec *g, struct err *e)
{
	struct hdr h;
	struct sbuf body;
	struct afile af;
	char path[1024], csv[1024];
	struct moe_all moe = {NULL, false, false};
	int s, rc;

	if (!pack_name(coll_dir, g, path, sizeof(path)))
		return err_set(e, SS_EUSAGE, "%s: GPU id '%s' cannot name a pack file", coll_dir, g->id);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PACK_MAGIC, 8);
	h.version = PACK_VERSION;
	h.bom = PACK_BOM;
	h.dprobe = PACK_DPROBE;
	h.ndt = DT__COUNT;
	figures_of(g, &h.fig);
	h.nsec = MFUPACK__COUNT;
	sb_init(&body);
	for (s = 0; s < MFUPACK__COUNT; s++) {
		struct stat st;
		size_t at = body.len;
		snprintf(csv, sizeof(csv), "%s/%s", coll_dir, sec_file[s]);
		if (stat(csv, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (!pack_sec((enum mfupack_sec)s, csv, g, &moe, &body)) {
			body.len = at; /* left to the CSV parse at run time */
			continue;
		}
		h.sec[s].present = 1;
		h.sec[s].off = sizeof(h) + at;
		h.sec[s].len = body.len - at;
		h.sec[s].size = (int64_t)st.st_size;
		h.sec[s].mtime_s = (int64_t)st.st_mtim.tv_sec;
		h.sec[s].mtime_ns = (int64_t)st.st_mtim.tv_nsec;
	}
	if ((rc = afile_open(&af, path, e)) < 0)
		goto out;
	if (fwrite(&h, sizeof(h), 1, af.f) != 1 ||
	    (body.len && fwrite(body.buf, body.len, 1, af.f) != 1)) {
		afile_abort(&af);
		rc = err_set(e, SS_ERUNTIME, "%s: write failed: %s", path, strerror(errno));
		goto out;
	}
	rc = afile_commit(&af, e);
out:
	moetab_free(moe.t);
	sb_release(&body);
	return rc;
}

int mfupack_write_all(const char *data_dir, size_t *npacks, struct err *e)
{
	struct gpu_db db;
	char path[1024], base[1024], coll[2048];
	size_t i;
	int rc;

	*npacks = 0;
	snprintf(path, sizeof(path), "%s/gpus.json", data_dir);
	if ((rc = gpu_db_load(&db, path, e)) < 0)
		return rc;
	for (i = 0; i < db.n && rc == 0; i++) {
		const struct gpu_spec *g = &db.gpus[i];
		DIR *d;
		struct dirent *de;
		if (!g->tables[0])
			continue;
		snprintf(base, sizeof(base), "%s/mfu/%s", data_dir, g->tables);
		if (!(d = opendir(base)))
			continue;
		while ((de = readdir(d)) != NULL) {
			struct stat st;
			if (de->d_name[0] == '.' || !strchr(de->d_name, '-'))
				continue;
			snprintf(coll, sizeof(coll), "%s/%s", base, de->d_name);
			if (stat(coll, &st) != 0 || !S_ISDIR(st.st_mode))
				continue;
			if ((rc = mfupack_write(coll, g, e)) < 0)
				break;
			(*npacks)++;
		}
		closedir(d);
	}
	gpu_db_release(&db);
	return rc;
}
