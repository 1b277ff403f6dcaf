/* facts.h - engine facts and experiment configs of ground-truth folders. */
#ifndef SERVESIM_CALIB_FACTS_H
#define SERVESIM_CALIB_FACTS_H
#include <stdint.h>

#include "base/err.h"

struct engine_facts {
	char version[32];
	int64_t kv_blocks, mbt, mns, mml;
	int tp;
	int prefix_caching;   /* -1 unknown */
};

struct exp_config {
	char model[128];
	int tp;
	int64_t mml, mbt, mns;  /* 0 when absent */
};

void facts_init(struct engine_facts *f);
int facts_read_json(const char *path, struct engine_facts *f, struct err *e);
int facts_read_log(const char *path, struct engine_facts *f, struct err *e);
int facts_read_exp_config(const char *path, struct exp_config *c, struct err *e);

#endif
