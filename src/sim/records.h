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
/* Arrival w for the sustainability test (flow_arrive). */
void records_arrive(struct sim *s, const struct wl_req *w);
/* The sinks' consumer's call (sinkq_start) for what records_keep and
 * records_arrive write to the ring while s->sink_recs: the same work, on
 * the consumer's thread, in the same order. */
void records_sink(void *ctx, unsigned kind, const void *p);
void records_fold(struct sim *s);

/* A completion's client-side TTFT and E2E (ms) from its first and last
 * token's engine times after its arrival (records_keep, sim_reprice_api;
 * inline: records_keep runs it for every completion). */
static inline void records_client_times(const struct sim *s, const struct overheads *ov, int64_t first_ns,
					int64_t last_ns, int64_t output, int64_t prompt, double *ttft, double *e2e)
{
	bool h2 = !(s->cost->cfg.off & COST_H2);
	double api = h2 ? ov->api_ttft_ms : 0, stream = h2 ? ov->stream_token_us : 0;

	if (h2 && ov->api_prompt_us > 0)
		api += ov->api_prompt_us * 1e-3 * (double)prompt;

	*ttft = (double)first_ns * 1e-6 + api;
	*e2e = (double)last_ns * 1e-6 + api + stream * 1e-3 * (double)output + (h2 ? ov->api_e2e_ms : 0);
}

#endif
