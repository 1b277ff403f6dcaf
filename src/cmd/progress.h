/* progress.h - a one-line progress bar on stderr, drawn only when stderr is
 * a terminal (never in files, pipes or tests). */
#ifndef SERVESIM_CMD_PROGRESS_H
#define SERVESIM_CMD_PROGRESS_H
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

#endif
