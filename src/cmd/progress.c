/* progress.c - progress bar on a terminal's stderr: redrawn when the
 * percentage changes, erased at the end so that the report starts clean. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

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
