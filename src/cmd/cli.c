/* cli.c - flag parsing and shared registries for the subcommands. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <sys/stat.h>

#include "cli.h"
#include "servesim/alloc.h"
#include "servesim/eval.h"
#include "servesim/paths.h"

void cli_env_init(struct cli_env *env)
{
	memset(env, 0, sizeof(*env));
	paths_data_dir(env->data_dir, sizeof(env->data_dir));
}

void cli_env_release(struct cli_env *env)
{
	if (env->reg_loaded)
		registry_release(&env->reg);
	if (env->gpus_loaded)
		gpu_db_release(&env->gpus);
	env->reg_loaded = env->gpus_loaded = false;
}

int cli_load_registry(struct cli_env *env, struct err *e)
{
	char dir[1100];
	int rc;

	if (env->reg_loaded)
		return 0;
	snprintf(dir, sizeof(dir), "%s/models", env->data_dir);
	if ((rc = registry_load(&env->reg, dir, e)) < 0)
		return rc;
	env->reg_loaded = true;
	return 0;
}

int cli_load_gpus(struct cli_env *env, struct err *e)
{
	char path[1100];
	int rc;

	if (env->gpus_loaded)
		return 0;
	snprintf(path, sizeof(path), "%s/gpus.json", env->data_dir);
	if ((rc = gpu_db_load(&env->gpus, path, e)) < 0)
		return rc;
	env->gpus_loaded = true;
	return 0;
}

int cli_load_model(struct cli_env *env, const char *name, const char *config_path,
		   struct model_cfg *m, struct err *e)
{
	int rc;

	if (config_path)
		return model_load_file(config_path, NULL, m, e);
	if (!name)
		return err_set(e, SS_EUSAGE, "a model is required: give MODEL or --config PATH");
	if ((rc = cli_load_registry(env, e)) < 0)
		return rc;
	return registry_load_model(&env->reg, name, m, e);
}

int cli_find_gpu(struct cli_env *env, const char *name, const struct gpu_spec **g,
		 struct err *e)
{
	int rc = cli_load_gpus(env, e);

	if (rc < 0)
		return rc;
	return gpu_find(&env->gpus, name, g, e);
}

int cli_int(const char *flag, const char *arg, int64_t lo, int64_t hi, int64_t *out,
	    struct err *e)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end)
		return err_set(e, SS_EUSAGE, "%s must be an integer, got '%s'", flag, arg);
	if (v < lo || v > hi) {
		if (lo == 1 && hi == INT64_MAX)
			return err_set(e, SS_EUSAGE, "%s must be >= 1, got %lld", flag, v);
		return err_set(e, SS_EUSAGE, "%s must be in [%lld, %lld], got %lld", flag,
			       (long long)lo, (long long)hi, v);
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
	if (errno || end == arg || *end || !isfinite(v))
		return err_set(e, SS_EUSAGE, "%s must be a number, got '%s'", flag, arg);
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
	static const char *pre[] = {"", "k", "M", "G", "T", "P", "E"};
	double a = fabs(v);
	int i = 0;

	while (a >= 1000.0 && i < 6) {
		a /= 1000.0;
		v /= 1000.0;
		i++;
	}
	if (i == 0 && v == floor(v))
		snprintf(buf, n, "%.0f %s", v, unit);
	else
		snprintf(buf, n, "%.3g %s%s", v, pre[i], unit);
}

void fmt_count(char *buf, size_t n, double v)
{
	if (v >= 1e9)
		snprintf(buf, n, "%.2f B", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.1f M", v / 1e6);
	else
		snprintf(buf, n, "%.0f", v);
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

	if (stat(path, &sb) != 0)
		return err_set(e, SS_EUSAGE, "%s: no such file or folder", path);
	if (S_ISREG(sb.st_mode) || experiment_detect(path)) {
		if (*n >= max)
			return err_set(e, SS_EUSAGE, "more than %zu experiments", max);
		out[(*n)++] = xstrdup(path);
		return 0;
	}
	if (depth > 6 || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		XGROW(names, cap, nn + 1);
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
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
	static const char *const names[6] = {"--overhead-step-us", "--overhead-layer-us",
		"--overhead-request-us", "--api-ttft-ms", "--stream-token-us", "--delivery-steps"};
	double *dst[6] = {&ov->step_us, &ov->layer_us, &ov->req_us, &ov->api_ttft_ms,
			  &ov->stream_token_us, &ov->delivery_steps};
	int rc;

	if (code < CLI_OV || code > CLI_OV + 5)
		return 0;
	rc = cli_double(names[code - CLI_OV], arg, 0, false, dst[code - CLI_OV], e);
	return rc < 0 ? rc : 1;
}
