/* bdreport.h - the report of `servesim run --breakdown`: one step's price
 * component by component (cost.h: cost_step_breakdown), each layer kind's
 * operators in graph order and a table of layer kind x component, laid out
 * like design document 004's kernel table so it can be held against a
 * measured profile row by row. */
#ifndef SERVESIM_BDREPORT_H
#define SERVESIM_BDREPORT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cost/cost.h"
#include "report/out.h"

struct out_breakdown {
	struct out_config cfg;        /* cfg.sc: model, GPU, layout, dtypes, engine */
	const struct parallel *par;   /* the priced workers' layout (P/D prefill: theirs) */
	bool prefill;                 /* the step's phase */
	int64_t batch;                /* requests over all DP ranks */
	int64_t local;                /* on one DP rank (the step priced) */
	int64_t new_tokens, context;  /* per request: new tokens after context cached ones */
	int64_t max_tokens;           /* the engine's max_num_batched_tokens */
	/* the rank's limits (scenflags_breakdown_limits; 0: none known): a
	 * step past them is priced, with a note that the engine would not run
	 * it so */
	int64_t max_model_len, max_seqs, kv_blocks, block_size;
	const struct cost_breakdown *bd;
};

/* The report of a step priced on cost model c: prefill or decode, batch
 * requests over all DP ranks (local on the rank priced) of new_tokens after
 * context each; r->cfg is left empty for the caller (out_config_of). */
void out_breakdown_of(const struct cost_model *c, bool prefill, int64_t batch, int64_t local, int64_t new_tokens,
		      int64_t context, const struct cost_breakdown *bd, struct out_breakdown *r);
void out_breakdown_text(FILE *f, const struct out_breakdown *r);
void out_breakdown_json(FILE *f, const struct out_breakdown *r);

#endif
