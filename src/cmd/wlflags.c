/* wlflags.c - run's workload flags parsed into a struct wl_source
 * (plan/wlsource.h builds the workload from it). */
#define _GNU_SOURCE
#include "wlflags.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void wlflags_defaults(struct wl_source *f)
{
	memset(f, 0, sizeof(*f));
}

static void note_flag(struct wl_source *f, const char *flag)
{
	size_t len = strlen(f->given), fl = strlen(flag);
	const char *p;

	for (p = f->given; (p = strstr(p, flag)) != NULL; p += fl)
		if (p[fl] == '\0' || p[fl] == ',')
			return; /* given twice: named once */
	snprintf(f->given + len, sizeof(f->given) - len, "%s%s", len ? ", " : "", flag);
}

static int parse_len(const char *flag, const char *arg, double *mean, double *std, struct err *e)
{
	char buf[64], *colon;
	int rc;

	snprintf(buf, sizeof(buf), "%s", arg);
	colon = strchr(buf, ':');
	*std = 0;
	if (colon) {
		*colon = '\0';
		if ((rc = cli_double(flag, colon + 1, 0, false, std, e)) < 0)
			return rc;
	}
	return cli_double(flag, buf, 1, false, mean, e);
}

int wlflags_option(int code, const char *arg, struct wl_source *f, struct err *e)
{
	int rc = 0;

	switch (code) {
	case WLF: f->workload = arg; return 1;
	case WLF + 1:
		rc = cli_double("--rate", arg, 0, true, &f->ov.rate, e);
		f->ov.rate_given = true;
		note_flag(f, "--rate");
		break;
	case WLF + 2:
		rc = cli_int("--num-requests", arg, 1, INT64_MAX, &f->ov.nreq, e);
		f->ov.nreq_given = true;
		note_flag(f, "--num-requests");
		break;
	case WLF + 3:
		rc = parse_len("--prompt-tokens", arg, &f->ov.p_mean, &f->ov.p_std, e);
		f->ov.len_given = true;
		note_flag(f, "--prompt-tokens");
		break;
	case WLF + 4:
		rc = parse_len("--output-tokens", arg, &f->ov.o_mean, &f->ov.o_std, e);
		f->ov.len_given = true;
		note_flag(f, "--output-tokens");
		break;
	case WLF + 5:
		rc = cli_int("--seed", arg, 0, INT64_MAX, &f->ov.seed, e);
		f->ov.seed_given = true;
		note_flag(f, "--seed");
		break;
	case WLF + 6:
		rc = cli_int("--concurrency", arg, 1, WL_MAX_CONCURRENCY, &f->ov.concurrency, e);
		f->ov.conc_given = true;
		note_flag(f, "--concurrency");
		break;
	case WLF + 7:
		rc = cli_double("--duration", arg, 0, true, &f->ov.duration_s, e);
		f->ov.dur_given = true;
		note_flag(f, "--duration");
		break;
	case WLF + 8:
		if ((rc = wl_rate_type_parse("--rate-type", arg, &f->ov.rate_type, e)) < 0)
			return rc;
		note_flag(f, "--rate-type");
		return 1;
	case WLF + 10: {
		char names[160];
		if (!(f->ov.harness = wl_harness_canonical(arg, names, sizeof(names))))
			return err_set(e, SS_EUSAGE, "--harness must be one of %s, got '%s'", names, arg);
		note_flag(f, "--harness");
		return 1;
	}
	case WLF + 11:
		if (wl_prompt_kind_parse(arg, "", &f->ov.prompt_kind, NULL) < 0)
			return err_set(e, SS_EUSAGE, "--prompt-kind must be chat or random, got '%s'", arg);
		note_flag(f, "--prompt-kind");
		return 1;
	case WLF + 9:
		if (strcmp(arg, "lognormal") == 0)
			f->ov.dist = WL_LOGNORMAL;
		else if (strcmp(arg, "normal") == 0)
			f->ov.dist = WL_NORMAL;
		else if (strcmp(arg, "fixed") == 0)
			f->ov.dist = WL_FIXED;
		else
			return err_set(e, SS_EUSAGE, "--dist must be lognormal, normal or fixed, got '%s'", arg);
		f->ov.dist_given = true;
		note_flag(f, "--dist");
		return 1;
	case WLF + 12:
		rc = cli_double("--trace-speedup", arg, 0, true, &f->trace_speedup, e);
		if (rc == 0 && f->trace_speedup > 1e6)
			return err_set(e, SS_EUSAGE, "--trace-speedup must be in (0, 1e6], got '%s'", arg);
		note_flag(f, "--trace-speedup");
		break;
	default:
		return 0;
	}
	return rc < 0 ? rc : 1;
}
