/* progress.c - progress bar on a terminal's stderr: redrawn when the
 * percentage changes, erased at the end so that the report starts clean. */
#include "report/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim.h"

void progress_init(struct progress_bar *p, const char *what, const char *unit, bool on)
{
	p->what = what;
	p->unit = unit;
	p->on = on && isatty(STDERR_FILENO);
	p->drawn = false;
	p->last_pct = -1;
}

void progress_update(void *pctx, size_t done, size_t n)
{
	struct progress_bar *p = pctx;
	char bar[41];
	int pct, k, fill;

	if (!p->on || n == 0)
		return;
	pct = (int)(100 * done / n);
	if (pct == p->last_pct)
		return;
	p->last_pct = pct;
	fill = pct * 40 / 100;
	for (k = 0; k < 40; k++)
		bar[k] = k < fill ? '#' : '.';
	bar[40] = '\0';
	fprintf(stderr, "\r%s [%s] %3d%% %zu/%zu %s", p->what, bar, pct, done, n, p->unit);
	fflush(stderr);
	p->drawn = true;
}

void progress_done(struct progress_bar *p)
{
	if (p->on && p->drawn)
		fprintf(stderr, "\r%*s\r", 78, "");
	p->drawn = false;
}

double progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void progress_line_init(struct progress_line *p, bool always, double t0)
{
	p->always = always;
	p->tty = isatty(STDERR_FILENO);
	p->t0 = t0;
	p->next = t0 + (always ? 0.5 : 1.0);
}

void progress_line_update(void *ctx, const struct sim *s)
{
	struct progress_line *p = ctx;
	const struct sim_totals *t = sim_totals(s);
	double now;

	if (!p->always && !p->tty)
		return;
	if ((now = progress_now()) < p->next)
		return;
	fprintf(stderr, "%ssimulated %.1f s, %llu arrived, %llu completed%s", p->tty ? "\r" : "",
		(double)sim_now_ns(s) * 1e-9, (unsigned long long)t->arrived, (unsigned long long)t->completed,
		p->tty ? "" : "\n");
	p->next = now + 0.5;
}

void progress_line_done(const struct progress_line *p)
{
	if (p->tty && progress_now() > p->t0 + 1.0)
		fputc('\n', stderr);
}
