/* aic.c - aiconfigurator's silicon CSV (systems/silicon_sample.csv of
 * ai-dynamo/aiconfigurator; see eval/silicon/PROVENANCE.md):
 * one measured serving point per row, filtered by `--where` conditions.
 *
 * Columns read (others ignored): id, backend, backend_version, model_path,
 * system, precision, mode, isl, osl, gemm_quant_mode, moe_quant_mode,
 * batch_size (the closed-loop concurrency), tp_size, pp_size,
 * attention_dp_size, moe_tp_size, moe_ep_size, silicon_ttft_ms,
 * silicon_tpot_ms, and for disagg rows the prefill_* and decode_* pool
 * columns (batch_size, num_workers, tp, pp, attention_dp, moe_tp,
 * moe_ep sizes; empty batch and worker counts are kept as 0 = not
 * recorded).  Fields hold no commas or quotes in the published file;
 * a quoted field is refused.  Empty and 0 parallel sizes mean 1. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <strings.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/gzread.h"
#include "readers/measured.h"

/* the published file is 1.1 MB; 64 MB leaves room for larger dumps */
#define AIC_MAX_BYTES (64u << 20)

enum { C_ID, C_SOURCE, C_BACKEND, C_VERSION, C_MODEL, C_SYSTEM, C_PRECISION, C_MODE, C_ISL, C_OSL, C_GEMM,
       C_MOE, C_BATCH, C_TP, C_PP, C_ADP, C_MOE_TP, C_MOE_EP, C_TTFT, C_TPOT,
       /* disagg rows: the prefill pool's, then the decode pool's (same order) */
       C_P_BATCH, C_P_WORKERS, C_P_TP, C_P_PP, C_P_ADP, C_P_MOE_TP, C_P_MOE_EP,
       C_D_BATCH, C_D_WORKERS, C_D_TP, C_D_PP, C_D_ADP, C_D_MOE_TP, C_D_MOE_EP, C__N };

static const char *const col_names[C__N] = {
	"id", "silicon_data_source", "backend", "backend_version", "model_path", "system", "precision", "mode", "isl", "osl",
	"gemm_quant_mode", "moe_quant_mode", "batch_size", "tp_size", "pp_size", "attention_dp_size",
	"moe_tp_size", "moe_ep_size", "silicon_ttft_ms", "silicon_tpot_ms",
	"prefill_batch_size", "prefill_num_workers", "prefill_tp_size", "prefill_pp_size",
	"prefill_attention_dp_size", "prefill_moe_tp_size", "prefill_moe_ep_size",
	"decode_batch_size", "decode_num_workers", "decode_tp_size", "decode_pp_size",
	"decode_attention_dp_size", "decode_moe_tp_size", "decode_moe_ep_size"};

/* required in the header; the rest are optional */
static bool col_required(int c)
{
	return c == C_BACKEND || c == C_MODEL || c == C_SYSTEM || c == C_MODE || c == C_ISL ||
	       c == C_OSL || c == C_BATCH || c == C_TP || c == C_TTFT || c == C_TPOT;
}

#define AIC_MAX_COLS 128
#define AIC_MAX_COND 16

struct cond {
	int col;
	bool neq;
	char value[200]; /* as long as a whole term (parse_where), so never cut */
};

struct line_fields {
	const char *f[AIC_MAX_COLS];
	size_t len[AIC_MAX_COLS];
	size_t n;
};

/* Split one line (no newline) at commas. */
static int split(const char *s, size_t n, struct line_fields *lf, const char *name, size_t line,
		 struct err *e)
{
	const char *p = s, *end = s + n, *c;

	/* memchr, not a byte loop: the silicon CSVs run to 10^5 rows */
	lf->n = 0;
	if (memchr(s, '"', n))
		return err_set(e, SS_EDATA, "%s:%zu: quoted CSV fields are not supported", name, line);
	for (;;) {
		c = memchr(p, ',', (size_t)(end - p));
		if (lf->n >= AIC_MAX_COLS)
			return err_set(e, SS_EDATA, "%s:%zu: more than %d columns", name, line, AIC_MAX_COLS);
		lf->f[lf->n] = p;
		lf->len[lf->n] = (size_t)((c ? c : end) - p);
		lf->n++;
		if (!c)
			break;
		p = c + 1;
	}
	/* a CR before the newline */
	if (lf->n && lf->len[lf->n - 1] && lf->f[lf->n - 1][lf->len[lf->n - 1] - 1] == '\r')
		lf->len[lf->n - 1]--;
	return 0;
}

static bool field_is(const struct line_fields *lf, int i, const char *v)
{
	size_t n = strlen(v);
	return i >= 0 && (size_t)i < lf->n && lf->len[i] == n && memcmp(lf->f[i], v, n) == 0;
}

static void field_copy(const struct line_fields *lf, int i, char *dst, size_t n)
{
	size_t l;

	dst[0] = '\0';
	if (i < 0 || (size_t)i >= lf->n)
		return;
	l = lf->len[i] < n - 1 ? lf->len[i] : n - 1;
	memcpy(dst, lf->f[i], l);
	dst[l] = '\0';
}

/* A number field; empty gives NAN.  Anything else non-numeric is an error. */
static int field_num(const struct line_fields *lf, int i, double *out)
{
	char buf[64], *end;

	*out = NAN;
	if (i < 0 || (size_t)i >= lf->n || lf->len[i] == 0)
		return 0;
	field_copy(lf, i, buf, sizeof(buf));
	*out = strtod(buf, &end);
	if (end == buf || *end || !isfinite(*out))
		return -1;
	return 0;
}

/* A parallel size: empty or 0 = 1. */
static int par_size(double v, int *out)
{
	if (isnan(v) || v == 0) {
		*out = 1;
		return 0;
	}
	if (!(v >= 1 && v <= 4096) || v != floor(v))
		return -1;
	*out = (int)v;
	return 0;
}

static int parse_where(const char *where, const char *hdr_names[], size_t nh, struct cond *cs,
		       size_t *nc, const char *name, struct err *e)
{
	const char *p = where;

	*nc = 0;
	while (p && *p) {
		const char *end = strchr(p, ','), *op;
		char term[200], key[96];
		size_t tl = end ? (size_t)(end - p) : strlen(p), k;
		bool neq;
		struct cond *c;
		if (tl >= sizeof(term))
			return err_set(e, SS_EUSAGE, "--where: condition too long: \"%.40s...\"", p);
		memcpy(term, p, tl);
		term[tl] = '\0';
		p = end ? end + 1 : NULL;
		if (tl == 0 || (p && !*p)) /* (",a=b", "a=b,,c=d", "a=b,") */
			return err_set(e, SS_EUSAGE,
				       "--where: an empty condition in \"%s\" (COLUMN=VALUE or COLUMN!=VALUE, comma-separated)",
				       where);
		op = strstr(term, "!=");
		neq = op != NULL;
		if (!op)
			op = strchr(term, '=');
		if (!op || op == term)
			return err_set(e, SS_EUSAGE,
				       "--where: \"%s\" is not COLUMN=VALUE or COLUMN!=VALUE (comma = and)", term);
		if (*nc >= AIC_MAX_COND)
			return err_set(e, SS_EUSAGE, "--where: more than %d conditions", AIC_MAX_COND);
		snprintf(key, sizeof(key), "%.*s", (int)(op - term), term);
		c = &cs[(*nc)++];
		c->neq = neq;
		snprintf(c->value, sizeof(c->value), "%s", op + (neq ? 2 : 1));
		c->col = -1;
		for (k = 0; k < nh; k++)
			if (strcmp(hdr_names[k], key) == 0)
				c->col = (int)k;
		if (c->col < 0)
			return err_set(e, SS_EUSAGE, "--where: %s has no column '%s' (e.g. backend, system, mode, model_path, isl, osl, batch_size)",
				       name, key);
	}
	return 0;
}

/* The benchmark client behind a row, from the first field of its
 * silicon_data_source (eval/silicon/HARNESS.md, "Two harnesses").  The
 * published file joins two collections: the rows of aiconfigurator's own gap
 * analysis (`source_file=.../aic-auto-gap-analysis/...`), measured with its
 * genai-perf / aiperf harness at fixed ISL / OSL, and dumps of InferenceX's
 * results database (`db-dump/...`, `source_file=2026-03-25.csv`,
 * `source_file=2026-04-06.csv`): every one of their 2,719 rows has one of
 * InferenceX's three ISL / OSL pairs (1024/1024, 1024/8192, 8192/1024), and
 * their images (vllm/vllm-openai:v0.19.0-cu130, lmsysorg/sglang:v0.5.9-cu130)
 * are the ones InferenceX's configs name; none of the 529 gap-analysis rows
 * has one of those pairs.  InferenceX drives every engine with its copy of
 * vLLM's benchmark_serving (SemiAnalysisAI/InferenceX
 * benchmarks/benchmark_lib.sh, run_benchmark_serving: --dataset-name random
 * --random-range-ratio 0.8, --num-prompts 10 C, --max-concurrency C,
 * --num-warmups 2 C, --ignore-eos). */
/* silicon_data_source's "measured=YYYY-MM-DD..." as "YYYY-MM-DD" in out (n
 * >= 11), "" when absent or not a date. */
static void row_measured(const char *src, char *out, size_t n)
{
	const char *m = strstr(src, "measured=");
	size_t i;

	out[0] = '\0';
	if (!m || n < 11)
		return;
	m += 9;
	for (i = 0; i < 10; i++)
		if (!(i == 4 || i == 7 ? m[i] == '-' : m[i] >= '0' && m[i] <= '9'))
			return;
	memcpy(out, m, 10);
	out[10] = '\0';
}

/* The tag of an ai-dynamo/tensorrtllm-runtime image named in
 * silicon_data_source ("...tensorrtllm-runtime:0.8.1.post2; ..."), "" when
 * none is named (n >= 1). */
static void row_dynamo_image(const char *src, char *out, size_t n)
{
	static const char key[] = "ai-dynamo/tensorrtllm-runtime:";
	const char *m = strstr(src, key);
	size_t len;

	out[0] = '\0';
	if (!m)
		return;
	m += sizeof(key) - 1;
	len = strcspn(m, "; ");
	if (len == 0 || len >= n)
		return;
	memcpy(out, m, len);
	out[len] = '\0';
}

static enum aic_harness row_harness(const char *src)
{
	static const char *const files[] = {"source_file=2026-03-25.csv", "source_file=2026-04-06.csv"};
	size_t i, len = strcspn(src, ";"); /* the source's first field */

	if (strncmp(src, "db-dump/", 8) == 0)
		return AIC_HARNESS_INFERENCEX;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strlen(files[i]) == len && strncmp(src, files[i], len) == 0)
			return AIC_HARNESS_INFERENCEX;
	return AIC_HARNESS_AIPERF;
}

static bool row_matches(const struct line_fields *lf, const struct cond *cs, size_t nc)
{
	size_t i;

	for (i = 0; i < nc; i++) {
		bool eq = field_is(lf, cs[i].col, cs[i].value);
		if (eq == cs[i].neq)
			return false;
	}
	return true;
}

/* Two of the published file's sources record an expert-parallel layout
 * multiplied by its EP size: `source_file=2026-04-06.csv` (its ids name the
 * real layout: "..._tp8_ep8_..." is stored as tp_size 64, moe_tp_size 8,
 * moe_ep_size 8) and `db-dump/...` (config_id rows, same pattern).  The
 * evidence, in eval/silicon/HARNESS.md: 48 measurements appear twice in the
 * file with identical TTFT and TPOT, once under another source with the
 * real layout (tp 8, moe_tp 1, ep 8; attention DP 8 at batch 32) and once
 * inflated (tp 64, moe_tp 8, ep 8; attention DP 64 at batch 4); and in
 * those two sources every row with moe_ep_size > 1 has moe_tp_size > 1
 * (TensorRT-LLM's moe_tp x moe_ep = GPUs then puts 64 GPUs behind a
 * TPOT equal to the 8-GPU layout's).  Such a row is read as its real
 * layout: moe_tp / ep, attention TP or DP / ep, per-rank batch x ep (the
 * client's concurrency unchanged). */
static bool dump_inflated_ep(const char *src, const struct aic_row *r)
{
	int w = r->tp * r->attn_dp;

	if (strncmp(src, "db-dump/", 8) != 0 && strncmp(src, "source_file=2026-04-06.csv", 26) != 0)
		return false;
	return r->moe_ep > 1 && r->moe_tp > 1 && r->moe_tp % r->moe_ep == 0 &&
	       w == r->moe_tp * r->moe_ep && (r->tp == 1 || r->attn_dp == 1);
}

/* A pool's batch or worker count: empty or 0 = not recorded (0). */
static int pool_count(double v, int64_t *out)
{
	if (isnan(v) || v == 0) {
		*out = 0;
		return 0;
	}
	if (!(v >= 1 && v <= (1 << 24)) || v != floor(v))
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* The two sources without pool batch and worker counts,
 * `source_file=2026-03-25.csv` and `source_file=2026-04-06.csv`, write the
 * prefill pool's moe_ep_size into decode_moe_ep_size (equal on all 1,328
 * of their disagg rows) and the decode pool's GPUs as tp_size = moe_tp x
 * moe_ep with that EP.  Where the same measurement also appears under
 * `db-dump/` with the pool columns filled (identical TTFT and TPOT), the
 * decode pool with moe_tp > 1 and moe_ep > 1 is one expert-parallel group
 * over all its GPUs (e.g. tp 8, moe_tp 2, ep 4 = tp 8, ep 8; tp 32, moe_tp
 * 4, ep 8 = 32 GPUs, ep 32): eval/silicon/HARNESS.md, "Disaggregated
 * rows".  Such a decode pool is read as EP over its tp_size GPUs. */
static bool decode_ep_copied(const char *src, const struct aic_row *r)
{
	if (strncmp(src, "source_file=2026-03-25.csv", 26) != 0 &&
	    strncmp(src, "source_file=2026-04-06.csv", 26) != 0)
		return false;
	return r->dec.moe_tp > 1 && r->dec.moe_ep > 1 && r->dec.moe_ep == r->pre.moe_ep &&
	       r->dec.moe_tp * r->dec.moe_ep == r->dec.tp;
}

/* The columns a row of this mode needs as whole numbers in [1, 2^24], its
 * two latencies > 0, and isl/osl copied into r. */
static int read_needed(const double *v, const int *need, size_t nneed, const char *mode, const char *name,
		       size_t line, struct aic_row *r, struct err *e)
{
	size_t k;

	for (k = 0; k < nneed; k++) {
		double x = v[need[k]];
		if (!(x >= 1 && x <= (1 << 24)) || x != floor(x))
			return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be an integer >= 1 in %s row, got %g",
				       name, line, col_names[need[k]], mode, x);
	}
	for (k = 0; k < 2; k++) {
		/* a measured latency: > 0 and no longer than any latency taken
		 * as measured (GT_MAX_MS, as every other reader); an empty cell
		 * is named as such, not as a number */
		double x = k ? r->tpot_ms : r->ttft_ms;
		const char *c = col_names[k ? C_TPOT : C_TTFT];
		if (isnan(x))
			return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be a number in (0, %g] ms, got an empty cell",
				       name, line, c, GT_MAX_MS);
		if (!(x > 0 && x <= GT_MAX_MS))
			return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be a number in (0, %g] ms, got %g",
				       name, line, c, GT_MAX_MS, x);
	}
	r->isl = (int64_t)v[C_ISL];
	r->osl = (int64_t)v[C_OSL];
	return 0;
}

/* A disagg row: isl, osl, the measured means, both pools' layouts, the
 * client's concurrency (silicon_concurrency=, else decode batch x attention
 * DP x workers when all are recorded; 0 when neither is known). */
static int read_disagg(const struct line_fields *lf, const int *col, const double *v, const char *name,
		       size_t line, struct aic_row *r, struct err *e)
{
	static const int need[] = {C_ISL, C_OSL};
	struct aic_pool *pl[2] = {&r->pre, &r->dec};
	char src[512];
	const char *sc;
	int rc;
	int p;

	if ((rc = read_needed(v, need, sizeof(need) / sizeof(need[0]), "a disagg", name, line, r, e)) < 0)
		return rc;
	for (p = 0; p < 2; p++) {
		int b = p ? C_D_BATCH : C_P_BATCH;
		int64_t w;
		if (pool_count(v[b], &pl[p]->batch) < 0 || pool_count(v[b + 1], &w) < 0 || w > 4096)
			return err_set(e, SS_EDATA, "%s:%zu: %s and %s must be empty or integers in [0, %d] and [0, 4096], got %g and %g",
				       name, line, col_names[b], col_names[b + 1], 1 << 24, v[b], v[b + 1]);
		pl[p]->workers = (int)w;
		if (par_size(v[b + 2], &pl[p]->tp) < 0 || par_size(v[b + 3], &pl[p]->pp) < 0 ||
		    par_size(v[b + 4], &pl[p]->attn_dp) < 0 || par_size(v[b + 5], &pl[p]->moe_tp) < 0 ||
		    par_size(v[b + 6], &pl[p]->moe_ep) < 0)
			return err_set(e, SS_EDATA, "%s:%zu: %s, %s, %s, %s and %s must be empty or integers in [0, 4096]",
				       name, line, col_names[b + 2], col_names[b + 3], col_names[b + 4], col_names[b + 5],
				       col_names[b + 6]);
	}
	field_copy(lf, col[C_SOURCE], src, sizeof(src));
	if (decode_ep_copied(src, r)) {
		r->dec.moe_ep = r->dec.tp;
		r->dec.moe_tp = 1;
		r->relaid = true;
	}
	r->concurrency = r->dec.batch * r->dec.attn_dp * r->dec.workers;
	if ((sc = strstr(src, "silicon_concurrency=")) != NULL) {
		long long cc = strtoll(sc + 20, NULL, 10);
		if (cc >= 1 && cc <= (1 << 24))
			r->concurrency = cc;
	}
	return 0;
}

static int read_row(const struct line_fields *lf, const int *col, const char *name, size_t line,
		    struct aic_row *r, struct err *e)
{
	double v[C__N];
	int c;

	memset(r, 0, sizeof(*r));
	for (c = 0; c < C__N; c++) {
		v[c] = NAN;
		if (c == C_ISL || c == C_OSL || c == C_BATCH || c == C_TP || c == C_PP || c == C_ADP ||
		    c == C_MOE_TP || c == C_MOE_EP || c == C_TTFT || c == C_TPOT || c >= C_P_BATCH) {
			if (field_num(lf, col[c], &v[c]) < 0) {
				char buf[64];
				field_copy(lf, col[c], buf, sizeof(buf));
				return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be a number, got \"%s\"",
					       name, line, col_names[c], buf);
			}
		}
	}
	field_copy(lf, col[C_ID], r->id, sizeof(r->id));
	field_copy(lf, col[C_BACKEND], r->backend, sizeof(r->backend));
	field_copy(lf, col[C_VERSION], r->version, sizeof(r->version));
	field_copy(lf, col[C_MODEL], r->model, sizeof(r->model));
	field_copy(lf, col[C_SYSTEM], r->system, sizeof(r->system));
	field_copy(lf, col[C_PRECISION], r->precision, sizeof(r->precision));
	field_copy(lf, col[C_MODE], r->mode, sizeof(r->mode));
	field_copy(lf, col[C_GEMM], r->gemm_quant, sizeof(r->gemm_quant));
	field_copy(lf, col[C_MOE], r->moe_quant, sizeof(r->moe_quant));
	if (!r->id[0])
		snprintf(r->id, sizeof(r->id), "row%zu", line);
	r->line = line;
	r->ttft_ms = v[C_TTFT];
	r->tpot_ms = v[C_TPOT];
	{
		char src[512];
		field_copy(lf, col[C_SOURCE], src, sizeof(src));
		r->harness = row_harness(src);
		row_measured(src, r->measured, sizeof(r->measured));
		row_dynamo_image(src, r->dynamo_image, sizeof(r->dynamo_image));
	}
	if (strcmp(r->mode, "disagg") == 0)
		return read_disagg(lf, col, v, name, line, r, e);
	if (strcmp(r->mode, "agg") != 0)
		return 0; /* other modes are counted, not read further */
	{
		static const int need[] = {C_ISL, C_OSL, C_BATCH, C_TP};
		int rc = read_needed(v, need, sizeof(need) / sizeof(need[0]), "an agg", name, line, r, e);
		if (rc < 0)
			return rc;
	}
	r->batch = (int64_t)v[C_BATCH];
	r->tp = (int)v[C_TP];
	if (par_size(v[C_PP], &r->pp) < 0 || par_size(v[C_ADP], &r->attn_dp) < 0 ||
	    par_size(v[C_MOE_TP], &r->moe_tp) < 0 || par_size(v[C_MOE_EP], &r->moe_ep) < 0)
		return err_set(e, SS_EDATA, "%s:%zu: pp_size, attention_dp_size, moe_tp_size and moe_ep_size must be integers in [0, 4096]",
			       name, line);
	/* batch_size is per worker and attention-DP rank: the client's
	 * concurrency is silicon_data_source's silicon_concurrency=N (checked
	 * on the published file: N = batch_size x attention_dp_size on every
	 * attention-DP row, and a multiple of batch_size on the multi-worker
	 * rows), else batch_size x attention_dp_size */
	r->concurrency = r->batch * r->attn_dp;
	r->workers = 1;
	{
		char src[512];
		const char *sc;
		field_copy(lf, col[C_SOURCE], src, sizeof(src));
		if (dump_inflated_ep(src, r)) {
			r->moe_tp /= r->moe_ep;
			if (r->attn_dp > 1) {
				r->attn_dp /= r->moe_ep;
				r->batch *= r->moe_ep;
			} else {
				r->tp /= r->moe_ep;
			}
			r->concurrency = r->batch * r->attn_dp;
			r->relaid = true;
		}
		if ((sc = strstr(src, "silicon_concurrency=")) != NULL) {
			long long cc = strtoll(sc + 20, NULL, 10);
			if (cc >= 1 && cc <= (1 << 24) && cc % r->concurrency == 0 &&
			    cc / r->concurrency <= 4096) {
				r->workers = (int)(cc / r->concurrency);
				r->concurrency = cc;
			}
		}
	}
	return 0;
}

int aic_read_mem(const char *buf, size_t len, const char *name, const char *where,
		 struct aic_table *t, struct err *e)
{
	const char *p = buf, *end = buf + len, *hdr_names[AIC_MAX_COLS];
	char hdr_store[AIC_MAX_COLS][48];
	struct line_fields lf;
	struct cond cs[AIC_MAX_COND];
	size_t nc = 0, line = 0, k;
	int col[C__N], c, rc = 0;
	bool have_hdr = false;

	memset(t, 0, sizeof(*t));
	for (c = 0; c < C__N; c++)
		col[c] = -1;
	/* a UTF-8 byte order mark (a spreadsheet's export) is not part of the
	 * first column's name: kept, it hid the 'id' column, and every row was
	 * named rowN */
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *s = p;
		p = nl ? nl + 1 : end;
		line++;
		if (n == 0 || s[0] == '#')
			continue;
		if ((rc = split(s, n, &lf, name, line, e)) < 0)
			break;
		if (!have_hdr) {
			have_hdr = true;
			t->ncols = lf.n;
			for (k = 0; k < lf.n; k++) {
				field_copy(&lf, (int)k, hdr_store[k], sizeof(hdr_store[k]));
				hdr_names[k] = hdr_store[k];
				for (c = 0; c < C__N; c++)
					if (col[c] < 0 && strcmp(hdr_store[k], col_names[c]) == 0)
						col[c] = (int)k;
			}
			for (c = 0; c < C__N; c++)
				if (col[c] < 0 && col_required(c)) {
					rc = err_set(e, SS_EDATA,
						     "%s: no column '%s': not an aiconfigurator silicon CSV (expected backend, model_path, system, mode, isl, osl, batch_size, tp_size, silicon_ttft_ms, silicon_tpot_ms)",
						     name, col_names[c]);
					goto out;
				}
			if (where && (rc = parse_where(where, hdr_names, lf.n, cs, &nc, name, e)) < 0)
				goto out;
			continue;
		}
		if (lf.n != t->ncols) {
			rc = err_set(e, SS_EDATA, "%s:%zu: %zu fields, the header has %zu", name, line, lf.n,
				     t->ncols);
			break;
		}
		t->total++;
		if (!row_matches(&lf, cs, nc))
			continue;
		XGROW(t->r, t->cap, t->n + 1);
		if ((rc = read_row(&lf, col, name, line, &t->r[t->n], e)) < 0)
			break;
		t->n++;
	}
	if (rc == 0 && !have_hdr)
		rc = err_set(e, SS_EDATA, "%s: empty file: expected an aiconfigurator silicon CSV", name);
out:
	if (rc < 0)
		aic_table_release(t);
	return rc;
}

int aic_read(const char *path, const char *where, struct aic_table *t, struct err *e)
{
	char *buf;
	size_t len;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = gzr_read_file(path, AIC_MAX_BYTES, &buf, &len, e)) < 0)
		return rc;
	rc = aic_read_mem(buf, len, path, where, t, e);
	free(buf);
	return rc;
}

bool aic_is_table(const char *path)
{
	struct gzr *g;
	struct err e;
	const char *line;
	size_t len;
	bool yes = false;

	if (gzr_open(path, &g, &e) < 0)
		return false;
	if (gzr_getline(g, &line, &len, &e) == 0 && line)
		yes = memmem(line, len, "silicon_ttft_ms", 15) != NULL &&
		      memmem(line, len, "model_path", 10) != NULL;
	gzr_close(g);
	return yes;
}

void aic_table_release(struct aic_table *t)
{
	free(t->r);
	memset(t, 0, sizeof(*t));
}

/* Names to try in the model registry, in order (returns how many):
 *   1. the row's Hugging Face id as written;
 *   2. the base checkpoint of a quantised variant the registry may not list
 *      (same architecture, the precision comes from the row): an `nvidia/`
 *      prefix (NVIDIA's ModelOpt re-quantisations, e.g.
 *      nvidia/DeepSeek-R1-NVFP4 of DeepSeek-R1) and a trailing -FP8 / -NVFP4
 *      / -FP4 (e.g. Qwen/Qwen3-235B-A22B-FP8) dropped;
 *   3. that name without its organisation, matched against registry ids
 *      (meta-llama/Llama-3.1-70B -> llama-3.1-70b). */
int aic_model_candidates(const char *hf, char out[3][128])
{
	static const char *const suffixes[] = {"-NVFP4", "-FP8", "-FP4", NULL};
	const char *s = hf, *slash;
	size_t l, k;
	int n = 0;

	snprintf(out[n++], 128, "%s", hf);
	if (strncmp(s, "nvidia/", 7) == 0)
		s += 7;
	snprintf(out[n], 128, "%s", s);
	l = strlen(out[n]);
	for (k = 0; suffixes[k]; k++) {
		size_t sl = strlen(suffixes[k]);
		if (l > sl && strcasecmp(out[n] + l - sl, suffixes[k]) == 0) {
			out[n][l - sl] = '\0';
			break;
		}
	}
	if (strcmp(out[n], out[0]) != 0)
		n++;
	slash = strrchr(out[n - 1], '/');
	if (slash && slash[1]) {
		snprintf(out[n], 128, "%s", slash + 1);
		n++;
	}
	return n;
}

/* --- a folder of silicon CSVs (measured.h) --- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t aic_table_files(const char *dir, char (*files)[700], size_t cap)
{
	char *names[64], path[700];
	size_t nn = 0, k, got = 0;
	struct dirent *de;
	struct stat sb;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)) && nn < sizeof(names) / sizeof(names[0])) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' ||
		    !((l > 4 && strcmp(de->d_name + l - 4, ".csv") == 0) ||
		      (l > 7 && strcmp(de->d_name + l - 7, ".csv.gz") == 0)))
			continue;
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, nn, sizeof(names[0]), cmp_name);
	for (k = 0; k < nn; k++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[k]) >= (int)sizeof(path)) {
			free(names[k]);
			continue;
		}
		if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && aic_is_table(path)) {
			if (got < cap)
				snprintf(files[got], sizeof(files[0]), "%.699s", path);
			got++;
		}
		free(names[k]);
	}
	return got;
}
