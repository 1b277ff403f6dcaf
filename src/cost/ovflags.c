/* ovflags.c - the host-term flags (ovflags.h). */
#include "cost/ovflags.h"

#define O(m) offsetof(struct overheads, m)
#define TERM(flag, m, b) {AT_N(flag, "X", O(m), 0, false, NULL), .given = ARGTAB_GIVEN(struct overheads, given), .bit = (b)}
static const struct argtab_row rows[] = {
	TERM("--overhead-step-us", step_us, OV_STEP),
	TERM("--overhead-layer-us", layer_us, OV_LAYER),
	TERM("--overhead-request-us", req_us, OV_REQ),
	TERM("--api-ttft-ms", api_ttft_ms, OV_API_TTFT),
	TERM("--stream-token-us", stream_token_us, OV_STREAM),
	TERM("--delivery-steps", delivery_steps, OV_DELIVERY),
	TERM("--eager-op-us", eager_op_us, OV_EAGER),
	TERM("--api-prompt-us", api_prompt_us, OV_API_PROMPT),
	TERM("--api-loop-ms", api_loop_ms, OV_API_LOOP),
	TERM("--jit-compile-ms", jit_compile_ms, OV_JIT),
};
const struct argtab ov_flags_tab = ARGTAB(rows, 0);
