/* cli.c - flag parsing and shared registries for the subcommands. */
#define _GNU_SOURCE
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>

#include "cli.h"
#include "engine/registry.h"
#include "base/afile.h"
#include "base/alloc.h"
#include "report/html.h"
#include "eval/eval.h"
#include "report/outfmt.h"

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

int cli_bad_option(const char *cmd, const char *arg, struct err *e)
{
	return err_set(e, SS_EUSAGE, "unknown option or missing value: '%s' (see 'servesim %s --help')",
		       arg ? arg : "?", cmd);
}

void fmt_si(char *buf, size_t n, double v, const char *unit)
{
	out_fmt_si(buf, n, v, unit);
}

void fmt_count(char *buf, size_t n, double v)
{
	out_fmt_count(buf, n, v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect(const char *path, char **out, size_t *n, size_t max, int depth, struct err *e)
{
	char f[1200];
	struct stat sb;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, cap = 0, i;
	int rc = 0;

	/* ENOENT said as before; a link loop, a denied folder, ... by its own
	 * name, not as a missing file */
	if (stat(path, &sb) != 0)
		return err_set(e, SS_EDATA, "%s: %s", path,
			       errno == ENOENT ? "no such file or folder" : strerror(errno));
	if (S_ISREG(sb.st_mode) || experiment_detect(path)) {
		if (*n >= max)
			return err_set(e, SS_EUSAGE, "more than %zu experiments", max);
		out[(*n)++] = xstrdup(path);
		return 0;
	}
	if (depth > 6)
		return 0;
	if (!(d = opendir(path))) {
		/* a folder that cannot be read is an input that fails with the
		 * reason (eval counts it and goes on), never silently left out */
		if (*n >= max)
			return err_set(e, SS_EUSAGE, "more than %zu experiments", max);
		out[(*n)++] = xstrdup(path);
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		XGROW(names, cap, nn + 1);
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	for (i = 0; i < nn; i++) {
		snprintf(f, sizeof(f), "%s/%s", path, names[i]);
		if (rc == 0 && stat(f, &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = collect(f, out, n, max, depth + 1, e);
		free(names[i]);
	}
	free(names);
	return rc;
}


int cli_collect_experiments(const char *path, char **out, size_t *n, size_t max, struct err *e)
{
	return collect(path, out, n, max, 0, e);
}

int cli_overhead_option(int code, const char *arg, struct overheads *ov, struct err *e)
{
	static const char *const names[7] = {"--overhead-step-us", "--overhead-layer-us",
		"--overhead-request-us", "--api-ttft-ms", "--stream-token-us", "--delivery-steps",
		"--eager-op-us"};
	static const unsigned bit[7] = {OV_STEP, OV_LAYER, OV_REQ, OV_API_TTFT, OV_STREAM, OV_DELIVERY,
					OV_EAGER};
	double *dst[7] = {&ov->step_us, &ov->layer_us, &ov->req_us, &ov->api_ttft_ms,
			  &ov->stream_token_us, &ov->delivery_steps, &ov->eager_op_us};
	int rc;

	if (code < CLI_OV || code > CLI_OV + 6)
		return 0;
	rc = cli_double(names[code - CLI_OV], arg, 0, false, dst[code - CLI_OV], e);
	if (rc < 0)
		return rc;
	ov->given |= bit[code - CLI_OV];
	return 1;
}

int cli_settings_option(int code, const char *arg, struct cli_settings *s, struct err *e)
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

int cli_settings_base(const struct cli_settings *s, const char *gpu, struct experiment *base,
		      bool *have, struct err *e)
{
	int rc;

	memset(base, 0, sizeof(*base));
	*have = false;
	if (!s->experiment && !s->model) {
		if (s->tp || s->mbt || s->mns || s->mml || s->kv || s->engine_version || s->prefix)
			return err_set(e, SS_EUSAGE,
				       "--tp and the engine limits describe bare results files: give --model M or --experiment DIR with them");
		return 0;
	}
	if (s->experiment) {
		/* its settings only: the measurements go */
		struct experiment *t = xcalloc(1, sizeof(*t));
		if ((rc = experiment_load_any(s->experiment, gpu, t, e)) < 0) {
			free(t);
			err_prefix(e, "--experiment");
			return rc;
		}
		*base = *t;
		memset(&base->meas, 0, sizeof(base->meas));
		base->replay = NULL;
		base->nstages = 0;
		wl_spec_defaults(&base->wl);
		base->wl.prefix_tokens = t->wl.prefix_tokens;
		experiment_release(t);
		free(t);
	} else {
		wl_spec_defaults(&base->wl);
		snprintf(base->gpu, sizeof(base->gpu), "%s", gpu);
		snprintf(base->engine_version, sizeof(base->engine_version), "unknown");
		base->tp = base->pp = base->dp = base->ep = 1;
		base->dtype = DT_BF16;
		base->max_num_batched_tokens = 8192;
		base->max_num_seqs = 256;
		base->max_model_len = 4096;
		base->block_size = 16;
		base->gpu_memory_utilization = 0.9;
		base->prefix_caching = true;
	}
	if (s->model)
		snprintf(base->model, sizeof(base->model), "%s", s->model);
	if (s->engine_version)
		snprintf(base->engine_version, sizeof(base->engine_version), "%s", s->engine_version);
	if (s->tp)
		base->tp = (int)s->tp;
	if (s->mbt)
		base->max_num_batched_tokens = s->mbt;
	if (s->mns)
		base->max_num_seqs = s->mns;
	if (s->mml)
		base->max_model_len = s->mml;
	if (s->kv)
		base->total_kv_blocks = s->kv;
	if (s->prefix)
		base->wl.prefix_tokens = s->prefix;
	*have = true;
	return 0;
}

int cli_shape_option(int code, const char *arg, struct pass_shape *sh, struct parallel *p,
		     struct cli_par_flags *f, struct err *e)
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

int cli_parallel_resolve(const struct cli_par_flags *f, const struct model_cfg *m,
			 struct parallel *p, struct err *e)
{
	if (f->dp_attention) {
		/* SGLang: tp_size is the engine's GPU count, dp_size splits it */
		if (p->dp < 2)
			return err_set(e, SS_EUSAGE,
				       "--enable-dp-attention needs --dp-size > 1 (got %d)", p->dp);
		if (p->tp % p->dp != 0)
			return err_set(e, SS_EUSAGE,
				       "--enable-dp-attention: --tp-size %d must be a multiple of --dp-size %d",
				       p->tp, p->dp);
		p->tp /= p->dp;
	}
	if (f->enable_ep) {
		if (f->ep_given && p->ep != p->tp * p->dp)
			return err_set(e, SS_EUSAGE,
				       "--enable-expert-parallel sets EP = TP x DP = %d, but --ep %d was given",
				       p->tp * p->dp, p->ep);
		p->ep = p->tp * p->dp;
	} else if (!f->ep_given) {
		p->ep = 1;
	}
	if (p->ep > 1 && m && m->n_experts == 0 && f->enable_ep && !f->ep_given)
		p->ep = 1; /* vLLM ignores the flag on a dense model */
	return 0;
}

int cli_write_html_tree(const char *path, const struct json *res, const char *source, struct err *e)
{
	struct afile af;
	int rc;

	if ((rc = afile_open(&af, path, e)) < 0)
		return rc;
	if ((rc = html_page(af.f, res, source, e)) < 0) {
		afile_abort(&af);
		return rc;
	}
	return afile_commit(&af, e);
}

FILE *cli_html_open(struct cli_html *h)
{
	h->buf = NULL;
	h->len = 0;
	if (!(h->f = open_memstream(&h->buf, &h->len)))
		BUG("open_memstream");
	return h->f;
}

int cli_html_close(struct cli_html *h, const char *path, struct err *e)
{
	struct json *res;
	int rc;

	fclose(h->f);
	if ((rc = json_parse(h->buf, h->len, "result", &res, e)) == 0) {
		rc = cli_write_html_tree(path, res, NULL, e);
		json_free(res);
	}
	free(h->buf);
	return rc;
}
