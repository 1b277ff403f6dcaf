/* mooncake.h - Mooncake traces as a trace workload (mooncake.c). */
#ifndef SERVESIM_READERS_MOONCAKE_H
#define SERVESIM_READERS_MOONCAKE_H
#include "base/err.h"
#include "workload/workload.h"

/* Tokens per hash id (Mooncake FAST25-release/traces/README: block size 512). */
#define MOONCAKE_BLOCK_TOKENS 512

/* The trace at path (JSON lines, plain or gzip) into wl, released and set
 * anew: process trace, its requests in wl->records (arrival order, ids'
 * keys in wl_req.keys), key_tokens MOONCAKE_BLOCK_TOKENS, all owned by wl
 * (wl_spec_release frees them).  SS_EDATA naming file:line, field and value
 * for a bad line; wl untouched on error. */
int mooncake_read(const char *path, struct wl_spec *wl, struct err *e);

/* The slice a benchmark replays of a trace read by mooncake_read: its first
 * requests (0: all; at most wl->nrecords, else SS_EDATA naming ctx and the
 * trace's count) with every arrival divided by speedup (> 0; aiperf's and
 * Dynamo's "4x" replays: timestamp / 4), ctx naming the fields for errors. */
int mooncake_slice(struct wl_spec *wl, int64_t requests, double speedup, const char *ctx, struct err *e);

#endif
