/* cli.c - flag parsing and shared registries for the subcommands. */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "cli.h"
#include "engine/registry.h"
#include "eval/eval.h"

int cli_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out,
	    struct err *e)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end)
		return err_set(e, SS_EUSAGE, "%s must be an integer, got '%s'", flag, arg);
	/* an integer past long long (ERANGE) is out of range too: say which */
	if (errno == ERANGE || v < lo || v > hi) {
		if (lo == 1 && hi == INT64_MAX && errno != ERANGE)
			return err_set(e, SS_EUSAGE, "%s must be >= 1, got %s", flag, arg);
		return err_set(e, SS_EUSAGE, "%s must be in [%lld, %lld], got %s", flag,
			       (long long)lo, (long long)hi, arg);
	}
	*out = v;
	return 0;
}

int cli_double(const char *flag, const char *arg, double lo, bool lo_open, double *out,
	       struct err *e)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	/* decimal only: strtod also reads hex ("0x10"), inf and nan */
	if (end == arg || *end || arg[strspn(arg, " 0123456789.eE+-")] != '\0')
		return err_set(e, SS_EUSAGE, "%s must be a number, got '%s'", flag, arg);
	/* a number all the same, past what a double holds (ERANGE): the
	 * bound it crossed */
	if (errno == ERANGE)
		return err_set(e, SS_EUSAGE, "%s %s is %s the %s number servesim computes with (%g)", flag, arg,
			       fabs(v) > 1.0 ? "above" : "below", fabs(v) > 1.0 ? "largest" : "smallest",
			       fabs(v) > 1.0 ? DBL_MAX : DBL_MIN);
	if (lo_open ? !(v > lo) : !(v >= lo))
		return err_set(e, SS_EUSAGE, "%s must be %s %g, got %g", flag, lo_open ? ">" : ">=",
			       lo, v);
	*out = v;
	return 0;
}

int cli_format(const char *arg, bool allow_csv, enum out_format *out, struct err *e)
{
	if (strcmp(arg, "text") == 0)
		*out = FMT_TEXT;
	else if (strcmp(arg, "json") == 0)
		*out = FMT_JSON;
	else if (allow_csv && strcmp(arg, "csv") == 0)
		*out = FMT_CSV;
	else
		return err_set(e, SS_EUSAGE, "--format must be %s, got '%s'",
			       allow_csv ? "text, json or csv" : "text or json", arg);
	return 0;
}

double cli_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_bad_option(const char *cmd, const char *arg, struct err *e)
{
	return err_set(e, SS_EUSAGE, "unknown option or missing value: '%s' (see 'servesim %s --help')",
		       arg ? arg : "?", cmd);
}

int cli_overhead_option(int code, const char *arg, struct overheads *ov, struct err *e)
{
	static const char *const names[8] = {"--overhead-step-us", "--overhead-layer-us",
		"--overhead-request-us", "--api-ttft-ms", "--stream-token-us", "--delivery-steps",
		"--eager-op-us", "--api-prompt-us"};
	static const unsigned bit[8] = {OV_STEP, OV_LAYER, OV_REQ, OV_API_TTFT, OV_STREAM, OV_DELIVERY,
					OV_EAGER, OV_API_PROMPT};
	double *dst[8] = {&ov->step_us, &ov->layer_us, &ov->req_us, &ov->api_ttft_ms,
			  &ov->stream_token_us, &ov->delivery_steps, &ov->eager_op_us, &ov->api_prompt_us};
	int rc;

	if (code < CLI_OV || code > CLI_OV + 7)
		return 0;
	rc = cli_double(names[code - CLI_OV], arg, 0, false, dst[code - CLI_OV], e);
	if (rc < 0)
		return rc;
	ov->given |= bit[code - CLI_OV];
	return 1;
}

int cli_settings_option(int code, const char *arg, struct exp_settings *s, struct err *e)
{
	static const char *const names[9] = {"--experiment", "--model", "--tp",
		"--max-num-batched-tokens", "--max-num-seqs", "--max-model-len", "--total-kv-blocks",
		"--engine-version", "--prefix-tokens"};
	int64_t *dst[9] = {NULL, NULL, &s->tp, &s->mbt, &s->mns, &s->mml, &s->kv, NULL, &s->prefix};
	int rc;

	if (code < CLI_SET || code > CLI_SET + 8)
		return 0;
	switch (code - CLI_SET) {
	case 0: s->experiment = arg; return 1;
	case 1: s->model = arg; return 1;
	case 7:
		s->engine_version = arg;
		return (rc = engine_version_check(arg, e)) < 0 ? rc : 1;
	default:
		rc = cli_int(names[code - CLI_SET], arg, code == CLI_SET + 8 ? 0 : 1, INT32_MAX,
			     dst[code - CLI_SET], e);
		return rc < 0 ? rc : 1;
	}
}

int cli_shape_option(int code, const char *arg, struct pass_shape *sh, struct parallel *p,
		     struct par_flags *f, struct err *e)
{
	int64_t v;
	int rc;

	switch (code - CLI_PAR) {
	case 0: rc = cli_int("--tp", arg, 1, 4096, &v, e); p->tp = (int)v; break;
	case 1: rc = cli_int("--dp", arg, 1, 4096, &v, e); p->dp = (int)v; break;
	case 2: rc = cli_int("--ep", arg, 1, 4096, &v, e); p->ep = (int)v; f->ep_given = true; break;
	case 3: rc = sh ? cli_int("--batch-size", arg, 1, 1 << 24, &sh->batch, e) : 0; break;
	case 4: rc = sh ? cli_int("--seq-len", arg, 1, 1 << 24, &sh->seq_len, e) : 0; break;
	case 5: rc = sh ? cli_int("--context-len", arg, 0, 1 << 26, &sh->context_len, e) : 0; break;
	case 6: rc = 0; f->enable_ep = true; break;
	case 7: rc = 0; f->dp_attention = true; break;
	case 8: rc = cli_int("--pp", arg, 1, 4096, &v, e); p->pp = (int)v; break;
	default: return 0;
	}
	return rc < 0 ? rc : 1;
}
