/* progress.h - a one-line progress bar on stderr, drawn only when stderr is
 * a terminal (never in files, pipes or tests); and a simulation's progress
 * line (run). */
#ifndef SERVESIM_REPORT_PROGRESS_H
#define SERVESIM_REPORT_PROGRESS_H
#include <stdbool.h>
#include <stddef.h>

struct progress_bar {
	const char *what, *unit;
	bool on;
	bool drawn;
	int last_pct;
};

/* on: this process may draw (rank 0); the terminal test is added here. */
void progress_init(struct progress_bar *p, const char *what, const char *unit, bool on);
/* parmap's callback (pctx = struct progress_bar *): done of n. */
void progress_update(void *pctx, size_t done, size_t n);
/* Clear the line. */
void progress_done(struct progress_bar *p);

/* One simulation's line: on a terminal once the run has taken a second,
 * redrawn in place every half second; always (run --progress) one line
 * per update, also when stderr is no terminal.  t0: the run's start on
 * the monotonic clock (progress_now). */
struct progress_line {
	bool always, tty;
	double t0, next;
};
struct sim;
double progress_now(void);
void progress_line_init(struct progress_line *p, bool always, double t0);
/* run_job_simulate's tick (ctx = struct progress_line *). */
void progress_line_update(void *ctx, const struct sim *s);
/* Ends a terminal's line once the run took over a second. */
void progress_line_done(const struct progress_line *p);

#endif
