/* test_cv.c - eval --cv's groups and leave-one-group-out refits (cv.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eval/cv.h"

static void test_groups(void)
{
	static const char *const ids[][2] = {
		{"llama-3.1-8b", "llama"},         {"meta-llama/Llama-3.1-70B-Instruct", "llama"},
		{"qwen3-32b", "qwen"},             {"gpt-oss-120b", "gpt-oss"},
		{"deepseek-r1", "deepseek"},       {"deepseek-v3.2", "deepseek"},
		{"minimax-m2.5", "minimax"},       {"codellama-34b", "codellama"},
		{"kimi-k2.5", "kimi"},             {"7b", "7b"},
	};
	struct eval_row r;
	enum cv_by by;
	struct err e;
	char buf[48];
	size_t i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(r.model, sizeof(r.model), "%s", ids[i][0]);
		cv_group_of(&r, CV_FAMILY, buf, sizeof(buf));
		CHECK(strcmp(buf, ids[i][1]) == 0, "family of %s: %s (want %s)", ids[i][0], buf, ids[i][1]);
	}
	snprintf(r.gpu, sizeof(r.gpu), "h200-sxm");
	cv_group_of(&r, CV_GPU, buf, sizeof(buf));
	CHECK(strcmp(buf, "h200-sxm") == 0, "gpu group %s", buf);
	CHECK(cv_by_parse("gpu", &by, &e) == 0 && by == CV_GPU, "--cv gpu");
	CHECK(cv_by_parse("engine", &by, &e) == 0 && by == CV_ENGINE, "--cv engine");
	CHECK(cv_by_parse("models", &by, &e) == -SS_EUSAGE, "--cv models refused");
	CHECK_STR_CONTAINS(e.msg, "expected model, gpu or engine", "--cv's message");
}

/* rows: two model families of one fitted host row (A best at scale 0.5, B
 * at 2), one row no fitted term prices, one family of another engine */
#define NROWS 7
static const struct {
	const char *model, *engine;
	int host_row;
	double best;
} spec[NROWS] = {
	{"llama-3.1-8b", "vllm", 0, 0.5}, {"llama-3.1-70b", "vllm", 0, 0.5}, {"llama-3.1-8b", "vllm", 0, 0.5},
	{"qwen3-32b", "vllm", 0, 2.0},    {"qwen3-8b", "vllm", 0, 2.0},      {"qwen3-8b", "vllm", -1, 1.0},
	{"mixtral-8x7b", "sglang", 0, 1.5},
};

static void fill(struct eval_row *rows, double scale)
{
	size_t i;

	for (i = 0; i < NROWS; i++) {
		struct eval_row *r = &rows[i];
		memset(r, 0, sizeof(*r));
		snprintf(r->experiment, sizeof(r->experiment), "x%zu", i);
		snprintf(r->model, sizeof(r->model), "%s", spec[i].model);
		snprintf(r->cls.engine, sizeof(r->cls.engine), "%s", spec[i].engine);
		r->host_engine = spec[i].host_row >= 0 ? spec[i].engine : NULL;
		r->host_row = spec[i].host_row;
		/* the row's error: least at its best scale; unfitted rows do not
		 * move */
		r->ape[EM_ITL_MEAN] = spec[i].host_row < 0 ? 0.05 : fabs(scale - spec[i].best) + 0.01;
		r->ape[EM_TTFT_MEAN] = 2 * r->ape[EM_ITL_MEAN];
	}
}

static void test_refit(void)
{
	struct eval_row rows[CV_NSCALES][NROWS];
	struct cv_pass p[CV_NSCALES];
	struct cv_result *res = calloc(1, sizeof(*res));
	struct err e = {.msg = ""};
	size_t k, g;

	for (k = 0; k < CV_NSCALES; k++) {
		fill(rows[k], cv_scales[k]);
		p[k] = (struct cv_pass){cv_scales[k], rows[k], NROWS};
	}
	CHECK(eval_cv(p, CV_NSCALES, CV_FAMILY, res, &e) == 0, "eval_cv: %s", e.msg);
	CHECK(res->ng == 3, "3 families, got %zu", res->ng);
	CHECK(res->unfitted == 1, "1 unfitted row, got %zu", res->unfitted);
	for (g = 0; g < res->ng; g++) {
		const struct cv_group *G = &res->g[g];
		if (strcmp(G->name, "llama") == 0) {
			/* shipped: |1 - 0.5| + 0.01; held out: qwen's best, 2 */
			CHECK_REL(G->in.itl, 0.51, 1e-12, "llama shipped ITL");
			CHECK_REL(G->out.itl, 1.51, 1e-12, "llama held-out ITL");
			CHECK_REL(G->out.ttft, 3.02, 1e-12, "llama held-out TTFT");
			CHECK_STR_CONTAINS(G->chosen, "vllm#0 x2", "llama's refit");
		} else if (strcmp(G->name, "qwen") == 0) {
			/* the fitted rows 1.01 -> 1.51 (llama's 0.5), the unfitted
			 * one 0.05 in both: medians of {1.01, 1.01, 0.05}, {1.51,
			 * 1.51, 0.05} */
			CHECK_REL(G->in.itl, 1.01, 1e-12, "qwen shipped ITL");
			CHECK_REL(G->out.itl, 1.51, 1e-12, "qwen held-out ITL");
			CHECK(G->in.rows == 3, "qwen rows %zu", G->in.rows);
			CHECK_STR_CONTAINS(G->chosen, "vllm#0 x0.5", "qwen's refit");
		} else {
			/* sglang's only family: nothing left to fit, scale 0 */
			CHECK(strcmp(G->name, "mixtral") == 0, "third group %s", G->name);
			CHECK_REL(G->in.itl, 0.51, 1e-12, "mixtral shipped ITL");
			CHECK_REL(G->out.itl, 1.51, 1e-12, "mixtral held-out ITL (unfitted, scale 0)");
			CHECK_STR_CONTAINS(G->chosen, "sglang#0 x0 (none to fit)", "mixtral's refit");
		}
	}
	CHECK(res->in.rows == NROWS, "all rows %zu", res->in.rows);
	CHECK(res->n == NROWS && res->held_pass, "each row's held-out pass");
	cv_result_release(res);
	/* rows that disagree between passes are refused */
	snprintf(rows[3][2].experiment, sizeof(rows[3][2].experiment), "other");
	CHECK(eval_cv(p, CV_NSCALES, CV_FAMILY, res, &e) == -SS_ERUNTIME, "misaligned passes refused");
	CHECK_STR_CONTAINS(e.msg, "row 2 is other", "misalignment named");
	cv_result_release(res);
	free(res);
}

int main(void)
{
	test_groups();
	test_refit();
	return check_done();
}
