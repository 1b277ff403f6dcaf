/* fit.h - least-squares fits (the only module that talks to GSL). */
#ifndef SERVESIM_FIT_H
#define SERVESIM_FIT_H
#include <stddef.h>

#include "base/err.h"

/* Weighted linear least squares: minimise sum w_i (y_i - X_i . c)^2 over the
 * p coefficients c.  X is n x p, row-major.  cov (p x p) may be NULL. */
int fit_wls(const double *X, const double *y, const double *w, size_t n, size_t p, double *c,
	    double *cov, struct err *e);

/* Non-linear least squares: minimise sum f_i(x)^2 over x (p parameters,
 * n residuals).  f fills n residuals for x; returns 0 or a negative status.
 * Jacobian by forward differences (step `h` relative, at least `h_abs`).
 * x holds the start and receives the solution. */
typedef int (*fit_residual_fn)(const double *x, double *f, void *ctx);
int fit_nls(fit_residual_fn f, void *ctx, size_t n, size_t p, double *x, double h_abs,
	    int max_iter, double *cost, int *iterations, struct err *e);
/* The same fit, the same result bit for bit, with the Jacobian's p
 * finite-difference points handed to fb at once: fb fills k x n residuals
 * (row q for point q, xs row q: p parameters) and returns 0 or a negative
 * status; f is still asked for single points (and again for the point a
 * Jacobian is taken at). */
typedef int (*fit_residual_batch_fn)(const double *xs, size_t k, double *fs, void *ctx);
int fit_nls_batched(fit_residual_fn f, fit_residual_batch_fn fb, void *ctx, size_t n, size_t p,
		    double *x, double h_abs, int max_iter, double *cost, int *iterations,
		    struct err *e);

#endif
