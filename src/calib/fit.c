/* fit.c - GSL adapter: weighted linear and non-linear least squares.
 * gsl_set_error_handler_off() is called before every use and each status is
 * checked; nothing outside this file includes GSL. */
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib/fit.h"

int fit_wls(const double *X, const double *y, const double *w, size_t n, size_t p, double *c,
	    double *cov, struct err *e)
{
	gsl_matrix *Xm, *covm;
	gsl_vector *yv, *wv, *cv;
	gsl_multifit_linear_workspace *ws;
	double chisq;
	size_t i, j;
	int st;

	gsl_set_error_handler_off();
	if (n < p)
		return err_set(e, SS_EDATA, "fit: %zu observations for %zu coefficients", n, p);
	Xm = gsl_matrix_alloc(n, p);
	covm = gsl_matrix_alloc(p, p);
	yv = gsl_vector_alloc(n);
	wv = gsl_vector_alloc(n);
	cv = gsl_vector_alloc(p);
	ws = gsl_multifit_linear_alloc(n, p);
	if (!Xm || !covm || !yv || !wv || !cv || !ws) {
		st = GSL_ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < p; j++)
			gsl_matrix_set(Xm, i, j, X[i * p + j]);
		gsl_vector_set(yv, i, y[i]);
		gsl_vector_set(wv, i, w ? w[i] : 1.0);
	}
	st = gsl_multifit_wlinear(Xm, wv, yv, cv, covm, &chisq, ws);
	if (st == GSL_SUCCESS) {
		for (j = 0; j < p; j++)
			c[j] = gsl_vector_get(cv, j);
		if (cov)
			for (i = 0; i < p; i++)
				for (j = 0; j < p; j++)
					cov[i * p + j] = gsl_matrix_get(covm, i, j);
	}
out:
	gsl_matrix_free(Xm);
	gsl_matrix_free(covm);
	gsl_vector_free(yv);
	gsl_vector_free(wv);
	gsl_vector_free(cv);
	if (ws)
		gsl_multifit_linear_free(ws);
	if (st != GSL_SUCCESS)
		return err_set(e, SS_ERUNTIME, "fit: weighted least squares failed: %s", gsl_strerror(st));
	return 0;
}

struct nls_ctx {
	fit_residual_fn f;
	void *ctx;
	size_t n, p;
	int rc;
	double *buf; /* n residuals, contiguous */
	fit_residual_batch_fn fb; /* or NULL: GSL's own forward differences */
	double h;                 /* GSL's h_df */
	double *pts, *fs;         /* fb's p points (p x p) and residuals (p x n) */
};

/* The residuals at x into c->buf (x's p values also into xs); GSL_EBADFUNC
 * (the residual function's error kept in c->rc) when it fails. */
static int nls_eval(struct nls_ctx *c, const gsl_vector *x, double *xs)
{
	size_t i;
	int rc;

	for (i = 0; i < c->p; i++)
		xs[i] = gsl_vector_get(x, i);
	rc = c->f(xs, c->buf, c->ctx);
	if (rc < 0) {
		c->rc = rc;
		return GSL_EBADFUNC;
	}
	return GSL_SUCCESS;
}

/* GSL calls this with strided vectors too (columns of the finite-difference
 * Jacobian): fill a contiguous buffer, then copy element by element. */
static int nls_f(const gsl_vector *x, void *params, gsl_vector *fv)
{
	struct nls_ctx *c = params;
	double xs[16];
	size_t i;
	int st = nls_eval(c, x, xs);

	if (st != GSL_SUCCESS)
		return st;
	for (i = 0; i < c->n; i++) {
		if (!isfinite(c->buf[i]))
			return GSL_EBADFUNC;
		gsl_vector_set(fv, i, c->buf[i]);
	}
	return GSL_SUCCESS;
}

/* The forward-difference Jacobian as GSL 2.7's forward_jac (multifit_nlinear/
 * fdjac.c) computes it, the same values bit for bit: column j from the
 * point x + delta_j e_j, delta_j = h |x_j| (h where x_j is 0), as
 * (f(x + delta_j e_j) - f(x)) * (1 / delta_j); but the p points are handed
 * to the batch function together, so that they can be simulated at once.
 * f(x) is asked of the residual function again (GSL does not pass it; the
 * caller memoises points). */
static int nls_df(const gsl_vector *x, void *params, gsl_matrix *J)
{
	struct nls_ctx *c = params;
	double xs[16], delta[16];
	size_t i, j;
	int rc = nls_eval(c, x, xs);

	if (rc != GSL_SUCCESS)
		return rc;
	for (j = 0; j < c->p; j++) {
		delta[j] = c->h * fabs(xs[j]);
		if (delta[j] == 0.0)
			delta[j] = c->h;
		memcpy(&c->pts[j * c->p], xs, c->p * sizeof(double));
		c->pts[j * c->p + j] = xs[j] + delta[j];
	}
	rc = c->fb(c->pts, c->p, c->fs, c->ctx);
	if (rc < 0) {
		c->rc = rc;
		return GSL_EBADFUNC;
	}
	for (j = 0; j < c->p; j++) {
		double inv = 1.0 / delta[j];
		for (i = 0; i < c->n; i++) /* as nls_f refuses them */
			if (!isfinite(c->fs[j * c->n + i]))
				return GSL_EBADFUNC;
		for (i = 0; i < c->n; i++)
			gsl_matrix_set(J, i, j, (c->fs[j * c->n + i] - c->buf[i]) * inv);
	}
	return GSL_SUCCESS;
}

int fit_nls(fit_residual_fn f, void *ctx, size_t n, size_t p, double *x, double h_abs,
	    int max_iter, double *cost, int *iterations, struct err *e)
{
	return fit_nls_batched(f, NULL, ctx, n, p, x, h_abs, max_iter, cost, iterations, e);
}

int fit_nls_batched(fit_residual_fn f, fit_residual_batch_fn fb, void *ctx, size_t n, size_t p,
		    double *x, double h_abs, int max_iter, double *cost, int *iterations,
		    struct err *e)
{
	const gsl_multifit_nlinear_type *T = gsl_multifit_nlinear_trust;
	gsl_multifit_nlinear_parameters prm = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w;
	gsl_multifit_nlinear_fdf fdf;
	struct nls_ctx c = {f, ctx, n, p, 0, NULL, fb, 0, NULL, NULL};
	gsl_vector *x0;
	double chisq;
	size_t i;
	int st, info = 0;

	gsl_set_error_handler_off();
	if (p > 16 || n < p)
		return err_set(e, SS_EDATA, "fit: %zu residuals for %zu parameters", n, p);
	memset(&fdf, 0, sizeof(fdf));
	fdf.f = nls_f;
	fdf.df = fb ? nls_df : NULL; /* forward differences, GSL's or nls_df's */
	fdf.n = n;
	fdf.p = p;
	fdf.params = &c;
	prm.h_df = h_abs > 0 ? h_abs : GSL_SQRT_DBL_EPSILON;
	c.h = prm.h_df;
	c.buf = malloc(n * sizeof(double));
	c.pts = fb ? malloc(p * p * sizeof(double)) : NULL;
	c.fs = fb ? malloc(p * n * sizeof(double)) : NULL;
	x0 = gsl_vector_alloc(p);
	w = gsl_multifit_nlinear_alloc(T, &prm, n, p);
	if (!x0 || !w || !c.buf || (fb && (!c.pts || !c.fs))) {
		free(c.buf);
		free(c.pts);
		free(c.fs);
		gsl_vector_free(x0);
		if (w)
			gsl_multifit_nlinear_free(w);
		return err_set(e, SS_ERUNTIME, "fit: out of memory");
	}
	for (i = 0; i < p; i++)
		gsl_vector_set(x0, i, x[i]);
	st = gsl_multifit_nlinear_init(x0, &fdf, w);
	if (st == GSL_SUCCESS)
		st = gsl_multifit_nlinear_driver((size_t)max_iter, 1e-9, 1e-12, 1e-12, NULL, NULL, &info, w);
	if (st == GSL_SUCCESS || st == GSL_EMAXITER) {
		for (i = 0; i < p; i++)
			x[i] = gsl_vector_get(w->x, i);
		gsl_blas_ddot(w->f, w->f, &chisq);
		if (cost)
			*cost = chisq;
		if (iterations)
			*iterations = (int)gsl_multifit_nlinear_niter(w);
		st = GSL_SUCCESS;
	}
	gsl_vector_free(x0);
	gsl_multifit_nlinear_free(w);
	free(c.buf);
	free(c.pts);
	free(c.fs);
	if (c.rc < 0)
		return err_set(e, -c.rc, "fit: the residual function failed (status %d)", c.rc);
	if (st != GSL_SUCCESS)
		return err_set(e, SS_ERUNTIME, "fit: non-linear least squares failed: %s", gsl_strerror(st));
	return 0;
}
