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
#include "base/afile.h"
#include "engine/engine.h"
#include "serve/serve.h"

struct serve_opts {
	struct scenflags sf;
	const char *host, *name, *requests_out;
	int64_t port, max_tokens, max_body;
	double speed, cpt;
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
	       "  A prompt and max_tokens past max_model_len, bad JSON or fields: 400 with OpenAI's\n"
	       "  {\"error\": {...}}; an unknown model: 404; a body over --max-body-bytes: 413.\n"
	       "\n"
	       "options:\n"),
	{AT_S("--host", "H", O(host), "IPv4 address to listen on (default 127.0.0.1)")},
	{AT_I("--port", "N", O(port), 0, 65535, "(default 8000; 0: any free port, printed)")},
	{AT_N("--speed", "X", O(speed), 1e-3, false, "simulated seconds per second (default 1: real time)")},
	{AT_S("--served-model-name", "NAME", O(name), "the model's name in requests and answers (default its\n"
	      "Hugging Face name, as vLLM serves it)")},
	{AT_I("--default-max-tokens", "N", O(max_tokens), 1, 1 << 24, "output tokens of a request that names none (default 256)")},
	{AT_N("--chars-per-token", "X", O(cpt), 1, false, "characters per prompt token of a text (default 4)")},
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
	o->host = "127.0.0.1";
	o->port = 8000;
	o->speed = 1;
	o->max_tokens = 256;
	o->max_body = 16 << 20;
	o->cpt = 4;
	if ((rc = cli_parse(&spec, argc, argv, e)) != 0)
		return rc;
	if (o->speed > 1e6)
		return err_set(e, SS_EUSAGE, "--speed must be at most 1e6, got %g", o->speed);
	return 0;
}

struct stop {
	sigset_t set;
	char what[400]; /* the deployment served, printed once listening */
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
	struct scenflags_ctx x;
	struct wl_spec wl;
	struct scenario sc;
	struct scenario_state st;
	struct serve_cfg cfg;
	struct stop stop;
	struct afile af;
	bool prepared = false, af_open = false;
	const struct model_entry *me;
	int rc = parse_serve(argc, argv, &o, e);

	if (rc != 0)
		return rc > 0 ? 0 : rc;
	memset(&x, 0, sizeof(x));
	catalog_init(&x.env);
	wl_spec_defaults(&wl);
	if ((rc = scenflags_build(&o.sf, &wl, &x, &sc, e)) < 0)
		goto out;
	if ((rc = scenario_start(&sc, x.env.data_dir, o.sf.allow_invalid, x.notes, sizeof(x.notes), &st, e)) < 0)
		goto out;
	prepared = true;
	if (x.notes[0])
		fprintf(stderr, "servesim serve: %s\n", x.notes);
	memset(&cfg, 0, sizeof(cfg));
	if (o.requests_out) {
		if ((rc = afile_check(o.requests_out, (const char *const[]){o.sf.config}, 1, e)) < 0 ||
		    (rc = afile_open(&af, o.requests_out, e)) < 0)
			goto out;
		af_open = true;
		sim_requests_csv_header(af.f, false, false);
		cfg.requests_out = af.f;
	}
	me = registry_find(&x.env.reg, x.model->id);
	cfg.host = o.host;
	cfg.port = (int)o.port;
	cfg.speed = o.speed;
	cfg.model_name = o.name ? o.name : me && me->hf[0] ? me->hf : x.model->id;
	cfg.default_max_tokens = o.max_tokens;
	cfg.max_body_bytes = (size_t)o.max_body;
	cfg.chars_per_token = o.cpt;
	cfg.ready = ready;
	cfg.wait_stop = wait_stop;
	cfg.ctx = &stop;
	/* SIGINT and SIGTERM go to sigwait, in no other thread */
	sigemptyset(&stop.set);
	sigaddset(&stop.set, SIGINT);
	sigaddset(&stop.set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop.set, NULL);
	signal(SIGPIPE, SIG_IGN); /* a client gone mid-write: an error, not an exit */
	snprintf(stop.what, sizeof(stop.what), "%s on %s (TP %d PP %d DP %d), engine %s, %.4g x real time",
		 cfg.model_name, x.gpu->id, sc.par.tp, sc.par.pp, sc.par.dp, sc.engine->name, o.speed);
	rc = serve_run(&st, &wl, &cfg, e);
	if (af_open) {
		af_open = false;
		if (rc == 0)
			rc = afile_commit(&af, e);
		else
			afile_abort(&af);
	}
	if (rc == 0)
		fprintf(stderr, "servesim serve: stopped\n");
out:
	if (af_open)
		afile_abort(&af);
	if (prepared)
		scenario_release(&st);
	wl_spec_release(&wl);
	scenflags_ctx_release(&x);
	return rc;
}
