/* synthetic.c - H4/H5/H6 experiments on the cost model (see synthetic.h).
 * All prices exclude the overhead terms (H2 off) so that only the
 * correction under study differs.  Each is judged against design document
 * 002's own Part A criterion:
 *   H4: >= 10 % latency difference between aggregate and per-component
 *       pricing at the crossover region;
 *   H5: >= 15 % difference between additive and weighted-average pricing at
 *       the 50/50 ratio (and the additive curve monotonic);
 *   H6: >= 80 % of the artificial discontinuities (>= 5 % jumps) removed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/cost.h"
#include "eval/synthetic.h"
#include "deploy/catalog.h"

#include "engine/registry.h"

#define H4_MIN_DIFF 0.10 /* 002, H4 accept criterion, Part A */
#define H5_MIN_DIFF 0.15 /* 002, H5 accept criterion, Part A */
#define H6_MIN_REMOVED 0.80 /* 002, H6 accept criterion, Part A */

static int make(struct cost_model *c, const struct model_cfg *m, const struct gpu_spec *g,
		const char *dir, unsigned off, int64_t graph_max, struct err *e)
{
	struct cost_cfg cc;
	struct parallel p = {1, 1, 1, 1, 0, 0};

	memset(&cc, 0, sizeof(cc));
	cc.wdt = cc.kvdt = DT_BF16;
	cc.off = off | COST_H2;
	cost_default_overheads(&cc.ov);
	cc.max_tokens = 8192;
	cc.max_seqs = 256;
	cc.graph_max = graph_max;
	cc.engine = engine_default()->cost;
	return cost_init(c, m, g, &p, &cc, dir, e);
}

/* The cost model as it prices steps (*on) and the same with the correction
 * `off` switched off (*off_c): each hypothesis compares the two. */
static int make_pair(struct cost_model *on, struct cost_model *off_c, const struct model_cfg *m,
		     const struct gpu_spec *g, const char *dir, unsigned off, struct err *e)
{
	int rc;

	if ((rc = make(on, m, g, dir, 0, 0, e)) < 0)
		return rc;
	if ((rc = make(off_c, m, g, dir, off, 0, e)) < 0)
		cost_release(on);
	return rc;
}

/* A Markdown table's header line and its rule, every column right-aligned. */
static void table_head(FILE *out, const char *header)
{
	const char *c;

	fprintf(out, "%s\n|", header);
	for (c = header + 1; *c; c++)
		if (*c == '|')
			fprintf(out, "---:|");
	fprintf(out, "\n");
}

static double decode_s(const struct cost_model *c, int64_t n, double ctx)
{
	struct step_desc d;

	memset(&d, 0, sizeof(d));
	d.ndecode = n;
	d.decode_ctx_sum = (double)n * ctx;
	d.nlogits = n;
	return cost_step_s(c, &d);
}

static double mixed_s(const struct cost_model *c, int64_t pre, int64_t ndec, double ctx)
{
	struct step_desc d;
	int64_t zero = 0;

	memset(&d, 0, sizeof(d));
	if (pre > 0) {
		d.nchunks = 1;
		d.chunk_len = &pre;
		d.chunk_prefix = &zero;
	}
	d.ndecode = ndec;
	d.decode_ctx_sum = (double)ndec * ctx;
	d.nlogits = ndec + (pre > 0);
	return cost_step_s(c, &d);
}

static int h4(const struct model_cfg *m, const struct gpu_spec *g, const char *dir, FILE *out,
	      struct synth_result *r, struct err *e)
{
	struct cost_model on, agg;
	const int64_t B = 32;
	double L, best = INFINITY, cross = 0, diff_cross = 0, maxd = 0, maxl = 0;
	int rc;

	if ((rc = make_pair(&on, &agg, m, g, dir, COST_H4, e)) < 0)
		return rc;
	fprintf(out, "H4: decode batch %lld on %s / %s, KV length 128 to 8192: per-component pricing vs one aggregate roofline\n\n",
		(long long)B, m->id, g->id);
	table_head(out, "| KV length | GEMMs ms | attention ms | per-component ms | aggregate ms | difference |");
	for (L = 128; L <= 8192.5; L *= sqrt(2.0)) {
		double tc = decode_s(&on, B, L), ta = decode_s(&agg, B, L);
		double tg = cost_tok_s(&on, B), tat = cost_attn_decode_s(&on, B, (double)B * L) * (double)m->layers;
		double d = (tc - ta) / tc;
		fprintf(out, "| %.0f | %.3f | %.3f | %.3f | %.3f | %+.1f%% |\n", L, tg * 1e3, tat * 1e3,
			tc * 1e3, ta * 1e3, 100 * d);
		if (fabs(d) > fabs(maxd)) {
			maxd = d;
			maxl = L;
		}
		if (fabs(tat - tg) < best) {
			best = fabs(tat - tg);
			cross = L;
			diff_cross = d;
		}
	}
	r->figure = diff_cross;
	r->pass = fabs(diff_cross) >= H4_MIN_DIFF;
	fprintf(out, "\nCrossover (attention time = GEMM time) near KV length %.0f: per-component pricing differs from the aggregate roofline by %+.1f%% there (largest difference in the sweep: %+.1f%% at KV length %.0f).\n",
		cross, 100 * diff_cross, 100 * maxd, maxl);
	fprintf(out, "Criterion (002, H4 Part A): >= %.0f%% difference at the crossover: %s (%+.1f%%).\n\n",
		100 * H4_MIN_DIFF, r->pass ? "met" : "NOT met", 100 * diff_cross);
	cost_release(&on);
	cost_release(&agg);
	return 0;
}

static int h5(const struct model_cfg *m, const struct gpu_spec *g, const char *dir, FILE *out,
	      struct synth_result *r, struct err *e)
{
	struct cost_model add, avg;
	const int64_t budget = 256;
	double prev = NAN, d50 = 0;
	int rc, i, up = 0, down = 0;

	if ((rc = make_pair(&add, &avg, m, g, dir, COST_H5, e)) < 0)
		return rc;
	fprintf(out, "H5: a %lld-token step on %s / %s split between one prefill chunk and decodes at context 1024\n\n",
		(long long)budget, m->id, g->id);
	table_head(out, "| prefill share | prefill tokens | decodes | additive ms | 0.75/0.25 average ms | difference |");
	for (i = 0; i <= 10; i++) {
		int64_t pre = budget * i / 10, dec = budget - pre;
		double ta = mixed_s(&add, pre, dec, 1024), tw = mixed_s(&avg, pre, dec, 1024);
		double d = (tw - ta) / ta;
		fprintf(out, "| %d%% | %lld | %lld | %.3f | %.3f | %+.1f%% |\n", i * 10, (long long)pre,
			(long long)dec, ta * 1e3, tw * 1e3, 100 * d);
		if (!isnan(prev)) {
			up += ta > prev * (1 + 1e-9);
			down += ta < prev * (1 - 1e-9);
		}
		prev = ta;
		if (i == 5)
			d50 = d;
	}
	r->figure = d50;
	r->pass = (up == 0 || down == 0) && fabs(d50) >= H5_MIN_DIFF;
	fprintf(out, "\nAt 50/50 the weighted average differs from additive pricing by %+.1f%%; additive pricing is %s in the prefill share.\n",
		100 * d50, up == 0 || down == 0 ? "monotonic" : "NOT monotonic");
	fprintf(out, "Criterion (002, H5 Part A): >= %.0f%% difference at 50/50 with a monotonic additive curve: %s (%+.1f%%, %s).\n\n",
		100 * H5_MIN_DIFF, r->pass ? "met" : "NOT met", 100 * d50,
		up == 0 || down == 0 ? "monotonic" : "not monotonic");
	cost_release(&add);
	cost_release(&avg);
	return 0;
}

/* Count jumps: points that depart by >= 5 % from the straight line through
 * the two before them.  A smooth curve, however steep (the per-token cost
 * of a prefill falls fast while the step turns compute-bound), has small
 * second differences; a lookup that snaps to grid points has large ones at
 * every snap. */
static int jumps(const double *v, int n)
{
	int i, k = 0;

	for (i = 2; i < n; i++)
		k += fabs(v[i] - (2 * v[i - 1] - v[i - 2])) / v[i] >= 0.05;
	return k;
}

static int h6(const struct model_cfg *m, const struct gpu_spec *g, const char *dir, FILE *out,
	      struct synth_result *r, struct err *e)
{
	struct cost_model in, nn;
	double di[256], dn[256], pi[128], pn[128];
	int rc, b, k, np = 0, ji, jn, pji, pjn;

	/* no CUDA-graph padding: its steps are real, not lookup artefacts */
	if ((rc = make_pair(&in, &nn, m, g, dir, COST_H6, e)) < 0)
		return rc;
	for (b = 1; b <= 256; b++) {
		di[b - 1] = decode_s(&in, b, 1024);
		dn[b - 1] = decode_s(&nn, b, 1024);
	}
	for (k = 128; k <= 8192; k += 64) {
		pi[np] = mixed_s(&in, k, 0, 0);
		pn[np] = mixed_s(&nn, k, 0, 0);
		np++;
	}
	ji = jumps(di, 256);
	jn = jumps(dn, 256);
	pji = jumps(pi, np);
	pjn = jumps(pn, np);
	r->figure = jn + pjn > 0 ? 1.0 - (double)(ji + pji) / (double)(jn + pjn) : 1.0;
	r->pass = r->figure >= H6_MIN_REMOVED;
	fprintf(out, "H6: jumps in step time on %s / %s, decode at context 1024 over batch 1..256, prefill over sequence 128..8192 by 64 (a jump: a point >= 5%% off the straight line through the two before it)\n\n",
		m->id, g->id);
	fprintf(out, "| sweep | nearest grid point | interpolated |\n|---|---:|---:|\n");
	fprintf(out, "| decode batch 1..256 | %d | %d |\n| prefill 128..8192 | %d | %d |\n\n", jn, ji, pjn, pji);
	fprintf(out, "Interpolation removes %.0f%% of the jumps. Criterion (002, H6 Part A): >= %.0f%%: %s.\n\n",
		100 * r->figure, 100 * H6_MIN_REMOVED, r->pass ? "met" : "NOT met");
	cost_release(&in);
	cost_release(&nn);
	return 0;
}

int synth_run(const char *which, const struct model_cfg *m, const struct gpu_spec *g,
	      const char *data_dir, FILE *out, struct synth_result *r, struct err *e)
{
	memset(r, 0, sizeof(*r));
	if (strcmp(which, "h4") == 0 || strcmp(which, "H4") == 0)
		return h4(m, g, data_dir, out, r, e);
	if (strcmp(which, "h5") == 0 || strcmp(which, "H5") == 0)
		return h5(m, g, data_dir, out, r, e);
	if (strcmp(which, "h6") == 0 || strcmp(which, "H6") == 0)
		return h6(m, g, data_dir, out, r, e);
	return err_set(e, SS_EUSAGE, "--synthetic must be h4, h5 or h6, got '%s'", which);
}

int synth_run_named(const char *which, const char *model, const char *gpu, FILE *out, struct synth_result *r,
		    struct err *e)
{
	struct catalog env;
	struct model_cfg m;
	const struct gpu_spec *g;
	int rc;

	catalog_init(&env);
	if ((rc = catalog_load_model(&env, model, NULL, &m, e)) == 0 && (rc = catalog_find_gpu(&env, gpu, &g, e)) == 0)
		rc = synth_run(which, &m, g, env.data_dir, out, r, e);
	catalog_release(&env);
	return rc;
}
