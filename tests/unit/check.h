/* check.h - minimal test harness: one line per check, a final
 * "N passed, N failed" line, non-zero exit on failure. */
#ifndef SERVESIM_TEST_CHECK_H
#define SERVESIM_TEST_CHECK_H
#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond, ...) do { \
	if (cond) { check_passed++; printf("ok   "); } \
	else { check_failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); } \
	printf(__VA_ARGS__); printf("\n"); } while (0)

/* |got - want| <= rel * |want| */
#define CHECK_REL(got, want, rel, what) do { double g_ = (got), w_ = (want); \
	CHECK(fabs(g_ - w_) <= (rel) * fabs(w_), "%s: got %.10g want %.10g (rel tol %g)", \
	      (what), g_, w_, (double)(rel)); } while (0)

#define CHECK_STR_CONTAINS(hay, needle, what) \
	CHECK(strstr((hay), (needle)) != NULL, "%s: '%s' contains '%s'", (what), (hay), (needle))

static inline int check_done(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
#endif
