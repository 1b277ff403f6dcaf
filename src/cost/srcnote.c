/* srcnote.c - the run header's provenance lines: the helpers every kernel
 * family writes its line with (which table, measured where, or which
 * fallback prices the component). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cost/costmodel.h"
#include "cost/kern.h"

/* Through vsnprintf because the MoE line's parts can in principle exceed
 * the buffer, which gcc's -Wformat-truncation flags at -O1 (the ASan
 * build); the cut is harmless. */
void cost_note_line(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
}

void cost_part_note(const struct cost_model *c, bool own, char *note, size_t cap)
{
	const struct gpu_spec *g = c->g;

	note[0] = '\0';
	if (own)
		snprintf(note, cap, " (measured on %.40s%s%.40s%s)", g->measured,
			 g->meas_hbm_bw != g->hbm_bw ? "; memory-bound parts at " : "",
			 g->meas_hbm_bw != g->hbm_bw ? g->id : "",
			 g->meas_hbm_bw != g->hbm_bw ? "'s bandwidth" : "");
	else if (g->tables_of[0])
		snprintf(note, cap, " (%.40s's roofline efficiency on %.40s%s)", g->tables_of, g->id,
			 g->compute_eff_scale > 1 ? ", compute-bound x compute_eff_scale" : "");
}

/* Append to part s's source line (the run header's "tables" line), cut at
 * its 512 bytes as snprintf cuts. */
void cost_src_add(struct cost_model *c, enum cost_src s, const char *fmt, ...)
{
	size_t n = strlen(c->src[s]);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->src[s] + n, sizeof(c->src[0]) - n, fmt, ap);
	va_end(ap);
}
