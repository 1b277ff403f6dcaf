/* pass.h - one evaluation pass (`servesim eval`): every input (an
 * experiment folder, a results file, a silicon table) loaded, given its
 * model, GPU and tier-1 terms, simulated on threads and compared with its
 * measurements, in input order; and the seed spread, several passes over
 * other workload seeds.  The ablation (ablation.h) and the held-out refits
 * (cv.h) are passes too. */
#ifndef SERVESIM_EVAL_PASS_H
#define SERVESIM_EVAL_PASS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/argtab.h"
#include "base/err.h"
#include "deploy/catalog.h"
#include "base/afile.h"
#include "eval/experiment.h"

/* models a pass tells apart (models[], the criteria's gqa[]) */
#define EVAL_MAX_MODELS 16
/* failed inputs a pass lists by name (the rest are counted) */
#define EVAL_MAX_FAILED 16

/* One pass of eval over the experiments: its rows and what they came from. */
struct eval_pass {
	struct eval_row *rows;
	size_t nrows, cap;     /* rows[0, nrows) of room for cap */
	char used[4][700];      /* calibration files applied */
	int nused;
	char models[EVAL_MAX_MODELS][128];
	int nmodels;
	char workloads[32][64]; /* in row order */
	int nworkloads;
	char warned[400];       /* the last calibration mismatch warned about */
	bool warned_rejected;   /* --calibration names a rejected file (said once) */
	/* aiconfigurator silicon tables */
	int ntables;
	size_t table_rows, table_total, table_sim;
	size_t table_pools;     /* rows whose P/D pools or MTP came from EXP_POOLS_FILE */
	size_t table_dups;      /* kept rows dropped as an earlier row's measurement */
	struct skip_tally skips;
	/* inputs that could not be evaluated (a malformed file, an unknown
	 * model, a refused layout, ...): counted, the first ones listed as
	 * "INPUT: why"; the others are still evaluated */
	size_t ninputs, nfailed;
	char failed[EVAL_MAX_FAILED][400];
	struct err first_failure;
};

void eval_pass_release(struct eval_pass *p);

/* What a pass runs over, and how. */
struct eval_inputs {
	struct catalog *cat;       /* models and GPUs, loaded on first use */
	char **files;              /* the inputs (cli-collected paths), n of them */
	size_t n;
	const char *gpu;           /* GPU of runs that do not record it */
	const struct experiment *base; /* settings for bare results, or NULL */
	const char *where;         /* rows of silicon tables to run, or NULL */
	int jobs;                  /* experiments simulated at once (0: the online cores) */
	bool terms_given;          /* host terms given as flags: no automatic tier-1 file */
	uint64_t seed_add;         /* added to each experiment's workload seed */
	FILE *diag;                /* warnings and the inputs not evaluated */
};

/* One pass with options eo and tier-1 terms from `calibration` (a file,
 * "none", or NULL: the accepted file in calibration/tier1/ matching each
 * experiment's GPU and engine version, unless terms are given or tier 0 is
 * cut).  An input that cannot be evaluated is counted in p->nfailed and
 * listed; the others still run (eval_pass_status turns that into a status).
 * <0 only for a usage error (--where without a silicon table, or keeping
 * none of its rows). */
int eval_pass_run(const struct eval_inputs *in, const struct eval_opts *eo, const char *calibration,
		  struct eval_pass *p, struct err *e);
/* 0 when no input failed; the one input's own error when it was the only
 * one; else each failure named on diag, then -SS_EPARTIAL (some evaluated)
 * or the first failure's status (none evaluated). */
int eval_pass_status(const struct eval_pass *p, FILE *diag, struct err *e);
/* The failed inputs of src into dst, for a study's status (every pass of a
 * study fails the same inputs). */
void eval_pass_failures(struct eval_pass *dst, const struct eval_pass *src);
/* Whether any input of p was evaluated (a study stops when none was). */
bool eval_pass_any(const struct eval_pass *p);

/* --seeds K (design document 002 asks for 3-5): the pass again with
 * workload seeds + 0..K-1 (K <= 64); each metric's median and mean APE over
 * all steady rows of each, med[s][k] and mean[s][k]. */
int eval_seed_spread(const struct eval_inputs *in, const struct eval_opts *eo, const char *calibration,
		     int seeds, double (*med)[EM__COUNT], double (*mean)[EM__COUNT], struct err *e);

/* Inputs (experiment folders eval reads, results files) at or under path,
 * sorted, appended to out (heap strings) up to max (SS_EUSAGE past it); a
 * folder that cannot be read is an input (it fails with its reason); an
 * input already in out under another name (overlapping paths, a link) is
 * SS_EUSAGE naming both, never read twice. */
int eval_collect(const char *path, char **out, size_t *n, size_t max, struct err *e);

/* The output rule (afile_check_outputs) for eval's n outputs over what it
 * reads: the nf collected inputs, the pool-size file beside each silicon
 * table (exp_table_pools) and the calibration file (NULL: none). */
int eval_check_outputs(const struct afile_out *outs, size_t n, char *const *files, size_t nf,
		       const char *calibration, struct err *e);

/* Settings for results that do not record them (a bare GuideLLM results or
 * OTel spans file, a results folder without exp-config.yaml): another
 * experiment's (experiment), or a model with the layout and engine limits
 * (0 / NULL: not given; the rest default to 8192, 256, 4096 tokens, KV from
 * memory, version unknown, no shared prefix). */
struct exp_settings {
	const char *experiment, *model, *engine_version;
	int64_t tp, mbt, mns, mml, kv, prefix;
};
/* The base experiment they describe; *have false when none was given
 * (SS_EUSAGE when limits come without a model or experiment). */
/* The flags that give them, a shared flag table (argtab.h) of eval,
 * calibrate and import, its help included: --experiment DIR takes another
 * experiment's, --model M with --tp and the engine limits gives them. */
extern const struct argtab exp_settings_tab;
int exp_settings_base(const struct exp_settings *s, const char *gpu, struct experiment *base, bool *have,
		      struct err *e);

#endif
