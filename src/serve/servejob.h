/* servejob.h - what `servesim serve` serves, set up in two calls: the
 * deployment its flags give (engine/scenflags.h) built and started, with
 * the served model's name; then the per-request CSV opened (written
 * atomically at exit) and serve_run until the server stops. */
#ifndef SERVESIM_SERVE_SERVEJOB_H
#define SERVESIM_SERVE_SERVEJOB_H
#include <stdbool.h>

#include "base/afile.h"
#include "base/err.h"
#include "engine/scenflags.h"
#include "serve/serve.h"

/* Caller storage; serve_job_release whatever the status. */
struct serve_job {
	struct scenflags_ctx x;    /* x.notes: the start-up checks' warnings */
	struct wl_spec wl;
	struct scenario sc;
	struct scenario_state st;
	bool prepared;             /* started, the start-up checks passed */
	char what[400];            /* the deployment served, in one line */
};

/* Build and start the deployment of sf; cfg->model_name, when NULL, gets
 * the model's Hugging Face name (as vLLM serves it), else its id; j->what
 * names it with the GPU, layout, engine and cfg->speed. */
int serve_job_prepare(struct scenflags *sf, struct serve_cfg *cfg, struct serve_job *j, struct err *e);
/* Serve it (serve_run) with the per-request CSV at requests_out (NULL:
 * none; checked against the input file config, NULL: none), committed
 * when serving ends well, else removed. */
int serve_job_run(struct serve_job *j, const char *requests_out, const char *config, struct serve_cfg *cfg,
		  struct err *e);
void serve_job_release(struct serve_job *j);

#endif
