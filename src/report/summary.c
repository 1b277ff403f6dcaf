/* summary.c - a run's metric summary in every format (text, JSON, CSV,
 * vLLM benchmark keys); its status is sim/status.c's.  Key names: out.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/out.h"

/* The five latency sets, their names in keys and in the text table. */
enum { NDIST = 5 };
static const char *const dist_key[NDIST] = {"ttft", "itl", "tpot", "e2e", "queue"};
static const char *const dist_label[NDIST] = {"TTFT", "ITL", "TPOT", "E2E", "queue"};

static void dists(const struct metric_set *m, const struct dist_summary *d[NDIST])
{
	d[0] = &m->ttft_ms;
	d[1] = &m->itl_ms;
	d[2] = &m->tpot_ms;
	d[3] = &m->e2e_ms;
	d[4] = &m->queue_ms;
}

/* statistics in key order; "std" beside "mean" as vLLM prints them */
enum { NSTAT = 7 };
static const char *const stat_key[NSTAT] = {"mean", "std", "p50", "p90", "p95", "p99", "max"};

static double stat_of(const struct dist_summary *d, int k)
{
	if (d->n == 0)
		return NAN;
	switch (k) {
	case 0: return d->mean;
	case 1: return d->std;
	case 2: return d->p50;
	case 3: return d->p90;
	case 4: return d->p95;
	case 5: return d->p99;
	default: return d->max;
	}
}

/* rates are 0 when nothing completed or the span is empty: null then */
static double rate_or_nan(const struct metric_set *m, double v)
{
	return m->completed > 0 && m->last_done_s > m->first_arrival_s ? v : NAN;
}

static double total_tok_s(const struct metric_set *m)
{
	return m->input_tok_s + m->output_tok_s;
}

/* --- text --- */

static void cell(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, " %9s", "-");
	else
		fprintf(f, " %9.2f", v);
}

void out_metrics_text(FILE *f, const struct metric_set *m)
{
	const struct dist_summary *d[NDIST];
	int i, k;

	dists(m, d);
	fprintf(f, "  %-6s", "ms");
	for (k = 0; k < NSTAT; k++)
		fprintf(f, " %9s", stat_key[k]);
	fputc('\n', f);
	for (i = 0; i < NDIST; i++) {
		fprintf(f, "  %-6s", dist_label[i]);
		for (k = 0; k < NSTAT; k++)
			cell(f, stat_of(d[i], k));
		fputc('\n', f);
	}
	fprintf(f, "  ITL pooled over all %zu gaps between chunks (vLLM's ITL):", m->token_gaps);
	if (isnan(m->itl_pooled_mean_ms) || m->itl_pooled_ms.n == 0) {
		fprintf(f, " -\n");
	} else {
		fprintf(f, " mean %.2f", m->itl_pooled_mean_ms);
		for (k = 1; k < NSTAT; k++)
			fprintf(f, " %s %.2f", stat_key[k], stat_of(&m->itl_pooled_ms, k));
		fprintf(f, " ms%s\n", m->itl_pooled_exact ? "" : " (percentiles within 0.05 %)");
	}
	if (m->completed == 0)
		fprintf(f, "  throughput - (no request completed)\n");
	else
		fprintf(f, "  throughput %.2f req/s, %.0f input tok/s, %.0f output tok/s, %.0f total tok/s\n",
			m->throughput_rps, m->input_tok_s, m->output_tok_s, total_tok_s(m));
	if (!isnan(m->energy_j))
		fprintf(f, "  energy %.4g J per output token, %.0f W per GPU on average (%.4g kJ; model: docs/energy.md)\n",
			m->energy_j_per_output_token, m->avg_power_w_per_gpu, m->energy_j * 1e-3);
}

/* --- JSON --- */

static void jnum(struct jw *w, const char *k, double v)
{
	if (isnan(v))
		jw_null(w, k);
	else
		jw_num(w, k, v);
}

void out_metrics_json(struct jw *w, const struct metric_set *m)
{
	const struct dist_summary *d[NDIST];
	char key[48];
	int i, k;

	dists(m, d);
	jw_int(w, "completed", (int64_t)m->completed);
	jnum(w, "throughput_rps", rate_or_nan(m, m->throughput_rps));
	jnum(w, "input_tokens_per_s", rate_or_nan(m, m->input_tok_s));
	jnum(w, "output_tokens_per_s", rate_or_nan(m, m->output_tok_s));
	jnum(w, "total_tokens_per_s", rate_or_nan(m, total_tok_s(m)));
	for (i = 0; i < NDIST; i++)
		for (k = 0; k < NSTAT; k++) {
			snprintf(key, sizeof(key), "%s_%s_ms", dist_key[i], stat_key[k]);
			jnum(w, key, stat_of(d[i], k));
		}
	jnum(w, "itl_pooled_mean_ms", m->itl_pooled_mean_ms);
	for (k = 1; k < NSTAT; k++) {
		snprintf(key, sizeof(key), "itl_pooled_%s_ms", stat_key[k]);
		jnum(w, key, stat_of(&m->itl_pooled_ms, k));
	}
	jw_int(w, "token_gaps", (int64_t)m->token_gaps);
	jw_bool(w, "itl_pooled_exact", m->itl_pooled_exact);
	jnum(w, "energy_j", m->energy_j);
	jnum(w, "avg_power_w_per_gpu", m->avg_power_w_per_gpu);
	jnum(w, "energy_j_per_output_token", m->energy_j_per_output_token);
}

/* --- CSV --- */

void out_metrics_csv_header(FILE *f)
{
	int i, k;

	fprintf(f, "completed,throughput_rps,input_tokens_per_s,output_tokens_per_s,total_tokens_per_s");
	for (i = 0; i < NDIST; i++)
		for (k = 0; k < NSTAT; k++)
			fprintf(f, ",%s_%s_ms", dist_key[i], stat_key[k]);
	fprintf(f, ",itl_pooled_mean_ms");
	for (k = 1; k < NSTAT; k++)
		fprintf(f, ",itl_pooled_%s_ms", stat_key[k]);
}

static void ccell(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.6g", v);
}

void out_metrics_csv_row(FILE *f, const struct metric_set *m)
{
	const struct dist_summary *d[NDIST];
	int i, k;

	dists(m, d);
	fprintf(f, "%zu", m->completed);
	ccell(f, rate_or_nan(m, m->throughput_rps));
	ccell(f, rate_or_nan(m, m->input_tok_s));
	ccell(f, rate_or_nan(m, m->output_tok_s));
	ccell(f, rate_or_nan(m, total_tok_s(m)));
	for (i = 0; i < NDIST; i++)
		for (k = 0; k < NSTAT; k++)
			ccell(f, stat_of(d[i], k));
	ccell(f, m->itl_pooled_mean_ms);
	for (k = 1; k < NSTAT; k++)
		ccell(f, stat_of(&m->itl_pooled_ms, k));
}

/* --- vLLM benchmark result --- */

static void bench_metric(struct jw *w, const char *name, const struct dist_summary *d)
{
	char key[48];

	snprintf(key, sizeof(key), "mean_%s_ms", name);
	jnum(w, key, stat_of(d, 0));
	snprintf(key, sizeof(key), "median_%s_ms", name);
	jnum(w, key, stat_of(d, 2));
	snprintf(key, sizeof(key), "std_%s_ms", name);
	jnum(w, key, stat_of(d, 1));
	snprintf(key, sizeof(key), "p99_%s_ms", name);
	jnum(w, key, stat_of(d, 5));
}

void out_vllm_bench(FILE *f, const struct out_bench_info *bi, const struct metric_set *m,
		    const struct run_status *st, const struct out_config *cfg)
{
	struct jw w;
	char line[160];
	double dur = m->completed > 0 ? m->last_done_s - m->first_arrival_s : NAN;

	jw_init(&w, f, true);
	jw_obj(&w, NULL);
	jw_str(&w, "backend", "servesim");
	jw_str(&w, "model_id", bi->model_id);
	jw_int(&w, "num_prompts", bi->num_prompts);
	jnum(&w, "request_rate", bi->request_rate);
	if (bi->max_concurrency > 0)
		jw_int(&w, "max_concurrency", bi->max_concurrency);
	else
		jw_null(&w, "max_concurrency");
	jnum(&w, "duration", dur);
	jw_int(&w, "completed", (int64_t)m->completed);
	jw_int(&w, "failed", bi->failed);
	jw_num(&w, "total_input_tokens", m->input_tokens);
	jw_num(&w, "total_output_tokens", m->output_tokens);
	jnum(&w, "request_throughput", rate_or_nan(m, m->throughput_rps));
	jnum(&w, "request_goodput", bi->request_goodput);
	jnum(&w, "output_throughput", rate_or_nan(m, m->output_tok_s));
	jnum(&w, "total_token_throughput", rate_or_nan(m, total_tok_s(m)));
	bench_metric(&w, "ttft", &m->ttft_ms);
	bench_metric(&w, "tpot", &m->itl_ms); /* vLLM's TPOT = servesim's per-request ITL */
	jnum(&w, "mean_itl_ms", m->itl_pooled_mean_ms);
	jnum(&w, "median_itl_ms", stat_of(&m->itl_pooled_ms, 2));
	jnum(&w, "std_itl_ms", stat_of(&m->itl_pooled_ms, 1));
	jnum(&w, "p99_itl_ms", stat_of(&m->itl_pooled_ms, 5));
	bench_metric(&w, "e2el", &m->e2e_ms);
	jw_obj(&w, "servesim");
	jw_str(&w, "status", run_status_name(st->kind));
	run_status_line(st, line, sizeof(line));
	jw_str(&w, "status_line", line);
	jw_str(&w, "itl_definition", OUT_ITL_POOLED_DEFINITION);
	jw_bool(&w, "itl_exact", m->itl_pooled_exact);
	if (cfg)
		out_config_json(&w, cfg);
	jw_end_obj(&w);
	jw_end_obj(&w);
	jw_finish(&w);
}
