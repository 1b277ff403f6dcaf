/* aicdup.c - one measurement recorded as several rows of aiconfigurator's
 * silicon tables: which rows repeat an earlier one (measured.h).
 *
 * The published file holds some benchmark runs two or three times: once per
 * source that collected them (`db-dump/...`, `source_file=2026-03-25.csv`,
 * `source_file=2026-04-06.csv`), sometimes under another model name (the
 * DeepSeek-R1 SGLang and TensorRT-LLM runs on H200 and B200 also appear as
 * DeepSeek-V3), with the TTFT and TPOT means identical to the last digit.
 * Counted once per copy they weigh two or three times in every median; eval
 * keeps the first copy (eval/silicon/HARNESS.md, "Duplicate rows").
 *
 * Two rows are one measurement when everything servesim replays of them is
 * equal once read (the real layout of a row recorded multiplied by its EP,
 * the pools and MTP depth eval/silicon/inferencex_pools.csv fills in): engine
 * and version, GPU, mode, precision and quantisation labels, ISL and OSL,
 * batch, workers and the client's concurrency, every parallel size of the
 * engine and of both P/D pools, the MTP depth, the harness, the measurement
 * day and Dynamo image, and both measured means to 12 significant digits
 * (the sources print the same mean with its last of 16 digits apart, as
 * two conversions of one double; two runs never agree to 12).  The id,
 * the source and the model name are not compared. */
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

bool aic_same_measurement(const struct aic_row *a, const struct aic_row *b)
{
	/* the means first: almost every pair differs there */
	return same_figure(a->ttft_ms, b->ttft_ms) && same_figure(a->tpot_ms, b->tpot_ms) && a->isl == b->isl &&
	       a->osl == b->osl &&
	       a->batch == b->batch && a->concurrency == b->concurrency && a->workers == b->workers &&
	       a->tp == b->tp && a->pp == b->pp && a->attn_dp == b->attn_dp && a->moe_tp == b->moe_tp &&
	       a->moe_ep == b->moe_ep && a->spec_tokens == b->spec_tokens && a->harness == b->harness &&
	       strcmp(a->backend, b->backend) == 0 && strcmp(a->version, b->version) == 0 &&
	       strcmp(a->system, b->system) == 0 && strcmp(a->mode, b->mode) == 0 &&
	       strcmp(a->precision, b->precision) == 0 && strcmp(a->gemm_quant, b->gemm_quant) == 0 &&
	       strcmp(a->moe_quant, b->moe_quant) == 0 && strcmp(a->measured, b->measured) == 0 &&
	       strcmp(a->dynamo_image, b->dynamo_image) == 0 && pool_eq(&a->pre, &b->pre) && pool_eq(&a->dec, &b->dec);
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
		if (j < kept)
			continue;
		if (kept != i)
			t->r[kept] = t->r[i];
		kept++;
	}
	i = t->n - kept;
	t->n = kept;
	return i;
}
