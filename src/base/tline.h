/* tline.h - counts of times on a line in bounded memory: TLINE_BUCKETS
 * equal buckets from an origin, their width doubled (neighbours merged)
 * whenever a time lands past the last one, so a line of any span holds
 * between TLINE_BUCKETS / 2 and TLINE_BUCKETS buckets over it.
 *
 * What a run's sustainability test (report/summary.c) counts past the
 * requests it keeps one by one: arrivals, and completions, inside a window
 * that is known only when the run has ended.  A count over [lo, hi] takes
 * the buckets inside whole and a share of each boundary bucket in
 * proportion to its overlap (values taken as spread evenly in a bucket): it
 * is off by at most the counts of the two boundary buckets, each covering
 * 1 / (TLINE_BUCKETS / 2) of the span or less. */
#ifndef SERVESIM_TLINE_H
#define SERVESIM_TLINE_H
#include <stdint.h>

#define TLINE_BUCKETS 4096

struct tline {
	double origin, width;  /* bucket i holds [origin + i w, origin + (i + 1) w) */
	uint64_t *cnt;         /* TLINE_BUCKETS counts */
	uint64_t n;
};

/* An empty line from origin (earlier times count in the first bucket),
 * its buckets first width wide (> 0). */
void tline_init(struct tline *t, double origin, double width);
void tline_release(struct tline *t);
/* Counts time x (finite; NaN is ignored). */
void tline_add(struct tline *t, double x);
/* About how many of the times lie in [lo, hi] (0 when hi < lo). */
double tline_count(const struct tline *t, double lo, double hi);
#endif
