/* records.h - request records (records.c); private to src/sim/. */
#ifndef SERVESIM_SIM_RECORDS_H
#define SERVESIM_SIM_RECORDS_H
#include <stdint.h>

#include "sim/core.h"

/* r's per-request CSV row (sim_cfg.requests_out; status "ok",
 * "rejected:...", "aborted"), r kept as it completes, the kept records
 * folded into sketches, the client-side times of a completion. */
void records_csv_row(struct sim *s, const struct req *r, const char *status, double ttft_ms, double itl_ms,
		     double tpot_ms, double e2e_ms, double queue_ms);
void records_keep(struct sim *s, const struct req *r);
void records_fold(struct sim *s);
void records_client_times(const struct sim *s, const struct overheads *ov, int64_t first_ns, int64_t last_ns,
			  int64_t output, int64_t prompt, double *ttft, double *e2e);

#endif
