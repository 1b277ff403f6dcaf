/* registry.c - the engines servesim knows, in the order lists show them; a
 * new engine is one line here and its own file. */
#include "engine/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct engine_type engine_vllm, engine_sglang, engine_trtllm;

static const struct engine_type *const engines[] = {&engine_vllm, &engine_sglang, &engine_trtllm};

#define NENGINES (sizeof(engines) / sizeof(engines[0]))

const struct engine_type *engine_at(size_t i)
{
	return i < NENGINES ? engines[i] : NULL;
}

/* "0.12.0", "1.2.0rc6.post2", "nightly-..." as major*1e6 + minor*1e3 +
 * patch, -1 when it does not start with a digit */
static double version_value(const char *v)
{
	double part[3] = {0, 0, 0};
	int i = 0;

	if (!v || *v < '0' || *v > '9')
		return -1;
	while (*v && i < 3) {
		if (*v >= '0' && *v <= '9') {
			char *end;
			/* whole numbers: strtod would read "0.12" of "0.12.0" as
			 * one part and order 0.9 above 0.12 */
			part[i++] = (double)strtol(v, &end, 10);
			v = end;
		} else if (*v == '.') {
			v++;
		} else {
			break;
		}
	}
	return part[0] * 1e6 + part[1] * 1e3 + part[2];
}

double engine_version_value(const char *v)
{
	return version_value(v);
}

bool engine_version_before(const char *v, const char *ref)
{
	double x = version_value(v);

	return x >= 0 && x < version_value(ref);
}

/* Is name one of list's comma-separated names? */
static bool harness_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (n > 0 && (p = strstr(p, name)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

const struct engine_host *engine_host_for(const struct engine_type *en, const char *version, bool pd, bool spec,
					  const char *harness)
{
	double want = version_value(version);
	const struct engine_host *last = NULL;
	size_t i;

	for (i = 0; i < en->nhost; i++) {
		const struct engine_host *h = &en->host[i];
		if (h->harness && (!harness || !harness_listed(h->harness, harness)))
			continue;
		if ((pd && h->agg_only) || (h->spec && !spec))
			continue;
		if (want < 0 || !h->from[0] || version_value(h->from) <= want)
			return h;
		last = h;
	}
	return last;
}

const struct engine_host *engine_host_fit(const struct engine_type *en, const struct engine_host *h)
{
	size_t i;

	for (i = 0; i < en->nhost && &en->host[i] != h; i++)
		if (en->host[i].fit == h->fit && cost_overheads_same(&en->host[i].ov, &h->ov, h->fit))
			return &en->host[i];
	return h;
}

void engine_host_terms(const char *name, const char *version, const char *harness, struct overheads *ov)
{
	const struct engine_type *en = engine_find(name);
	const struct engine_host *h = en ? engine_host_for(en, version, false, false, harness) : NULL;

	if (h) {
		*ov = h->ov;
		ov->given = 0;
	} else {
		cost_default_overheads(ov);
	}
}

const struct engine_type *engine_default(void)
{
	return engines[0];
}

const struct engine_type *engine_find(const char *name)
{
	size_t i;

	if (!name || !*name)
		return engine_default();
	for (i = 0; i < NENGINES; i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

void engine_names(char *out, size_t n, const char *conj, bool launch_only)
{
	const struct engine_type *pick[NENGINES];
	size_t i, k = 0, len = 0;

	for (i = 0; i < NENGINES; i++)
		if (!launch_only || engines[i]->launch)
			pick[k++] = engines[i];
	if (n)
		out[0] = '\0';
	for (i = 0; i < k && len < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 < k ? ", " : " ";
		int w = snprintf(out + len, n - len, "%s%s%s%s", sep, i > 0 && i + 1 == k ? conj : "",
				 i > 0 && i + 1 == k ? " " : "", pick[i]->name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

int engine_version_check(const char *v, struct err *e)
{
	const char *p = v;

	/* digits, dotted (up to four parts), then an optional suffix of
	 * letters, digits, '.', '-' or '+' (1.3.0rc20, 1.1.0-dev.2) */
	if (!*p || *p < '0' || *p > '9' || strlen(v) >= 32)
		goto bad;
	while ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9'))
		p++;
	for (; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      *p == '.' || *p == '-' || *p == '+'))
			goto bad;
	return 0;
bad:
	return err_set(e, SS_EUSAGE, "--engine-version must be a version like 0.11.0 or 1.3.0rc20, got '%.40s'", v);
}

int engine_version_arg(const char *flag, const char *arg, void *dst, struct err *e)
{
	(void)flag;
	*(const char **)dst = arg;
	return engine_version_check(arg, e);
}

int engine_lookup(const char *name, const struct engine_type **out, struct err *e)
{
	char names[128];

	if ((*out = engine_find(name)) != NULL)
		return 0;
	engine_names(names, sizeof(names), "or", false);
	return err_set(e, SS_EUSAGE, "unknown engine '%s' (expected %s)", name, names);
}

const struct engine_type *engine_owner(unsigned knob)
{
	size_t i;

	for (i = 0; i < NENGINES; i++)
		if (engines[i]->knobs & knob)
			return engines[i];
	return NULL;
}

/* The command-line flags of the engine-specific settings. */
static const struct {
	unsigned knob;
	const char *flag;
} knob_flags[] = {
	{ENGINE_KNOB_MEM_FRACTION, "--mem-fraction-static"},
	{ENGINE_KNOB_SCHEDULE_POLICY, "--schedule-policy"},
	{ENGINE_KNOB_NO_OVERLAP, "--disable-overlap-schedule"},
	{ENGINE_KNOB_MAX_PREFILL, "--max-prefill-tokens"},
	{ENGINE_KNOB_MIXED_CHUNK, "--enable-mixed-chunk"},
	{ENGINE_KNOB_RECV_INTERVAL, "--scheduler-recv-interval"},
	{ENGINE_KNOB_NO_DEEP_GEMM, "--no-deep-gemm"},
	{ENGINE_KNOB_DP_LM_HEAD, "--enable-dp-lm-head"},
	{ENGINE_KNOB_MOE_DENSE_TP, "--moe-dense-tp-size"},
};

#define NKNOB_FLAGS (sizeof(knob_flags) / sizeof(knob_flags[0]))

int engine_check_knobs(const struct engine_type *en, unsigned given, bool util_given, struct err *e)
{
	const struct engine_type *owner = NULL;
	unsigned refused = given & ~en->knobs;
	char flags[256];
	size_t i, k = 0, nf = 0, len = 0;

	/* the flags given that the engine does not take, in words */
	for (i = 0; i < NKNOB_FLAGS; i++)
		if (refused & knob_flags[i].knob) {
			nf++;
			if (!owner)
				owner = engine_owner(knob_flags[i].knob);
		}
	if (owner) {
		flags[0] = '\0';
		for (i = 0; i < NKNOB_FLAGS; i++) {
			if (!(refused & knob_flags[i].knob))
				continue;
			len += (size_t)snprintf(flags + len, sizeof(flags) - len, "%s%s",
						k == 0 ? "" : k + 1 < nf ? ", " : " and ", knob_flags[i].flag);
			k++;
		}
		return err_set(e, SS_EUSAGE, "%s %s %s's: give --engine %s", flags, nf > 1 ? "are" : "is",
			       owner->title, owner->name);
	}
	if (util_given && (en->knobs & ENGINE_KNOB_MEM_FRACTION))
		return err_set(e, SS_EUSAGE, "--engine %s sizes its memory with %s, not --gpu-memory-utilization",
			       en->name, knob_flags[0].flag);
	return 0;
}

/* The KV offload flags of each kind, as errors name them. */
static const char *offload_flags(unsigned knob)
{
	return knob == ENGINE_KNOB_KV_OFFLOAD ? "--kv-offloading-size and --kv-offloading-backend"
					      : "--enable-hierarchical-cache, --hicache-ratio and --hicache-size";
}

int engine_check_offload(const struct engine_type *en, bool vllm_flags, bool hicache_flags, struct err *e)
{
	unsigned given = (vllm_flags ? ENGINE_KNOB_KV_OFFLOAD : 0) | (hicache_flags ? ENGINE_KNOB_HICACHE : 0);
	unsigned bad = given & ~en->knobs;
	const struct engine_type *owner;
	char own[160] = "";

	if (vllm_flags && hicache_flags)
		return err_set(e, SS_EUSAGE, "%s are vLLM's, %s SGLang's: give one engine's", offload_flags(ENGINE_KNOB_KV_OFFLOAD),
			       offload_flags(ENGINE_KNOB_HICACHE));
	if (!bad)
		return 0;
	bad = bad & ENGINE_KNOB_KV_OFFLOAD ? ENGINE_KNOB_KV_OFFLOAD : ENGINE_KNOB_HICACHE;
	if (en->knobs & (ENGINE_KNOB_KV_OFFLOAD | ENGINE_KNOB_HICACHE))
		snprintf(own, sizeof(own), " (%s offloads with %s)", en->title,
			 offload_flags(en->knobs & ENGINE_KNOB_KV_OFFLOAD ? ENGINE_KNOB_KV_OFFLOAD : ENGINE_KNOB_HICACHE));
	else
		snprintf(own, sizeof(own), " (servesim models no KV offload for %s)", en->title);
	owner = engine_owner(bad);
	return err_set(e, SS_EUSAGE, "%s are %s's: give --engine %s%s", offload_flags(bad), owner ? owner->title : "another engine",
		       owner ? owner->name : "", own);
}

const char *engine_rocm_fp8(const struct gpu_spec *g)
{
	return strcmp(g->family, "cdna3") == 0 ? "e4m3fnuz (gfx942; e4m3fn checkpoints converted at load, same bytes)"
					       : "OCP e4m3fn";
}

/* A feature switched on by one flag (enable) whose settings each engine
 * spells its own way: vLLM's (vl, knob vk) or SGLang's (sg, knob sk). */
struct flag_pair {
	const char *enable, *feature, *verb, *vl, *sg, *need_why;
	unsigned vk, sk;
};

static int check_pair(const struct engine_type *en, const struct flag_pair *fp, bool on, bool vllm_flags,
		      bool sglang_flags, struct err *e)
{
	unsigned given = (vllm_flags ? fp->vk : 0) | (sglang_flags ? fp->sk : 0);
	unsigned bad = given & ~en->knobs;
	const struct engine_type *owner;

	if ((on || given) && !(en->knobs & (fp->vk | fp->sk)))
		return err_set(e, SS_EUSAGE, "%s: servesim models no %s for %s (give --engine vllm or sglang)", fp->enable,
			       fp->feature, en->title);
	if (bad) {
		bad = bad & fp->vk ? fp->vk : fp->sk;
		owner = engine_owner(bad);
		return err_set(e, SS_EUSAGE, "%s are %s's: give --engine %s (%s %s with %s)",
			       bad == fp->vk ? fp->vl : fp->sg, owner ? owner->title : "another engine",
			       owner ? owner->name : "", en->title, fp->verb,
			       en->knobs & fp->vk ? fp->vl : fp->sg);
	}
	if (given && !on)
		return err_set(e, SS_EUSAGE, "%s need %s%s", given & fp->vk ? fp->vl : fp->sg, fp->enable, fp->need_why);
	return 0;
}

int engine_check_lora(const struct engine_type *en, bool lora, bool vllm_flags, bool sglang_flags, struct err *e)
{
	static const struct flag_pair fp = {
		"--enable-lora", "LoRA serving", "limits LoRA", "--max-loras and --max-cpu-loras",
		"--max-loras-per-batch and --max-loaded-loras", "", ENGINE_KNOB_LORA_VLLM, ENGINE_KNOB_LORA_SGLANG};

	return check_pair(en, &fp, lora, vllm_flags, sglang_flags, e);
}

int engine_check_eplb(const struct engine_type *en, bool eplb, bool vllm_flags, bool sglang_flags, struct err *e)
{
	static const struct flag_pair fp = {
		"--enable-eplb", "EPLB", "sets EPLB", "--eplb-config and --num-redundant-experts",
		"--ep-num-redundant-experts and --eplb-rebalance-num-iterations",
		" (the engine refuses redundant experts without EPLB)", ENGINE_KNOB_EPLB_VLLM, ENGINE_KNOB_EPLB_SGLANG};

	return check_pair(en, &fp, eplb, vllm_flags, sglang_flags, e);
}
