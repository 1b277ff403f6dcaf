/* pareto.c - Pareto front (maximise both coordinates; O(n^2), n is the
 * number of deployments) and its SVG chart. */
#include "servesim/pareto.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "servesim/alloc.h"

void pareto_front(const double *x, const double *y, size_t n, bool *on_front)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		on_front[i] = isfinite(x[i]) && isfinite(y[i]);
		for (j = 0; on_front[i] && j < n; j++) {
			if (j == i || !isfinite(x[j]) || !isfinite(y[j]))
				continue;
			if (x[j] >= x[i] && y[j] >= y[i] && (x[j] > x[i] || y[j] > y[i]))
				on_front[i] = false;
		}
	}
}

/* A round tick step giving about 5 ticks up to hi. */
static double tick_step(double hi)
{
	double raw = hi / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static void xml_text(struct sbuf *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			sb_puts(o, "&lt;");
		else if (*s == '>')
			sb_puts(o, "&gt;");
		else if (*s == '&')
			sb_puts(o, "&amp;");
		else if (*s == '"')
			sb_puts(o, "&quot;");
		else
			sb_putc(o, *s);
	}
}

void pareto_svg(const struct pareto_chart *c, struct sbuf *o)
{
	const double W = 720, H = 480, L = 80, R = 30, T = 40, B = 60;
	double xmax = 0, ymax = 0, xs, ys, t;
	size_t i, j, nf = 0, *front;

	for (i = 0; i < c->n; i++)
		if (isfinite(c->x[i]) && isfinite(c->y[i])) {
			xmax = fmax(xmax, c->x[i]);
			ymax = fmax(ymax, c->y[i]);
		}
	if (xmax <= 0)
		xmax = 1;
	if (ymax <= 0)
		ymax = 1;
	xs = tick_step(xmax * 1.05);
	ys = tick_step(ymax * 1.05);
	xmax = ceil(xmax * 1.05 / xs) * xs;
	ymax = ceil(ymax * 1.05 / ys) * ys;
#define PX(v) (L + (v) / xmax * (W - L - R))
#define PY(v) (H - B - (v) / ymax * (H - T - B))
	sb_printf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		     "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
	sb_printf(o, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", W, H);
	sb_printf(o, "<text x=\"%.0f\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">", W / 2);
	xml_text(o, c->title);
	sb_puts(o, "</text>\n");
	for (t = 0; t <= xmax + xs / 2; t += xs)
		sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n",
			  PX(t), PY(0), PX(t), PY(ymax), PX(t), PY(0) + 16, t);
	for (t = 0; t <= ymax + ys / 2; t += ys)
		sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			  PX(0), PY(t), PX(xmax), PY(t), PX(0) - 6, PY(t) + 4, t);
	sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", PX(0),
		  PY(0), PX(xmax), PY(0));
	sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", PX(0),
		  PY(0), PX(0), PY(ymax));
	sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (L + W - R) / 2, H - 18);
	xml_text(o, c->xlabel);
	sb_puts(o, "</text>\n");
	sb_printf(o, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">",
		  (T + H - B) / 2, (T + H - B) / 2);
	xml_text(o, c->ylabel);
	sb_puts(o, "</text>\n");
	/* the front, by x */
	front = xcalloc(c->n ? c->n : 1, sizeof(*front));
	for (i = 0; i < c->n; i++)
		if (c->on_front[i]) {
			for (j = nf; j > 0 && c->x[front[j - 1]] > c->x[i]; j--)
				front[j] = front[j - 1];
			front[j] = i;
			nf++;
		}
	if (nf > 1) {
		sb_puts(o, "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"");
		for (j = 0; j < nf; j++)
			sb_printf(o, "%s%.1f,%.1f", j ? " " : "", PX(c->x[front[j]]), PY(c->y[front[j]]));
		sb_puts(o, "\"/>\n");
	}
	for (i = 0; i < c->n; i++) {
		if (!isfinite(c->x[i]) || !isfinite(c->y[i]))
			continue;
		sb_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"/>\n", PX(c->x[i]), PY(c->y[i]),
			  c->on_front[i] ? "4.5" : "3", c->on_front[i] ? "#d62728" : "#1f77b4");
	}
	for (j = 0; c->label && j < nf; j++) {
		i = front[j];
		/* labels right of a point in the left half, left of it in the right half */
		bool left = PX(c->x[i]) > W / 2;
		sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\"%s>", PX(c->x[i]) + (left ? -6 : 6),
			  PY(c->y[i]) - 6, left ? " text-anchor=\"end\"" : "");
		xml_text(o, c->label[i]);
		sb_puts(o, "</text>\n");
	}
	sb_puts(o, "</svg>\n");
	free(front);
#undef PX
#undef PY
}
