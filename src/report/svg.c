/* svg.c - charts as standalone SVG (no external tool): linear axes from 0
 * (or a given range) to a round value above the data, or log10 axes over
 * whole decades; ticks, a grid, one polyline and/or markers per series,
 * point labels, a legend, optional limit lines; several panels in one
 * document.  Every chart servesim draws goes through here. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/out.h"

/* panel margins: the plot area is inside them, the legend on the right
 * (wide enough for the longest series name, up to 45 % of the panel) */
#define ML 80.0
#define MT 40.0
#define MB 60.0
#define LABELS_MAX 64

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				      "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

void out_svg_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* 1, 2 or 5 x 10^k at or above v / 5: a tick step giving about 5 ticks */
double out_svg_tick_step(double v)
{
	double raw = v / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* One axis: its range and how a value maps to [0, 1]. */
struct axis {
	bool log;
	double lo, hi, step; /* log: lo and hi are decades' powers of 10 */
};

static void axis_fit(struct axis *a, bool log, double dlo, double dhi, double given_lo, double given_hi,
		     double headroom)
{
	a->log = log;
	if (given_hi > given_lo) {
		a->lo = given_lo;
		a->hi = given_hi;
		a->step = log ? 10 : out_svg_tick_step(given_hi - given_lo);
		return;
	}
	if (log) {
		if (!(dlo > 0) || !(dhi > 0)) {
			dlo = 1;
			dhi = 10;
		}
		a->lo = pow(10, floor(log10(dlo)));
		a->hi = pow(10, ceil(log10(dhi * headroom)));
		if (a->hi <= a->lo)
			a->hi = a->lo * 10;
		a->step = 10;
		return;
	}
	dhi *= headroom;
	if (!(dhi > 0))
		dhi = 1;
	a->lo = 0;
	a->step = out_svg_tick_step(dhi);
	a->hi = ceil(dhi / a->step) * a->step;
}

static bool axis_ok(const struct axis *a, double v)
{
	return isfinite(v) && (!a->log || v > 0);
}

static double axis_frac(const struct axis *a, double v)
{
	if (a->log)
		return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	return (v - a->lo) / (a->hi - a->lo);
}

void out_svg_begin(FILE *f, double width, double height)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		width, height, width, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
}

void out_svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
}

static void marker(FILE *f, double x, double y, const char *col, bool hollow)
{
	fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"%s\"/>\n", x, y,
		hollow ? "3" : "2.5", hollow ? "none" : col, col);
}

void out_svg_panel(FILE *f, const struct out_svg_plot *p, double ox, double oy)
{
	double W = p->width > 0 ? p->width : 720, H = p->height > 0 ? p->height : 450, MR = 120;
	double pw, ph = H - MT - MB, dxlo = INFINITY, dxhi = 0, dylo = INFINITY, dyhi = 0, v;
	double lx[LABELS_MAX], ly[LABELS_MAX];
	struct axis ax, ay;
	size_t i, j, k, nl = 0;

	for (i = 0; i < p->nseries; i++)
		if (p->series[i].name)
			MR = fmax(MR, 44 + 6.5 * (double)strlen(p->series[i].name));
	MR = fmin(MR, 0.45 * W);
	pw = W - ML - MR;

	for (i = 0; i < p->nseries; i++)
		for (j = 0; j < p->series[i].n; j++) {
			double x = p->series[i].x[j], y = p->series[i].y[j];
			if (isfinite(x) && (!p->logx || x > 0)) {
				dxlo = fmin(dxlo, x);
				dxhi = fmax(dxhi, x);
			}
			if (isfinite(y) && (!p->logy || y > 0)) {
				dylo = fmin(dylo, y);
				dyhi = fmax(dyhi, y);
			}
		}
	for (i = 0; i < p->nvlines; i++)
		if (isfinite(p->vlines[i].x) && p->vlines[i].x > dxhi)
			dxhi = p->vlines[i].x;
	if (p->hline_label && isfinite(p->hline_y) && p->hline_y > dyhi)
		dyhi = p->hline_y;
	axis_fit(&ax, p->logx, dxlo, dxhi, p->xmin, p->xmax, 1);
	axis_fit(&ay, p->logy, dylo, dyhi, p->ymin, p->ymax, 1.05);
#define PX(x) (ML + axis_frac(&ax, (x)) * pw)
#define PY(y) (MT + ph - axis_frac(&ay, (y)) * ph)
	fprintf(f, "<g transform=\"translate(%.0f %.0f)\">\n", ox, oy);
	fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"15\">", ML);
	out_svg_esc(f, p->title);
	fprintf(f, "</text>\n");
	/* grid and ticks (log: one per decade) */
	for (v = ax.lo; v <= ax.hi * (1 + 1e-9); v = ax.log ? v * 10 : v + ax.step) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n", PX(v), MT,
			PX(v), MT + ph);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", PX(v), MT + ph + 18, v);
	}
	for (v = ay.lo; v <= ay.hi * (1 + 1e-9); v = ay.log ? v * 10 : v + ay.step) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n", ML, PY(v),
			ML + pw, PY(v));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 6, PY(v) + 4, v);
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
		ML, MT, pw, ph);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ML + pw / 2, H - 16);
	out_svg_esc(f, p->xlabel);
	fprintf(f, "</text>\n<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">",
		MT + ph / 2);
	out_svg_esc(f, p->ylabel);
	fprintf(f, "</text>\n");
	/* limit lines */
	if (p->hline_label && axis_ok(&ay, p->hline_y)) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n",
			ML, PY(p->hline_y), ML + pw, PY(p->hline_y));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", ML + pw + 4, PY(p->hline_y) + 4);
		out_svg_esc(f, p->hline_label);
		fprintf(f, "</text>\n");
	}
	for (i = 0; i < p->nvlines; i++) {
		if (!axis_ok(&ax, p->vlines[i].x))
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"2 3\"/>\n",
			PX(p->vlines[i].x), MT, PX(p->vlines[i].x), MT + ph);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", PX(p->vlines[i].x) + 3,
			MT + 14 + 14 * (double)i);
		out_svg_esc(f, p->vlines[i].label);
		fprintf(f, "</text>\n");
	}
	/* series, clipped to the plot area */
	for (i = 0; i < p->nseries; i++) {
		const struct out_svg_series *s = &p->series[i];
		const char *col = colours[i % (sizeof(colours) / sizeof(colours[0]))];
		bool first = true;
		if (s->style != OUT_SVG_POINTS && s->style != OUT_SVG_HOLLOW) {
			fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", col,
				s->style == OUT_SVG_CURVE ? "2" : "1.5");
			for (j = 0; j < s->n; j++)
				if (axis_ok(&ax, s->x[j]) && axis_ok(&ay, s->y[j])) {
					fprintf(f, "%s%.1f,%.1f", first ? "" : " ", PX(s->x[j]), PY(s->y[j]));
					first = false;
				}
			fprintf(f, "\"/>\n");
		}
		for (j = 0; j < s->n; j++) {
			if (!axis_ok(&ax, s->x[j]) || !axis_ok(&ay, s->y[j]))
				continue;
			if (s->style != OUT_SVG_CURVE)
				marker(f, PX(s->x[j]), PY(s->y[j]), col, s->style == OUT_SVG_HOLLOW);
			if (s->labels && s->labels[j]) {
				/* a label over an earlier one moves down a line */
				double tx = PX(s->x[j]) + 6, ty = PY(s->y[j]) - 6;
				for (k = 0; k < nl; k++)
					if (fabs(lx[k] - tx) < 40 && fabs(ly[k] - ty) < 12) {
						ty = ly[k] + 13;
						k = (size_t)-1;
					}
				if (nl < LABELS_MAX) {
					lx[nl] = tx;
					ly[nl++] = ty;
				}
				fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", tx, ty);
				out_svg_esc(f, s->labels[j]);
				fprintf(f, "</text>\n");
			}
		}
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			ML + pw + 10, MT + 40 + 18 * (double)i, ML + pw + 30, MT + 40 + 18 * (double)i, col);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", ML + pw + 34, MT + 44 + 18 * (double)i);
		out_svg_esc(f, s->name);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</g>\n");
#undef PX
#undef PY
}

void out_svg_plot(FILE *f, const struct out_svg_plot *p)
{
	out_svg_begin(f, p->width > 0 ? p->width : 720, p->height > 0 ? p->height : 450);
	out_svg_panel(f, p, 0, 0);
	out_svg_end(f);
}

void out_svg_pred_meas(FILE *f, const char *title, const double *sx, const double *sy, size_t ns,
		       const double *ox, const double *oy, size_t no, double width, double height)
{
	double lo = INFINITY, hi = 0, d[2];
	struct out_svg_series ser[3];
	struct out_svg_plot pl;
	size_t i;

	for (i = 0; i < ns + no; i++) {
		double a = i < ns ? sx[i] : ox[i - ns], b = i < ns ? sy[i] : oy[i - ns];
		if (a > 0 && b > 0 && isfinite(a) && isfinite(b)) {
			lo = fmin(lo, fmin(a, b));
			hi = fmax(hi, fmax(a, b));
		}
	}
	d[0] = lo;
	d[1] = hi;
	ser[0] = (struct out_svg_series){"steady", sx, sy, ns, OUT_SVG_POINTS, NULL};
	ser[1] = (struct out_svg_series){"overloaded", ox, oy, no, OUT_SVG_HOLLOW, NULL};
	ser[2] = (struct out_svg_series){"y = x", d, d, hi > 0 ? 2 : 0, OUT_SVG_CURVE, NULL};
	pl = (struct out_svg_plot){.title = title, .xlabel = "measured", .ylabel = "predicted", .series = ser,
				   .nseries = 3, .logx = true, .logy = true, .width = width, .height = height};
	if (hi > 0) {
		pl.xmin = pl.ymin = pow(10, floor(log10(lo)));
		pl.xmax = pl.ymax = pow(10, ceil(log10(hi)));
		if (pl.xmax <= pl.xmin)
			pl.xmax = pl.ymax = pl.xmin * 10;
	}
	out_svg_plot(f, &pl);
}
