/* serve.c - `servesim serve`: flags, the deployment, then serve_run (the
 * OpenAI-compatible endpoint, src/serve/) until SIGINT or SIGTERM. */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"
#include "engine/scenopts.h"
#include "serve/servejob.h"

struct serve_opts {
	struct scenflags sf;
	struct serve_cfg cfg;     /* host, port, speed, model name, limits */
	const char *requests_out;
	int64_t max_body;
};

#define O(m) offsetof(struct serve_opts, m)
static const struct argtab_row flag_rows[] = {
	AT_TXT("usage: servesim serve [--host H] [--port N] [--speed X] [model, hardware and engine flags]\n"
	       "\n"
	       "An OpenAI-compatible HTTP endpoint that answers like an inference engine with the\n"
	       "simulated timings, for testing clients, routers, autoscalers, dashboards and benchmark\n"
	       "tools without GPUs.  Each request enters the simulated engine as it arrives; its\n"
	       "output tokens (placeholder words, as many as max_tokens asks) are sent when the\n"
	       "simulation delivers them, at the simulated times (plus the client-side API terms\n"
	       "`run` adds to TTFT and E2E) on a clock running --speed simulated seconds a second.\n"
	       "\n"
	       "routes:\n"
	       "  POST /v1/completions, /v1/chat/completions   with \"stream\": true as server-sent events\n"
	       "                            (\"stream_options\": {\"include_usage\": true} adds the usage)\n"
	       "  GET /v1/models, /health, /metrics (vLLM's Prometheus names)\n"
	       "prompt length: token ids (\"prompt\": [ids], or \"prompt_token_ids\": [ids]) count one\n"
	       "  each; text counts ceil(characters / --chars-per-token); a chat adds 4 tokens a\n"
	       "  message.  Output: max_tokens (max_completion_tokens), else --default-max-tokens,\n"
	       "  every request running to it (as with \"ignore_eos\": true; no stop strings).\n"
	       "  temperature, top_p, the penalties, seed and stop are checked as OpenAI types\n"
	       "  them, not modelled.\n"
	       "  A prompt and max_tokens past max_model_len, bad JSON or fields: 400 with OpenAI's\n"
	       "  {\"error\": {...}}; an unknown model: 404; a body over --max-body-bytes: 413.\n"
	       "\n"
	       "options:\n"),
	{AT_S("--host", "H", O(cfg.host), "IPv4 address to listen on (default 127.0.0.1)")},
	{AT_I32V("--port", "N", O(cfg.port), 0, 65535, "(default 8000; 0: any free port, printed)")},
	{AT_N("--speed", "X", O(cfg.speed), 1e-3, false, "simulated seconds per second (default 1: real time)")},
	{AT_S("--served-model-name", "NAME", O(cfg.model_name), "the model's name in requests and answers (default its\n"
	      "Hugging Face name, as vLLM serves it)")},
	{AT_I("--default-max-tokens", "N", O(cfg.default_max_tokens), 1, 1 << 24, "output tokens of a request that names none (default 256)")},
	{AT_N("--chars-per-token", "X", O(cfg.chars_per_token), 1, false, "characters per prompt token of a text (default 4)")},
	{AT_I("--max-body-bytes", "N", O(max_body), 1024, 1 << 30, "largest request body (default 16 MiB)")},
	{AT_S("--requests-out", "FILE.csv", O(requests_out), "one row per request as `run` writes them (atomically, at exit)")},
	{AT_T(&scenflags_tab, O(sf))},
	AT_TXT("\n"
	       "It runs until SIGINT or SIGTERM.  A client that disconnects aborts its request, as\n"
	       "vLLM does: it leaves the batch at the end of the step in progress, its KV blocks\n"
	       "freed, and is counted as finished_reason=\"abort\" in /metrics and as an 'aborted'\n"
	       "row (with the tokens it got) in --requests-out.\n"),
};
static const struct argtab table = ARGTAB(flag_rows, 28);

static int parse_serve(int argc, char **argv, struct serve_opts *o, struct err *e)
{
	const struct cli_spec spec = {"serve", &table, o, ARGTAB_GIVEN(struct serve_opts, sf.k), true, NULL};
	int rc;

	memset(o, 0, sizeof(*o));
	scenflags_defaults(&o->sf);
	o->cfg.host = "127.0.0.1";
	o->cfg.port = 8000;
	o->cfg.speed = 1;
	o->cfg.default_max_tokens = 256;
	o->max_body = 16 << 20;
	o->cfg.chars_per_token = 4;
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (o->cfg.speed > 1e6)
		return err_set(e, SS_EUSAGE, "--speed must be at most 1e6, got %g", o->cfg.speed);
	o->cfg.max_body_bytes = (size_t)o->max_body;
	return 0;
}

struct stop {
	sigset_t set;
	const char *what; /* the deployment served, printed once listening */
};

static void ready(void *ctx, const char *host, int port)
{
	const struct stop *s = ctx;

	fprintf(stderr, "servesim serve: %s\n", s->what);
	fprintf(stderr, "servesim serve: listening on http://%s:%d/v1 (Ctrl-C or SIGTERM stops it)\n", host, port);
	fflush(stderr);
}

static void wait_stop(void *ctx)
{
	struct stop *s = ctx;
	int sig;

	sigwait(&s->set, &sig);
}

int cmd_serve(int argc, char **argv, struct err *e)
{
	struct serve_opts o;
	struct serve_job j;
	struct stop stop;
	int rc = parse_serve(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	if ((rc = serve_job_prepare(&o.sf, &o.cfg, &j, e)) < 0)
		goto out;
	if (j.x.notes[0])
		fprintf(stderr, "servesim serve: %s\n", j.x.notes);
	o.cfg.ready = ready;
	o.cfg.wait_stop = wait_stop;
	o.cfg.ctx = &stop;
	stop.what = j.what;
	/* SIGINT and SIGTERM go to sigwait, in no other thread */
	sigemptyset(&stop.set);
	sigaddset(&stop.set, SIGINT);
	sigaddset(&stop.set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop.set, NULL);
	signal(SIGPIPE, SIG_IGN); /* a client gone mid-write: an error, not an exit */
	if ((rc = serve_job_run(&j, o.requests_out, o.sf.config, &o.cfg, e)) == 0)
		fprintf(stderr, "servesim serve: stopped\n");
out:
	serve_job_release(&j);
	return rc;
}
