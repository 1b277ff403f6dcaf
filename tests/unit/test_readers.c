/* test_readers.c - the silicon-table reader's duplicate rows (aicdup.c). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "readers/measured.h"

#define HDR "id,silicon_data_source,backend,backend_version,model_path,system,precision,mode,isl,osl," \
	    "gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size," \
	    "moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n"

/* One DeepSeek-R1 SGLang run of the published file (fp4, B200, 1024/8192,
 * 16 clients) as it appears three times: under db-dump as DeepSeek-V3 with
 * the layout multiplied by its EP (tp 16, moe_tp 4, ep 4), under
 * 2026-03-25 with the real one (tp 4, ep 4), under 2026-04-06 multiplied
 * again, its TPOT printed with the last digit apart (as the sources print
 * one double); then the same layout with a TPOT apart in the 10th digit,
 * and the same figures at another concurrency (two other runs). */
static const char table[] =
	HDR
	"cfg202,db-dump/2026-04-27; config_id=202; silicon_concurrency=16; measured=2026-03-25T00:00:00.000Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-V3,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,16,1,1,4,4,"
	"346.8913925375091,12.749421285750854\n"
	"r279,source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=16; measured=2026-03-25T16:34:14Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,4,1,1,1,4,"
	"346.8913925375091,12.749421285750854\n"
	"r1045,source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=16; measured=2026-03-25T00:00:00.000Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,16,1,1,4,4,"
	"346.8913925375091,12.749421285750855\n"
	"other_tpot,source_file=2026-03-25.csv; silicon_concurrency=16; measured=2026-03-25T16:34:14Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,16,4,1,1,1,4,"
	"346.8913925375091,12.749421286750854\n"
	"other_c,source_file=2026-03-25.csv; silicon_concurrency=32; measured=2026-03-25T16:34:14Z,"
	"sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,8192,nvfp4,nvfp4,32,4,1,1,1,4,"
	"346.8913925375091,12.749421285750854\n";

static void test_duplicates(void)
{
	struct aic_table t;
	struct err e;
	size_t dropped;

	if (aic_read_mem(table, sizeof(table) - 1, "dups.csv", NULL, &t, &e) < 0) {
		CHECK(false, "read: %s", e.msg);
		return;
	}
	CHECK(t.n == 5, "5 rows read (%zu)", t.n);
	CHECK(aic_same_measurement(&t.r[0], &t.r[1]), "the inflated db-dump row and the real one are one run");
	CHECK(aic_same_measurement(&t.r[1], &t.r[2]), "a TPOT printed with its last digit apart is the same run");
	CHECK(!aic_same_measurement(&t.r[1], &t.r[3]), "a TPOT apart in the 10th digit is another run");
	CHECK(!aic_same_measurement(&t.r[1], &t.r[4]), "the same figures at another concurrency: another run");
	dropped = aic_drop_duplicates(&t);
	CHECK(dropped == 2, "two copies dropped (%zu)", dropped);
	CHECK(t.n == 3 && strcmp(t.r[0].id, "cfg202") == 0 && strcmp(t.r[1].id, "other_tpot") == 0 &&
		      strcmp(t.r[2].id, "other_c") == 0,
	      "the first copy kept, the others in order (%s %s %s)", t.n > 0 ? t.r[0].id : "-",
	      t.n > 1 ? t.r[1].id : "-", t.n > 2 ? t.r[2].id : "-");
	CHECK(aic_drop_duplicates(&t) == 0 && t.n == 3, "nothing left to drop");
	aic_table_release(&t);
}

int main(void)
{
	test_duplicates();
	return check_done();
}
