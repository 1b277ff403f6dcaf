/* fuzz_model.c - libFuzzer harness for the HF config.json loader, followed
 * by parameter accounting and operator-graph construction on what loads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "model/model.h"
#include "model/opgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model_cfg m;
	struct json *j;
	struct err e;
	struct param_counts pc;
	struct parallel p = {1, 1, 1, 1, 0, 0};
	struct pass_shape s = {2, 3, 5, false};
	struct opgraph g;

	if (json_parse((const char *)data, size, "fuzz", &j, &e) != 0)
		return 0;
	if (model_from_json(j, "fuzz", &m, &e) == 0) {
		model_params(&m, &pc);
		(void)model_kv_bytes_per_token(&m, 2.0);
		(void)model_state_bytes_per_seq(&m, 2.0);
		(void)model_weight_bytes_per_gpu(&m, &p, 2.0);
		/* keep graph construction bounded: huge published-looking sizes
		 * are legal but would only exercise arithmetic */
		if (m.hidden < 100000 && m.heads < 4096 && m.n_experts < 100000 &&
		    opgraph_build(&m, &p, &s, DT_BF16, DT_BF16, &g, &e) == 0) {
			(void)opgraph_total_flops(&g);
			opgraph_release(&g);
		}
	}
	json_free(j);
	return 0;
}
