/* calibreport.c - `servesim calibrate`'s text (calibreport.h). */
#include <string.h>

#include "report/calibreport.h"

static void row(FILE *f, const char *what, double e2e, double ttft)
{
	fprintf(f, "  %-26s %8.2f%% %8.2f%%\n", what, 100 * e2e, 100 * ttft);
}

static void terms(FILE *f, const struct overheads *ov)
{
	fprintf(f, "step %.1f us, prefill token %.3f us, API TTFT %.2f ms, API E2E %.2f ms\n", ov->step_us,
		ov->prefill_token_us, ov->api_ttft_ms, ov->api_e2e_ms);
}

void out_calib_linear(FILE *f, const struct calib_study *s, size_t nexp, uint64_t seed)
{
	const struct tier1_result *r = &s->r;
	const struct tier1_tpot *tp = &s->tpot;

	fprintf(f, "tier-1 calibration on %zu units from %zu experiment%s (seed %lld)\n", s->set.n, nexp,
		nexp > 1 ? "s" : "", (long long)seed);
	fprintf(f, "  %-26s %9s %9s\n", "MAPE", "E2E", "TTFT");
	row(f, "tier 0", r->tier0_e2e, r->tier0_ttft);
	row(f, "linear fit, training 70%", r->train_e2e, r->train_ttft);
	row(f, "linear fit, validation 30%", r->val_e2e, r->val_ttft);
	row(f, "linear fit, 5-fold", r->kfold_e2e, r->kfold_ttft);
	row(f, "applied in the simulator", r->applied_e2e, r->applied_ttft);
	fprintf(f, "coefficients: E2E a = %.4g ms/output token, b = %.4g ms/prompt token, d = %.4g ms;"
		" TTFT d0 = %.4g ms, b0 = %.4g ms/prompt token\n",
		r->coef.a_ms_per_output_token, r->coef.b_ms_per_prompt_token, r->coef.d_ms,
		r->coef.ttft_d0_ms, r->coef.ttft_b0_ms_per_prompt_token);
	if (s->tpot_ok)
		fprintf(f, "TPOT residual (002): a = %.4g ms/output token, b = %.4g ms/prompt token, d = %.4g ms on %zu units; "
			"TPOT MAPE tier 0 %.2f%%, fit training %.2f%%, validation %.2f%% (reported; the simulator applies the E2E/TTFT terms)\n",
			tp->a_ms_per_output_token, tp->b_ms_per_prompt_token, tp->d_ms, tp->units, 100 * tp->tier0,
			100 * tp->train, 100 * tp->val);
	else
		fprintf(f, "TPOT residual (002): not fitted: %s\n", s->tpot_why);
	fprintf(f, "fitted overhead terms: ");
	terms(f, &r->fitted);
	fprintf(f, "%s%s%s\n", r->accepted ? "accepted (validation MAPE <= 2 x training MAPE)" : "rejected: ",
		r->accepted ? "" : r->reason, r->accepted ? "" : "; tier 0 stays in force");
}

void out_calib_in_loop(FILE *f, const struct calib_study *s)
{
	const struct tier1_result *rl = &s->rl;

	fprintf(f, "in-loop fit (%d iterations): ", rl->iterations);
	terms(f, &rl->fitted);
	fprintf(f, "  %-26s %9s %9s\n", "MAPE", "E2E", "TTFT");
	row(f, "in-loop, training groups", rl->train_e2e, rl->train_ttft);
	row(f, "in-loop, held-out groups", rl->val_e2e, rl->val_ttft);
	row(f, "linear, applied (all)", s->r.applied_e2e, s->r.applied_ttft);
	row(f, "in-loop, applied (all)", rl->applied_e2e, rl->applied_ttft);
	fprintf(f, "in-loop %s%s\n", rl->accepted ? "accepted" : "rejected: ", rl->accepted ? "" : rl->reason);
}

void out_calib_choice(FILE *f, const struct calib_study *s)
{
	bool nlls = strcmp(s->chosen.method, "nlls") == 0;

	if (s->forced)
		fprintf(f, "forced: the rejected %s fit is applied (--force)\n", nlls ? "in-loop" : "linear");
	else
		fprintf(f, "%s: %s%s\n", s->chosen.accepted ? "applied" : "not applied",
			nlls ? "the in-loop fit" : "the linear fit",
			s->chosen.accepted ? "" : " is rejected; the file keeps tier 0's terms (--force applies the fit)");
}

void out_calib_check(FILE *f, const char *path, const struct calib_check *c, size_t nexp)
{
	fprintf(f, "calibration %s (%s, fitted MAPE: training %.2f%%, validation %.2f%%)\n", path, c->f.method,
		100 * c->f.train_e2e, 100 * c->f.val_e2e);
	fprintf(f, "on %zu units of %zu experiment%s: E2E MAPE %.2f%%, TTFT MAPE %.2f%%\n", c->units, nexp,
		nexp > 1 ? "s" : "", 100 * c->e2e, 100 * c->ttft);
	if (c->stale)
		fprintf(f, "stale: MAPE above %.0f%%: recalibrate on data from this deployment\n",
			100 * CALIB_STALE_MAPE);
	else
		fprintf(f, "current: MAPE within %.0f%%\n", 100 * CALIB_STALE_MAPE);
}
