/* fuzz_mfupack.c - libFuzzer harness for the compact kernel table sections
 * (src/hw/mfupack.h): the input is handed to each section parser (GEMM
 * grids, attention configurations, all-reduce, MoE curves), copied and
 * read in place; a malformed section must be refused without a read past
 * its end or a leak. */
#include <stdint.h>
#include <string.h>

#include "hw/mfupack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every parser on the input, its arrays copied or (in_place) read from it. */
static void parse_all(const uint8_t *data, size_t size, bool in_place)
{
	struct mfu_tables t;
	struct mfu_attn_cfg *cfg = NULL;
	struct moetab *moe = NULL;
	size_t ncfg = 0, i;
	unsigned got = 0;

	memset(&t, 0, sizeof(t));
	(void)mfupack_parse_gemm(data, size, &t, &got, in_place);
	(void)mfupack_parse_allreduce(data, size, &t);
	if (mfupack_parse_attn(data, size, &cfg, &ncfg, in_place) == 0) {
		t.prefill = cfg;
		t.nprefill = ncfg;
		for (i = 0; i < ncfg; i++) {
			double x[2] = {1.0, 2.0};
			(void)mfu_grid_eval(&cfg[i].g, x, false);
		}
	}
	if ((in_place ? moetab_view_dist : moetab_unpack_dist)(data, size, MOE_BALANCED, &moe) == 0) {
		struct moe_shape s = {4096, 14336, 2, 8, 1, 1};
		struct moe_pick pick;
		moetab_pick(moe, MOE_BF16, &s, MOE_BALANCED, &pick);
		if (pick.curve) {
			(void)moetab_eff(&pick, &s, 16);
			(void)moetab_time_s(&pick, &s, 16, 1e15, 2.0, 3e12);
		}
	}
	t.moe = moe;
	mfu_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse_all(data, size, false);
	parse_all(data, size, true);
	return 0;
}
