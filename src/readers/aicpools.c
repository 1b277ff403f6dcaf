/* aicpools.c - the pool sizes of the silicon CSV's InferenceX disagg rows,
 * derived from InferenceX's launch configuration (eval/silicon/
 * inferencex_pools.csv, written by scripts/inferencex_pools.py; its
 * PROVENANCE and eval/silicon/HARNESS.md, "Disaggregated rows").
 *
 * The two InferenceX sources leave the pools' worker and batch counts blank
 * and copy the prefill pool's EP into the decode pool's; InferenceX's master
 * configuration, as it stood the day each row was measured, names them.
 * One line per row id: both pools' worker counts, attention-DP sizes (1:
 * attention TP over the pool's recorded tp_size GPUs; else = that tp_size),
 * the decode pool's EP and per-rank batch limit (0: not named), and whether
 * multi-token prediction ran with how many draft tokens (0: not named).  An
 * aggregated row's line (mode agg, pool columns 0) says only that it ran
 * MTP: InferenceX names MTP runs by their own configuration entry.  Two
 * optional columns give a TensorRT-LLM row's prefill workers' limits from
 * its srt-slurm recipe: prefill_batch_size (max_batch_size per rank) and
 * prefill_max_num_tokens (0 or absent: not known).  Three more give a
 * worker's GPUs where the row's tp_size is a placeholder (InferenceX's
 * GB200/GB300 dynamo-sglang entries that name nodes, not tp):
 * prefill_gpus, decode_gpus (replace the recorded tp_size x attention DP)
 * and prefill_moe_ep_size (replaces the recorded prefill EP); 0 or absent:
 * the recorded ones stand.  Two more give the redundant expert slots each
 * pool's launch line sets (SGLang's --ep-num-redundant-experts in the
 * dynamo-sglang GB200/GB300 scripts and recipes): prefill_redundant_experts,
 * decode_redundant_experts (0 or absent: none).  Two more name the MoE
 * backend each TensorRT-LLM pool's recipe launches (moe_config.backend:
 * prefill_moe_backend, decode_moe_backend; empty or absent: not named).
 * Two more give each SGLang pool's --mem-fraction-static from its srt-slurm
 * recipe (prefill_mem_fraction_static, decode_mem_fraction_static: in
 * [0, 1]; empty, 0 or absent: not named, SGLang's rule; read for SGLang
 * rows only).  Eight more give each SGLang pool's launch limits from its
 * srt-slurm recipe (prefill_sglang_max_running_requests,
 * _chunked_prefill_size, _max_prefill_tokens, _scheduler_recv_interval,
 * and the same four decode_sglang_ columns: whole numbers >= 1, the chunk
 * also -1 for chunking off; empty or absent: not named, the replay's rule;
 * read for SGLang rows only; checked, not kept: the replay does not take them, HARNESS.md,
 * "sgpdlim").
 * A disagg line may also
 * name a row whose pools are recorded (db-dump): its worker counts, decode
 * attention DP and decode EP must then repeat the recorded ones, and it sets
 * the limits (decode batch, prefill batch and tokens) and the MoE backends, because db-dump
 * records the generator's default prefill batch and the concurrency split as
 * the decode batch, not what the launch's recipe set (HARNESS.md, "Recorded
 * pools' limits"), and the prefill workers' layout on their recorded GPUs
 * (prefill_attention_dp_size, prefill_moe_ep_size), which the recipe
 * launches and db-dump's labels can swap (TensorRT-LLM H200 1k1k / 8k1k
 * attention DP, B200 fp8 8k1k EP: HARNESS.md, "pd3", 2026-12-01). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/csv.h"
#include "readers/measured.h"

struct pools_line {
	char id[160];
	bool agg;  /* an aggregated row's line: only its speculative setting */
	int pw, dw, padp, dadp, dep;
	int64_t dbatch;
	int64_t pbatch, ptokens; /* prefill max_batch_size, max_num_tokens (0: not known) */
	int64_t pgpus, dgpus, pep; /* GPUs per worker, prefill EP (0: the recorded ones) */
	int64_t pred, dred;        /* redundant expert slots per pool (0: none) */
	char pmb[12], dmb[12];     /* MoE backend per pool ("": not named) */
	double pmfs, dmfs;         /* mem_fraction_static per pool (0: not named) */
	int spec; /* -1: MTP of unnamed depth; else draft tokens (0: none) */
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct pools_line *)a)->id, ((const struct pools_line *)b)->id);
}

static int whole(const struct csv *c, int col, double lo, double hi, const char *name, double *out,
		 struct err *e)
{
	int rc = csv_num(c, col, out, e);
	if (rc < 0)
		return rc;
	if (!(*out >= lo && *out <= hi) || *out != (double)(long long)*out)
		return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be an integer in [%g, %g], got %g",
			       csv_path(c), csv_lineno(c), name, lo, hi, *out);
	return 0;
}

/* An optional column (col < 0: absent) as an integer in [0, hi]; an empty
 * field or an absent column leaves *out 0. */
static int optional_whole(const struct csv *c, int col, double hi, const char *name, int64_t *out,
			  struct err *e)
{
	double v;
	int rc;

	if (col < 0 || !csv_field(c, col)[0])
		return 0;
	if ((rc = whole(c, col, 0, hi, name, &v, e)) < 0)
		return rc;
	*out = (int64_t)v;
	return 0;
}

/* An optional fraction column (col < 0: absent) in [0, 1]; an empty field
 * or an absent column leaves *out 0 (not named). */
static int optional_fraction(const struct csv *c, int col, const char *name, double *out, struct err *e)
{
	int rc;

	*out = 0;
	if (col < 0 || !csv_field(c, col)[0])
		return 0;
	if ((rc = csv_num(c, col, out, e)) < 0)
		return rc;
	if (!(*out >= 0 && *out <= 1))
		return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be a fraction in [0, 1] (0 or empty: SGLang's rule), got %g",
			       csv_path(c), csv_lineno(c), name, *out);
	return 0;
}

/* An optional SGLang launch limit column (col < 0: absent) checked: a
 * whole number in [1, hi], or -1 where off_ok (chunking off); empty or
 * absent: not named.  Checked, not kept: the replay does not take them
 * (eval/silicon/HARNESS.md, "sgpdlim"). */
static int check_limit(const struct csv *c, int col, double hi, bool off_ok, const char *name, struct err *e)
{
	double v;
	int rc;

	if (col < 0 || !csv_field(c, col)[0])
		return 0;
	if ((rc = csv_num(c, col, &v, e)) < 0)
		return rc;
	if (!((v >= 1 && v <= hi) || (off_ok && v == -1)) || v != (double)(long long)v)
		return err_set(e, SS_EDATA, "%s:%zu: column '%s' must be a whole number in [1, %.0f]%s or empty, got %g",
			       csv_path(c), csv_lineno(c), name, hi, off_ok ? ", -1" : "", v);
	return 0;
}

/* An optional MoE backend column (col < 0: absent): one of TensorRT-LLM's
 * moe_config.backend names, upper-case, into out (12 bytes); empty or
 * absent: "" (not named). */
static int optional_backend(const struct csv *c, int col, const char *name, char *out, struct err *e)
{
	static const char *const ok[] = {"TRTLLM", "DEEPGEMM", "CUTLASS", "CUTEDSL", "WIDEEP", NULL};
	const char *v = col < 0 ? "" : csv_field(c, col);
	int i;

	out[0] = '\0';
	if (!v[0])
		return 0;
	for (i = 0; ok[i]; i++)
		if (strcmp(v, ok[i]) == 0) {
			snprintf(out, 12, "%s", v);
			return 0;
		}
	return err_set(e, SS_EDATA,
		       "%s:%zu: column '%s' must be TRTLLM, DEEPGEMM, CUTLASS, CUTEDSL, WIDEEP or empty, got \"%.40s\"",
		       csv_path(c), csv_lineno(c), name, v);
}

static int read_lines(const char *path, struct pools_line **out, size_t *n, struct err *e)
{
	static const char *const names[] = {"id", "prefill_num_workers", "decode_num_workers",
					    "prefill_attention_dp_size", "decode_attention_dp_size",
					    "decode_moe_ep_size", "decode_batch_size", "speculative",
					    "mtp_tokens", "mode", NULL};
	static const double hi[] = {0, 4096, 4096, 4096, 4096, 4096, 1 << 24, 0, 16};
	/* the ceilings of the SGLang launch limit columns (opt[11 + k], k = 4 x
	 * pool + limit, in pools_line.sgl's order); the interval's is what the
	 * simulator takes, sim.h SIM_MAX_RECV_INTERVAL */
	static const double sgl_hi[4] = {1 << 24, 1 << 24, 1 << 24, 100000};
	/* the optional columns (-1 when absent), in opt's order; a slip of one
	 * in the header (a case change, an edit) is refused, not ignored */
	static const char *const opt[] = {"prefill_batch_size", "prefill_max_num_tokens", "prefill_gpus",
					  "decode_gpus", "prefill_moe_ep_size", "prefill_redundant_experts",
					  "decode_redundant_experts", "prefill_moe_backend", "decode_moe_backend",
					  "prefill_mem_fraction_static", "decode_mem_fraction_static",
					  "prefill_sglang_max_running_requests", "prefill_sglang_chunked_prefill_size",
					  "prefill_sglang_max_prefill_tokens", "prefill_sglang_scheduler_recv_interval",
					  "decode_sglang_max_running_requests", "decode_sglang_chunked_prefill_size",
					  "decode_sglang_max_prefill_tokens", "decode_sglang_scheduler_recv_interval",
					  NULL};
	const char *known[sizeof(names) / sizeof(names[0]) + sizeof(opt) / sizeof(opt[0])];
	int idx[10], oi[19], rc, k, pb, pt, pg, dg, pe, pr, dr, pm, dm, pf, df, sgc[2][4];
	size_t cap = 0;
	struct csv *c;

	*out = NULL;
	*n = 0;
	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, names, idx, e)) < 0)
		goto done;
	for (k = 0; names[k]; k++)
		known[k] = names[k];
	memcpy(known + k, opt, sizeof(opt));
	if ((rc = csv_optional(c, opt, known, oi, e)) < 0)
		goto done;
	pb = oi[0];
	pt = oi[1];
	pg = oi[2];
	dg = oi[3];
	pe = oi[4];
	pr = oi[5];
	dr = oi[6];
	pm = oi[7];
	dm = oi[8];
	pf = oi[9];
	df = oi[10];
	for (k = 0; k < 8; k++)
		sgc[k / 4][k % 4] = oi[11 + k];
	while ((rc = csv_next(c, e)) == 1) {
		struct pools_line l;
		double v[9];
		const char *spec = csv_field(c, idx[7]), *mode = csv_field(c, idx[9]);
		memset(&l, 0, sizeof(l));
		snprintf(l.id, sizeof(l.id), "%s", csv_field(c, idx[0]));
		if (strcmp(mode, "agg") != 0 && strcmp(mode, "disagg") != 0) {
			rc = err_set(e, SS_EDATA, "%s:%zu: column 'mode' must be agg or disagg, got \"%.40s\"", path,
				     csv_lineno(c), mode);
			goto done;
		}
		l.agg = strcmp(mode, "agg") == 0;
		/* an agg line's pool columns are 0; a disagg line's >= 1 */
		for (k = 1; k < 9; k++) {
			if (k == 7)
				continue;
			if ((rc = whole(c, idx[k], l.agg ? 0 : k == 6 || k == 8 ? 0 : 1, l.agg && k < 7 ? 0 : hi[k],
					names[k], &v[k], e)) < 0)
				goto done;
		}
		if (strcmp(spec, "none") != 0 && strcmp(spec, "mtp") != 0) {
			rc = err_set(e, SS_EDATA, "%s:%zu: column 'speculative' must be none or mtp, got \"%.40s\"",
				     path, csv_lineno(c), spec);
			goto done;
		}
		l.pw = (int)v[1];
		l.dw = (int)v[2];
		l.padp = (int)v[3];
		l.dadp = (int)v[4];
		l.dep = (int)v[5];
		l.dbatch = (int64_t)v[6];
		l.spec = strcmp(spec, "mtp") == 0 ? (v[8] > 0 ? (int)v[8] : -1) : 0;
		if ((rc = optional_whole(c, pb, 1 << 20, "prefill_batch_size", &l.pbatch, e)) < 0 ||
		    (rc = optional_whole(c, pt, 1 << 24, "prefill_max_num_tokens", &l.ptokens, e)) < 0 ||
		    (rc = optional_whole(c, pg, 4096, "prefill_gpus", &l.pgpus, e)) < 0 ||
		    (rc = optional_whole(c, dg, 4096, "decode_gpus", &l.dgpus, e)) < 0 ||
		    (rc = optional_whole(c, pe, 4096, "prefill_moe_ep_size", &l.pep, e)) < 0 ||
		    (rc = optional_whole(c, pr, 4096, "prefill_redundant_experts", &l.pred, e)) < 0 ||
		    (rc = optional_whole(c, dr, 4096, "decode_redundant_experts", &l.dred, e)) < 0 ||
		    (rc = optional_backend(c, pm, "prefill_moe_backend", l.pmb, e)) < 0 ||
		    (rc = optional_backend(c, dm, "decode_moe_backend", l.dmb, e)) < 0 ||
		    (rc = optional_fraction(c, pf, "prefill_mem_fraction_static", &l.pmfs, e)) < 0 ||
		    (rc = optional_fraction(c, df, "decode_mem_fraction_static", &l.dmfs, e)) < 0)
			goto done;
		for (k = 0; k < 8; k++)
			if ((rc = check_limit(c, sgc[k / 4][k % 4], sgl_hi[k % 4], k % 4 == 1, opt[11 + k], e)) < 0)
				goto done;
		XGROW(*out, cap, *n + 1);
		(*out)[(*n)++] = l;
	}
done:
	csv_close(c);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return rc;
	}
	qsort(*out, *n, sizeof(**out), cmp_line);
	return 0;
}

/* A pool's recorded tp_size GPUs as attention DP adp (1: attention TP) with
 * expert parallelism ep over them; false when they do not divide. */
static bool relay(struct aic_pool *p, int adp, int ep)
{
	int gpus = p->tp * p->attn_dp;

	if (gpus % adp != 0 || gpus % ep != 0)
		return false;
	p->attn_dp = adp;
	p->tp = gpus / adp;
	p->moe_ep = ep;
	p->moe_tp = gpus / ep;
	return true;
}

int aic_pools_apply(struct aic_table *t, const char *path, size_t *applied, struct err *e)
{
	struct pools_line *ls, key;
	size_t n, i;
	int rc;

	*applied = 0;
	if ((rc = read_lines(path, &ls, &n, e)) < 0)
		return rc;
	for (i = 0; i < t->n; i++) {
		struct aic_row *r = &t->r[i];
		const struct pools_line *l;
		struct aic_pool pre, dec;
		bool disagg = strcmp(r->mode, "disagg") == 0;
		if (!disagg && strcmp(r->mode, "agg") != 0)
			continue;
		snprintf(key.id, sizeof(key.id), "%s", r->id);
		if (!(l = bsearch(&key, ls, n, sizeof(*ls), cmp_line)) || l->agg == disagg)
			continue;
		if (disagg && (r->pre.workers > 0 || r->dec.workers > 0)) {
			/* pools recorded (db-dump): the line gives the launch's
			 * limits and the prefill workers' layout on their
			 * recorded GPUs, and must name the recorded workers and
			 * decode pool */
			pre = r->pre;
			if (l->pw != r->pre.workers || l->dw != r->dec.workers || l->dadp != r->dec.attn_dp ||
			    l->dep != r->dec.moe_ep || l->spec != 0 || l->pgpus > 0 || l->dgpus > 0 || l->pred > 0 ||
			    l->dred > 0 || !relay(&pre, l->padp, l->pep > 0 ? (int)l->pep : pre.moe_ep)) {
				rc = err_set(e, SS_EDATA,
					     "%s: row '%s' records its pools (workers %d/%d, attention DP %d/%d, "
					     "decode EP %d); its line must repeat them and set only the limits and the prefill "
					     "workers' layout on their GPUs",
					     path, r->id, r->pre.workers, r->dec.workers, r->pre.attn_dp,
					     r->dec.attn_dp, r->dec.moe_ep);
				free(ls);
				return rc;
			}
			r->pre = pre;
			snprintf(r->pre.moe_backend, sizeof(r->pre.moe_backend), "%s", l->pmb);
			snprintf(r->dec.moe_backend, sizeof(r->dec.moe_backend), "%s", l->dmb);
			r->pre.mem_fraction = l->pmfs;
			r->dec.mem_fraction = l->dmfs;
			if (l->dbatch > 0)
				r->dec.batch = l->dbatch;
			if (l->pbatch > 0 && l->ptokens > 0) {
				r->pre.batch = l->pbatch;
				r->pre.max_tokens = l->ptokens;
			}
			r->pools_derived = true;
			(*applied)++;
			continue;
		}
		if (l->agg) {
			r->spec_tokens = l->spec;
			r->pools_derived = true;
			(*applied)++;
			continue;
		}
		pre = r->pre;
		dec = r->dec;
		if (l->pgpus > 0) {
			pre.tp = (int)l->pgpus;
			pre.attn_dp = 1;
		}
		if (l->dgpus > 0) {
			dec.tp = (int)l->dgpus;
			dec.attn_dp = 1;
		}
		if (!relay(&pre, l->padp, l->pep > 0 ? (int)l->pep : pre.moe_ep) || !relay(&dec, l->dadp, l->dep))
			continue; /* a layout the recorded GPUs cannot hold: left unknown */
		pre.workers = l->pw;
		dec.workers = l->dw;
		pre.redundant = (int)l->pred;
		dec.redundant = (int)l->dred;
		pre.mem_fraction = l->pmfs;
		dec.mem_fraction = l->dmfs;
		snprintf(pre.moe_backend, sizeof(pre.moe_backend), "%s", l->pmb);
		snprintf(dec.moe_backend, sizeof(dec.moe_backend), "%s", l->dmb);
		if (l->dbatch > 0)
			dec.batch = l->dbatch;
		if (l->pbatch > 0 && l->ptokens > 0) {
			pre.batch = l->pbatch;
			pre.max_tokens = l->ptokens;
		}
		r->pre = pre;
		r->dec = dec;
		r->spec_tokens = l->spec;
		r->pools_derived = true;
		(*applied)++;
	}
	free(ls);
	return 0;
}
