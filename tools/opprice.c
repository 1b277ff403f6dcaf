/* opprice.c - check tool: servesim's price of each operator of one layer at
 * m step tokens, as cost.c's token-linear table prices it (GEMMs through
 * cost_gemm_s, norms and other elementwise ops at their bytes over the
 * GPU's HBM bandwidth x bw_eff, the TP all-reduce from the collection's
 * table), plus the decode and prefill attention of one layer, for
 * comparing with whole-operator kernel timings (Vidur's profiling, a
 * kernel trace).  Driven by scripts/mfu/check_a100.py (which builds it:
 * cc ... build/libservesim.a), not part of `make`.
 *
 * usage: opprice DATA_DIR ENGINE GPU MODEL TP < queries
 * lines:  tok M            -> "op NAME US" per token-linear op of the
 *                             model's first layer kind, then "tok_total US"
 *                             (cost_tok_s / layers, one layer's share)
 *         decode N CTX     -> attention of one layer, N requests of CTX keys
 *         prefill N LEN [PREFIX]
 *                          -> attention of one layer, N chunks of LEN
 *                             tokens after PREFIX cached ones (default 0)
 *                             as one call
 *         ar ELEMS         -> the TP all-reduce of ELEMS bf16 values
 *         gemm DTYPE M N K -> one GEMM (bf16 or fp8) through cost_gemm_s */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/registry.h"
#include "cost/cost.h"
#include "model/opgraph.h"

static void tok_ops(const struct cost_model *c, const struct opgraph *gr, double m)
{
	const struct layer_kind *lk = &gr->kinds[0];
	size_t j;

	for (j = 0; j < lk->nops; j++) {
		const struct op *o = &lk->ops[j];
		enum dtype dt = o->low_precision ? c->cfg.wdt : DT_BF16;
		double t = 0;

		switch (o->kind) {
		case OPK_GEMM:
			if (strcmp(o->name, "experts_gate_up") == 0)
				t = cost_moe_s(c, m);
			else if (strcmp(o->name, "experts_down") != 0)
				t = cost_gemm_s(c, dt, m, (double)o->n, (double)o->k, (double)o->batch);
			break;
		case OPK_ELEMENTWISE:
		case OPK_OTHER:
			if (strcmp(o->name, "experts_act_mul") != 0)
				t = (o->act_bytes + o->weight_bytes) * m / c->bw;
			break;
		case OPK_COMM:
			if (strncmp(o->name, "allreduce", 9) == 0)
				t = mfu_allreduce_s(c->tabs, c->p.tp, m * (double)c->m->hidden);
			break;
		case OPK_ATTN:
			continue;
		}
		printf("op %s %.3f\n", o->name, t * 1e6);
	}
	printf("tok_total %.3f\n", cost_tok_s(c, (int64_t)m) / (double)c->m->layers * 1e6);
}

int main(int argc, char **argv)
{
	char path[1200], line[256], kind[32];
	struct model_registry reg;
	struct gpu_db db;
	struct model_cfg m;
	const struct gpu_spec *g;
	struct cost_cfg cc;
	struct parallel p = {1, 1, 1, 1, 0};
	struct pass_shape one = {1, 1, 0, false};
	struct cost_model c;
	struct opgraph gr;
	const struct engine_type *en;
	struct err e;

	if (argc != 6) {
		fprintf(stderr, "usage: opprice DATA_DIR ENGINE GPU MODEL TP < queries\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/models", argv[1]);
	if (registry_load(&reg, path, &e) < 0 || registry_load_model(&reg, argv[4], &m, &e) < 0) {
		fprintf(stderr, "opprice: %s\n", e.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/gpus.json", argv[1]);
	if (gpu_db_load(&db, path, &e) < 0 || gpu_find(&db, argv[3], &g, &e) < 0) {
		fprintf(stderr, "opprice: %s\n", e.msg);
		return 1;
	}
	p.tp = atoi(argv[5]);
	if (p.tp < 1) {
		fprintf(stderr, "opprice: TP must be >= 1, got %s\n", argv[5]);
		return 2;
	}
	memset(&cc, 0, sizeof(cc));
	cc.wdt = DT_BF16;
	cc.kvdt = DT_BF16;
	cost_default_overheads(&cc.ov);
	cc.max_tokens = 16384;
	cc.max_seqs = 1024;
	if (engine_lookup(argv[2], &en, &e) < 0) {
		fprintf(stderr, "opprice: %s\n", e.msg);
		return 2;
	}
	cc.engine = en->cost;
	if (cost_init(&c, &m, g, &p, &cc, argv[1], &e) < 0 ||
	    opgraph_build(&m, &p, &one, c.cfg.wdt, c.cfg.kvdt, &gr, &e) < 0) {
		fprintf(stderr, "opprice: %s\n", e.msg);
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		double a = 0, b = 0, pf = 0;
		int64_t n, i;
		static int64_t len[1024], prefix[1024];
		char dts[16];

		if (sscanf(line, "gemm %15s %lf %lf %lf", dts, &a, &b, &pf) == 4) {
			enum dtype dt = strcmp(dts, "fp8") == 0 ? DT_FP8 : DT_BF16;
			printf("gemm %.6g\n", cost_gemm_s(&c, dt, a, b, pf, 1) * 1e6);
			fflush(stdout);
			continue;
		}
		if (sscanf(line, "%31s %lf %lf %lf", kind, &a, &b, &pf) < 2)
			continue;
		if (strcmp(kind, "tok") == 0) {
			tok_ops(&c, &gr, a);
		} else if (strcmp(kind, "decode") == 0) {
			printf("decode %.3f\n", cost_attn_decode_s(&c, (int64_t)a, a * b) * 1e6);
		} else if (strcmp(kind, "prefill") == 0) {
			n = (int64_t)a;
			if (n < 1 || n > 1024)
				continue;
			for (i = 0; i < n; i++) {
				len[i] = (int64_t)b;
				prefix[i] = (int64_t)pf;
			}
			printf("prefill %.3f\n", cost_attn_prefill_step_s(&c, n, len, prefix) * 1e6);
		} else if (strcmp(kind, "ar") == 0) {
			printf("ar %.3f\n", mfu_allreduce_s(c.tabs, p.tp, a) * 1e6);
		}
		fflush(stdout);
	}
	opgraph_release(&gr);
	cost_release(&c);
	gpu_db_release(&db);
	registry_release(&reg);
	return 0;
}
