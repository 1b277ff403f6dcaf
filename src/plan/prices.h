/* prices.h - the $/GPU-hour table (data/prices.json, or --prices FILE):
 * {"currency": "USD", "retrieved": "...", "gpus": {"ID": {"usd_per_gpu_hour":
 * X, "source": "...", "note": "..."}}}.  Keys are GPU ids or aliases as
 * data/gpus.json spells them; the caller resolves them. */
#ifndef SERVESIM_PRICES_H
#define SERVESIM_PRICES_H
#include <stddef.h>

#include "base/err.h"

struct price {
	char gpu[48];
	double usd_per_gpu_hour;
	char source[256];
};

struct prices {
	char path[512];
	char retrieved[64];
	struct price *p;
	size_t n;
};

/* SS_EDATA naming the file, the JSON path and what was expected. */
int prices_load(const char *path, struct prices *t, struct err *e);
/* The same from len bytes of text; source names it in messages. */
int prices_parse(const char *text, size_t len, const char *source, struct prices *t, struct err *e);
void prices_release(struct prices *t);
/* The price of GPU gpu_id (data/gpus.json's id) in t, whose keys are
 * resolved through db: *usd, NAN when t has none; SS_EDATA for a key that
 * names no GPU. */
struct gpu_db;
int prices_find(const struct prices *t, const struct gpu_db *db, const char *gpu_id, double *usd, struct err *e);

#endif
