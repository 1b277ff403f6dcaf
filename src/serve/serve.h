/* serve.h - an OpenAI-compatible HTTP endpoint whose tokens stream at the
 * simulated times (servesim serve).  Each request enters a live simulation
 * (sim.h cfg.live) as it arrives; its output tokens, placeholders of the
 * requested count, are sent when the simulation delivers them, on a wall
 * clock running `speed` simulated seconds a second.  Routes: GET /health,
 * GET /v1/models, GET /metrics (vLLM's Prometheus names), POST
 * /v1/completions and /v1/chat/completions, with and without SSE streaming.
 * src/serve/serve.c is the only user of libmicrohttpd. */
#ifndef SERVESIM_SERVE_H
#define SERVESIM_SERVE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "engine/scenario.h"
#include "workload/workload.h"

struct serve_cfg {
	const char *host;           /* an IPv4 address ("127.0.0.1"; "localhost" is that) */
	int port;                   /* 0: any free port (reported to ready) */
	double speed;               /* simulated seconds per wall second, > 0 */
	const char *model_name;     /* the served model's name */
	int64_t default_max_tokens; /* output tokens of a request that names none */
	size_t max_body_bytes;      /* larger request bodies are refused (413) */
	double chars_per_token;     /* a text prompt's tokens: ceil(characters / this) */
	FILE *requests_out;         /* one CSV row per request as it completes, or NULL */
	/* once listening: the port (the chosen one with port 0) */
	void (*ready)(void *ctx, const char *host, int port);
	/* blocks until the server is to stop (a signal, say) */
	void (*wait_stop)(void *ctx);
	void *ctx;
};

/* Serve the prepared scenario (st: its sim_cfg and cost model; wl: the
 * seed of the speculative-decoding draws) until cfg->wait_stop returns,
 * then close every connection and release everything.  SS_EUSAGE: the
 * address cannot be bound; SS_ERUNTIME: the simulation failed. */
int serve_run(const struct scenario_state *st, const struct wl_spec *wl, const struct serve_cfg *cfg,
	      struct err *e);

/* A text's prompt tokens under the rule above (at least 1): characters
 * are UTF-8 code points. */
int64_t serve_text_tokens(const char *text, double chars_per_token);

#endif
