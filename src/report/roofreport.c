/* roofreport.c - the markdown report of `servesim roofline` (see
 * roofreport.h): which resource bounds prefill, decode and training, the
 * sweeps, the Mermaid diagrams, the sensitivity ranking, GPU comparison,
 * gnuplot plots and the decode grid CSV. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/afile.h"
#include "report/out.h"
#include "base/alloc.h"
#include "cost/memplan.h"
#include "model/opgraph.h"
#include "report/outfmt.h"
#include "base/paths.h"
#include "report/roofreport.h"

static void fmt_time(char *b, size_t n, double s)
{
	if (s >= 1)
		snprintf(b, n, "%.3g s", s);
	else if (s >= 1e-3)
		snprintf(b, n, "%.3g ms", s * 1e3);
	else
		snprintf(b, n, "%.3g us", s * 1e6);
}

static const char *bytes_si(char *b, size_t n, double v)
{
	out_fmt_si(b, n, v, "B");
	return b;
}

static void point_row(FILE *f, const char *label, const struct rl_point *p)
{
	char a[32], b[32], c[32], d[32], tm[32], t1[32], t2[32], t3[32], t4[32], fl[32];
	double hbm = p->weight_bytes + p->act_bytes + p->kv_bytes + p->temp_bytes;

	out_fmt_si(fl, sizeof(fl), p->flops, "FLOP");
	fmt_time(t1, sizeof(t1), p->t_comp);
	fmt_time(t2, sizeof(t2), p->t_hbm);
	fmt_time(t3, sizeof(t3), p->t_net);
	fmt_time(t4, sizeof(t4), p->t_est);
	fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %.3g | %s | %s | %s | %s | %s | %.1f / %.1f / %.1f |\n",
		label, fl, bytes_si(a, sizeof(a), p->weight_bytes), bytes_si(b, sizeof(b), p->act_bytes),
		bytes_si(c, sizeof(c), p->kv_bytes), bytes_si(tm, sizeof(tm), p->temp_bytes),
		bytes_si(d, sizeof(d), p->net_bytes), p->intensity, t1, t2, t3, t4, p->regime,
		hbm > 0 ? 100 * p->weight_bytes / hbm : 0, hbm > 0 ? 100 * p->kv_bytes / hbm : 0,
		hbm > 0 ? 100 * p->temp_bytes / hbm : 0);
}

static void table_head(FILE *f, const char *first)
{
	fprintf(f, "| %s | FLOPs | weights | activations | KV | temporaries | network | AI_hbm FLOP/B | T_comp | T_hbm | T_net | T_est | regime | %% of HBM bytes: weights / KV / temporaries |\n",
		first);
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
}

static const char *guidance(const char *regime)
{
	if (strcmp(regime, "compute") == 0)
		return "compute-bound: the tensor cores are the limit; gains come from higher utilisation "
		       "(larger GEMM tiles, fusion, fewer small kernels), a lower-precision dtype (fp8), or more GPUs";
	if (strcmp(regime, "HBM weights") == 0)
		return "bound by streaming weights: batch more requests per step (weights are read once per step), "
		       "keep weights resident across steps, or compress them (fp8/int4 weights)";
	if (strcmp(regime, "HBM KV") == 0)
		return "bound by reading the KV cache: a smaller KV dtype (fp8 KV), a more compact KV format "
		       "(MLA, GQA, sliding window, sparse attention), or fewer/shorter contexts per GPU";
	return "bound by the interconnect: overlap collectives with compute, a topology with more link "
	       "bandwidth, or less tensor/expert parallelism";
}

static int sweep(FILE *f, const struct rl_cfg *c, const char *title, const char *col,
		 const int64_t *vals, size_t n, int what, int64_t batch, int64_t seq, int64_t kv,
		 struct err *e)
{
	struct rl_point pt;
	char label[64];
	size_t i;
	int rc;

	fprintf(f, "### %s\n\n", title);
	table_head(f, col);
	for (i = 0; i < n; i++) {
		int64_t b = what == 0 ? vals[i] : batch, s = what == 2 ? vals[i] : seq,
			l = what == 1 ? vals[i] : kv;
		if ((rc = rl_eval(c, b, s, l, &pt, e)) < 0)
			return rc;
		snprintf(label, sizeof(label), "%lld", (long long)vals[i]);
		point_row(f, label, &pt);
	}
	fprintf(f, "\n");
	return 0;
}

/* one layer of each kind as a Mermaid flowchart (operators in order) */
static int mermaid(FILE *f, const struct rl_cfg *c, int64_t batch, int64_t kv, struct err *e)
{
	struct pass_shape sh = {batch, 1, kv, false};
	struct opgraph og;
	size_t i, j;
	int rc;

	if ((rc = opgraph_build(c->m, &c->p, &sh, c->wdt, c->kvdt, &og, e)) < 0)
		return rc;
	for (i = 0; i < og.nkinds; i++) {
		const struct layer_kind *lk = &og.kinds[i];
		if (strcmp(lk->name, "embed+head") == 0)
			continue;
		fprintf(f, "Layer kind `%s` (x %lld per GPU), decode:\n\n```mermaid\nflowchart LR\n", lk->name,
			(long long)lk->count);
		for (j = 0; j < lk->nops; j++)
			fprintf(f, "  %s%zu[\"%s<br/>%s\"]\n", lk->name, j, lk->ops[j].name,
				op_cat_name(lk->ops[j].cat));
		for (j = 0; j + 1 < lk->nops; j++)
			fprintf(f, "  %s%zu --> %s%zu\n", lk->name, j, lk->name, j + 1);
		fprintf(f, "```\n\n");
	}
	opgraph_release(&og);
	return 0;
}

/* decode T_est with one knob changed, as a ratio to the baseline */
struct knob {
	const char *name, *change;
	double ratio;
	bool valid;
};

static int cmp_knob(const void *a, const void *b)
{
	const struct knob *x = a, *y = b;
	double dx = fabs(log(x->ratio)), dy = fabs(log(y->ratio));
	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* k[*n]: decode T_est of c at (batch, kv_len) as a ratio to base's */
static int add_knob(const struct rl_cfg *c, int64_t batch, int64_t kv_len, const struct rl_point *base,
		    const char *name, const char *change, struct knob *k, size_t *n, struct err *e)
{
	struct rl_point pt;
	int rc;

	if ((rc = rl_eval(c, batch, 1, kv_len, &pt, e)) < 0)
		return rc;
	k[(*n)++] = (struct knob){name, change, pt.t_est / base->t_est, true};
	return 0;
}

static int sensitivity(FILE *f, const struct rl_cfg *c, const struct out_roof_opts *o, struct err *e)
{
	struct model_cfg *m2 = xmalloc(sizeof(*m2));
	struct rl_point base;
	struct rl_cfg c2;
	struct knob k[6];
	size_t n = 0, i;
	int rc;

	if ((rc = rl_eval(c, o->batch, 1, o->kv_len, &base, e)) < 0 ||
	    (rc = add_knob(c, o->batch * 2, o->kv_len, &base, "batch", "x2", k, &n, e)) < 0 ||
	    (rc = add_knob(c, o->batch, o->kv_len * 2 + 1, &base, "KV length", "x2", k, &n, e)) < 0)
		goto out;
	c2 = *c;
	c2.kvdt = c->kvdt == DT_FP8 ? DT_BF16 : DT_FP8;
	if ((rc = add_knob(&c2, o->batch, o->kv_len, &base, "KV dtype bytes",
			   c->kvdt == DT_FP8 ? "x2 (fp8 -> bf16)" : "/2 (bf16 -> fp8)", k, &n, e)) < 0)
		goto out;
	/* the model's widths, one at a time */
	*m2 = *c->m;
	c2 = *c;
	c2.m = m2;
	if (c->m->n_experts > 0 && c->m->top_k * 2 <= c->m->n_experts) {
		m2->top_k *= 2;
		if ((rc = add_knob(&c2, o->batch, o->kv_len, &base, "top-k", "x2", k, &n, e)) < 0)
			goto out;
		m2->top_k = c->m->top_k;
	}
	m2->hidden *= 2;
	if ((rc = add_knob(&c2, o->batch, o->kv_len, &base, "hidden size", "x2 (other widths fixed)", k, &n, e)) < 0)
		goto out;
	if (c->m->n_experts > 0 && c->p.ep * 2 <= c->p.tp * c->p.dp &&
	    (c->p.tp * c->p.dp) % (c->p.ep * 2) == 0 && c->m->n_experts % (c->p.ep * 2) == 0) {
		c2 = *c;
		c2.p.ep *= 2;
		if ((rc = add_knob(&c2, o->batch, o->kv_len, &base, "EP", "x2", k, &n, e)) < 0)
			goto out;
	}
	qsort(k, n, sizeof(k[0]), cmp_knob);
	fprintf(f, "## Sensitivity (decode B=%lld L=%lld, T_est %.4g ms)\n\n", (long long)o->batch,
		(long long)o->kv_len, base.t_est * 1e3);
	fprintf(f, "| rank | knob | change | T_est ratio | elasticity |\n|---:|---|---|---:|---:|\n");
	for (i = 0; i < n; i++)
		fprintf(f, "| %zu | %s | %s | %.3f | %+.2f |\n", i + 1, k[i].name, k[i].change, k[i].ratio,
			log(k[i].ratio) / log(strncmp(k[i].change, "/2", 2) == 0 ? 0.5 : 2.0));
	fprintf(f, "\nElasticity = d ln T_est / d ln knob over the change (1: proportional, 0: no effect).\n\n");
	rc = 0;
out:
	free(m2);
	return rc;
}

/* the grid's axes: the default 4 batches x 2 KV lengths, or with
 * --grid-points N, N of each spaced geometrically over batch 1..1024 and KV
 * length 256..65536 (the decode sweeps' ranges) */
static size_t grid_axes(int npts, int64_t *bs, int64_t *ls)
{
	static const int64_t b0[] = {1, 8, 64, 512}, l0[] = {256, 4096};
	int i;

	if (npts <= 0) {
		memcpy(bs, b0, sizeof(b0));
		memcpy(ls, l0, sizeof(l0));
		return 0;
	}
	for (i = 0; i < npts; i++) {
		double f = npts > 1 ? (double)i / (npts - 1) : 0;
		bs[i] = (int64_t)llround(pow(1024.0, f));
		ls[i] = (int64_t)llround(256.0 * pow(256.0, f));
	}
	return (size_t)npts;
}

static int write_grid(const struct rl_cfg *c, const char *path, int npts, struct err *e)
{
	static const enum dtype ds[] = {DT_BF16, DT_FP8};
	int64_t bs[64], ls[64];
	size_t nb = 4, nl = 2, n = grid_axes(npts, bs, ls);
	struct afile af;
	struct rl_point pt;
	size_t i, j, k;
	int rc;

	if (n)
		nb = nl = n;
	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	fprintf(af.f, "batch,kv_len,kv_dtype,flops,weight_bytes,act_bytes,kv_bytes,net_bytes,t_comp_us,t_hbm_us,t_net_us,t_est_us,regime,temp_bytes\n");
	for (i = 0; i < nb; i++)
		for (j = 0; j < nl; j++)
			for (k = 0; k < 2; k++) {
				struct rl_cfg c2 = *c;
				c2.kvdt = ds[k];
				if ((rc = rl_eval(&c2, bs[i], 1, ls[j], &pt, e)) < 0) {
					afile_abort(&af);
					return rc;
				}
				fprintf(af.f, "%lld,%lld,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%.6g\n",
					(long long)bs[i], (long long)ls[j], dtype_name(ds[k]), pt.flops,
					pt.weight_bytes, pt.act_bytes, pt.kv_bytes, pt.net_bytes, pt.t_comp * 1e6,
					pt.t_hbm * 1e6, pt.t_net * 1e6, pt.t_est * 1e6, pt.regime, pt.temp_bytes);
			}
	return afile_commit(&af, e);
}

/* the three phases and their shapes */
enum { PH_TRAIN, PH_PREFILL, PH_DECODE, PH__N };
static const char *const ph_name[PH__N] = {"train", "prefill", "decode"};

static bool ph_on(const struct out_roof_opts *o, int q)
{
	return q == PH_TRAIN ? o->train : q == PH_PREFILL ? o->prefill : o->decode;
}

/* train and prefill: seq new tokens; decode: one after kv_len cached */
static int ph_eval(const struct rl_cfg *c, const struct out_roof_opts *o, int q, struct rl_point *pt,
		   struct err *e)
{
	struct rl_cfg cq = *c;

	cq.train = q == PH_TRAIN;
	return rl_eval(&cq, o->batch, q == PH_DECODE ? 1 : o->seq, q == PH_DECODE ? o->kv_len : 0, pt, e);
}

/* the phases on other GPUs, same model and shape */
static int compare_gpus(FILE *f, const struct rl_cfg *c, const struct out_roof_opts *o,
			const struct gpu_spec *const *gs, size_t ng, struct err *e)
{
	size_t i;
	int rc;

	int q;

	fprintf(f, "## GPUs compared\n\n| GPU | OI_knee FLOP/B | effective ridge FLOP/B |");
	for (q = 0; q < PH__N; q++)
		if (ph_on(o, q))
			fprintf(f, " %s T_est (regime) |", ph_name[q]);
	fprintf(f, "\n|---|---:|---:|");
	for (q = 0; q < PH__N; q++)
		if (ph_on(o, q))
			fprintf(f, "---|");
	fprintf(f, "\n");
	for (i = 0; i < ng; i++) {
		struct rl_cfg cg = *c;
		struct rl_point pt;
		char t[32];
		cg.g = gs[i];
		if (gs[i]->peak_flops[cg.wdt] <= 0) {
			fprintf(f, "| %s | - | - | no %s peak |\n", gs[i]->id, dtype_name(cg.wdt));
			continue;
		}
		fprintf(f, "| %s | %.1f | %.1f |", gs[i]->id, rl_oi_knee(&cg), rl_ridge(&cg));
		for (q = 0; q < PH__N; q++) {
			if (!ph_on(o, q))
				continue;
			if ((rc = ph_eval(&cg, o, q, &pt, e)) < 0)
				return rc;
			fmt_time(t, sizeof(t), pt.t_est);
			fprintf(f, " %s (%s) |", t, pt.regime);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
	return 0;
}

/* dir relative to the folder of report (NULL: the current folder); dir
 * itself when either cannot be resolved */
static void rel_path(const char *report, const char *dir, char *out, size_t n)
{
	char from[PATH_MAX], to[PATH_MAX], rdir[PATH_MAX];
	const char *slash;
	size_t common = 0, i, used = 0;

	snprintf(out, n, "%s", dir);
	snprintf(rdir, sizeof(rdir), "%s", ".");
	if (report && (slash = strrchr(report, '/')))
		snprintf(rdir, sizeof(rdir), "%.*s", (int)(slash - report), report);
	if (report && slash == report)
		snprintf(rdir, sizeof(rdir), "/");
	if (!realpath(rdir, from) || !realpath(dir, to))
		return;
	/* the longest common prefix ending at a path component */
	for (i = 0; from[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i;
	if (!from[i] && (to[i] == '/' || !to[i]))
		common = i;
	if (!strcmp(from, "/"))
		common = 0;
	out[0] = '\0';
	for (i = common; from[i]; i++)
		if (from[i] == '/' && used + 4 < n)
			used += (size_t)snprintf(out + used, n - used, "../");
	snprintf(out + used, n - used, "%s", to[common] == '/' ? to + common + 1 : to + common);
	if (!out[0])
		snprintf(out, n, ".");
	else if (out[strlen(out) - 1] == '/')
		out[strlen(out) - 1] = '\0';
}

/* dir/name opened to be written atomically (afile_commit). */
static int plot_open(struct afile *af, const char *dir, const char *name, struct err *e)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return afile_open(af, p, e);
}

/* One chart to dir/name, atomically. */
static int svg_file(const char *dir, const char *name, const struct out_svg_plot *pl, struct err *e)
{
	struct afile af;
	int rc;

	if ((rc = plot_open(&af, dir, name, e)) < 0)
		return rc;
	out_svg_plot(af.f, pl);
	return afile_commit(&af, e);
}

/* The charts, drawn by servesim (out_svg_plot): the roofline with each
 * phase's point and decode time terms over the batch; their data and a
 * gnuplot script beside them for whoever wants to restyle them. */
static int plots(FILE *f, const struct rl_cfg *c, const struct out_roof_opts *o, struct err *e)
{
	static const int64_t batches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
	enum { NB = sizeof(batches) / sizeof(batches[0]), NC = 61 };
	char rel[1100], title[200], ceiling[160];
	FILE *d;
	struct afile af;
	struct rl_point pt;
	size_t i, np = 0;
	int rc;
	double peak = c->g->peak_flops[c->wdt] / 1e12, bw = c->g->hbm_bw * c->g->bw_eff / 1e12;
	double ymin = peak, px[PH__N], py[PH__N], cx[NC], cy[NC];
	double bx[NB], tc[NB], th[NB], te[NB];
	const char *pl[PH__N];
	struct out_svg_series ser[3];
	struct out_svg_plot chart;

	if (paths_mkdir_p(o->plots) != 0)
		return err_set(e, SS_ERUNTIME, "%s: cannot create the folder", o->plots);
	if ((rc = plot_open(&af, o->plots, "roofline.dat", e)) < 0)
		return rc;
	d = af.f;
	fprintf(d, "# phase intensity_flop_per_byte attained_tflops\n");
	for (i = 0; i < PH__N; i++) {
		double tf;
		if (!ph_on(o, (int)i))
			continue;
		if ((rc = ph_eval(c, o, (int)i, &pt, e)) < 0) {
			afile_abort(&af);
			return rc;
		}
		tf = pt.flops / pt.t_est / 1e12;
		ymin = fmin(ymin, tf);
		fprintf(d, "%s %.6g %.6g\n", ph_name[i], pt.intensity, tf);
		px[np] = pt.intensity;
		py[np] = tf;
		pl[np++] = ph_name[i];
	}
	if ((rc = afile_commit(&af, e)) < 0 || (rc = plot_open(&af, o->plots, "decode_batch.dat", e)) < 0)
		return rc;
	d = af.f;
	fprintf(d, "# batch t_comp_ms t_hbm_ms t_net_ms t_est_ms (decode, L=%lld)\n", (long long)o->kv_len);
	for (i = 0; i < NB; i++) {
		if ((rc = rl_eval(c, batches[i], 1, o->kv_len, &pt, e)) < 0) {
			afile_abort(&af);
			return rc;
		}
		fprintf(d, "%lld %.6g %.6g %.6g %.6g\n", (long long)batches[i], pt.t_comp * 1e3,
			pt.t_hbm * 1e3, pt.t_net * 1e3, pt.t_est * 1e3);
		bx[i] = (double)batches[i];
		tc[i] = pt.t_comp * 1e3;
		th[i] = pt.t_hbm * 1e3;
		te[i] = pt.t_est * 1e3;
	}
	if ((rc = afile_commit(&af, e)) < 0 || (rc = plot_open(&af, o->plots, "plots.gp", e)) < 0)
		return rc;
	d = af.f;
	fprintf(d, "# optional: gnuplot plots.gp redraws the charts as gnuplot-*.svg\n"
		   "set terminal svg size 720,480 dynamic noenhanced background rgb 'white'\n"
		   "set logscale xy\nset grid\nset key left top\n"
		   "peak = %.6g\nbw = %.6g\n"
		   "set output 'gnuplot-roofline.svg'\nset xlabel 'arithmetic intensity (FLOP/byte)'\n"
		   "set ylabel 'TFLOP/s'\nset xrange [0.1:100000]\nset yrange [%.6g:%.6g]\n"
		   "plot (x*bw < peak ? x*bw : peak) title 'roofline (%s, HBM x bw_eff)' lw 2, "
		   "'roofline.dat' using 2:3:1 with labels point pt 7 offset 1,1 notitle\n"
		   "set output 'gnuplot-decode_batch.svg'\nset xlabel 'decode batch (requests)'\n"
		   "set ylabel 'ms per step'\nunset xrange\nunset yrange\n"
		   "plot 'decode_batch.dat' using 1:2 with linespoints title 'T_comp', "
		   "'' using 1:3 with linespoints title 'T_hbm', '' using 1:5 with lines lw 2 title 'T_est'\n",
		peak, bw, fmin(ymin, 0.1 * 0.1 * bw) / 2, peak * 4, c->g->id);
	if ((rc = afile_commit(&af, e)) < 0)
		return rc;
	/* the ceiling min(AI x bandwidth, peak) from 0.1 to 1e5 FLOP/B, with
	 * the ridge itself as one of its points */
	for (i = 0; i < NC; i++) {
		cx[i] = pow(10, -1 + 6.0 * (double)i / (NC - 1));
		cy[i] = fmin(cx[i] * bw, peak);
	}
	for (i = 0; i + 1 < NC; i++)
		if (cx[i] * bw < peak && cx[i + 1] * bw > peak) {
			cx[i] = peak / bw;
			cy[i] = peak;
		}
	snprintf(ceiling, sizeof(ceiling), "roofline (%s, HBM x bw_eff)", c->g->id);
	ser[0] = (struct out_svg_series){ceiling, cx, cy, NC, OUT_SVG_CURVE, NULL};
	ser[1] = (struct out_svg_series){"phases", px, py, np, OUT_SVG_POINTS, pl};
	snprintf(title, sizeof(title), "roofline: %s on %s", c->m->id, c->g->id);
	chart = (struct out_svg_plot){.title = title, .xlabel = "arithmetic intensity (FLOP/byte)",
				      .ylabel = "TFLOP/s", .series = ser, .nseries = 2, .logx = true, .logy = true,
				      .xmin = 0.1, .xmax = 1e5,
				      .ymin = pow(10, floor(log10(fmin(ymin, 0.1 * 0.1 * bw) / 2))),
				      .ymax = pow(10, ceil(log10(peak * 4)))};
	if ((rc = svg_file(o->plots, "roofline.svg", &chart, e)) < 0)
		return rc;
	ser[0] = (struct out_svg_series){"T_comp", bx, tc, NB, OUT_SVG_LINES, NULL};
	ser[1] = (struct out_svg_series){"T_hbm", bx, th, NB, OUT_SVG_LINES, NULL};
	ser[2] = (struct out_svg_series){"T_est", bx, te, NB, OUT_SVG_CURVE, NULL};
	snprintf(title, sizeof(title), "decode step time over the batch (KV length %lld)", (long long)o->kv_len);
	chart = (struct out_svg_plot){.title = title, .xlabel = "decode batch (requests)", .ylabel = "ms per step",
				      .series = ser, .nseries = 3, .logx = true, .logy = true};
	if ((rc = svg_file(o->plots, "decode_batch.svg", &chart, e)) < 0)
		return rc;
	/* images relative to the report (its folder, or the current one) */
	rel_path(o->out, o->plots, rel, sizeof(rel));
	fprintf(f, "## Plots\n\n![roofline](%s/roofline.svg) ![decode over batch](%s/decode_batch.svg)\n\n", rel,
		rel);
	return 0;
}

/* FLOPs per module family of one pass (per GPU) */
static int module_flops(const struct rl_cfg *c, int64_t b, int64_t s, int64_t l, double *fl,
			struct err *e)
{
	struct pass_shape sh = {b, s, l, false};
	struct opgraph og;
	size_t i, j;
	int rc;

	memset(fl, 0, sizeof(double) * OPC__COUNT);
	if ((rc = opgraph_build(c->m, &c->p, &sh, c->wdt, c->kvdt, &og, e)) < 0)
		return rc;
	for (i = 0; i < og.nkinds; i++)
		for (j = 0; j < og.kinds[i].nops; j++)
			fl[og.kinds[i].ops[j].cat] += (double)og.kinds[i].count * og.kinds[i].ops[j].flops;
	opgraph_release(&og);
	return 0;
}

static int module_table(FILE *f, const struct rl_cfg *c, const struct out_roof_opts *o, struct err *e)
{
	double fl[PH__N][OPC__COUNT], tot[PH__N] = {0, 0, 0};
	bool on[PH__N];
	char b[32];
	int k, q;

	for (q = 0; q < PH__N; q++) {
		int rc;
		on[q] = ph_on(o, q);
		rc = on[q] ? module_flops(c, o->batch, q == PH_DECODE ? 1 : o->seq,
					  q == PH_DECODE ? o->kv_len : 0, fl[q], e) : 0;
		if (rc < 0)
			return rc;
		for (k = 0; k < OPC__COUNT; k++) {
			if (q == PH_TRAIN)
				fl[q][k] *= 3; /* forward + backward */
			tot[q] += on[q] ? fl[q][k] : 0;
		}
	}
	fprintf(f, "### FLOPs per module (per GPU)\n\n| module |");
	for (q = 0; q < PH__N; q++)
		if (on[q])
			fprintf(f, " %s |", ph_name[q]);
	fprintf(f, "\n|---|");
	for (q = 0; q < PH__N; q++)
		if (on[q])
			fprintf(f, "---:|");
	fprintf(f, "\n");
	for (k = 0; k < OPC__COUNT; k++) {
		bool any = false;
		for (q = 0; q < PH__N; q++)
			any |= on[q] && fl[q][k] > 0;
		if (!any)
			continue;
		fprintf(f, "| %s |", op_cat_name((enum op_cat)k));
		for (q = 0; q < PH__N; q++)
			if (on[q]) {
				out_fmt_si(b, sizeof(b), fl[q][k], "FLOP");
				fprintf(f, " %s (%.1f%%) |", b, tot[q] > 0 ? 100 * fl[q][k] / tot[q] : 0);
			}
		fprintf(f, "\n");
	}
	fprintf(f, "\n");
	return 0;
}

/* decode over the EP degrees the GPUs of a stage allow */
static int ep_sweep(FILE *f, const struct rl_cfg *c, const struct out_roof_opts *o, struct err *e)
{
	int gpus = c->p.tp * c->p.dp, ep;
	char label[32];
	int rc;

	if (c->m->n_experts <= 0 || gpus < 2)
		return 0;
	fprintf(f, "### Decode over EP at B=%lld L=%lld (TP %d x DP %d GPUs)\n\n", (long long)o->batch,
		(long long)o->kv_len, c->p.tp, c->p.dp);
	table_head(f, "EP");
	for (ep = 1; ep <= gpus; ep *= 2) {
		struct rl_cfg ce = *c;
		struct rl_point pt;
		if (gpus % ep != 0 || c->m->n_experts % ep != 0)
			continue;
		ce.p.ep = ep;
		if ((rc = rl_eval(&ce, o->batch, 1, o->kv_len, &pt, e)) < 0)
			return rc;
		snprintf(label, sizeof(label), "%d", ep);
		point_row(f, label, &pt);
	}
	fprintf(f, "\n");
	return 0;
}

int out_roofline_report(FILE *f, const struct out_roof_opts *o, const struct model_cfg *m,
			const struct gpu_spec *const *gs, size_t ng, struct err *e)
{
	const struct gpu_spec *g = gs[0];
	static const int64_t batches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
	static const int64_t kvs[] = {256, 1024, 4096, 16384, 65536};
	static const int64_t seqs[] = {128, 512, 1024, 2048, 4096, 8192, 16384};
	struct rl_cfg c = o->k;
	struct param_counts pc;
	struct rl_point pts[PH__N];
	const struct rl_point *pf = &pts[PH_PREFILL], *dc = &pts[PH_DECODE], *tr = &pts[PH_TRAIN];
	int q;
	char b1[80], b2[32], b3[32], b4[32];
	int64_t crit = 0;
	double ridge, knee, wgpu, kvtok;
	int rc;

	c.m = m;
	c.g = g;
	c.p = o->par;
	c.wdt = o->dtype;
	c.kvdt = o->kvdt;
	c.naive = o->mode == 1;
	ridge = rl_ridge(&c);
	knee = rl_oi_knee(&c);

	model_params(m, &pc);
	for (q = 0; q < PH__N; q++)
		if (ph_on(o, q) && (rc = ph_eval(&c, o, q, &pts[q], e)) < 0)
			return rc;
	if (o->decode && (rc = rl_critical_batch(&c, o->kv_len, 1 << 16, &crit, e)) < 0)
		return rc;
	fprintf(f, "# Roofline: %s on %s\n\n", m->id, g->name);
	fprintf(f, "%s weights, %s KV cache, TP %d, DP %d, EP %d; batch %lld requests (%lld per DP rank).\n\n",
		dtype_name(o->dtype), dtype_name(o->kvdt), o->par.tp, o->par.dp, o->par.ep,
		(long long)o->batch, (long long)((o->batch + o->par.dp - 1) / o->par.dp));
	fprintf(f, "## Architecture\n\n");
	fprintf(f, "- family %s, %lld layers, hidden %lld, vocab %lld\n", m->model_type,
		(long long)m->layers, (long long)m->hidden, (long long)m->vocab);
	if (m->attn == ATTN_MLA)
		fprintf(f, "- attention: MLA, %lld heads, q_lora %lld, kv_lora %lld (KV per token and layer: %lld values)\n",
			(long long)m->heads, (long long)m->q_lora_rank, (long long)m->kv_lora_rank,
			(long long)(m->kv_lora_rank + m->qk_rope_dim));
	else
		fprintf(f, "- attention: %s, %lld heads, %lld KV heads, head dim %lld\n", attn_kind_name(m->attn),
			(long long)m->heads, (long long)m->kv_heads, (long long)m->head_dim);
	if (m->n_experts > 0)
		fprintf(f, "- MoE: %lld routed experts (top-%lld, width %lld), %lld shared, %lld MoE layers of %lld\n",
			(long long)m->n_experts, (long long)m->top_k, (long long)m->moe_intermediate,
			(long long)m->n_shared_experts, (long long)m->n_moe_layers, (long long)m->layers);
	else
		fprintf(f, "- FFN: dense, intermediate %lld\n", (long long)m->intermediate);
	fprintf(f, "\n| module | parameters | share |\n|---|---:|---:|\n");
	{
		const char *names[] = {"embedding", "attention", "dense FFN", "routed experts",
				       "shared experts", "router", "norms", "LM head"};
		double v[] = {pc.embedding, pc.attention, pc.dense_ffn, pc.experts, pc.shared_experts,
			      pc.router, pc.norms, pc.lm_head};
		size_t i;
		for (i = 0; i < 8; i++)
			if (v[i] > 0) {
				out_fmt_count(b1, sizeof(b1), v[i]);
				fprintf(f, "| %s | %s | %.1f%% |\n", names[i], b1, 100 * v[i] / pc.total);
			}
		out_fmt_count(b1, sizeof(b1), pc.total);
		out_fmt_count(b2, sizeof(b2), pc.active);
		fprintf(f, "| total (active per token) | %s (%s) | |\n\n", b1, b2);
	}
	if ((rc = mermaid(f, &c, o->batch, o->kv_len, e)) < 0)
		return rc;
	wgpu = model_weight_bytes_per_gpu(m, &o->par, dtype_bytes(o->dtype));
	kvtok = model_kv_bytes_per_token_per_gpu(m, &o->par, dtype_bytes(o->kvdt));
	fprintf(f, "## Memory per GPU\n\n");
	fprintf(f, "- weights %s; KV cache %s per token, %s for the decode batch (%lld requests x %lld tokens)\n",
		bytes_si(b1, sizeof(b1), wgpu), bytes_si(b2, sizeof(b2), kvtok),
		bytes_si(b3, sizeof(b3), kvtok * (double)((o->batch + o->par.dp - 1) / o->par.dp) *
						  (double)(o->kv_len + 1)),
		(long long)((o->batch + o->par.dp - 1) / o->par.dp), (long long)(o->kv_len + 1));
	{
		struct memplan mp;
		int64_t toks = ((o->batch + o->par.dp - 1) / o->par.dp) * o->seq;
		if (memplan_compute(m, g, &o->par, o->dtype, o->kvdt, 0.9, 16, toks,
				    (o->batch + o->par.dp - 1) / o->par.dp, &mp, e) == 0)
			fprintf(f, "- activations: %s peak for a prefill step of %lld tokens (vLLM-style profile)\n",
				bytes_si(b1, sizeof(b1), mp.activation_bytes), (long long)toks);
		err_clear(e);
	}
	{
		double kvb = kvtok * (double)((o->batch + o->par.dp - 1) / o->par.dp) * (double)(o->kv_len + 1);
		fprintf(f, "- GPU memory %s: weights take %.1f%%, weights + decode KV %.1f%%%s\n\n",
			bytes_si(b1, sizeof(b1), g->mem_bytes), 100 * wgpu / g->mem_bytes,
			100 * (wgpu + kvb) / g->mem_bytes,
			wgpu + kvb > g->mem_bytes ? " (does not fit: the bounds below are what the shape would cost, "
						    "not a runnable configuration; add parallelism or shrink batch / context)"
						  : "");
	}
	if (o->train) {
		double ppg = wgpu / dtype_bytes(o->dtype);
		fprintf(f, "- training adds gradients (%s), Adam moments in fp32 (%s) and fp32 master weights (%s): %s of state per GPU before activations%s\n\n",
			bytes_si(b1, sizeof(b1), ppg * dtype_bytes(o->dtype)), bytes_si(b2, sizeof(b2), ppg * 8),
			bytes_si(b3, sizeof(b3), ppg * 4),
			bytes_si(b4, sizeof(b4), ppg * (2 * dtype_bytes(o->dtype) + 12)),
			ppg * (2 * dtype_bytes(o->dtype) + 12) > g->mem_bytes ? " (does not fit: shard the optimizer state or add GPUs)" : "");
	}
	fprintf(f, "## Hardware\n\n");
	fprintf(f, "- constants: b_sat %.0f rows, eta_scalar %.3g, naive tile %.0f rows; efficient execution: WRF attention %.3g, dense %.3g, MoE %.3g (residency %.2f, %.2f, %.2f; 001's defaults 4 / 4 / 2; at most a GEMM's rows), naive: WRF 1 (flags; see --help)\n",
		c.b_sat, c.eta_scalar, c.tile, 1 / c.res_attn, 1 / c.res_dense, 1 / c.res_moe, c.res_attn,
		c.res_dense, c.res_moe);
	fprintf(f, "- %s dense peak %.1f TFLOP/s; HBM %.2f TB/s x bw_eff %.2f = %.2f TB/s; link %.0f GB/s\n",
		dtype_name(o->dtype), g->peak_flops[o->dtype] / 1e12, g->hbm_bw / 1e12, g->bw_eff,
		g->hbm_bw * g->bw_eff / 1e12, g->link_bw / 1e9);
	fprintf(f, "- OI_knee %.1f FLOP/B = peak / HBM bandwidth (design document 001's definition, datasheet bandwidth)\n",
		knee);
	fprintf(f, "- effective ridge %.1f FLOP/B = peak / (HBM bandwidth x bw_eff %.2f): the knee of the time model below, whose T_hbm uses the achievable bandwidth\n\n",
		ridge, g->bw_eff);
	fprintf(f, "## Phases (per GPU; train = one forward + backward step)\n\n");
	table_head(f, "phase");
	{
		int mode;
		for (mode = 0; mode < 2; mode++) {
			struct rl_cfg cm = c;
			struct rl_point pt;
			const char *tag;
			if ((o->mode == 0 && mode == 1) || (o->mode == 1 && mode == 0))
				continue;
			cm.naive = mode == 1;
			tag = o->mode == 2 ? (mode ? ", naive" : ", efficient") : "";
			for (q = 0; q < PH__N; q++) {
				if (!ph_on(o, q))
					continue;
				if (mode != c.naive && (rc = ph_eval(&cm, o, q, &pt, e)) < 0)
					return rc;
				if (q == PH_DECODE)
					snprintf(b1, sizeof(b1), "decode B=%lld L=%lld%s", (long long)o->batch,
						 (long long)o->kv_len, tag);
				else
					snprintf(b1, sizeof(b1), "%s B=%lld S=%lld%s", ph_name[q],
						 (long long)o->batch, (long long)o->seq, tag);
				point_row(f, b1, mode == c.naive ? &pts[q] : &pt);
			}
		}
	}
	fprintf(f, "\n");
	if (o->train)
		fprintf(f, "- train: %s (AI_hbm %.3g FLOP/B %s OI_knee %.1f; effective ridge %.1f)\n", tr->regime,
			tr->intensity, tr->intensity > knee ? ">" : "<", knee, ridge);
	if (o->prefill)
		fprintf(f, "- prefill: %s (AI_hbm %.3g FLOP/B %s OI_knee %.1f; effective ridge %.1f)\n", pf->regime,
			pf->intensity, pf->intensity > knee ? ">" : "<", knee, ridge);
	if (o->decode) {
		double hb = dc->weight_bytes + dc->act_bytes + dc->kv_bytes + dc->temp_bytes;
		fprintf(f, "- decode: %s (AI_hbm %.3g FLOP/B %s OI_knee %.1f; effective ridge %.1f); HBM bytes: weights %.1f%%, KV %.1f%%, temporaries %.1f%%\n",
			dc->regime, dc->intensity, dc->intensity > knee ? ">" : "<", knee, ridge,
			100 * dc->weight_bytes / hb, 100 * dc->kv_bytes / hb, 100 * dc->temp_bytes / hb);
		if (crit > 0)
			fprintf(f, "- critical batch at L=%lld: %lld requests (decode turns compute-bound: T_comp >= T_hbm)\n",
				(long long)o->kv_len, (long long)crit);
		else
			fprintf(f, "- critical batch at L=%lld: none up to 65536 requests (KV traffic grows with the batch as fast as FLOPs)\n",
				(long long)o->kv_len);
		if (o->kv_len > 0) {
			int64_t c0 = 0;
			if ((rc = rl_critical_batch(&c, 0, 1 << 16, &c0, e)) < 0)
				return rc;
			if (c0 > 0)
				fprintf(f, "- critical batch without KV traffic (L=0, weights only): %lld requests\n",
					(long long)c0);
			else
				fprintf(f, "- critical batch without KV traffic (L=0): none up to 65536 requests\n");
		}
	}
	fprintf(f, "\n");
	if ((rc = module_table(f, &c, o, e)) < 0)
		return rc;
	fprintf(f, "## Sweeps\n\n");
	if (o->decode) {
		snprintf(b1, sizeof(b1), "Decode over batch at L=%lld", (long long)o->kv_len);
		if ((rc = sweep(f, &c, b1, "batch", batches, sizeof(batches) / sizeof(batches[0]), 0,
				o->batch, 1, o->kv_len, e)) < 0)
			return rc;
		snprintf(b1, sizeof(b1), "Decode over KV length at B=%lld", (long long)o->batch);
		if ((rc = sweep(f, &c, b1, "KV length", kvs, sizeof(kvs) / sizeof(kvs[0]), 1, o->batch, 1,
				0, e)) < 0)
			return rc;
	}
	if (o->prefill) {
		snprintf(b1, sizeof(b1), "Prefill over sequence length at B=%lld", (long long)o->batch);
		if ((rc = sweep(f, &c, b1, "sequence", seqs, sizeof(seqs) / sizeof(seqs[0]), 2, o->batch, 0,
				0, e)) < 0)
			return rc;
	}
	if (o->decode && (rc = ep_sweep(f, &c, o, e)) < 0)
		return rc;
	if (o->decode && (rc = sensitivity(f, &c, o, e)) < 0)
		return rc;
	if (o->grid) {
		if ((rc = write_grid(&c, o->grid, o->grid_points, e)) < 0)
			return rc;
		fprintf(f, "Full-factorial decode grid (batch x KV length x KV dtype, %d points): `%s`.\n\n",
			o->grid_points > 0 ? 2 * o->grid_points * o->grid_points : 16, o->grid);
	}
	if (ng > 1 && (rc = compare_gpus(f, &c, o, gs, ng, e)) < 0)
		return rc;
	if (o->plots && (rc = plots(f, &c, o, e)) < 0)
		return rc;
	fprintf(f, "## Guidance\n\n");
	if (o->prefill)
		fprintf(f, "- prefill is %s\n", guidance(pf->regime));
	if (o->decode)
		fprintf(f, "- decode is %s\n", guidance(dc->regime));
	if (o->train)
		fprintf(f, "- training is %s\n", guidance(tr->regime));
	fprintf(f, "\nModel: %s; GEMMs at tensor-core utilisation min(1, rows / b_sat), attention at 1, "
		   "elementwise work at eta_scalar of the dense peak; routed experts: only the experts the batch activates; "
		   "HBM at bw_eff of the datasheet bandwidth; collectives at the link bandwidth without overlap.\n",
		o->mode == 0 ? "efficient execution (flash attention: no S x S scores in HBM; fused elementwise operators; "
			       "weights read once per step x residency, 1 / min(WRF, GEMM rows))"
		: o->mode == 1 ? "naive execution (fp32 S x S scores in HBM; every elementwise operator round-trips HBM; "
				 "weights re-read per tile of rows)"
			       : "efficient and naive execution (see --help for both)");
	return 0;
}


int out_roofline_file(FILE *f, const void *ctx, struct err *e)
{
	const struct out_roof_report *x = ctx;

	return out_roofline_report(f, x->o, x->m, x->gs, x->ng, e);
}
