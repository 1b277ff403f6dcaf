/* main.c - subcommand dispatch and exit codes only. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "servesim.h"
#include "cmd/cmds.h"

static const char main_usage[] =
	"usage: servesim COMMAND [options]   (servesim help COMMAND, or COMMAND --help, for details)\n"
	"\n"
	"commands:\n"
	"  run                simulate a workload on a model, GPU and engine configuration\n"
	"  capacity --slo L   highest request rate (or concurrency) that meets an SLO set\n"
	"  search --slo L     best deployments for a GPU budget: ranking, Pareto, cost, launch\n"
	"  sweep              a grid of run configurations, one row per point (threads, MPI)\n"
	"  eval PATH...       compare simulations with ground-truth experiments (APE / MAPE)\n"
	"  calibrate PATH...  tier-1 fit of overhead terms from measured runs\n"
	"  import PATH        convert inference-perf / GuideLLM / OTel results into an experiment\n"
	"  ops MODEL          operator sequence, shapes, FLOPs, bytes and MFU of one forward pass\n"
	"  roofline MODEL     markdown report: what bounds prefill and decode (compute, HBM, network)\n"
	"  trace FILE         operator flow of a Kineto / Ascend profiler trace, vs the template\n"
	"  models             models known to data/models (ids, aliases, parameters)\n"
	"  gpus               GPUs known to data/gpus.json\n"
	"  report RESULT      the self-contained HTML page of a saved result (search, capacity,\n"
	"                     sweep, eval)\n"
	"  serve              an OpenAI-compatible HTTP endpoint streaming at the simulated times\n"
	"\n"
	"  --version          version, git describe and build flags\n"
	"\n"
	"exit codes: 0 ok, 1 runtime error, 2 usage/config error, 3 bad input data,\n"
	"            4 partial (eval: some inputs could not be evaluated, the rest reported)\n";

static const struct {
	const char *name;
	int (*fn)(int, char **, struct err *);
} commands[] = {
	{"run", cmd_run},
	{"capacity", cmd_capacity},
	{"search", cmd_search},
	{"sweep", cmd_sweep},
	{"eval", cmd_eval},
	{"import", cmd_import},
	{"calibrate", cmd_calibrate},
	{"ops", cmd_ops},
	{"roofline", cmd_roofline},
	{"trace", cmd_trace},
	{"models", cmd_models},
	{"gpus", cmd_gpus},
	{"report", cmd_report},
	{"serve", cmd_serve},
	{"--list-models", cmd_models}, /* design document 000's flag names */
	{"--list-gpus", cmd_gpus},
};

int main(int argc, char **argv)
{
	struct err e;
	size_t i;
	int rc;

	err_clear(&e);
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fputs(main_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? SS_EUSAGE : 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("servesim %s (%s)\nbuild: %s\n", SERVESIM_VERSION, servesim_git_describe(),
		       servesim_build_flags());
		return 0;
	}
	if (strcmp(argv[1], "help") == 0) { /* `servesim help CMD` = `servesim CMD --help` */
		static char help_flag[] = "--help";
		char *hargv[3];
		if (argc < 3) {
			fputs(main_usage, stdout);
			return 0;
		}
		hargv[0] = argv[2];
		hargv[1] = help_flag;
		hargv[2] = NULL;
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (strcmp(argv[2], commands[i].name) == 0 && argv[2][0] != '-') {
				rc = commands[i].fn(2, hargv, &e);
				return rc < 0 ? -rc : 0;
			}
		fprintf(stderr, "servesim help: unknown command '%s'\n%s", argv[2], main_usage);
		return SS_EUSAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			rc = commands[i].fn(argc - 1, argv + 1, &e);
			/* a result that did not reach stdout (a full disk, a closed
			 * pipe) is a failure, not exit 0 */
			if (rc == 0 || rc == -SS_EPARTIAL) { /* a partial result went out too */
				struct err we;
				if (afile_check_stream(stdout, "standard output", &we) < 0) {
					e = we;
					rc = -SS_ERUNTIME;
				}
			}
			if (fclose(stdout) != 0 && rc == 0)
				rc = err_set(&e, SS_ERUNTIME, "standard output: write error: %s",
					     strerror(errno));
			if (rc < 0) {
				fprintf(stderr, "servesim %s: %s\n", argv[1], e.msg);
				return -rc;
			}
			return 0;
		}
	}
	fprintf(stderr, "servesim: unknown command '%s'\n%s", argv[1], main_usage);
	return SS_EUSAGE;
}
