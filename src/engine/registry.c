/* registry.c - the engines servesim knows, in the order lists show them; a
 * new engine is one line here and its own file. */
#include "engine/registry.h"

#include <stdio.h>
#include <string.h>

extern const struct engine_type engine_vllm, engine_sglang, engine_trtllm;

static const struct engine_type *const engines[] = {&engine_vllm, &engine_sglang, &engine_trtllm};

#define NENGINES (sizeof(engines) / sizeof(engines[0]))

const struct engine_type *engine_at(size_t i)
{
	return i < NENGINES ? engines[i] : NULL;
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
};

#define NKNOB_FLAGS (sizeof(knob_flags) / sizeof(knob_flags[0]))

int engine_check_knobs(const struct engine_type *en, unsigned given, bool util_given, struct err *e)
{
	const struct engine_type *owner;
	char flags[256];
	size_t i, k = 0, nf = 0, len = 0;

	for (i = 0; i < NKNOB_FLAGS; i++)
		if (given & knob_flags[i].knob & ~en->knobs)
			break;
	if (i < NKNOB_FLAGS && (owner = engine_owner(knob_flags[i].knob)) != NULL) {
		/* every flag of the engine that takes it, in words */
		for (i = 0; i < NKNOB_FLAGS; i++)
			nf += (owner->knobs & knob_flags[i].knob) != 0;
		flags[0] = '\0';
		for (i = 0; i < NKNOB_FLAGS; i++) {
			if (!(owner->knobs & knob_flags[i].knob))
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
