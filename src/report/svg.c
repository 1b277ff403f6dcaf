/* svg.c - line plots as standalone SVG (no external tool): axes from 0 to
 * a round value above the data, ticks, one polyline with markers per
 * series, a legend, optional limit lines. */
#include <math.h>
#include <stdio.h>

#include "servesim/out.h"

/* plot area inside a 720 x 450 canvas */
#define W 720.0
#define H 450.0
#define L 80.0
#define R 170.0
#define T 40.0
#define B 60.0

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				      "#8c564b"};

static void esc(FILE *f, const char *s)
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
static double tick_step(double v)
{
	double raw = v / 5, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static double axis_max(double v, double *step)
{
	if (!(v > 0))
		v = 1;
	*step = tick_step(v);
	return ceil(v / *step) * *step;
}

void out_svg_plot(FILE *f, const struct out_svg_plot *p)
{
	double xmax = 0, ymax = 0, xs, ys, v;
	double pw = W - L - R, ph = H - T - B;
	size_t i, j;

	for (i = 0; i < p->nseries; i++)
		for (j = 0; j < p->series[i].n; j++) {
			if (isfinite(p->series[i].x[j]) && p->series[i].x[j] > xmax)
				xmax = p->series[i].x[j];
			if (isfinite(p->series[i].y[j]) && p->series[i].y[j] > ymax)
				ymax = p->series[i].y[j];
		}
	for (i = 0; i < p->nvlines; i++)
		if (isfinite(p->vlines[i].x) && p->vlines[i].x > xmax)
			xmax = p->vlines[i].x;
	if (isfinite(p->hline_y) && p->hline_y > ymax)
		ymax = p->hline_y;
	xmax = axis_max(xmax, &xs);
	ymax = axis_max(ymax * 1.05, &ys);
#define PX(x) (L + (x) / xmax * pw)
#define PY(y) (T + ph - (y) / ymax * ph)
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
		W, H, W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"15\">", L);
	esc(f, p->title);
	fprintf(f, "</text>\n");
	/* grid and ticks */
	for (v = 0; v <= xmax * (1 + 1e-9); v += xs) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n", PX(v), T,
			PX(v), T + ph);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", PX(v), T + ph + 18, v);
	}
	for (v = 0; v <= ymax * (1 + 1e-9); v += ys) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>\n", L, PY(v),
			L + pw, PY(v));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L - 6, PY(v) + 4, v);
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
		L, T, pw, ph);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", L + pw / 2, H - 16);
	esc(f, p->xlabel);
	fprintf(f, "</text>\n<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">",
		T + ph / 2);
	esc(f, p->ylabel);
	fprintf(f, "</text>\n");
	/* limit lines */
	if (isfinite(p->hline_y)) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n",
			L, PY(p->hline_y), L + pw, PY(p->hline_y));
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", L + pw + 4, PY(p->hline_y) + 4);
		esc(f, p->hline_label);
		fprintf(f, "</text>\n");
	}
	for (i = 0; i < p->nvlines; i++) {
		if (!isfinite(p->vlines[i].x))
			continue;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"2 3\"/>\n",
			PX(p->vlines[i].x), T, PX(p->vlines[i].x), T + ph);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", PX(p->vlines[i].x) + 3,
			T + 14 + 14 * (double)i);
		esc(f, p->vlines[i].label);
		fprintf(f, "</text>\n");
	}
	/* series */
	for (i = 0; i < p->nseries; i++) {
		const struct out_svg_series *s = &p->series[i];
		const char *col = colours[i % (sizeof(colours) / sizeof(colours[0]))];
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
		for (j = 0; j < s->n; j++)
			if (isfinite(s->x[j]) && isfinite(s->y[j]))
				fprintf(f, "%s%.1f,%.1f", j ? " " : "", PX(s->x[j]), PY(s->y[j]));
		fprintf(f, "\"/>\n");
		for (j = 0; j < s->n; j++)
			if (isfinite(s->x[j]) && isfinite(s->y[j]))
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", PX(s->x[j]),
					PY(s->y[j]), col);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			L + pw + 10, T + 40 + 18 * (double)i, L + pw + 30, T + 40 + 18 * (double)i, col);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">", L + pw + 34, T + 44 + 18 * (double)i);
		esc(f, s->name);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</svg>\n");
#undef PX
#undef PY
}
