/* registry.h - the engines servesim knows (engine.h), by name. */
#ifndef SERVESIM_ENGINE_REGISTRY_H
#define SERVESIM_ENGINE_REGISTRY_H
#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "base/err.h"

/* The engine called name, or NULL.  NULL or "" names the default engine. */
const struct engine_type *engine_find(const char *name);
/* engine_find, SS_EUSAGE "unknown engine 'x' (expected vllm, sglang or
 * trtllm)" when there is none. */
int engine_lookup(const char *name, const struct engine_type **out, struct err *e);
/* An engine version as given (--engine-version): digits and dots first
 * ("abc" or "" picked the oldest or the newest collection without a word);
 * SS_EUSAGE otherwise. */
int engine_version_check(const char *v, struct err *e);
/* The same as a flag table's parser (argtab.h AT_FUNC): arg checked and
 * kept in the const char * at dst. */
int engine_version_arg(const char *flag, const char *arg, void *dst, struct err *e);
/* A version ("0.12.0", "1.2.0rc6.post2") as major x 1e6 + minor x 1e3 +
 * patch, for ordering; -1 when it does not start with a digit ("",
 * "unknown", "nightly-..."). */
double engine_version_value(const char *v);
/* Is version v known (engine_version_value >= 0) and below ref?  An empty
 * or unparsable version is taken as the newest: false. */
bool engine_version_before(const char *v, const char *ref);
/* en's host terms for version under harness (NULL or "": none said): the
 * first row of en->host for that harness (or for any) whose from is at or
 * below version, comparing major.minor.patch numerically; an empty or
 * unparsable version takes the first row for the harness.  pd: a P/D
 * worker (rows fitted on aggregated runs do not hold); spec: speculative
 * decoding on (only then do the speculative rows hold). */
const struct engine_host *engine_host_for(const struct engine_type *en, const char *version, bool pd, bool spec,
					  const char *harness);
/* The row of en->host whose fit h shares: the first with the same fitted
 * terms (engine_host.fit) at the same values (h itself when none before
 * it), so rows that differ elsewhere (a harness row that does not overlap
 * the CPU terms) count as one fit for eval --cv. */
const struct engine_host *engine_host_fit(const struct engine_type *en, const struct engine_host *h);
/* The host terms of engine `name` (NULL or "": the default engine) at
 * version into ov, nothing given; cost_default_overheads' for an engine
 * servesim does not know. */
void engine_host_terms(const char *name, const char *version, const char *harness, struct overheads *ov);
/* The engine a deployment runs on when it names none (vLLM). */
const struct engine_type *engine_default(void);
/* The i-th engine in the registry's order (help texts, lists), NULL past
 * the last. */
const struct engine_type *engine_at(size_t i);
/* The first engine that takes the setting `knob` (enum engine_knob), or
 * NULL: whom a refusal of it names. */
const struct engine_type *engine_owner(unsigned knob);
/* Their names as a list in words, "vllm, sglang or trtllm", joined by
 * `conj` ("or", "and"); launch_only: those with launch lines only. */
void engine_names(char *out, size_t n, const char *conj, bool launch_only);
/* The command-line settings only some engines take, given (enum
 * engine_knob bits) for engine en: SS_EUSAGE naming the flags and the
 * engine that takes them when en does not, or when en sizes its memory
 * with its own flag and --gpu-memory-utilization was given (util_given). */
int engine_check_knobs(const struct engine_type *en, unsigned given, bool util_given, struct err *e);
/* KV offload's flags for engine en: vllm_flags (--kv-offloading-size or
 * --kv-offloading-backend) and hicache_flags (--enable-hierarchical-cache,
 * --hicache-ratio, --hicache-size) given; SS_EUSAGE naming the flags, the
 * engine that takes them and en's own way to offload, when en takes
 * neither kind given or both were given. */
int engine_check_offload(const struct engine_type *en, bool vllm_flags, bool hicache_flags, struct err *e);
/* LoRA's flags for engine en: lora (--enable-lora or --max-lora-rank),
 * vllm_flags (--max-loras, --max-cpu-loras), sglang_flags
 * (--max-loras-per-batch, --max-loaded-loras) given; SS_EUSAGE naming the
 * flags and the engine that takes them when en takes none or the other
 * engine's, or when a limit comes without --enable-lora. */
int engine_check_lora(const struct engine_type *en, bool lora, bool vllm_flags, bool sglang_flags, struct err *e);
/* EPLB's flags for engine en, as engine_check_lora: eplb (--enable-eplb),
 * vllm_flags (--eplb-config, --num-redundant-experts), sglang_flags
 * (--ep-num-redundant-experts, --eplb-rebalance-num-iterations). */
int engine_check_eplb(const struct engine_type *en, bool eplb, bool vllm_flags, bool sglang_flags, struct err *e);

#endif
