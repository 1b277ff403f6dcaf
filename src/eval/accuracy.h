/* accuracy.h - the stated confidence of a prediction: the error servesim
 * made on measured runs of the same class (data/accuracy.json, written by
 * `make accuracy` from eval's per-row residuals over all shipped ground
 * truth).
 *
 * A class is engine x model kind x GPU family x load:
 *   engine      the engine's name (vllm, sglang, trtllm), "-pd" appended for a
 *               disaggregated (P/D) deployment;
 *   model kind  hybrid (any linear-attention / recurrent layer), dsa (sparse
 *               attention with an indexer: DeepSeek-V3.2, GLM-5, DeepSeek-V4),
 *               mla (multi-head latent attention), moe (routed experts), dense;
 *               the first that applies, in that order;
 *   GPU family  gpus.json's "family" (hopper, blackwell, ampere, ada, cdna3,
 *               cdna4, other);
 *   load        of the simulated run itself (metric_set's load terms):
 *               saturated when the run is overloaded or its requests spend at
 *               least ACC_SATURATED_QUEUE of their time waiting to be
 *               scheduled; else light when fewer than ACC_LIGHT_RUNNING
 *               requests run per engine rank on average; else loaded.
 * The error of a metric on one row is |predicted / measured - 1| (a
 * fraction).  A class's band is the p50 and p90 of those errors over its rows
 * (linear interpolation between order statistics).  Coarser classes replace
 * a part by a star in the order load, GPU family, model kind (the class
 * "vllm/moe/hopper/loaded" falls back to the load's star, then the family's
 * too, then the kind's); a class with rows but fewer than the table's min_rows for a metric
 * takes the first coarser class that has min_rows (else the coarsest),
 * named in the answer; a class without rows has no evidence, never a band.
 *
 * A model family (the model id up to its first '-': "llama", "qwen3") with
 * no row in the residuals gets its class's bands widened: p90 by the factor
 * that puts 90 % of the rows of each family, left out in turn, inside the
 * p90 bands built from the other families' rows, p50 by the factor that
 * puts half of them inside the p50 bands (never below 1; acc_coverage).  A
 * class band holds on rows like the ones it was built from; a family no
 * measured run comes from is further off, and by how much is measured on
 * the families the file has. */
#ifndef SERVESIM_ACCURACY_H
#define SERVESIM_ACCURACY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "base/json.h"
#include "model/model.h"
#include "engine/scenario.h"
#include "sim/sim.h"

/* Load thresholds (see above).  Light: a handful of requests per rank, the
 * step dominated by reading the weights; saturated: a fifth of the time in
 * the waiting queue, the engine at its batch or KV limit. */
#define ACC_LIGHT_RUNNING 6.0
#define ACC_SATURATED_QUEUE 0.2
/* Rows a class needs for its own band before it falls back. */
#define ACC_MIN_ROWS 10
/* Class levels: the class, then load, GPU family and model kind replaced
 * by "*" in turn. */
#define ACC_LEVELS 4

enum acc_kind { ACC_DENSE, ACC_MOE, ACC_MLA, ACC_DSA, ACC_HYBRID, ACC_KIND__N };
enum acc_load { ACC_LIGHT, ACC_LOADED, ACC_SATURATED, ACC_LOAD__N };
/* The headline metrics, in eval's and run's key names. */
enum acc_metric { ACC_TTFT, ACC_ITL, ACC_E2E, ACC_THROUGHPUT, ACC_METRIC__N };

struct acc_class {
	char engine[24];
	enum acc_kind kind;
	char family[16];
	enum acc_load load;
	/* not part of the class's name: the model family of the prediction
	 * (acc_model_family), for the widening of a family without rows; ""
	 * when not known (no widening) */
	char model_family[24];
};

const char *acc_kind_name(enum acc_kind k);
const char *acc_load_name(enum acc_load l);
/* "ttft_mean_ms", "itl_mean_ms", "e2e_mean_ms", "throughput_rps". */
const char *acc_metric_key(enum acc_metric k);
/* "TTFT mean", "ITL mean", "E2E mean", "throughput". */
const char *acc_metric_label(enum acc_metric k);
enum acc_kind acc_model_kind(const struct model_cfg *m);
/* A model id's family: up to its first '-' ("deepseek" for deepseek-r1). */
void acc_model_family(const char *model_id, char *buf, size_t n);
enum acc_load acc_load_of(double running_per_rank, double queue_share, bool overloaded);
/* The class of a run of model m on GPU g with engine ("" = vllm; pd: a P/D
 * deployment) whose summary had these load terms (metric_set's
 * running_per_rank and queue_share) and overloaded status. */
void acc_class_of(const char *engine, bool pd, const struct model_cfg *m, const struct gpu_spec *g,
		  double running_per_rank, double queue_share, bool overloaded, struct acc_class *out);
/* "vllm/moe/hopper/loaded" at level 0; at level L the last L parts are
 * stars. */
void acc_class_name(const struct acc_class *c, int level, char *buf, size_t n);
/* Parse the four parts back (eval's JSON "class" object); SS_EDATA naming
 * ctx and the bad part. */
int acc_class_parse(const char *engine, const char *kind, const char *family, const char *load,
		    const char *ctx, struct acc_class *out, struct err *e);

/* --- residuals and bands ------------------------------------------------ */

/* One measured row: its class, each metric's error (NAN where the row has
 * no such measurement) and the half it falls in for the coverage check (a
 * hash of its source and name). */
struct acc_resid {
	struct acc_class cls;
	double err[ACC_METRIC__N];
	int half;
	/* its model's family: the model id up to its first '-' ("llama" for
	 * llama-3.1-8b, "deepseek" for deepseek-r1), for the family-out check */
	char family[24];
};

/* Every row of one `servesim eval --format json` document (its rows[], each
 * with "class" and "metrics"); source names the ground truth it came from
 * (recorded, and part of the split hash).  Appends to *r (heap, grows *cap). */
int acc_resid_from_eval(const struct json *doc, const char *source, const char *ctx,
			struct acc_resid **r, size_t *n, size_t *cap, struct err *e);

struct acc_band {
	double p50, p90;
	size_t rows;    /* 0: no evidence (p50, p90 NAN) */
};

struct acc_entry {
	char cls[64];
	struct acc_band b[ACC_METRIC__N];
};

#define ACC_MAX_SOURCES 8
/* Model families a table lists (past them a family counts as unseen:
 * widened, the cautious side). */
#define ACC_MAX_FAMILIES 32

struct acc_table {
	struct acc_entry *e;    /* every class with rows, at every level, sorted by name */
	size_t n;
	size_t min_rows;
	size_t nrows;           /* rows the bands came from */
	char residuals[160];    /* how the residuals were made */
	bool held_out;          /* the engine terms did not see the row */
	char source[ACC_MAX_SOURCES][96];
	size_t source_rows[ACC_MAX_SOURCES];
	size_t nsource;
	/* the split check: the share of rows whose error lies within the p90
	 * band of their class built from the other half (both ways), and how
	 * many rows were checked (NAN / 0 when none) */
	double coverage[ACC_METRIC__N];
	size_t coverage_rows[ACC_METRIC__N];
	/* the family-out check: each model family's rows against the bands
	 * built without that family (its rows whose class then has no evidence
	 * are not counted); families 0 when not made (fewer than two) */
	double family_coverage[ACC_METRIC__N];
	size_t family_coverage_rows[ACC_METRIC__N];
	size_t families;
	/* the model families of the rows and their row counts (first seen
	 * first); a prediction of another family is widened */
	char fam[ACC_MAX_FAMILIES][24];
	size_t fam_rows[ACC_MAX_FAMILIES];
	size_t nfam;
	/* the widening of a family without rows (1 = none; NAN when the check
	 * was not made): per metric the p50 and p90 factors, and the share of
	 * each left-out family's rows within its widened p90 band when the
	 * factor comes from the other families' rows alone (rows checked) */
	double widen[ACC_METRIC__N][2];
	double widened_coverage[ACC_METRIC__N];
	size_t widened_coverage_rows[ACC_METRIC__N];
};

/* Bands of every class (all levels) over r[0, n) with min_rows; the
 * coverage fields are left NAN / 0. */
void acc_build(const struct acc_resid *r, size_t n, size_t min_rows, struct acc_table *t);
/* The split check, the family-out check and the widening of a family
 * without rows of r[0, n) (see acc_table.coverage, family_coverage, widen)
 * into t, with the families of r listed in t->fam. */
void acc_coverage(const struct acc_resid *r, size_t n, size_t min_rows, struct acc_table *t);
/* One fold of those checks: the rows with fold[i] == f against the bands
 * of the rows with fold[i] != f; within[k] of rows[k] (added to) lie inside
 * their class's p90 band (rows whose class has no evidence not counted). */
void acc_coverage_fold(const struct acc_resid *r, size_t n, const int *fold, int f, size_t min_rows,
		       size_t *within, size_t *rows);
/* fold[i] = the number of r[i]'s family, numbered as first seen; returns
 * how many families. */
int acc_family_folds(const struct acc_resid *r, size_t n, int *fold);
void acc_table_release(struct acc_table *t);
/* data/accuracy.json: deterministic (classes by name, %.9g numbers). */
void acc_table_json(FILE *f, const struct acc_table *t);
/* Strict reader of that file (SS_EDATA naming the path and field). */
int acc_table_load(const char *path, struct acc_table *t, struct err *e);

/* --- answers ------------------------------------------------------------ */

struct acc_answer {
	bool evidence;          /* false: no measured row of this class */
	double p50, p90;        /* |relative error| */
	size_t rows;            /* behind the band */
	char cls[64];           /* the class the band is of (coarser on fallback) */
	char asked[64];         /* the prediction's own class */
	size_t own_rows;        /* the own class's rows (< min_rows on fallback) */
	/* p50 and p90 multiplied by these: the model's family has no rows
	 * (1 and 1 otherwise) */
	double widen50, widen90;
};

/* Metric k's band for class c (see the top of this file), widened when
 * c's model family is known and not among t's. */
void acc_lookup(const struct acc_table *t, const struct acc_class *c, enum acc_metric k,
		struct acc_answer *a);

/* What run, capacity and search state: one answer per headline metric.
 * table NULL (no data/accuracy.json): every answer without evidence and
 * missing set. */
struct acc_confidence {
	bool missing;
	bool held_out;
	char residuals[160];    /* the table's */
	struct acc_class cls;
	struct acc_answer a[ACC_METRIC__N];
};
void acc_confidence_of(const struct acc_table *t, const struct acc_class *c, struct acc_confidence *out);
/* data_dir/accuracy.json, or *t zeroed with *found false when the file does
 * not exist; a file that exists and does not parse is an error. */
int acc_table_find(const char *data_dir, struct acc_table *t, bool *found, struct err *e);
/* The class of a simulated scenario (its engine, P/D or not, model, GPU)
 * at a run's load terms; overloaded: out.h's status said so. */
void acc_class_of_scenario(const struct scenario *sc, double running_per_rank, double queue_share,
			   bool overloaded, struct acc_class *out);
/* acc_table_find and acc_confidence_of in one: the confidence of class c
 * from data_dir/accuracy.json (missing set when there is none). */
int acc_confidence_find(const char *data_dir, const struct acc_class *c, struct acc_confidence *out,
			struct err *e);
/* The same for scenario sc run at these load terms. */
int acc_confidence_at(const char *data_dir, const struct scenario *sc, double running_per_rank,
		      double queue_share, bool overloaded, struct acc_confidence *out, struct err *e);
/* The same for a finished simulation s of sc: the whole run's load. */
int acc_confidence_sim(const char *data_dir, const struct scenario *sc, struct sim *s, bool overloaded,
		       struct acc_confidence *out, struct err *e);

#endif
