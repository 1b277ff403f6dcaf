/* mfucache.h - kernel tables loaded once per process and shared.
 *
 * `eval`, `calibrate` and sweeps build many cost models for the same GPU and
 * engine; parsing the gzip CSV tables dominates their start-up.  A cache
 * holds each (GPU, engine, version, H6 switch) set of tables once; cost
 * models borrow them read-only.  Thread-safe: simulations on threads may
 * share one cache (calibrate --jobs). */
#ifndef SERVESIM_MFUCACHE_H
#define SERVESIM_MFUCACHE_H
#include <stdbool.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "hw/mfu.h"
#include "hw/csatab.h"
#include "hw/dsatab.h"
#include "hw/moetab.h"

struct mfu_cache; /* opaque */

struct mfu_cache *mfu_cache_new(void);
void mfu_cache_free(struct mfu_cache *c);
/* The tables of g for engine/fallback/version (mfu_load's rules), with `nearest`
 * lookups (H6 off) as asked and the fused-MoE tables of distribution
 * moe_dist loaded when want_moe; owned by the cache, valid until
 * mfu_cache_free. */
int mfu_cache_get(struct mfu_cache *c, const char *data_dir, const struct gpu_spec *g,
		  const char *engine, const char *fallback, const char *version, bool nearest, bool want_moe,
		  enum moe_dist moe_dist, const struct mfu_tables **out, struct err *e);

/* The DSA module table at path (dsatab_load), parsed once per process;
 * owned by the cache, read-only, valid until mfu_cache_free. */
int mfu_cache_dsatab(struct mfu_cache *c, const char *path, const struct dsatab **out, struct err *e);
/* The same for a DeepSeek-V4 block table (csatab_load). */
int mfu_cache_csatab(struct mfu_cache *c, const char *path, const struct csatab **out, struct err *e);
/* One MoE backend's table at path (moetab_load_dist: distribution d,
 * efficiencies against g's table peaks), parsed once per process for
 * (path, g, d); owned by the cache, read-only, valid until mfu_cache_free. */
int mfu_cache_moetab(struct mfu_cache *c, const char *path, const struct gpu_spec *g, enum moe_dist d,
		     const struct moetab **out, struct err *e);

/* Any other read-only table a cost model loads from data_dir, by key: made
 * once per process by load(data_dir, &obj, e) and freed by drop(obj) at
 * mfu_cache_free (a caller above this layer passes its loader: the
 * communication fits, cost/comm.c). */
int mfu_cache_obj(struct mfu_cache *c, const char *key, const char *data_dir,
		  int (*load)(const char *data_dir, void **obj, struct err *e), void (*drop)(void *obj),
		  const void **out, struct err *e);

#endif
