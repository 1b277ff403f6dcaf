/* aicdup.c - one measurement recorded as several rows of aiconfigurator's
 * silicon tables: which rows repeat an earlier one (measured.h).
 *
 * The published file holds some benchmark runs two or three times: once per
 * source that collected them (`db-dump/...`, `source_file=2026-03-25.csv`,
 * `source_file=2026-04-06.csv`), sometimes under another model name (the
 * DeepSeek-R1 SGLang and TensorRT-LLM runs on H200 and B200 also appear as
 * DeepSeek-V3), with the TTFT and TPOT means identical to the last digit.
 * Counted once per copy they weigh two or three times in every median; eval
 * keeps one copy (eval/silicon/HARNESS.md, "Duplicate rows", "pdtwins").
 *
 * Two rows are one measurement when what identifies the run is equal once
 * read (the real layout of a row recorded multiplied by its EP): engine and
 * version, GPU, mode, precision and quantisation labels, ISL and OSL, batch,
 * workers and the client's concurrency, every parallel size of the engine,
 * the harness, the measurement day and Dynamo image, and
 * both measured means to 12 significant digits (the sources print the same
 * mean with its last of 16 digits apart, as two conversions of one double;
 * two runs never agree to 12).  The id, the source, the model name, the
 * P/D pools and the MTP depth are not compared: db-dump records a P/D run's
 * pools from its generator's columns, the blank-source twin of the same run
 * gets them and its MTP depth from the launch configuration
 * (inferencex_pools.csv), and the two can differ; an agg run published on
 * 2026-03-25 with its launch configuration (MTP 3) is published again on
 * 2026-04-06 with none, read as plain (HARNESS.md, "aggdup").
 *
 * Which copy stays: the one whose pools come from the launch configuration
 * (pools_derived), else one with recorded pools, else the first; where the
 * MTP depths of P/D copies differ, db-dump's plain record.  The
 * launch configuration is what ran: db-dump writes the SGLang GB200
 * dynamo-sglang runs (DP attention over every GPU of a worker, DeepEP MoE
 * whose EP SGLang sets to the TP size, 32 redundant decode experts) as MoE
 * TP over the GPUs with EP 1 (eval/silicon/HARNESS.md, "pdtwins"). */
#include <math.h>
#include <string.h>

#include "readers/measured.h"

static bool pool_eq(const struct aic_pool *a, const struct aic_pool *b)
{
	return a->batch == b->batch && a->max_tokens == b->max_tokens && a->workers == b->workers &&
	       a->tp == b->tp && a->pp == b->pp && a->attn_dp == b->attn_dp && a->moe_tp == b->moe_tp &&
	       a->moe_ep == b->moe_ep && a->redundant == b->redundant;
}

/* x and y (> 0) alike to 12 significant digits */
static bool same_figure(double x, double y)
{
	return fabs(x - y) <= 1e-12 * fabs(x);
}

/* how well a row's P/D pools are known: 2 from the launch configuration,
 * 1 recorded in the row, 0 blank (agg rows: all alike) */
static int pools_rank(const struct aic_row *r)
{
	if (r->pools_derived)
		return 2;
	return r->pre.workers > 0 || r->dec.workers > 0;
}

/* whether copy a of one run says better than b what ran: where the MTP
 * depths of P/D copies differ, the plain copy db-dump records (db-dump
 * holds the plain P/D runs, HARNESS.md "pd6"); where an agg run's differ,
 * the copy read with its launch configuration; else where their pools
 * differ, the pools known best (pools_rank); else b, the first */
static bool better_copy(const struct aic_row *a, const struct aic_row *b)
{
	if (a->spec_tokens != b->spec_tokens && strcmp(a->mode, "disagg") == 0)
		return a->spec_tokens == 0 && pools_rank(a) == 1;
	if (a->spec_tokens != b->spec_tokens)
		return a->pools_derived && !b->pools_derived;
	if (pool_eq(&a->pre, &b->pre) && pool_eq(&a->dec, &b->dec))
		return false;
	return pools_rank(a) > pools_rank(b);
}

bool aic_same_measurement(const struct aic_row *a, const struct aic_row *b)
{
	/* the means first: almost every pair differs there */
	return same_figure(a->ttft_ms, b->ttft_ms) && same_figure(a->tpot_ms, b->tpot_ms) && a->isl == b->isl &&
	       a->osl == b->osl &&
	       a->batch == b->batch && a->concurrency == b->concurrency && a->workers == b->workers &&
	       a->tp == b->tp && a->pp == b->pp && a->attn_dp == b->attn_dp && a->moe_tp == b->moe_tp &&
	       a->moe_ep == b->moe_ep && a->harness == b->harness &&
	       strcmp(a->backend, b->backend) == 0 && strcmp(a->version, b->version) == 0 &&
	       strcmp(a->system, b->system) == 0 && strcmp(a->mode, b->mode) == 0 &&
	       strcmp(a->precision, b->precision) == 0 && strcmp(a->gemm_quant, b->gemm_quant) == 0 &&
	       strcmp(a->moe_quant, b->moe_quant) == 0 && strcmp(a->measured, b->measured) == 0 &&
	       strcmp(a->dynamo_image, b->dynamo_image) == 0;
}

size_t aic_drop_duplicates(struct aic_table *t)
{
	size_t i, j, kept = 0;

	/* quadratic, but the means differ for almost every pair: a few
	 * million compares of two doubles for the whole published file */
	for (i = 0; i < t->n; i++) {
		for (j = 0; j < kept; j++)
			if (aic_same_measurement(&t->r[i], &t->r[j]))
				break;
		if (j < kept) {
			if (better_copy(&t->r[i], &t->r[j]))
				t->r[j] = t->r[i]; /* in the first copy's place */
			continue;
		}
		if (kept != i)
			t->r[kept] = t->r[i];
		kept++;
	}
	i = t->n - kept;
	t->n = kept;
	return i;
}
