/* accuracy.c - build step of `make accuracy`: data/accuracy.json from the
 * per-row residuals of `servesim eval --format json` runs over the shipped
 * ground truth (src/eval/accuracy.h), and the split check of the
 * bands on stdout.
 *
 * usage: accuracy --residuals TEXT [--held-out] OUT SOURCE=EVAL_JSON...
 *   TEXT       how the residuals were made (the eval command line), recorded
 *   --held-out the eval runs refitted the engine terms without each row's
 *              group (servesim eval --cv), recorded
 *   SOURCE     the ground truth eval ran on (a path, recorded and hashed into
 *              each row's half); EVAL_JSON the output of that run */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/accuracy.h"
#include "base/afile.h"
#include "base/alloc.h"

static int usage(void)
{
	fprintf(stderr, "usage: accuracy --residuals TEXT [--held-out] OUT SOURCE=EVAL_JSON...\n");
	return SS_EUSAGE;
}

static int read_sources(int argc, char **argv, int first, struct acc_table *info, struct acc_resid **r,
			size_t *n, struct err *e)
{
	size_t cap = 0;
	int i, rc;

	for (i = first; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		struct json *doc = NULL;
		size_t before = *n;
		if (!eq || eq == argv[i] || info->nsource >= ACC_MAX_SOURCES)
			return err_set(e, SS_EUSAGE, "'%s': expected SOURCE=EVAL_JSON (at most %d)", argv[i],
				       ACC_MAX_SOURCES);
		*eq = 0;
		if ((rc = json_parse_file(eq + 1, &doc, e)) < 0)
			return rc;
		rc = acc_resid_from_eval(doc, argv[i], eq + 1, r, n, &cap, e);
		json_free(doc);
		if (rc < 0)
			return rc;
		snprintf(info->source[info->nsource], sizeof(info->source[0]), "%s", argv[i]);
		info->source_rows[info->nsource++] = *n - before;
	}
	return 0;
}

/* The family-out check family by family. */
static void family_lines(const struct acc_resid *r, size_t n)
{
	int *fold = xmalloc((n ? n : 1) * sizeof(*fold)), nfam = acc_family_folds(r, n, fold), f, k;
	size_t i;

	for (f = 0; nfam >= 2 && f < nfam; f++) {
		size_t within[ACC_METRIC__N] = {0}, rows[ACC_METRIC__N] = {0}, total = 0;
		for (i = 0; i < n; i++)
			total += fold[i] == f;
		for (i = 0; i < n && fold[i] != f; i++)
			;
		acc_coverage_fold(r, n, fold, f, ACC_MIN_ROWS, within, rows);
		printf("accuracy:   %-10s %5zu rows:", r[i].family[0] ? r[i].family : "(none)", total);
		for (k = 0; k < ACC_METRIC__N; k++)
			if (rows[k])
				printf(" %s %.3f (%zu)", acc_metric_key((enum acc_metric)k),
				       (double)within[k] / (double)rows[k], rows[k]);
		printf("\n");
	}
	free(fold);
}

int main(int argc, char **argv)
{
	struct acc_table t, info;
	struct acc_resid *r = NULL;
	struct afile af;
	struct err e;
	size_t n = 0, i;
	const char *residuals = NULL, *out;
	bool held_out = false;
	int a = 1, rc, k;

	err_clear(&e);
	memset(&info, 0, sizeof(info));
	for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
		if (strcmp(argv[a], "--residuals") == 0 && a + 1 < argc)
			residuals = argv[++a];
		else if (strcmp(argv[a], "--held-out") == 0)
			held_out = true;
		else
			return usage();
	}
	if (!residuals || argc - a < 2)
		return usage();
	out = argv[a++];
	if ((rc = read_sources(argc, argv, a, &info, &r, &n, &e)) < 0)
		goto fail;
	acc_build(r, n, ACC_MIN_ROWS, &t);
	acc_coverage(r, n, ACC_MIN_ROWS, &t);
	snprintf(t.residuals, sizeof(t.residuals), "%s", residuals);
	t.held_out = held_out;
	t.nsource = info.nsource;
	for (i = 0; i < info.nsource; i++) {
		memcpy(t.source[i], info.source[i], sizeof(t.source[i]));
		t.source_rows[i] = info.source_rows[i];
	}
	if ((rc = afile_open(&af, out, &e)) < 0) {
		acc_table_release(&t);
		goto fail;
	}
	acc_table_json(af.f, &t);
	if ((rc = afile_commit(&af, &e)) < 0) {
		afile_abort(&af);
		acc_table_release(&t);
		goto fail;
	}
	printf("accuracy: %s: %zu rows from %zu sources, %zu classes (all levels), residuals: %s%s\n", out, n,
	       t.nsource, t.n, residuals, held_out ? " (held out)" : " (in sample)");
	printf("accuracy: share of |errors| within their class's p90 band, bands from the other half of the rows:");
	for (k = 0; k < ACC_METRIC__N; k++)
		printf("%s %s %.3f (%zu rows)", k ? "," : "", acc_metric_key((enum acc_metric)k), t.coverage[k],
		       t.coverage_rows[k]);
	printf("\n");
	printf("accuracy: the same, each of %zu model families against the bands of the others:", t.families);
	for (k = 0; k < ACC_METRIC__N; k++)
		printf("%s %s %.3f (%zu rows)", k ? "," : "", acc_metric_key((enum acc_metric)k),
		       t.family_coverage[k], t.family_coverage_rows[k]);
	printf("\n");
	family_lines(r, n);
	printf("accuracy: a model family without rows: bands widened (p50, p90 factor), and each family's share within\n"
	       "accuracy: its widened p90 band with the factor from the other families:");
	for (k = 0; k < ACC_METRIC__N; k++)
		printf("%s %s x%.3f x%.3f %.3f (%zu rows)", k ? "," : "", acc_metric_key((enum acc_metric)k),
		       t.widen[k][0], t.widen[k][1], t.widened_coverage[k], t.widened_coverage_rows[k]);
	printf("\n");
	acc_table_release(&t);
	free(r);
	return 0;
fail:
	free(r);
	fprintf(stderr, "accuracy: %s\n", e.msg);
	return -rc;
}
