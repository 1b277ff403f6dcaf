/* fuzz_kflow.c - libFuzzer harness for the kernel-flow readers: the first
 * byte picks --kernel-flow (even) or --kernel-ms (odd) input; a parsed flow
 * is mapped onto a small hand-built MLA + MoE layer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kflow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct op ops[] = {
	{.name = "input_norm", .cat = OPC_NORM, .kind = OPK_ELEMENTWISE, .flops = 1e5},
	{.name = "q_a_proj", .cat = OPC_ATTENTION, .kind = OPK_GEMM, .batch = 1, .flops = 1e8},
	{.name = "q_absorb_uk", .cat = OPC_ATTENTION, .kind = OPK_GEMM, .batch = 16, .flops = 1e7},
	{.name = "attn_decode_mla", .cat = OPC_ATTENTION, .kind = OPK_ATTN, .flops = 5e7},
	{.name = "rope", .cat = OPC_ATTENTION, .kind = OPK_ELEMENTWISE, .flops = 2e4},
	{.name = "router", .cat = OPC_MOE, .kind = OPK_GEMM, .batch = 1, .flops = 3e7},
	{.name = "topk_select", .cat = OPC_MOE, .kind = OPK_OTHER, .flops = 2e3},
	{.name = "experts_gate_up", .cat = OPC_MOE, .kind = OPK_GEMM, .batch = 8, .flops = 4e8},
	{.name = "experts_down", .cat = OPC_MOE, .kind = OPK_GEMM, .batch = 8, .flops = 2e8},
	{.name = "allreduce_ffn", .cat = OPC_COMM, .kind = OPK_COMM, .flops = 0},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layer_kind lk = {.name = "moe", .count = 1, .ops = ops,
				.nops = sizeof(ops) / sizeof(ops[0])};
	struct kernel_flow kf;
	struct kf_result r;
	struct err e;
	char *text;
	int rc;

	if (size < 2 || data[1] == '@') /* '@' would name a file */
		return 0;
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	rc = (data[0] & 1) ? kflow_parse_ms(text, &kf, &e) : kflow_parse(text, &kf, &e);
	free(text);
	if (rc != 0)
		return 0;
	if (kflow_map(&kf, &lk, 989e12, 1979e12, 989e12, &r, &e) == 0)
		kflow_result_release(&r);
	kflow_release(&kf);
	return 0;
}
