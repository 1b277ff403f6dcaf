/* mfu.c - kernel tables and their interpolation.
 *
 * Why log(MFU) over log axes: in the memory-bound corner of a table (small m,
 * short contexts) latency is flat, so MFU grows linearly with the work and
 * log(MFU) is linear in log(size); in the compute-bound corner MFU is flat.
 * Both are reproduced exactly by multilinear interpolation in log-log space,
 * which keeps step prices smooth (H6) instead of jumping between grid rows. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "hw/mfu.h"
#include "hw/moetab.h"
#include "hw/axis.h"

/* --- grid construction --- */

struct pt {
	double x[3];
	double v;
};

/* The sorted distinct values of coordinate d.  Tables have thousands of
 * rows but a few dozen distinct values per axis: each value is looked up in
 * the sorted set built so far and inserted only when new, instead of
 * sorting every row's value (axis_uniq). */
static size_t uniq_axis(const struct pt *p, size_t n, size_t d, double **out)
{
	size_t cap = 16, k = 0, i;
	double *a = xmalloc(xmul(cap, sizeof(double)));

	for (i = 0; i < n; i++) {
		double x = p[i].x[d];
		size_t at;
		if (k > 0 && x == a[k - 1])
			continue; /* runs of one value: rows are written sorted */
		at = axis_find(a, k, x);
		if (at < k && a[at] == x)
			continue;
		XGROW(a, cap, k + 1);
		memmove(a + at + 1, a + at, (k - at) * sizeof(double));
		a[at] = x;
		k++;
	}
	*out = a;
	return k;
}

static double nearest_cell(const struct mfu_grid *g, const double *pos);

/* The measured cells of a grid by column (the cells that share every
 * index but the first), listed once for hole filling.  nearest_cell walks
 * every cell for each hole (quadratic in the grid size); nearest_measured
 * gives the same cell from the nearest first index in each measured
 * column.  Distances between cell indices are small integers, exact in
 * doubles, so the same minimum is found; ties go to the lowest cell index
 * as in nearest_cell's ascending scan. */
struct measured {
	size_t *start; /* column c's first indices: row[start[c] .. start[c+1]) */
	size_t *row;
	size_t ncol;
};

static void measured_list(const struct mfu_grid *g, size_t total, struct measured *m)
{
	size_t ncol = total / g->len[0], i, c, n = 0;

	m->ncol = ncol;
	m->start = xcalloc(ncol + 1, sizeof(size_t));
	m->row = xmalloc(xmul(total, sizeof(size_t)));
	for (c = 0; c < ncol; c++) {
		m->start[c] = n;
		for (i = 0; i < g->len[0]; i++)
			if (!isnan(g->v[i * ncol + c]))
				m->row[n++] = i;
	}
	m->start[ncol] = n;
}

static double nearest_measured(const struct mfu_grid *g, const struct measured *m,
			       const double *pos)
{
	double best = INFINITY, bv = NAN;
	size_t best_idx = 0, c, d;

	for (c = 0; c < m->ncol; c++) {
		const size_t *r = m->row + m->start[c];
		size_t nr = m->start[c + 1] - m->start[c], lo = 0, hi = nr, rem = c, k;
		double dcol = 0;
		if (nr == 0)
			continue;
		for (d = g->dims; d-- > 1;) {
			double x = (double)(rem % g->len[d]);
			rem /= g->len[d];
			dcol += (x - pos[d]) * (x - pos[d]);
		}
		/* first index >= pos[0], and the one before it */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if ((double)r[mid] < pos[0])
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo > 0 ? lo - 1 : lo; k <= lo && k < nr; k++) {
			double x = (double)r[k], dist = dcol + (x - pos[0]) * (x - pos[0]);
			size_t idx = r[k] * m->ncol + c;
			if (dist < best || (dist == best && idx < best_idx)) {
				best = dist;
				best_idx = idx;
				bv = g->v[idx];
			}
		}
	}
	return bv;
}

/* The nearest measured cells of column col below and above first index i0
 * (*a, *b): bit 1 set when there is one below, bit 2 when one above. */
static unsigned column_bracket(const struct mfu_grid *g, size_t stride, size_t col, size_t i0, size_t *a,
			       size_t *b)
{
	unsigned f = 0;

	for (*a = i0; (*a)-- > 0;)
		if (!isnan(g->v[*a * stride + col])) {
			f |= 1;
			break;
		}
	for (*b = i0 + 1; *b < g->len[0]; (*b)++)
		if (!isnan(g->v[*b * stride + col])) {
			f |= 2;
			break;
		}
	return f;
}

/* Column col at first index i0, linear between its measured cells a < i0
 * < b (column_bracket's). */
static double column_between(const struct mfu_grid *g, size_t stride, size_t col, size_t i0, size_t a, size_t b)
{
	double x = g->axis[0][i0], xa = g->axis[0][a], xb = g->axis[0][b];
	double w = (x - xa) / (xb - xa);

	return (1 - w) * g->v[a * stride + col] + w * g->v[b * stride + col];
}

/* Column col's value at first index i0 from its measured cells alone: the
 * measured cell, or the linear interpolation between the nearest measured
 * cells on either side (as grid_fill_holes fills it); NaN outside the
 * column's measured range. */
static double column_at(const struct mfu_grid *g, size_t stride, size_t col, size_t i0)
{
	size_t a, b;

	if (!isnan(g->v[i0 * stride + col]))
		return g->v[i0 * stride + col];
	return column_bracket(g, stride, col, i0, &a, &b) == 3 ? column_between(g, stride, col, i0, a, b) : NAN;
}

/* A GEMM cell above its column's last measured m (3-D grid: log m, log n,
 * log k; v log MFU) from the measured columns around it at that m: along
 * n at the same k and along k at the same n, the nearest column on each
 * side whose measured range covers m, linear in log n (log k) between
 * them; the mean of the axes that bracket it, else (no axis brackets it)
 * the mean of the nearest such column of the axes with one.  Linear in
 * log n of log MFU is linear in log n of log time (log FLOPs is linear in
 * log n at fixed m and k), so MFU and time give the same value.  NaN when
 * no column around it covers m. */
static double across_columns(const struct mfu_grid *g, size_t stride, size_t col, size_t i0)
{
	size_t n2 = g->len[2], j = col / n2, l = col % n2, ax, two = 0, one = 0;
	double sum2 = 0, sum1 = 0;

	for (ax = 1; ax <= 2; ax++) {
		size_t at = ax == 1 ? j : l, len = g->len[ax], lo, hi;
		double va = NAN, vb = NAN, xa = 0, xb = 0, w;
		for (lo = at; lo-- > 0;) {
			va = column_at(g, stride, ax == 1 ? lo * n2 + l : j * n2 + lo, i0);
			if (!isnan(va)) {
				xa = g->axis[ax][lo];
				break;
			}
		}
		for (hi = at + 1; hi < len; hi++) {
			vb = column_at(g, stride, ax == 1 ? hi * n2 + l : j * n2 + hi, i0);
			if (!isnan(vb)) {
				xb = g->axis[ax][hi];
				break;
			}
		}
		if (!isnan(va) && !isnan(vb)) {
			w = (g->axis[ax][at] - xa) / (xb - xa);
			sum2 += (1 - w) * va + w * vb;
			two++;
		} else if (!isnan(va) || !isnan(vb)) {
			sum1 += isnan(va) ? vb : va;
			one++;
		}
	}
	return two ? sum2 / (double)two : one ? sum1 / (double)one : NAN;
}

/* Unmeasured cells (and rows dropped as outliers) are filled once, so
 * lookups never meet a hole: by linear interpolation along the first axis
 * (m for GEMMs, batch for attention) between the nearest measured cells of
 * the same column, else held from the nearest one on that axis, else the
 * nearest measured cell anywhere (in index space).  tuned (a GEMM table of
 * tuners' winners, whose m values per shape are those the tuner was given:
 * AMD's): below the first measured cell of a column (v log MFU, axis 0 log
 * m) the time is held, not the MFU: the MFU falls with m; above the last,
 * the cell comes from the measured columns around it at that m
 * (across_columns), the MFU held only where none covers that m (see
 * mfu_csv_gemm). */
static void grid_fill_holes(struct mfu_grid *g, size_t total, bool tuned)
{
	double *filled = xmalloc(xmul(total, sizeof(double)));
	size_t i, d, stride = total / g->len[0];
	struct measured ms = {NULL, NULL, 0};
	bool listed = false;
	int holes = 0;

	for (i = 0; i < total; i++) {
		filled[i] = g->v[i];
		if (isnan(g->v[i])) {
			size_t i0 = i / stride, col = i % stride, a, b;
			unsigned f = column_bracket(g, stride, col, i0, &a, &b);
			bool fa = f & 1, fb = f & 2;
			if (fa && fb) {
				filled[i] = column_between(g, stride, col, i0, a, b);
				holes = 1;
				continue;
			}
			if (fa && tuned && g->dims == 3) {
				double v = across_columns(g, stride, col, i0);
				if (!isnan(v)) {
					filled[i] = v;
					holes = 1;
					continue;
				}
			}
			if (fa || fb) {
				filled[i] = g->v[(fa ? a : b) * stride + col];
				if (!fa && tuned)
					filled[i] += g->axis[0][i0] - g->axis[0][b];
				holes = 1;
				continue;
			}
		}
		if (isnan(g->v[i])) {
			double pos[3] = {0, 0, 0};
			size_t rem = i;
			for (d = g->dims; d-- > 0;) {
				pos[d] = (double)(rem % g->len[d]);
				rem /= g->len[d];
			}
			if (!listed) {
				measured_list(g, total, &ms);
				listed = true;
			}
			filled[i] = nearest_measured(g, &ms, pos);
			holes = 1;
		}
	}
	if (holes)
		memcpy(g->v, filled, total * sizeof(double));
	free(ms.start);
	free(ms.row);
	free(filled);
}

static void grid_build(struct mfu_grid *g, size_t dims, const struct pt *p, size_t n, bool tuned)
{
	size_t d, i, total = 1;

	memset(g, 0, sizeof(*g));
	g->dims = dims;
	for (d = 0; d < dims; d++) {
		g->len[d] = uniq_axis(p, n, d, &g->axis[d]);
		total = xmul(total, g->len[d]);
	}
	g->v = xmalloc(xmul(total, sizeof(double)));
	for (i = 0; i < total; i++)
		g->v[i] = NAN;
	for (i = 0; i < n; i++) {
		size_t off = 0;
		for (d = 0; d < dims; d++)
			off = off * g->len[d] + axis_find(g->axis[d], g->len[d], p[i].x[d]);
		g->v[off] = p[i].v;
	}
	grid_fill_holes(g, total, tuned);
}

void mfu_grid_release(struct mfu_grid *g)
{
	size_t d;

	if (!g->mapped) {
		for (d = 0; d < 3; d++)
			free(g->axis[d]);
		free(g->v);
	}
	memset(g, 0, sizeof(*g));
}

static double *copy_doubles(const double *a, size_t n)
{
	double *c = xmalloc(xmul(n ? n : 1, sizeof(double)));

	memcpy(c, a, n * sizeof(double));
	return c;
}

void mfu_grid_unshare(struct mfu_grid *g)
{
	size_t d, total = 1;

	if (!g->mapped)
		return;
	for (d = 0; d < g->dims; d++) {
		total = xmul(total, g->len[d]);
		g->axis[d] = copy_doubles(g->axis[d], g->len[d]);
	}
	g->v = copy_doubles(g->v, total);
	g->mapped = false;
}

/* Nearest measured cell (in index space) to a fractional position; used for
 * holes in a grid and for H6-off lookups. */
static double nearest_cell(const struct mfu_grid *g, const double *pos)
{
	size_t total = 1, i, d;
	double best = INFINITY, bv = NAN;

	for (d = 0; d < g->dims; d++)
		total *= g->len[d];
	for (i = 0; i < total; i++) {
		size_t rem = i;
		double dist = 0;
		if (isnan(g->v[i]))
			continue;
		for (d = g->dims; d-- > 0;) {
			double c = (double)(rem % g->len[d]);
			rem /= g->len[d];
			dist += (c - pos[d]) * (c - pos[d]);
		}
		if (dist < best) {
			best = dist;
			bv = g->v[i];
		}
	}
	return bv;
}

/* Axis d of g bracketed at x: lo, w and the fractional index pos. */
static void mfu_grid_axis(const struct mfu_grid *g, size_t d, double x, size_t *lo, double *w,
		      double *pos)
{
	axis_bracket(g->axis[d], g->len[d], x, lo, w);
	*pos = (double)*lo + *w;
	if (g->len[d] == 1)
		*pos = 0;
}

static double grid_eval_at(const struct mfu_grid *g, const size_t *lo, const double *w,
			   const double *pos, bool nearest);

double mfu_grid_eval(const struct mfu_grid *g, const double *x, bool nearest)
{
	size_t lo[3] = {0, 0, 0}, d;
	double w[3] = {0, 0, 0}, pos[3] = {0, 0, 0};

	for (d = 0; d < g->dims; d++)
		mfu_grid_axis(g, d, x[d], &lo[d], &w[d], &pos[d]);
	return grid_eval_at(g, lo, w, pos, nearest);
}

/* The grid's value at bracketed coordinates (mfu_grid_eval after the
 * brackets). */
static double grid_eval_at(const struct mfu_grid *g, const size_t *lo, const double *w,
			   const double *pos, bool nearest)
{
	size_t d, c, ncorner = (size_t)1 << g->dims;
	double acc = 0;

	if (!nearest && g->dims == 2) {
		/* the per-step case (attention): plain bilinear */
		size_t n1 = g->len[1], a = lo[0] * n1 + lo[1];
		size_t b = g->len[0] > 1 ? a + n1 : a, c1 = n1 > 1 ? 1 : 0;
		const double *v = g->v;
		return (1 - w[0]) * ((1 - w[1]) * v[a] + w[1] * v[a + c1]) +
		       w[0] * ((1 - w[1]) * v[b] + w[1] * v[b + c1]);
	}
	if (!nearest && g->dims == 3) {
		/* the cost tables' case (GEMMs, priced for every token count at
		 * start-up): the general loop below written out for its eight
		 * corners, in the same order with the same products and sums
		 * ((f0 x f1) x f2, zero weights skipped), so the same result */
		const double *v = g->v;
		size_t n1 = g->len[1], n2 = g->len[2];
		size_t a0 = lo[0], b0 = g->len[0] == 1 ? 0 : lo[0] + 1;
		size_t a1 = lo[1], b1 = n1 == 1 ? 0 : lo[1] + 1;
		size_t a2 = lo[2], b2 = n2 == 1 ? 0 : lo[2] + 1;
		double p0 = 1 - w[0], q0 = w[0], p1 = 1 - w[1], q1 = w[1], p2 = 1 - w[2], q2 = w[2];
#define MFU_CORNER(f0, f1, f2, i0, i1, i2)                                         \
	do {                                                                        \
		double wt_ = (f0) * (f1) * (f2), v_;                                \
		if (wt_ != 0) {                                                     \
			v_ = v[((i0) * n1 + (i1)) * n2 + (i2)];                     \
			if (isnan(v_))                                              \
				return nearest_cell(g, pos);                        \
			acc += wt_ * v_;                                            \
		}                                                                   \
	} while (0)
		MFU_CORNER(p0, p1, p2, a0, a1, a2);
		MFU_CORNER(q0, p1, p2, b0, a1, a2);
		MFU_CORNER(p0, q1, p2, a0, b1, a2);
		MFU_CORNER(q0, q1, p2, b0, b1, a2);
		MFU_CORNER(p0, p1, q2, a0, a1, b2);
		MFU_CORNER(q0, p1, q2, b0, a1, b2);
		MFU_CORNER(p0, q1, q2, a0, b1, b2);
		MFU_CORNER(q0, q1, q2, b0, b1, b2);
#undef MFU_CORNER
		return acc;
	}
	if (nearest) {
		size_t off = 0;
		for (d = 0; d < g->dims; d++)
			off = off * g->len[d] + (size_t)floor(pos[d] + 0.5);
		return g->v[off];
	}
	for (c = 0; c < ncorner; c++) {
		size_t off = 0;
		double wt = 1, v;
		for (d = 0; d < g->dims; d++) {
			size_t bit = (c >> d) & 1u, idx = lo[d] + bit;
			if (g->len[d] == 1)
				idx = 0;
			wt *= bit ? w[d] : 1 - w[d];
			off = off * g->len[d] + idx;
		}
		if (wt == 0)
			continue;
		v = g->v[off];
		if (isnan(v))
			return nearest_cell(g, pos); /* hole: no interpolation across it */
		acc += wt * v;
	}
	return acc;
}

/* --- loading --- */

/* A latency measured on the GPU whose tables g borrows, carried to g by its
 * roofline efficiency: the measured kernel reached a fraction eff of
 * max(FLOPs / peak, bytes / bandwidth) on the lender, and is taken to reach
 * the same fraction of g's own roofline.  Carrying MFU instead would keep
 * the lender's compute-to-bandwidth ratio: a memory-bound decode GEMM
 * measured on an H100 would run 6.7x slower on an H20 (148 vs 989 TFLOP/s)
 * although the H20 streams weights faster.  g's own tables: unchanged. */
/* The highest MFU a kernel reaches on a GPU with borrowed tables: what
 * DeepGEMM fp8 reached on the H20 (InferSim bench_data/gemm/h20, m = 32768). */
#define BORROWED_MFU_CAP 0.952

static double borrowed_s(const struct gpu_spec *g, enum dtype dt, double flops, double bytes,
			 double lat_s)
{
	double ps = g->table_peak[dt], pt = g->peak_flops[dt];
	double s = g->compute_eff_scale > 0 ? g->compute_eff_scale : 1.0;
	double rs, rt, t, floor_s;

	if (ps == pt && g->table_hbm_bw == g->hbm_bw)
		return lat_s;
	if (!(ps > 0 && pt > 0))
		return lat_s;
	rs = flops / ps > bytes / g->table_hbm_bw ? flops / ps : bytes / g->table_hbm_bw;
	/* a GPU whose compute is cut far below its bandwidth (H20) runs a
	 * compute-bound kernel nearer its peak than the lender: its compute
	 * roofline scaled by compute_eff_scale, never above BORROWED_MFU_CAP */
	rt = flops / (pt * s) > bytes / g->hbm_bw ? flops / (pt * s) : bytes / g->hbm_bw;
	t = lat_s * rt / rs;
	floor_s = flops / (pt * BORROWED_MFU_CAP);
	return s > 1 && t < floor_s ? floor_s : t;
}

/* Load the GEMM rows of the dtypes t does not have yet; *got gets a bit per
 * dtype loaded.
 * Below a shape's smallest measured m an AMD table (aiter's tuned winners:
 * the m its tuner was given for that shape, often from 16) holds that
 * row's time, not its MFU: a decode GEMM reads the whole weight whatever
 * its m, and aiter's own rows where small m was tuned are flat, e.g.
 * MI300X 7168 x 2048 fp8 block-scale 8.10 / 8.11 / 7.95 us at m = 2 / 4 / 8
 * (ROCm/aiter e4048607 a8w8_blockscale_tuned_gemm_ds_v3.csv).  Holding the
 * MFU priced DeepSeek-R1's q_a projection (1536 x 7168, rows from m = 16,
 * 11.5 us) at 2.9 us for m = 4.
 * Above a shape's largest measured m the cell comes from the measured
 * shapes around it at that m (grid_fill_holes, across_columns), not from
 * its last row's MFU held: aiter's bf16 o_proj 7168 x 2048 on MI355X has
 * rows to m = 256 (459 TFLOPS), while 7168 x 1536 and 7168 x 4096 are
 * measured far past it; holding the m = 256 MFU priced it 474 us at 7,400
 * tokens.  Hiding each shape's rows above m = 256 and predicting them so
 * gives a median |error| of 4-11 % per table (MFU held: 100-135 % too
 * slow; eval/public-amd/README.md, "amdgrid").  The NVIDIA tables keep the
 * held MFU at both ends. */
int mfu_csv_gemm(struct mfu_tables *t, const char *path, const struct gpu_spec *gs,
		     unsigned *got, struct err *e)
{
	static const char *const cols[] = {"dtype", "m", "n", "k", "latency_us", NULL};
	struct csv *c;
	struct pt *p[DT__COUNT] = {0};
	size_t np[DT__COUNT] = {0}, cap[DT__COUNT] = {0};
	int idx[5], rc, d;

	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	while ((rc = csv_next(c, e)) > 0) {
		double m, n, k, lat;
		enum dtype dt;
		const char *ds = csv_field(c, idx[0]);
		if (strcmp(ds, "bf16") == 0)
			dt = DT_BF16;
		else if (strcmp(ds, "fp8") == 0)
			dt = DT_FP8;
		else if (strcmp(ds, "fp4") == 0)
			dt = DT_FP4;
		else
			continue;
		if (t->have_gemm[dt] || gs->table_peak[dt] <= 0)
			continue; /* not used: skip before parsing the numbers */
		if ((rc = csv_num(c, idx[1], &m, e)) < 0 || (rc = csv_num(c, idx[2], &n, e)) < 0 ||
		    (rc = csv_num(c, idx[3], &k, e)) < 0 || (rc = csv_num(c, idx[4], &lat, e)) < 0)
			goto out;
		if (!(m > 0 && n > 0 && k > 0 && lat > 0))
			continue;
		XGROW(p[dt], cap[dt], np[dt] + 1);
		p[dt][np[dt]].x[0] = log(m);
		p[dt][np[dt]].x[1] = log(n);
		p[dt][np[dt]].x[2] = log(k);
		p[dt][np[dt]].v = log(2.0 * m * n * k /
				      (borrowed_s(gs, dt, 2.0 * m * n * k,
						  n * k * (dt == DT_FP8 ? 1.0 : dt == DT_FP4 ? 0.5 : 2.0) +
							  (m * k + m * n) * 2.0,
						  lat * 1e-6) *
				       gs->peak_flops[dt]));
		np[dt]++;
	}
	if (rc < 0)
		goto out;
	for (d = 0; d < DT__COUNT; d++) {
		if (np[d] == 0)
			continue;
		grid_build(&t->gemm[d], 3, p[d], np[d], strcmp(gs->vendor, "amd") == 0);
		t->have_gemm[d] = true;
		*got |= 1u << d;
	}
	rc = 0;
out:
	for (d = 0; d < DT__COUNT; d++)
		free(p[d]);
	csv_close(c);
	return rc;
}

static bool cfg_is(const struct mfu_attn_cfg *c, const double *v, enum dtype kd, int window)
{
	return c->heads == (int)v[0] && c->kv_heads == (int)v[1] && c->head_dim == (int)v[2] &&
	       c->kv_dtype == kd && c->window == window;
}

/* Query-key pairs of a prefix-free causal prefill of s tokens whose
 * queries see at most cap keys each (opgraph.c attn_capped_pairs). */
static double capped_pairs(double s, double cap)
{
	double q0 = cap < s ? cap : s;

	return q0 * (q0 + 1) / 2.0 + (s - q0) * cap;
}

/* The dense tables (window false) and the sliding-window ones: the same
 * columns plus 'window', the FLOPs and KV bytes of the keys attended. */
static int csv_attn(const char *path, bool prefill, bool windowed, const struct gpu_spec *gs,
		    struct mfu_attn_cfg **out, size_t *nout, struct err *e)
{
	static const char *const pcols[] = {"heads", "kv_heads", "head_dim", "kv_dtype", "batch",
					    "isl", "latency_us", "window", NULL};
	static const char *const dcols[] = {"heads", "kv_heads", "head_dim", "kv_dtype", "batch",
					    "kv_len", "latency_us", "window", NULL};
	const char *cols[9];
	struct csv *c;
	struct mfu_attn_cfg *cfg = NULL;
	struct pt **pts = NULL;
	size_t *npts = NULL, *caps = NULL, ncfg = 0, cfgcap = 0, i, last = 0;
	int idx[8], rc;

	memcpy(cols, prefill ? pcols : dcols, sizeof(cols));
	if (!windowed)
		cols[7] = NULL;
	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	while ((rc = csv_next(c, e)) > 0) {
		double v[8] = {0};
		enum dtype kd;
		int j, win = 0;
		double flops, len;
		for (j = 0; j < (windowed ? 8 : 7); j++)
			if (j != 3 && (rc = csv_num(c, idx[j], &v[j], e)) < 0)
				goto out;
		kd = strcmp(csv_field(c, idx[3]), "fp8") == 0 ? DT_FP8 : DT_BF16;
		if (!(v[0] > 0 && v[1] > 0 && v[2] > 0 && v[4] > 0 && v[5] > 0 && v[6] > 0))
			continue;
		if (windowed) {
			if (!(v[7] >= 1 && v[7] <= 1e9))
				continue;
			win = (int)v[7];
		}
		/* rows come grouped by configuration: try the last one first
		 * (configurations are distinct, so the match is the same) */
		if (last < ncfg && cfg_is(&cfg[last], v, kd, win))
			i = last;
		else
			for (i = 0; i < ncfg; i++)
				if (cfg_is(&cfg[i], v, kd, win))
					break;
		last = i;
		if (i == ncfg) {
			size_t oc = cfgcap;
			XGROW(cfg, cfgcap, ncfg + 1);
			if (cfgcap != oc) {
				pts = xreallocarray(pts, cfgcap, sizeof(*pts));
				npts = xreallocarray(npts, cfgcap, sizeof(*npts));
				caps = xreallocarray(caps, cfgcap, sizeof(*caps));
			}
			memset(&cfg[ncfg], 0, sizeof(cfg[ncfg]));
			cfg[ncfg].heads = (int)v[0];
			cfg[ncfg].kv_heads = (int)v[1];
			cfg[ncfg].head_dim = (int)v[2];
			cfg[ncfg].kv_dtype = kd;
			cfg[ncfg].window = win;
			pts[ncfg] = NULL;
			npts[ncfg] = caps[ncfg] = 0;
			ncfg++;
		}
		/* useful FLOPs: QK^T and PV over the attended pairs */
		if (prefill && win)
			flops = 4.0 * v[4] * v[0] * v[2] * capped_pairs(v[5], v[7]);
		else if (prefill)
			flops = 4.0 * v[4] * v[0] * v[2] * v[5] * (v[5] + 1) / 2;
		else
			flops = 4.0 * v[4] * v[0] * v[2] * (win && v[7] < v[5] ? v[7] : v[5]);
		XGROW(pts[i], caps[i], npts[i] + 1);
		pts[i][npts[i]].x[0] = log(v[4]);
		pts[i][npts[i]].x[1] = log(v[5]);
		/* the keys read: a decode reads those it attends */
		len = !prefill && win && v[7] < v[5] ? v[7] : v[5];
		{
			/* bytes: the KV read (decode) or K/V written and read once
			 * (prefill), at the table's KV dtype */
			double kvb = kd == DT_FP8 ? 1.0 : 2.0;
			double bytes = 2.0 * v[4] * len * v[1] * v[2] * kvb + 2.0 * v[4] * v[0] * v[2] * 2.0 *
									   (prefill ? v[5] : 1.0);
			pts[i][npts[i]].v = log(flops / (borrowed_s(gs, DT_BF16, flops, bytes, v[6] * 1e-6) *
							 gs->peak_flops[DT_BF16]));
		}
		npts[i]++;
	}
	if (rc < 0)
		goto out;
	for (i = 0; i < ncfg; i++)
		grid_build(&cfg[i].g, 2, pts[i], npts[i], false);
	*out = cfg;
	*nout = ncfg;
	cfg = NULL;
	rc = 0;
out:
	for (i = 0; i < ncfg; i++) {
		free(pts[i]);
		if (cfg)
			mfu_grid_release(&cfg[i].g);
	}
	free(pts);
	free(npts);
	free(caps);
	free(cfg);
	csv_close(c);
	return rc;
}

int mfu_csv_attn(const char *path, bool prefill, const struct gpu_spec *gs,
		 struct mfu_attn_cfg **out, size_t *nout, struct err *e)
{
	return csv_attn(path, prefill, false, gs, out, nout, e);
}

int mfu_csv_attn_window(const char *path, bool prefill, const struct gpu_spec *gs,
			struct mfu_attn_cfg **out, size_t *nout, struct err *e)
{
	return csv_attn(path, prefill, true, gs, out, nout, e);
}

int mfu_csv_allreduce(struct mfu_tables *t, const char *path, struct err *e)
{
	static const char *const cols[] = {"num_gpus", "message_elems", "latency_us", NULL};
	struct csv *c;
	size_t cap[9] = {0};
	int idx[3], rc;

	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	while ((rc = csv_next(c, e)) > 0) {
		double n, s, l;
		int g;
		if ((rc = csv_num(c, idx[0], &n, e)) < 0 || (rc = csv_num(c, idx[1], &s, e)) < 0 ||
		    (rc = csv_num(c, idx[2], &l, e)) < 0)
			goto out;
		g = (int)n;
		if (g < 2 || g > 8 || !(s > 0 && l > 0))
			continue;
		XGROW(t->ar_size[g], cap[g], t->ar_len[g] + 1);
		t->ar_lat[g] = xreallocarray(t->ar_lat[g], cap[g], sizeof(double));
		t->ar_size[g][t->ar_len[g]] = log(s);
		t->ar_lat[g][t->ar_len[g]] = log(l);
		t->ar_len[g]++;
	}
	if (rc == 0)
		rc = 0;
out:
	csv_close(c);
	return rc < 0 ? rc : 0;
}

const char *mfu_part_name(enum mfu_part p)
{
	static const char *const n[MFU_P__COUNT] = {"GEMM bf16", "GEMM fp8", "GEMM fp4",
		"attention prefill", "attention decode", "all-reduce", "fused MoE", "MLA prefill",
		"MLA decode", "sliding-window prefill", "sliding-window decode", "MLA prefill (absorbed)"};
	return (unsigned)p < MFU_P__COUNT ? n[p] : "?";
}

void mfu_release(struct mfu_tables *t)
{
	size_t i;
	int d;

	for (d = 0; d < DT__COUNT; d++)
		mfu_grid_release(&t->gemm[d]);
	for (i = 0; i < t->nprefill; i++)
		mfu_grid_release(&t->prefill[i].g);
	for (i = 0; i < t->ndecode; i++)
		mfu_grid_release(&t->decode[i].g);
	for (i = 0; i < t->nmla_prefill; i++)
		mfu_grid_release(&t->mla_prefill[i].g);
	for (i = 0; i < t->nmla_decode; i++)
		mfu_grid_release(&t->mla_decode[i].g);
	for (i = 0; i < t->nmla_prefill_abs; i++)
		mfu_grid_release(&t->mla_prefill_abs[i].g);
	for (i = 0; i < t->nprefill_win; i++)
		mfu_grid_release(&t->prefill_win[i].g);
	for (i = 0; i < t->ndecode_win; i++)
		mfu_grid_release(&t->decode_win[i].g);
	free(t->prefill_win);
	free(t->decode_win);
	free(t->prefill);
	free(t->decode);
	free(t->mla_prefill);
	free(t->mla_decode);
	free(t->mla_prefill_abs);
	for (d = 0; d < 9; d++) {
		free(t->ar_size[d]);
		free(t->ar_lat[d]);
	}
	moetab_free(t->moe);
	moetab_free(t->moe_own);
	for (i = 0; i < t->nmoe_more; i++)
		moetab_free(t->moe_more[i]);
	for (i = 0; i < t->npacks; i++) /* after the grids read from them */
		munmap((void *)(uintptr_t)t->packs[i].addr, t->packs[i].len);
	free(t->packs);
	memset(t, 0, sizeof(*t));
}

double mfu_gemm(const struct mfu_tables *t, enum dtype dt, double m, double n, double k)
{
	double x[3];

	if (!t->have_gemm[dt])
		dt = DT_BF16;
	if (!t->have_gemm[dt])
		return MFU_DEFAULT_GEMM;
	x[0] = log(m);
	x[1] = log(n);
	x[2] = log(k);
	return mfu_clamp(mfu_grid_eval(&t->gemm[dt], x, t->nearest), MFU_DEFAULT_GEMM);
}

void mfu_gemm_col_init(const struct mfu_tables *t, enum dtype dt, double n, double k,
		       struct mfu_gemm_col *col)
{
	memset(col, 0, sizeof(*col));
	col->t = t;
	col->dt = dt;
	col->n = n;
	col->k = k;
	if (!t->have_gemm[dt])
		dt = DT_BF16;
	if (!t->have_gemm[dt] || t->gemm[dt].dims != 3)
		return; /* mfu_gemm's default, or its general path */
	col->g = &t->gemm[dt];
	mfu_grid_axis(col->g, 1, log(n), &col->lo[1], &col->w[1], &col->pos[1]);
	mfu_grid_axis(col->g, 2, log(k), &col->lo[2], &col->w[2], &col->pos[2]);
}

double mfu_gemm_col_eval(const struct mfu_gemm_col *col, double m)
{
	size_t lo[3];
	double w[3], pos[3];

	if (!col->g)
		return mfu_gemm(col->t, col->dt, m, col->n, col->k);
	mfu_grid_axis(col->g, 0, log(m), &lo[0], &w[0], &pos[0]);
	lo[1] = col->lo[1];
	lo[2] = col->lo[2];
	w[1] = col->w[1];
	w[2] = col->w[2];
	pos[1] = col->pos[1];
	pos[2] = col->pos[2];
	return mfu_clamp(grid_eval_at(col->g, lo, w, pos, col->t->nearest), MFU_DEFAULT_GEMM);
}

/* An own (gpu_spec.measured) head configuration that is not the exact one
 * counts this much farther than a borrowed one: InferSim measured a handful
 * of layouts, the borrowed collections dozens, and a layout's utilisation
 * depends on its GQA ratio and head count more than on the GPU (both are
 * carried by roofline efficiency).  0.5 = the kv-dtype mismatch term.
 * Borrowed layouts near an own one are rebased on it (mfu_attn_anchor_own),
 * so this rule only decides between an own layout and a far borrowed one. */
#define OWN_INEXACT_PENALTY 0.5

/* How far a borrowed layout may be from one of the GPU's own to be rebased
 * on it (cfg_dist + OWN_ANCHOR_KV_DTYPE for the other KV dtype): 1.0 covers
 * a factor 2 in query or KV heads (0.69), or the same heads with the other
 * KV dtype (1.0), not both.  The KV dtype counts double here: the fp8/bf16
 * KV ratio is a property of the kernel (InferSim's H20 fp8-KV decode takes
 * 0.67-0.8 of the bf16 time at batch >= 16; aiconfigurator's vLLM and
 * SGLang H100 kernels 1.0-1.1, TensorRT-LLM's 0.45), so a same-dtype own
 * layout with other heads is the better anchor.  Both chosen on kernel
 * data: scripts/mfu/check_infersim.py's layout hold-out (every own layout in
 * turn removed and predicted from the rest). */
#define OWN_ANCHOR_REACH 1.0
#define OWN_ANCHOR_KV_DTYPE 0.5

/* Distance between a layout and configuration c: log ratios of heads and KV
 * heads, twice that of the head dim, 0.5 for the other KV dtype. */
static double cfg_dist(const struct mfu_attn_cfg *c, int heads, int kvh, int hd, enum dtype kvdt)
{
	return fabs(log((double)heads / c->heads)) + fabs(log((double)kvh / c->kv_heads)) +
	       2.0 * fabs(log((double)hd / c->head_dim)) + (c->kv_dtype != kvdt ? 0.5 : 0.0);
}

static const struct mfu_attn_cfg *nearest_cfg(const struct mfu_attn_cfg *c, size_t n, int heads,
					      int kvh, int hd, enum dtype kvdt)
{
	const struct mfu_attn_cfg *best = NULL;
	double bd = INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		double d;
		if (c[i].shadow)
			continue;
		d = cfg_dist(&c[i], heads, kvh, hd, kvdt);
		if (c[i].own && d > 1e-9)
			d += OWN_INEXACT_PENALTY;
		if (d < bd) {
			bd = d;
			best = &c[i];
		}
	}
	return best;
}

/* The lender configuration nearest an own one (own ones skipped; the
 * lender's own measurement of the same layout, a shadow, is the nearest). */
static const struct mfu_attn_cfg *nearest_lender(const struct mfu_attn_cfg *c, size_t n,
						 const struct mfu_attn_cfg *own)
{
	const struct mfu_attn_cfg *best = NULL;
	double bd = INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		double d;
		if (c[i].own || c[i].g.dims != 2)
			continue;
		d = cfg_dist(&c[i], own->heads, own->kv_heads, own->head_dim, own->kv_dtype);
		if (d < bd) {
			bd = d;
			best = &c[i];
		}
	}
	return best;
}

void mfu_attn_anchor_own(struct mfu_attn_cfg *c, size_t n)
{
	double **nv = xcalloc(n ? n : 1, sizeof(*nv));
	size_t i, j, k;

	/* new values first, from the unchanged grids; then swapped in */
	for (i = 0; i < n; i++) {
		const struct mfu_attn_cfg *o = NULL, *lo;
		struct mfu_grid *g = &c[i].g;
		double bd = INFINITY;
		if (c[i].own || c[i].shadow || g->dims != 2)
			continue;
		for (j = 0; j < n; j++) {
			double d;
			if (!c[j].own || c[j].g.dims != 2)
				continue;
			d = cfg_dist(&c[j], c[i].heads, c[i].kv_heads, c[i].head_dim, c[i].kv_dtype) +
			    (c[j].kv_dtype != c[i].kv_dtype ? OWN_ANCHOR_KV_DTYPE : 0.0);
			if (d < bd) {
				bd = d;
				o = &c[j];
			}
		}
		if (!o || bd > OWN_ANCHOR_REACH + 1e-9 || !(lo = nearest_lender(c, n, o)))
			continue;
		nv[i] = xmalloc(xmul(xmul(g->len[0], g->len[1]), sizeof(double)));
		for (j = 0; j < g->len[0]; j++)
			for (k = 0; k < g->len[1]; k++) {
				double x[2] = {g->axis[0][j], g->axis[1][k]};
				double v = g->v[j * g->len[1] + k];
				double off = mfu_grid_eval(&o->g, x, false) - mfu_grid_eval(&lo->g, x, false);
				nv[i][j * g->len[1] + k] = isnan(off) ? v : v + off;
			}
		c[i].anchored = true;
		c[i].anchor_heads = o->heads;
		c[i].anchor_kv_heads = o->kv_heads;
		c[i].anchor_head_dim = o->head_dim;
		c[i].anchor_kv_dtype = o->kv_dtype;
	}
	for (i = 0; i < n; i++)
		if (nv[i]) {
			mfu_grid_unshare(&c[i].g);
			free(c[i].g.v);
			c[i].g.v = nv[i];
		}
	free(nv);
}

/* Extend one own grid below its shortest measured length with the
 * lender's shape: log MFU(b, L) = own(b, L0) + lender(b, L) - lender(b, L0)
 * at the lender's lengths L < L0. */
static void extend_short(struct mfu_grid *g, const struct mfu_grid *lg)
{
	size_t nb = g->len[0], nl0 = g->len[1], add = 0, nl, i, j;
	double l0, *ax, *v;

	if (g->dims != 2 || lg->dims != 2)
		return;
	l0 = g->axis[1][0];
	while (add < lg->len[1] && lg->axis[1][add] < l0 - 1e-9)
		add++;
	if (add == 0)
		return;
	mfu_grid_unshare(g);
	nl = nl0 + add;
	ax = xmalloc(xmul(nl, sizeof(double)));
	v = xmalloc(xmul(xmul(nb, nl), sizeof(double)));
	memcpy(ax, lg->axis[1], add * sizeof(double));
	memcpy(ax + add, g->axis[1], nl0 * sizeof(double));
	for (i = 0; i < nb; i++) {
		double x0[2] = {g->axis[0][i], l0};
		double base = mfu_grid_eval(lg, x0, false);
		for (j = 0; j < add; j++) {
			double x[2] = {g->axis[0][i], lg->axis[1][j]};
			v[i * nl + j] = g->v[i * nl0] + mfu_grid_eval(lg, x, false) - base;
		}
		memcpy(v + i * nl + add, g->v + i * nl0, nl0 * sizeof(double));
	}
	free(g->axis[1]);
	free(g->v);
	g->axis[1] = ax;
	g->v = v;
	g->len[1] = nl;
}

void mfu_attn_extend_own(struct mfu_attn_cfg *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct mfu_attn_cfg *l;
		if (!c[i].own || c[i].g.dims != 2 || !(l = nearest_lender(c, n, &c[i])))
			continue;
		extend_short(&c[i].g, &l->g);
	}
}

/* --- sliding-window tables ---
 * The engines' windowed kernels are slower than their dense kernels at the
 * same keys: aiconfigurator's windowed rows against the dense rows of the
 * same collection, priced as servesim prices a sliding layer on dense rows
 * (prefill at the length with the same pairs, decode at the capped keys),
 * come out 1.5-5x slower for window-128 prefills of 1k-16k tokens (e.g.
 * gpt-oss 64/8/64 at 8,192 tokens, batch 1: TensorRT-LLM H200 344.5 us
 * against 99.2) and 1.05-3.2x for window-128 decodes past the window, mostly
 * within 25 % at windows 1024 and 8192 (SGLang's Hopper window-1024 Triton
 * prefill: 8-9x; scripts/mfu/check_window.py, eval/silicon/HARNESS.md).  So a
 * windowed table is kept as that ratio, its log per (batch, length) cell:
 * the dense table of the model's own layout carries the level, the windowed
 * one the penalty, which also carries over to layouts measured only dense. */

/* The dense configuration nearest c's layout, own measurements skipped. */
static const struct mfu_attn_cfg *dense_for(const struct mfu_attn_cfg *d, size_t n,
					    const struct mfu_attn_cfg *c)
{
	const struct mfu_attn_cfg *best = NULL;
	double bd = INFINITY;
	size_t i;

	for (i = 0; i < n; i++) /* the same layout, as a rule: no logs */
		if (!d[i].own && !d[i].window && d[i].g.dims == 2 && d[i].heads == c->heads &&
		    d[i].kv_heads == c->kv_heads && d[i].head_dim == c->head_dim && d[i].kv_dtype == c->kv_dtype)
			return &d[i];
	for (i = 0; i < n; i++) {
		double dist;
		if (d[i].own || d[i].window || d[i].g.dims != 2)
			continue;
		dist = cfg_dist(&d[i], c->heads, c->kv_heads, c->head_dim, c->kv_dtype);
		if (dist < bd) {
			bd = dist;
			best = &d[i];
		}
	}
	return best;
}

void mfu_attn_window_rebase(struct mfu_attn_cfg *win, size_t nwin, const struct mfu_attn_cfg *dense,
			    size_t ndense, bool prefill)
{
	size_t i, j, k;

	for (i = 0; i < nwin; i++) {
		struct mfu_grid *g = &win[i].g;
		const struct mfu_attn_cfg *d = dense_for(dense, ndense, &win[i]);
		double w = (double)win[i].window;
		if (g->dims != 2)
			continue;
		mfu_grid_unshare(g);
		for (j = 0; j < g->len[0]; j++)
			for (k = 0; k < g->len[1]; k++) {
				double *v = &g->v[j * g->len[1] + k], len = exp(g->axis[1][k]), x[2], dv;
				x[0] = g->axis[0][j];
				if (prefill) {
					double eq = sqrt(2.0 * capped_pairs(len, w));
					x[1] = eq < 1 ? 0.0 : log(eq);
				} else {
					x[1] = len < w ? g->axis[1][k] : log(w);
				}
				dv = d ? mfu_grid_eval(&d->g, x, false) : NAN;
				*v = isnan(dv) || isnan(*v) ? 0.0 : *v - dv;
			}
	}
}

void mfu_window_resolve(const struct mfu_tables *t, bool prefill, int heads, int kvh, int hd,
			enum dtype kvdt, int window, struct mfu_window *out)
{
	const struct mfu_attn_cfg *c = prefill ? t->prefill_win : t->decode_win;
	size_t n = prefill ? t->nprefill_win : t->ndecode_win, i;
	int lo = 0, hi = 0, k;
	double bd[2] = {INFINITY, INFINITY};

	memset(out, 0, sizeof(*out));
	out->window = window;
	if (window <= 0)
		return;
	/* the measured windows that bracket it, or the nearest end */
	for (i = 0; i < n; i++) {
		int w = c[i].window;
		if (w <= window && w > lo)
			lo = w;
		if (w >= window && (hi == 0 || w < hi))
			hi = w;
	}
	if (!lo)
		lo = hi;
	if (!hi)
		hi = lo;
	if (!lo)
		return;
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			double d;
			if (c[i].window != (k ? hi : lo))
				continue;
			d = cfg_dist(&c[i], heads, kvh, hd, kvdt);
			if (d < bd[k]) {
				bd[k] = d;
				out->cfg[k] = &c[i];
			}
		}
	if (lo != hi)
		out->mix = (1.0 / lo - 1.0 / window) / (1.0 / lo - 1.0 / hi);
	if (t->nearest) /* H6 off: the nearer measured window */
		out->mix = out->mix < 0.5 ? 0.0 : 1.0;
}

double mfu_window_off(const struct mfu_tables *t, const struct mfu_window *w, double log_batch,
		      double log_len)
{
	double x[2] = {log_batch, log_len}, v[2] = {0, 0};
	int k;

	if (!w->cfg[0])
		return 0.0;
	for (k = 0; k < 2; k++) {
		if (k == 1 && (w->mix == 0.0 || w->cfg[1] == w->cfg[0])) {
			v[1] = v[0];
			break;
		}
		v[k] = mfu_grid_eval(&w->cfg[k]->g, x, t->nearest);
		if (isnan(v[k]))
			v[k] = 0.0;
	}
	return (1 - w->mix) * v[0] + w->mix * v[1];
}

const struct mfu_attn_cfg *mfu_mla_resolve(const struct mfu_tables *t, bool prefill, int heads,
					   enum dtype kvdt)
{
	return prefill ? nearest_cfg(t->mla_prefill, t->nmla_prefill, heads, 1, MFU_MLA_PREFILL_DIM, kvdt)
		       : nearest_cfg(t->mla_decode, t->nmla_decode, heads, 1, MFU_MLA_DECODE_DIM, kvdt);
}

const struct mfu_attn_cfg *mfu_mla_absorbed_resolve(const struct mfu_tables *t, int heads, enum dtype kvdt)
{
	return nearest_cfg(t->mla_prefill_abs, t->nmla_prefill_abs, heads, 1, MFU_MLA_DECODE_DIM, kvdt);
}

const struct mfu_attn_cfg *mfu_attn_resolve(const struct mfu_tables *t, bool prefill, int heads,
					    int kvh, int hd, enum dtype kvdt)
{
	return prefill ? nearest_cfg(t->prefill, t->nprefill, heads, kvh, hd, kvdt)
		       : nearest_cfg(t->decode, t->ndecode, heads, kvh, hd, kvdt);
}

double mfu_attn_eval_log(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
			 double log_batch, double log_len)
{
	double x[2], dflt = prefill ? MFU_DEFAULT_ATTN_PREFILL : MFU_DEFAULT_ATTN_DECODE;

	if (!c)
		return dflt;
	x[0] = log_batch;
	x[1] = log_len;
	return mfu_clamp(mfu_grid_eval(&c->g, x, t->nearest), dflt);
}

void mfu_attn_col_init(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
		       double log_batch, struct mfu_attn_col *col)
{
	memset(col, 0, sizeof(*col));
	col->t = t;
	col->c = c;
	col->prefill = prefill;
	col->log_batch = log_batch;
	if (!c || c->g.dims != 2)
		return; /* the default, or mfu_grid_eval's general path */
	col->g = &c->g;
	mfu_grid_axis(col->g, 0, log_batch, &col->lo, &col->w, &col->pos);
}

double mfu_attn_col_eval(struct mfu_attn_col *col, double log_len)
{
	size_t lo[3] = {0, 0, 0};
	double w[3] = {0, 0, 0}, pos[3] = {0, 0, 0};

	if (!col->g)
		return mfu_attn_eval_log(col->t, col->c, col->prefill, col->log_batch, log_len);
	lo[0] = col->lo;
	w[0] = col->w;
	pos[0] = col->pos;
	/* mfu_grid_axis on the length axis, its search from the last place
	 * (a decode batch's mean context moves slowly) */
	axis_bracket_hint(col->g->axis[1], col->g->len[1], log_len, &lo[1], &w[1], &col->hint);
	pos[1] = (double)lo[1] + w[1];
	if (col->g->len[1] == 1)
		pos[1] = 0;
	return mfu_clamp(grid_eval_at(col->g, lo, w, pos, col->t->nearest),
			 col->prefill ? MFU_DEFAULT_ATTN_PREFILL : MFU_DEFAULT_ATTN_DECODE);
}

double mfu_attn_eval(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
		     double batch, double len)
{
	return mfu_attn_eval_log(t, c, prefill, log(batch), log(len));
}

double mfu_attn_prefill(const struct mfu_tables *t, int heads, int kvh, int hd, enum dtype kvdt,
			double batch, double isl)
{
	return mfu_attn_eval(t, mfu_attn_resolve(t, true, heads, kvh, hd, kvdt), true, batch, isl);
}

double mfu_attn_decode(const struct mfu_tables *t, int heads, int kvh, int hd, enum dtype kvdt,
		       double batch, double kv_len)
{
	return mfu_attn_eval(t, mfu_attn_resolve(t, false, heads, kvh, hd, kvdt), false, batch, kv_len);
}

double mfu_allreduce_s(const struct mfu_tables *t, int n, double elems)
{
	const double *s, *l;
	size_t len, lo;
	double x = log(elems), w;

	if (n < 2 || n > 8 || t->ar_len[n] == 0)
		return -1;
	s = t->ar_size[n];
	l = t->ar_lat[n];
	len = t->ar_len[n];
	if (x >= s[len - 1]) /* bandwidth-bound beyond the table: linear in size */
		return exp(l[len - 1]) * exp(x - s[len - 1]) * 1e-6;
	if (x <= s[0] || len == 1)
		return exp(l[0]) * 1e-6;
	axis_bracket(s, len, x, &lo, &w);
	if (t->nearest)
		return exp(w < 0.5 ? l[lo] : l[lo + 1]) * 1e-6;
	return exp(l[lo] + w * (l[lo + 1] - l[lo])) * 1e-6;
}

void mfu_attn_row(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
		  double log_batch, struct mfu_row *row)
{
	size_t j;

	memset(row, 0, sizeof(*row));
	row->dflt = prefill ? MFU_DEFAULT_ATTN_PREFILL : MFU_DEFAULT_ATTN_DECODE;
	if (!c)
		return;
	row->axis = c->g.axis[1];
	row->len = c->g.len[1];
	row->v = xmalloc(xmul(row->len, sizeof(double)));
	for (j = 0; j < row->len; j++) {
		double x[2] = {log_batch, row->axis[j]};
		row->v[j] = mfu_grid_eval(&c->g, x, t->nearest);
	}
}

void mfu_row_release(struct mfu_row *row)
{
	free(row->v);
	row->v = NULL;
}

/* The largest axis[j + 1] ending a segment of v[0..n) that rises faster
 * than max_slope per unit of axis, moves by more than 4, or is narrower
 * than min_width, above from; INFINITY where a value is not finite (a
 * default between table values, or none).  The two rises_from's below. */
static double segs_rise_from(const double *axis, const double *v, size_t n, double max_slope, double min_width,
			     double from)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (!isfinite(v[j]))
			return INFINITY;
	for (j = 0; j + 1 < n; j++) {
		double da = axis[j + 1] - axis[j], dv = v[j + 1] - v[j];
		if (!(da >= min_width && fabs(dv) <= 4 && dv <= max_slope * da) && axis[j + 1] > from)
			from = axis[j + 1];
	}
	return from;
}

double mfu_row_rises_from(const struct mfu_row *row, double max_slope, double min_width)
{
	if (!row->v) /* (the default: constant) */
		return -INFINITY;
	return segs_rise_from(row->axis, row->v, row->len, max_slope, min_width, -INFINITY);
}

double mfu_attn_col_rises_from(const struct mfu_attn_col *col, double max_slope, double min_width)
{
	const struct mfu_grid *g = col->g;
	size_t n1, r, rows[2];
	double from = -INFINITY;

	if (!g || col->t->nearest)
		return INFINITY;
	n1 = g->len[1];
	/* grid_eval_at's two rows (the second weighted w, perhaps 0) */
	rows[0] = col->lo;
	rows[1] = g->len[0] > 1 ? col->lo + 1 : col->lo;
	for (r = 0; r < 2; r++)
		from = segs_rise_from(g->axis[1], g->v + rows[r] * n1, n1, max_slope, min_width, from);
	return from;
}

double mfu_row_eval(const struct mfu_row *row, double log_len)
{
	size_t lo;
	double w;

	if (!row->v)
		return row->dflt;
	axis_bracket(row->axis, row->len, log_len, &lo, &w);
	if (row->len == 1)
		return mfu_clamp(row->v[0], row->dflt);
	return mfu_clamp((1 - w) * row->v[lo] + w * row->v[lo + 1], row->dflt);
}
