/* cli.c - flag parsing and shared registries for the subcommands. */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "cli.h"
#include "base/argval.h"
#include "engine/registry.h"
#include "eval/experiment.h"

int cli_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out,
	    struct err *e)
{
	return argval_int(flag, arg, lo, hi, out, e);
}

int cli_double(const char *flag, const char *arg, double lo, bool lo_open, double *out,
	       struct err *e)
{
	return argval_num(flag, arg, lo, lo_open, out, e);
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

void cli_options(const struct option *own, const struct deploy_table *t, struct option *out, size_t cap)
{
	size_t n = 0, i, k;

	for (; own[n].name; n++) {
		assert(n + 1 < cap);
		out[n] = own[n];
	}
	for (i = 0; i < t->n; i++)
		for (k = 0; k < DEPLOY_SPELLINGS && t->row[i].flag[k]; k++) {
			assert(n + 1 < cap);
			out[n++] = (struct option){t->row[i].flag[k] + 2,
						   t->row[i].type == DEPLOY_OFF || t->row[i].type == DEPLOY_ON ? no_argument
												     : required_argument, 0,
						   CLI_DEPLOY + (int)(i * DEPLOY_SPELLINGS + k)};
		}
	out[n] = (struct option){0, 0, 0, 0};
}

int cli_deploy_row(const struct deploy_table *t, int code)
{
	if (code < CLI_DEPLOY || code >= CLI_DEPLOY + (int)(t->n * DEPLOY_SPELLINGS))
		return -1;
	return (code - CLI_DEPLOY) / DEPLOY_SPELLINGS;
}

const char *cli_deploy_flag(const struct deploy_table *t, int code)
{
	int row = cli_deploy_row(t, code);

	return row < 0 ? NULL : t->row[row].flag[(code - CLI_DEPLOY) % DEPLOY_SPELLINGS];
}

int cli_deploy_option(const struct deploy_table *t, int code, const char *arg, void *base, struct err *e)
{
	int row = cli_deploy_row(t, code), rc;

	if (row < 0)
		return 0;
	rc = deploy_parse(t, (size_t)row, cli_deploy_flag(t, code), arg, base, e);
	return rc < 0 ? rc : 1;
}

void cli_help_fields(const struct deploy_table *t, enum deploy_group g, FILE *f)
{
	struct sbuf sb;

	sb_init(&sb);
	deploy_help(t, g, &sb);
	fputs(sb.buf, f);
	sb_release(&sb);
}

int cli_parse(const struct cli_spec *s, int argc, char **argv, struct err *e)
{
	static const struct option help[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	struct option lo[CLI_MAX_OPTIONS];
	char shorts[32] = "h";
	size_t n = 0;
	int c, code, rc;

	if (s->shared)
		for (; s->shared[n].name; n++) {
			assert(n + 1 < CLI_MAX_OPTIONS);
			lo[n] = s->shared[n];
		}
	argtab_options(s->tab, lo, &n, CLI_MAX_OPTIONS, shorts, sizeof(shorts));
	assert(n + 1 < CLI_MAX_OPTIONS);
	lo[n++] = help[0];
	lo[n] = help[1];
	if (s->deploy) {
		struct option all[CLI_MAX_OPTIONS];
		cli_options(lo, &deploy_table, all, CLI_MAX_OPTIONS);
		memcpy(lo, all, sizeof(lo));
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 'h') {
			argtab_help(s->tab, stdout);
			return 1;
		}
		if (c == '?' || c == ':')
			return cli_bad_option(s->cmd, argv[optind - 1], e);
		code = c;
		if ((rc = argtab_parse(s->tab, c, optarg, s->base, &code, e)) < 0)
			return rc;
		if (rc == 1)
			continue;
		if (!s->own || (rc = s->own(s->base, code, optarg, argv[optind - 1], e)) == 0)
			return cli_bad_option(s->cmd, argv[optind - 1], e);
		if (rc < 0)
			return rc;
	}
	if (s->no_args && optind < argc)
		return err_set(e, SS_EUSAGE, "unexpected argument '%s'", argv[optind]);
	return 0;
}
