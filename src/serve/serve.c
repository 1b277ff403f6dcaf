/* serve.c - the OpenAI-compatible live endpoint (serve.h), the only user
 * of libmicrohttpd.
 *
 * Threads: libmicrohttpd runs a thread per connection; one engine thread
 * moves the live simulation along the wall clock.  Everything shared (the
 * simulation, the requests, the metrics) is under one mutex.  A request is
 * submitted to the simulation when its body has arrived (the clock first
 * brought to that instant), so it enters the engine at its arrival; the
 * simulation hands each chunk of tokens over (on_chunk) at its engine time,
 * which plus the client-side API terms (as `run` adds them to TTFT and E2E),
 * less the time spent reading and parsing the request (part of what those
 * terms stand for), is the chunk's send time; the connection's thread
 * sleeps until then and writes it.  A request is freed when both the simulation (completion,
 * rejection or abort) and the connection (response sent, or the client gone) are
 * done with it.  A client that goes away aborts its request, as vLLM's
 * server does: the connection's thread looks at its socket while it waits
 * (every CLIENT_POLL_NS) and hands the request to sim_abort, which frees
 * it from the engine at the end of the step in progress. */
#define _GNU_SOURCE
#include "serve/serve.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <sys/socket.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/sbuf.h"
#include "sim/sim.h"
#include "base/version.h"

/* libmicrohttpd is opened when `serve` starts (mhd_open), not linked:
 * linked, it loads GnuTLS and the eight libraries below it (p11-kit, idn2,
 * unistring, tasn1, nettle, hogweed, gmp, ffi) into every servesim process,
 * and their load-time constructors (GnuTLS's global init among them) ran at
 * each start of every command: 0.9 ms of `run --num-requests 1`'s 5.0 ms CPU
 * (perf stat, 2-core host), 5-9 % of `eval` of one inference-perf
 * experiment.  The soname is the library's ABI since 0.9.x; the header still
 * gives the types and constants. */
#define MHD_SONAME "libmicrohttpd.so.12"
static struct {
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_callback) *create_response_from_callback;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
} mhd;

/* mhd_open: the functions above from the shared library, once a process
 * (serve_run runs once; the handle stays open for the process's life). */
static int mhd_open(struct err *e)
{
	static const char *const names[] = {
		"MHD_add_response_header", "MHD_create_response_from_buffer", "MHD_create_response_from_callback",
		"MHD_destroy_response", "MHD_get_connection_info", "MHD_get_daemon_info",
		"MHD_queue_response", "MHD_start_daemon", "MHD_stop_daemon",
	};
	void *slots[sizeof(names) / sizeof(names[0])];
	void *h;
	size_t i;

	_Static_assert(sizeof(mhd) == sizeof(slots), "one name per libmicrohttpd function");
	if (mhd.start_daemon)
		return 0;
	h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return err_set(e, SS_ERUNTIME, "cannot load %s, the HTTP library serve runs on (%s): install it "
			       "(Debian: libmicrohttpd12)", MHD_SONAME, dlerror());
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		slots[i] = dlsym(h, names[i]);
		if (!slots[i])
			return err_set(e, SS_ERUNTIME, "%s has no %s (%s): expected libmicrohttpd >= 0.9.71", MHD_SONAME,
				       names[i], dlerror());
	}
	/* object to function pointers through memcpy (ISO C has no cast between them) */
	memcpy(&mhd, slots, sizeof(mhd));
	return 0;
}

/* vLLM's histogram buckets (vllm/v1/metrics/loggers.py), seconds */
static const double ttft_le[] = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
				 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
static const double itl_le[] = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
				1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
static const double e2e_le[] = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
				30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
#define NB_MAX 24

struct hist {
	const double *le;
	size_t n;
	uint64_t count[NB_MAX + 1]; /* per bucket (not cumulative); the last: +Inf */
	double sum;
};

static void hist_add(struct hist *h, double v)
{
	size_t i;

	for (i = 0; i < h->n && v > h->le[i]; i++)
		;
	h->count[i]++;
	h->sum += v;
}

/* How often a waiting connection's thread looks for its client's hang-up
 * (wall ns). */
#define CLIENT_POLL_NS 20000000LL

struct chunk {
	int64_t at_ns;  /* send time, wall ns since the start */
	int64_t tokens;
	bool last;
};

struct server;

/* One request, shared by the simulation and its connection. */
struct live {
	struct server *sv;
	int64_t id;
	int64_t prompt, max_tokens;
	bool chat, stream, include_usage;
	char rid[40];
	int64_t created;
	int64_t arrival_ns;        /* simulated */
	/* wall ns between the request's headers and its admission (reading
	 * and parsing it), at most the API term: its chunks go out that much
	 * earlier, since `run`'s client-side API term covers that time */
	int64_t early_ns;
	struct chunk *ch;
	size_t nch, cap, next;     /* next: the first chunk not yet written */
	int64_t sent_tokens;
	int64_t first_emit_ns, prev_emit_ns; /* simulated, for the metrics */
	bool in_sim;               /* the simulation still holds it */
	bool in_conn;              /* the connection still holds it */
	bool failed;               /* rejected after it ran */
	bool role_sent, finished;  /* (stream) the first delta, the end written */
	bool aborted;              /* its client went away before the end: sim_abort */
	int fd;                    /* its connection's socket (-1: unknown) */
	struct sbuf out;           /* bytes of the stream not yet written */
	size_t out_off;
};

struct server {
	const struct serve_cfg *cfg;
	const struct scenario_state *st;
	struct sim *sim;
	pthread_mutex_t mu;
	pthread_cond_t engine_cv, conn_cv;
	pthread_t engine;
	bool stopping, failed;
	struct err err;
	struct timespec start;
	struct live **by_id;
	size_t nid, cap_id;
	int64_t api_ttft_ns, api_e2e_ns, stream_token_ns;
	int64_t created;
	/* metrics */
	uint64_t prompt_tokens, generation_tokens, success, rejected, aborted, running_http;
	struct hist ttft, itl, e2e, queue;
};

/* --- time --- */

static int64_t wall_ns(const struct server *sv)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)(t.tv_sec - sv->start.tv_sec) * 1000000000LL + (t.tv_nsec - sv->start.tv_nsec);
}

static int64_t sim_of_wall(const struct server *sv, int64_t w)
{
	return (int64_t)((double)w * sv->cfg->speed);
}

static int64_t wall_of_sim(const struct server *sv, int64_t s)
{
	return (int64_t)ceil((double)s / sv->cfg->speed);
}

/* Wait on cv until wall time `until` (INT64_MAX: until signalled). */
static void wait_until(struct server *sv, pthread_cond_t *cv, int64_t until)
{
	struct timespec t;
	int64_t ns;

	if (until == INT64_MAX) {
		pthread_cond_wait(cv, &sv->mu);
		return;
	}
	ns = (int64_t)sv->start.tv_nsec + until;
	t.tv_sec = sv->start.tv_sec + (time_t)(ns / 1000000000LL);
	t.tv_nsec = (long)(ns % 1000000000LL);
	pthread_cond_timedwait(cv, &sv->mu, &t);
}

/* --- requests --- */

static void live_release(struct server *sv, struct live *r, bool conn)
{
	if (conn)
		r->in_conn = false;
	else
		r->in_sim = false;
	if (r->in_conn || r->in_sim)
		return;
	if (r->id >= 0 && (size_t)r->id < sv->nid && sv->by_id[r->id] == r)
		sv->by_id[r->id] = NULL;
	free(r->ch);
	sb_release(&r->out);
	free(r);
}

static struct live *live_of(struct server *sv, int64_t id)
{
	return id >= 0 && (size_t)id < sv->nid ? sv->by_id[id] : NULL;
}

/* A chunk reached the client side of the engine at t_ns (simulated): it
 * goes out after the API terms (the last one's after the E2E terms too). */
static void on_chunk(void *ctx, int64_t id, int64_t t_ns, int64_t tokens, bool last)
{
	struct server *sv = ctx;
	struct live *r = live_of(sv, id);
	int64_t emit = t_ns + sv->api_ttft_ns;

	if (!r)
		return;
	if (last)
		emit += sv->api_e2e_ns + sv->stream_token_ns * r->max_tokens;
	XGROW(r->ch, r->cap, r->nch + 1);
	r->ch[r->nch++] = (struct chunk){wall_of_sim(sv, emit) - r->early_ns, tokens, last};
	sv->generation_tokens += (uint64_t)tokens;
	if (r->nch == 1) {
		r->first_emit_ns = emit;
		hist_add(&sv->ttft, (double)(emit - r->arrival_ns) * 1e-9);
	} else {
		hist_add(&sv->itl, (double)(emit - r->prev_emit_ns) * 1e-9);
	}
	r->prev_emit_ns = emit;
	if (last) {
		hist_add(&sv->e2e, (double)(emit - r->arrival_ns) * 1e-9);
		sv->success++;
	}
	pthread_cond_broadcast(&sv->conn_cv);
}

/* The simulation is done with a request: completed, or rejected after it
 * ran (preempted, then too long for the KV cache). */
static void on_request(void *ctx, const struct sim_req_row *row)
{
	struct server *sv = ctx;
	struct live *r = live_of(sv, row->id);

	if (row->completed)
		hist_add(&sv->queue, row->queue_ms * 1e-3);
	else if (row->aborted)
		sv->aborted++;
	else
		sv->rejected++;
	if (!r)
		return;
	if (!row->completed && !row->aborted)
		r->failed = true;
	live_release(sv, r, false);
	pthread_cond_broadcast(&sv->conn_cv);
}

/* Bring the simulation to the wall clock's instant. */
static int catch_up(struct server *sv)
{
	if (sv->failed)
		return -1;
	if (sim_advance(sv->sim, sim_of_wall(sv, wall_ns(sv)), &sv->err) < 0) {
		sv->failed = true;
		pthread_cond_broadcast(&sv->conn_cv);
		return -1;
	}
	return 0;
}

/* Has the client of socket fd gone away (an orderly close or a reset)?
 * A peek: the bytes of a next request stay for libmicrohttpd. */
static bool client_gone(int fd)
{
	char c;
	ssize_t n;

	if (fd < 0)
		return false;
	n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

/* r's client went away before its end: the simulated engine aborts it
 * (under the lock). */
static void client_abort(struct server *sv, struct live *r)
{
	if (r->aborted || !r->in_sim || sv->failed)
		return;
	r->aborted = true;
	if (catch_up(sv) < 0 || sim_abort(sv->sim, r->id, &sv->err) < 0) {
		sv->failed = true;
		pthread_cond_broadcast(&sv->conn_cv);
	}
}

/* Wait on the connections' condition until wall time `until` at most,
 * looking at r's socket every CLIENT_POLL_NS: false when its client has
 * gone away (r aborted). */
static bool conn_wait(struct server *sv, struct live *r, int64_t until)
{
	int64_t poll_at = wall_ns(sv) + CLIENT_POLL_NS;

	wait_until(sv, &sv->conn_cv, until < poll_at ? until : poll_at);
	if (client_gone(r->fd)) {
		client_abort(sv, r);
		return false;
	}
	return true;
}

static void *engine_main(void *arg)
{
	struct server *sv = arg;

	pthread_mutex_lock(&sv->mu);
	while (!sv->stopping) {
		int64_t next;
		if (catch_up(sv) < 0)
			break;
		next = sim_next_event_ns(sv->sim);
		wait_until(sv, &sv->engine_cv, next == INT64_MAX ? INT64_MAX : wall_of_sim(sv, next));
	}
	pthread_mutex_unlock(&sv->mu);
	return NULL;
}

/* --- JSON out --- */

struct jbuf {
	char *buf;
	size_t len;
	FILE *f;
	struct jw w;
};

static struct jw *jb_open(struct jbuf *b)
{
	b->buf = NULL;
	b->len = 0;
	if (!(b->f = open_memstream(&b->buf, &b->len)))
		BUG("open_memstream");
	jw_init(&b->w, b->f, false);
	return &b->w;
}

/* The text (its trailing newline dropped); the caller frees b->buf. */
static void jb_close(struct jbuf *b)
{
	fclose(b->f);
	while (b->len && b->buf[b->len - 1] == '\n')
		b->buf[--b->len] = '\0';
}

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type, char *body,
			       size_t len)
{
	struct MHD_Response *rs = mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result rc;

	mhd.add_response_header(rs, "Content-Type", type);
	rc = mhd.queue_response(c, status, rs);
	mhd.destroy_response(rs);
	return rc;
}

static enum MHD_Result respond_json(struct MHD_Connection *c, unsigned status, struct jbuf *b)
{
	jb_close(b);
	return respond(c, status, "application/json", b->buf, b->len);
}

static const char *error_type(unsigned status)
{
	switch (status) {
	case 400: return "BadRequestError";
	case 404: return "NotFoundError";
	case 405: return "MethodNotAllowedError";
	case 413: return "RequestEntityTooLargeError";
	case 503: return "ServiceUnavailableError";
	default: return "InternalServerError";
	}
}

/* OpenAI's error shape: {"error": {"message", "type", "param", "code"}}. */
static enum MHD_Result respond_error(struct MHD_Connection *c, unsigned status, const char *param,
				     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static enum MHD_Result respond_error(struct MHD_Connection *c, unsigned status, const char *param,
				     const char *fmt, ...)
{
	char msg[600];
	struct jbuf b;
	struct jw *w = jb_open(&b);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	jw_obj(w, NULL);
	jw_obj(w, "error");
	jw_str(w, "message", msg);
	jw_str(w, "type", error_type(status));
	if (param)
		jw_str(w, "param", param);
	else
		jw_null(w, "param");
	jw_int(w, "code", status);
	jw_end_obj(w);
	jw_end_obj(w);
	jw_finish(w);
	return respond_json(c, status, &b);
}

/* The placeholder text of output tokens [from, from + n): one short
 * common word a token. */
static void placeholder(struct sbuf *o, int64_t from, int64_t n)
{
	static const char *const words[] = {" the", " of", " and", " to", " a", " in"};
	int64_t i;

	for (i = from; i < from + n; i++)
		sb_puts(o, words[i % 6]);
}

static void usage_obj(struct jw *w, const struct live *r)
{
	jw_obj(w, "usage");
	jw_int(w, "prompt_tokens", r->prompt);
	jw_int(w, "total_tokens", r->prompt + r->max_tokens);
	jw_int(w, "completion_tokens", r->max_tokens);
	jw_end_obj(w);
}

/* A completion's JSON, tokens [from, from + n): one streamed chunk (finish:
 * the last; role: the first of a chat), or the whole answer (!stream, the
 * role and the usage in it). */
static void completion_json(const struct server *sv, const struct live *r, struct jw *w, int64_t from, int64_t n,
			    bool stream, bool finish, bool role)
{
	struct sbuf t;

	sb_init(&t);
	placeholder(&t, from, n);
	sb_putc(&t, '\0');
	jw_obj(w, NULL);
	jw_str(w, "id", r->rid);
	jw_str(w, "object", !r->chat ? "text_completion" : stream ? "chat.completion.chunk" : "chat.completion");
	jw_int(w, "created", r->created);
	jw_str(w, "model", sv->cfg->model_name);
	jw_arr(w, "choices");
	jw_obj(w, NULL);
	jw_int(w, "index", 0);
	if (r->chat) {
		jw_obj(w, stream ? "delta" : "message");
		if (role || !stream)
			jw_str(w, "role", "assistant");
		jw_str(w, "content", t.buf);
		jw_end_obj(w);
	} else {
		jw_str(w, "text", t.buf);
	}
	jw_null(w, "logprobs");
	if (finish || !stream)
		jw_str(w, "finish_reason", "length");
	else
		jw_null(w, "finish_reason");
	jw_end_obj(w);
	jw_end_arr(w);
	if (!stream)
		usage_obj(w, r);
	jw_end_obj(w);
	sb_release(&t);
}

static void sse(struct sbuf *o, struct jbuf *b)
{
	jb_close(b);
	sb_puts(o, "data: ");
	sb_put(o, b->buf, b->len);
	sb_puts(o, "\n\n");
	free(b->buf);
}

/* --- /v1/completions and /v1/chat/completions --- */

/* What a request body asks for, checked; 0, or an HTTP status with the
 * message in msg and the parameter in param. */
struct ask {
	int64_t prompt, max_tokens;
	bool stream, include_usage;
};

static int text_len(const struct json *v, int64_t *chars)
{
	const struct json *p;

	if (json_type_of(v) == JSON_STRING) {
		*chars += serve_text_tokens(json_string(v), 1); /* code points */
		return 0;
	}
	if (json_type_of(v) != JSON_ARRAY)
		return -1;
	/* chat content parts: [{"type": "text", "text": "..."}, ...] */
	for (p = json_first(v); p; p = json_next(p)) {
		const struct json *t = json_get(p, "text");
		if (json_type_of(p) != JSON_OBJECT)
			return -1;
		if (t && json_type_of(t) == JSON_STRING)
			*chars += serve_text_tokens(json_string(t), 1);
	}
	return 0;
}

/* The sampling fields servesim does not model (its tokens are not drawn:
 * every request runs to max_tokens) but checks as the OpenAI API types
 * them, as vLLM's request validation does, so a client's bad value is told
 * and not taken without a word: numbers in [lo, hi] ((lo, hi] when
 * lo_open), or null. */
static const struct sampling_field {
	const char *key;
	double lo, hi;
	bool lo_open;
	const char *range;
} sampling_fields[] = {
	{"temperature", 0, 2, false, "from 0 to 2"},
	{"top_p", 0, 1, true, "in (0, 1]"},
	{"presence_penalty", -2, 2, false, "from -2 to 2"},
	{"frequency_penalty", -2, 2, false, "from -2 to 2"},
};

/* 400 with msg and *param set when a field of q has a value of the wrong
 * type (sampling_fields, stop, seed, ignore_eos), else 0. */
static unsigned check_sampling(const struct json *q, const char **param, char *msg, size_t n)
{
	const struct json *v;
	size_t i;

	for (i = 0; i < sizeof(sampling_fields) / sizeof(sampling_fields[0]); i++) {
		const struct sampling_field *f = &sampling_fields[i];
		double d;
		if (!(v = json_get(q, f->key)) || json_type_of(v) == JSON_NULL)
			continue;
		d = json_type_of(v) == JSON_NUMBER ? json_number(v) : NAN;
		if (!(d >= f->lo && d <= f->hi) || (f->lo_open && d == f->lo))
			return *param = f->key, snprintf(msg, n, "'%s' must be a number %s", f->key, f->range), 400;
	}
	if ((v = json_get(q, "seed")) && json_type_of(v) != JSON_NULL &&
	    (json_type_of(v) != JSON_NUMBER || json_number(v) != floor(json_number(v))))
		return *param = "seed", snprintf(msg, n, "'seed' must be an integer"), 400;
	if ((v = json_get(q, "ignore_eos")) && json_type_of(v) != JSON_NULL && json_type_of(v) != JSON_BOOL)
		return *param = "ignore_eos", snprintf(msg, n, "'ignore_eos' must be true or false"), 400;
	if ((v = json_get(q, "stop")) && json_type_of(v) != JSON_NULL && json_type_of(v) != JSON_STRING) {
		const struct json *s;
		bool ok = json_type_of(v) == JSON_ARRAY;
		for (s = ok ? json_first(v) : NULL; s; s = json_next(s))
			ok = ok && json_type_of(s) == JSON_STRING;
		if (!ok)
			return *param = "stop", snprintf(msg, n, "'stop' must be a string or an array of strings"),
			       400;
	}
	return 0;
}

static unsigned parse_ask(const struct server *sv, const struct json *q, bool chat, struct ask *a,
			  const char **param, char *msg, size_t n)
{
	const struct json *v, *ids = json_get(q, "prompt_token_ids");
	unsigned rc;
	double d;

	memset(a, 0, sizeof(*a));
	if (json_type_of(q) != JSON_OBJECT)
		return snprintf(msg, n, "the request body must be a JSON object"), 400;
	v = json_get(q, "model");
	if (!v || json_type_of(v) != JSON_STRING)
		return *param = "model", snprintf(msg, n, "'model' is required: a string"), 400;
	if (strcmp(json_string(v), sv->cfg->model_name) != 0)
		return *param = "model",
		       snprintf(msg, n, "The model `%.200s` does not exist.", json_string(v)), 404;
	if ((v = json_get(q, "n")) && json_type_of(v) != JSON_NULL &&
	    (json_type_of(v) != JSON_NUMBER || json_number(v) != 1))
		return *param = "n", snprintf(msg, n, "servesim serves n = 1 only"), 400;
	if (ids && json_type_of(ids) != JSON_NULL) {
		/* servesim's extension: the prompt as token ids, its length exact */
		if (json_type_of(ids) != JSON_ARRAY || json_size(ids) == 0)
			return *param = "prompt_token_ids",
			       snprintf(msg, n, "'prompt_token_ids' must be a non-empty array of token ids"), 400;
		a->prompt = (int64_t)json_size(ids);
	} else if (chat) {
		const struct json *m;
		v = json_get(q, "messages");
		if (!v || json_type_of(v) != JSON_ARRAY || json_size(v) == 0)
			return *param = "messages", snprintf(msg, n, "'messages' must be a non-empty array"), 400;
		for (m = json_first(v); m; m = json_next(m)) {
			const struct json *c = json_get(m, "content");
			int64_t chars = 0;
			if (json_type_of(m) != JSON_OBJECT || !json_get(m, "role") ||
			    json_type_of(json_get(m, "role")) != JSON_STRING)
				return *param = "messages",
				       snprintf(msg, n, "each message needs a 'role' string"), 400;
			if (c && json_type_of(c) != JSON_NULL && text_len(c, &chars) < 0)
				return *param = "messages",
				       snprintf(msg, n, "a message's 'content' must be a string or an array of parts"), 400;
			/* ceil(characters / chars_per_token) + 4 for the role and
			 * the chat template's markers */
			a->prompt += (int64_t)ceil((double)chars / sv->cfg->chars_per_token) + 4;
		}
	} else {
		v = json_get(q, "prompt");
		if (!v)
			return *param = "prompt", snprintf(msg, n, "'prompt' is required"), 400;
		if (json_type_of(v) == JSON_STRING) {
			a->prompt = serve_text_tokens(json_string(v), sv->cfg->chars_per_token);
		} else if (json_type_of(v) == JSON_ARRAY && json_size(v) > 0 &&
			   json_type_of(json_first(v)) == JSON_NUMBER) {
			a->prompt = (int64_t)json_size(v); /* token ids */
		} else if (json_type_of(v) == JSON_ARRAY && json_size(v) == 1 &&
			   json_type_of(json_first(v)) == JSON_STRING) {
			a->prompt = serve_text_tokens(json_string(json_first(v)), sv->cfg->chars_per_token);
		} else {
			return *param = "prompt",
			       snprintf(msg, n, "'prompt' must be a string, one string in an array, or token ids (servesim serves one prompt a request)"),
			       400;
		}
	}
	if (a->prompt < 1)
		a->prompt = 1;
	v = json_get(q, "max_tokens");
	if ((!v || json_type_of(v) == JSON_NULL) && chat)
		v = json_get(q, "max_completion_tokens");
	if (!v || json_type_of(v) == JSON_NULL) {
		a->max_tokens = sv->cfg->default_max_tokens;
	} else {
		d = json_type_of(v) == JSON_NUMBER ? json_number(v) : -1;
		if (!(d >= 1) || d > (1 << 24) || d != floor(d))
			return *param = "max_tokens",
			       snprintf(msg, n, "'max_tokens' must be a whole number from 1 to 16777216"), 400;
		a->max_tokens = (int64_t)d;
	}
	if ((v = json_get(q, "stream")) && json_type_of(v) != JSON_NULL) {
		if (json_type_of(v) != JSON_BOOL)
			return *param = "stream", snprintf(msg, n, "'stream' must be true or false"), 400;
		a->stream = json_bool(v);
	}
	if ((v = json_get(q, "stream_options")) && json_type_of(v) != JSON_NULL) {
		if (json_type_of(v) != JSON_OBJECT)
			return *param = "stream_options",
			       snprintf(msg, n, "'stream_options' must be an object ({\"include_usage\": true})"), 400;
		if ((v = json_get(v, "include_usage")) && json_type_of(v) != JSON_NULL) {
			if (json_type_of(v) != JSON_BOOL)
				return *param = "stream_options",
				       snprintf(msg, n, "'stream_options.include_usage' must be true or false"), 400;
			a->include_usage = json_bool(v);
		}
	}
	if ((rc = check_sampling(q, param, msg, n)) != 0)
		return rc;
	if (a->prompt > (1 << 24))
		return *param = "prompt", snprintf(msg, n, "the prompt holds %lld tokens; servesim takes at most 16777216",
						   (long long)a->prompt), 400;
	return 0;
}

/* The whole response of a non-streamed request (every chunk sent). */
static enum MHD_Result respond_whole(struct server *sv, struct MHD_Connection *c, struct live *r)
{
	struct jbuf b;
	struct jw *w = jb_open(&b);

	completion_json(sv, r, w, 0, r->max_tokens, false, true, true);
	jw_finish(w);
	return respond_json(c, 200, &b);
}

/* The stream's next bytes (libmicrohttpd's content reader, on the
 * connection's thread): the chunks whose send time has come, then the end;
 * it sleeps until the next one is due. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct live *r = cls;
	struct server *sv = r->sv;
	ssize_t n = 0;

	(void)pos;
	pthread_mutex_lock(&sv->mu);
	for (;;) {
		if (r->out.len > r->out_off) {
			size_t k = r->out.len - r->out_off;
			if (k > max)
				k = max;
			memcpy(buf, r->out.buf + r->out_off, k);
			r->out_off += k;
			if (r->out_off == r->out.len) {
				sb_reset(&r->out);
				r->out_off = 0;
			}
			n = (ssize_t)k;
			break;
		}
		if (r->finished) {
			n = MHD_CONTENT_READER_END_OF_STREAM;
			break;
		}
		if (sv->stopping || sv->failed || r->failed) {
			n = MHD_CONTENT_READER_END_WITH_ERROR;
			break;
		}
		if (r->next < r->nch && r->ch[r->next].at_ns <= wall_ns(sv)) {
			const struct chunk *c = &r->ch[r->next++];
			struct jbuf b;
			completion_json(sv, r, jb_open(&b), r->sent_tokens, c->tokens, true, c->last, !r->role_sent);
			sse(&r->out, &b);
			r->role_sent = true;
			r->sent_tokens += c->tokens;
			if (c->last) {
				if (r->include_usage) {
					struct jw *w = jb_open(&b);
					jw_obj(w, NULL);
					jw_str(w, "id", r->rid);
					jw_str(w, "object", r->chat ? "chat.completion.chunk" : "text_completion");
					jw_int(w, "created", r->created);
					jw_str(w, "model", sv->cfg->model_name);
					jw_arr(w, "choices");
					jw_end_arr(w);
					usage_obj(w, r);
					jw_end_obj(w);
					sse(&r->out, &b);
				}
				sb_puts(&r->out, "data: [DONE]\n\n");
				r->finished = true;
			}
			continue;
		}
		if (!conn_wait(sv, r, r->next < r->nch ? r->ch[r->next].at_ns : INT64_MAX)) {
			n = MHD_CONTENT_READER_END_WITH_ERROR;
			break;
		}
	}
	pthread_mutex_unlock(&sv->mu);
	return n;
}

/* The stream's response is gone (sent, or the client went away). */
static void stream_free(void *cls)
{
	struct live *r = cls;
	struct server *sv = r->sv;

	pthread_mutex_lock(&sv->mu);
	sv->running_http--;
	if (!r->finished) /* the client went away (a write failed) */
		client_abort(sv, r);
	live_release(sv, r, true);
	pthread_mutex_unlock(&sv->mu);
}

static enum MHD_Result generate(struct server *sv, struct MHD_Connection *c, const char *body, size_t len,
				bool chat, int64_t headers_ns)
{
	struct json *q = NULL;
	struct err pe;
	struct ask a;
	const char *param = NULL;
	char msg[600];
	unsigned st;
	struct live *r;
	enum reject_reason why;
	enum MHD_Result rc;
	int64_t id;
	int k;

	err_clear(&pe);
	if (json_parse(body, len, "request", &q, &pe) < 0)
		return respond_error(c, 400, NULL, "invalid JSON body: %s", pe.msg);
	st = parse_ask(sv, q, chat, &a, &param, msg, sizeof(msg));
	json_free(q);
	if (st)
		return respond_error(c, st, param, "%s", msg);
	if (a.prompt + a.max_tokens > sv->st->sc.max_model_len)
		return respond_error(c, 400, "max_tokens",
				     "This model's maximum context length is %lld tokens. However, you requested %lld tokens (%lld in the %s, %lld in the completion). Please reduce the length of the %s or completion.",
				     (long long)sv->st->sc.max_model_len, (long long)(a.prompt + a.max_tokens),
				     (long long)a.prompt, chat ? "messages" : "prompt", (long long)a.max_tokens,
				     chat ? "messages" : "prompt");
	r = xcalloc(1, sizeof(*r));
	r->sv = sv;
	r->chat = chat;
	r->stream = a.stream;
	r->include_usage = a.include_usage;
	r->prompt = a.prompt;
	r->max_tokens = a.max_tokens;
	r->created = sv->created;
	{
		const union MHD_ConnectionInfo *ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		r->fd = ci ? ci->connect_fd : -1;
	}
	sb_init(&r->out);
	pthread_mutex_lock(&sv->mu);
	if (catch_up(sv) < 0 || sv->stopping) {
		pthread_mutex_unlock(&sv->mu);
		free(r);
		return respond_error(c, 503, NULL, "the simulation has stopped%s%s", sv->failed ? ": " : "",
				     sv->failed ? sv->err.msg : "");
	}
	r->arrival_ns = sim_now_ns(sv->sim);
	r->early_ns = wall_ns(sv) - headers_ns;
	if (r->early_ns > wall_of_sim(sv, sv->api_ttft_ns))
		r->early_ns = wall_of_sim(sv, sv->api_ttft_ns);
	if (r->early_ns < 0)
		r->early_ns = 0;
	r->in_sim = r->in_conn = true;
	/* its slot first: the simulation may reject it within sim_submit */
	id = (int64_t)sv->nid;
	XGROW(sv->by_id, sv->cap_id, sv->nid + 1);
	sv->by_id[sv->nid++] = r;
	r->id = id;
	snprintf(r->rid, sizeof(r->rid), "%s-%lld", chat ? "chatcmpl" : "cmpl", (long long)id);
	k = sim_submit(sv->sim, a.prompt, a.max_tokens, &id, &why, &sv->err);
	if (k >= 0 && id != r->id)
		BUG("serve: request ids out of step with the simulation's");
	if (k <= 0) {
		bool err = k < 0;
		r->in_sim = false;
		live_release(sv, r, true);
		pthread_mutex_unlock(&sv->mu);
		if (err)
			return respond_error(c, 500, NULL, "%s", sv->err.msg);
		return respond_error(c, 400, NULL, "%s",
				     why == REJ_TOO_LONG
					     ? "the prompt and max_tokens exceed max_model_len"
					     : "the request needs more KV cache than the engine has (prompt + max_tokens)");
	}
	sv->prompt_tokens += (uint64_t)a.prompt;
	pthread_cond_signal(&sv->engine_cv); /* a step may start now */
	if (r->stream) {
		struct MHD_Response *rs;
		sv->running_http++;
		pthread_mutex_unlock(&sv->mu);
		rs = mhd.create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, stream_read, r, stream_free);
		mhd.add_response_header(rs, "Content-Type", "text/event-stream");
		mhd.add_response_header(rs, "Cache-Control", "no-cache");
		rc = mhd.queue_response(c, 200, rs);
		mhd.destroy_response(rs);
		return rc;
	}
	/* the whole answer when the last chunk's time has come */
	while (!sv->stopping && !sv->failed && !r->failed &&
	       !(r->nch > 0 && r->ch[r->nch - 1].last && r->ch[r->nch - 1].at_ns <= wall_ns(sv)))
		if (!conn_wait(sv, r, r->nch > 0 && r->ch[r->nch - 1].last ? r->ch[r->nch - 1].at_ns : INT64_MAX)) {
			live_release(sv, r, true);
			pthread_mutex_unlock(&sv->mu);
			return MHD_NO; /* nobody to answer */
		}
	if (sv->stopping || sv->failed || r->failed) {
		bool failed = r->failed;
		live_release(sv, r, true);
		pthread_mutex_unlock(&sv->mu);
		return respond_error(c, failed ? 400 : 503, NULL, "%s",
				     failed ? "the request was preempted and no longer fits the KV cache"
					    : "the server is stopping");
	}
	pthread_mutex_unlock(&sv->mu);
	rc = respond_whole(sv, c, r);
	pthread_mutex_lock(&sv->mu);
	live_release(sv, r, true);
	pthread_mutex_unlock(&sv->mu);
	return rc;
}

/* --- /v1/models, /metrics --- */

static enum MHD_Result models(struct server *sv, struct MHD_Connection *c)
{
	struct jbuf b;
	struct jw *w = jb_open(&b);

	jw_obj(w, NULL);
	jw_str(w, "object", "list");
	jw_arr(w, "data");
	jw_obj(w, NULL);
	jw_str(w, "id", sv->cfg->model_name);
	jw_str(w, "object", "model");
	jw_int(w, "created", sv->created);
	jw_str(w, "owned_by", "servesim");
	jw_str(w, "root", sv->cfg->model_name);
	jw_int(w, "max_model_len", sv->st->sc.max_model_len);
	jw_end_obj(w);
	jw_end_arr(w);
	jw_end_obj(w);
	jw_finish(w);
	return respond_json(c, 200, &b);
}

static void prom_head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void prom_hist(FILE *f, const char *name, const char *help, const struct hist *h, const char *model)
{
	uint64_t cum = 0;
	size_t i;

	prom_head(f, name, "histogram", help);
	for (i = 0; i < h->n; i++) {
		cum += h->count[i];
		fprintf(f, "%s_bucket{le=\"%g\",model_name=\"%s\"} %llu\n", name, h->le[i], model,
			(unsigned long long)cum);
	}
	cum += h->count[h->n];
	fprintf(f, "%s_bucket{le=\"+Inf\",model_name=\"%s\"} %llu\n", name, model, (unsigned long long)cum);
	fprintf(f, "%s_sum{model_name=\"%s\"} %.9g\n%s_count{model_name=\"%s\"} %llu\n", name, model, h->sum, name,
		model, (unsigned long long)cum);
}

static enum MHD_Result metrics(struct server *sv, struct MHD_Connection *c)
{
	char *buf = NULL, model[256];
	size_t len = 0, i, j = 0;
	uint64_t running, waiting;
	FILE *f = open_memstream(&buf, &len);
	double kv;

	if (!f)
		BUG("open_memstream");
	/* a label value: backslash, quote and newline escaped */
	for (i = 0; sv->cfg->model_name[i] && j + 3 < sizeof(model); i++) {
		char ch = sv->cfg->model_name[i];
		if (ch == '\\' || ch == '"' || ch == '\n') {
			model[j++] = '\\';
			ch = ch == '\n' ? 'n' : ch;
		}
		model[j++] = ch;
	}
	model[j] = '\0';
	pthread_mutex_lock(&sv->mu);
	catch_up(sv);
	sim_queue_counts(sv->sim, &running, &waiting);
	kv = sim_kv_usage(sv->sim);
	prom_head(f, "vllm:num_requests_running", "gauge", "Number of requests in model execution batches.");
	fprintf(f, "vllm:num_requests_running{model_name=\"%s\"} %llu\n", model, (unsigned long long)running);
	prom_head(f, "vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.");
	fprintf(f, "vllm:num_requests_waiting{model_name=\"%s\"} %llu\n", model, (unsigned long long)waiting);
	prom_head(f, "vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.");
	fprintf(f, "vllm:kv_cache_usage_perc{model_name=\"%s\"} %.6g\n", model, kv);
	prom_head(f, "vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.");
	fprintf(f, "vllm:gpu_cache_usage_perc{model_name=\"%s\"} %.6g\n", model, kv);
	prom_head(f, "vllm:num_preemptions_total", "counter", "Cumulative number of preemptions from the engine.");
	fprintf(f, "vllm:num_preemptions_total{model_name=\"%s\"} %llu\n", model,
		(unsigned long long)sim_totals(sv->sim)->preemptions);
	prom_head(f, "vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.");
	fprintf(f, "vllm:prompt_tokens_total{model_name=\"%s\"} %llu\n", model, (unsigned long long)sv->prompt_tokens);
	prom_head(f, "vllm:generation_tokens_total", "counter", "Number of generation tokens processed.");
	fprintf(f, "vllm:generation_tokens_total{model_name=\"%s\"} %llu\n", model,
		(unsigned long long)sv->generation_tokens);
	/* one series per finish reason, as vLLM's (a request always runs to
	 * max_tokens here: none stops; an aborted one's client went away) */
	prom_head(f, "vllm:request_success_total", "counter", "Count of successfully processed requests.");
	fprintf(f, "vllm:request_success_total{finished_reason=\"stop\",model_name=\"%s\"} 0\n", model);
	fprintf(f, "vllm:request_success_total{finished_reason=\"length\",model_name=\"%s\"} %llu\n", model,
		(unsigned long long)sv->success);
	fprintf(f, "vllm:request_success_total{finished_reason=\"abort\",model_name=\"%s\"} %llu\n", model,
		(unsigned long long)sv->aborted);
	prom_hist(f, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", &sv->ttft,
		  model);
	prom_hist(f, "vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", &sv->itl,
		  model);
	prom_hist(f, "vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", &sv->e2e,
		  model);
	prom_hist(f, "vllm:request_queue_time_seconds",
		  "Histogram of time spent in WAITING phase for request.", &sv->queue, model);
	pthread_mutex_unlock(&sv->mu);
	fclose(f);
	return respond(c, 200, "text/plain; version=0.0.4; charset=utf-8", buf, len);
}

/* --- connections --- */

/* A request's body as it arrives (at most max_body_bytes + 1 kept). */
struct body {
	struct sbuf b;
	bool too_large;
	int64_t headers_ns; /* wall time the headers came */
};

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			       const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct server *sv = cls;
	struct body *bd = *con_cls;
	bool post = strcmp(method, "POST") == 0, get = strcmp(method, "GET") == 0;

	(void)version;
	if (!bd) { /* the headers: the body follows */
		bd = xcalloc(1, sizeof(*bd));
		sb_init(&bd->b);
		bd->headers_ns = wall_ns(sv);
		*con_cls = bd;
		return MHD_YES;
	}
	if (*upload_size) {
		if (bd->b.len + *upload_size > sv->cfg->max_body_bytes)
			bd->too_large = true;
		else
			sb_put(&bd->b, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/health") == 0 || strcmp(url, "/v1/models") == 0 || strcmp(url, "/metrics") == 0) {
		if (!get)
			return respond_error(c, 405, NULL, "%s takes GET", url);
		if (url[1] == 'h')
			return respond(c, 200, "text/plain", xstrdup(""), 0);
		return url[1] == 'v' ? models(sv, c) : metrics(sv, c);
	}
	if (strcmp(url, "/v1/completions") == 0 || strcmp(url, "/v1/chat/completions") == 0) {
		if (!post)
			return respond_error(c, 405, NULL, "%s takes POST", url);
		if (bd->too_large)
			return respond_error(c, 413, NULL, "the request body is larger than %zu bytes",
					     sv->cfg->max_body_bytes);
		return generate(sv, c, bd->b.buf ? bd->b.buf : "", bd->b.len, strcmp(url, "/v1/chat/completions") == 0,
				bd->headers_ns);
	}
	return respond_error(c, 404, NULL, "no route %s %s", method, url);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct body *bd = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (bd) {
		sb_release(&bd->b);
		free(bd);
		*con_cls = NULL;
	}
}

/* --- the server --- */

int64_t serve_text_tokens(const char *text, double chars_per_token)
{
	int64_t chars = 0;
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p; p++)
		chars += (*p & 0xc0) != 0x80; /* UTF-8: count the lead bytes */
	if (chars_per_token <= 1)
		return chars;
	return chars > 0 ? (int64_t)ceil((double)chars / chars_per_token) : 1;
}

int serve_run(const struct scenario_state *st, const struct wl_spec *wl, const struct serve_cfg *cfg,
	      struct err *e)
{
	struct server *sv = xcalloc(1, sizeof(*sv));
	struct sim_cfg sc = st->sc;
	struct sockaddr_in addr;
	struct MHD_Daemon *d = NULL;
	const union MHD_DaemonInfo *info;
	pthread_condattr_t ca;
	const char *host = strcmp(cfg->host, "localhost") == 0 ? "127.0.0.1" : cfg->host;
	size_t i;
	int rc = 0;
	bool engine = false;

	sv->cfg = cfg;
	sv->st = st;
	sv->ttft = (struct hist){ttft_le, sizeof(ttft_le) / sizeof(ttft_le[0]), {0}, 0};
	sv->itl = (struct hist){itl_le, sizeof(itl_le) / sizeof(itl_le[0]), {0}, 0};
	sv->e2e = (struct hist){e2e_le, sizeof(e2e_le) / sizeof(e2e_le[0]), {0}, 0};
	sv->queue = (struct hist){ttft_le, sizeof(ttft_le) / sizeof(ttft_le[0]), {0}, 0};
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)cfg->port);
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
		free(sv);
		return err_set(e, SS_EUSAGE, "--host must be an IPv4 address (or localhost), got '%s'", cfg->host);
	}
	if ((rc = mhd_open(e)) < 0) {
		free(sv);
		return rc;
	}
	/* the client-side API terms, as `run` adds them (cost overheads, H2) */
	if (!(st->cost.cfg.off & COST_H2)) {
		sv->api_ttft_ns = (int64_t)llround(st->cost.cfg.ov.api_ttft_ms * 1e6);
		sv->api_e2e_ns = (int64_t)llround(st->cost.cfg.ov.api_e2e_ms * 1e6);
		sv->stream_token_ns = (int64_t)llround(st->cost.cfg.ov.stream_token_us * 1e3);
	}
	sc.live = true;
	sc.on_chunk = on_chunk;
	sc.on_chunk_ctx = sv;
	sc.on_request = on_request;
	sc.on_request_ctx = sv;
	sc.requests_out = cfg->requests_out;
	sc.step_log = NULL;
	sc.check_invariants = false;
	if ((rc = sim_new(&sc, &st->cost, wl, &sv->sim, e)) < 0) {
		free(sv);
		return rc;
	}
	pthread_mutex_init(&sv->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sv->engine_cv, &ca);
	pthread_cond_init(&sv->conn_cv, &ca);
	pthread_condattr_destroy(&ca);
	clock_gettime(CLOCK_MONOTONIC, &sv->start);
	sv->created = (int64_t)time(NULL);
	if (pthread_create(&sv->engine, NULL, engine_main, sv) != 0) {
		rc = err_set(e, SS_ERUNTIME, "cannot start the engine thread");
		goto out;
	}
	engine = true;
	d = mhd.start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
			     handler, sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
			     MHD_OPTION_NOTIFY_COMPLETED, completed, sv, MHD_OPTION_CONNECTION_TIMEOUT,
			     (unsigned int)0, MHD_OPTION_END);
	if (!d) {
		rc = err_set(e, SS_EUSAGE, "cannot listen on %s:%d (in use, or not an address of this machine)",
			     cfg->host, cfg->port);
		goto out;
	}
	info = mhd.get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (cfg->ready)
		cfg->ready(cfg->ctx, host, info ? info->port : cfg->port);
	cfg->wait_stop(cfg->ctx);
out:
	pthread_mutex_lock(&sv->mu);
	sv->stopping = true;
	pthread_cond_broadcast(&sv->engine_cv);
	pthread_cond_broadcast(&sv->conn_cv);
	pthread_mutex_unlock(&sv->mu);
	if (d)
		mhd.stop_daemon(d); /* waits for the connections' threads */
	if (engine)
		pthread_join(sv->engine, NULL);
	if (rc == 0 && sv->failed) {
		*e = sv->err;
		rc = -SS_ERUNTIME;
	}
	/* requests the simulation still held */
	for (i = 0; i < sv->nid; i++)
		if (sv->by_id[i]) {
			struct live *r = sv->by_id[i];
			r->in_conn = false;
			live_release(sv, r, false);
		}
	free(sv->by_id);
	sim_free(sv->sim);
	pthread_cond_destroy(&sv->engine_cv);
	pthread_cond_destroy(&sv->conn_cv);
	pthread_mutex_destroy(&sv->mu);
	free(sv);
	return rc;
}
