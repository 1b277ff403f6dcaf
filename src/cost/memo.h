/* memo.h - the cost model's tables priced on first use (struct cost_lazy,
 * cost_model.lazy): what cost_init keeps to fill them, shared by cost.c and
 * the kernel families of src/cost/ that read them; private to src/cost/. */
#ifndef SERVESIM_COST_MEMO_H
#define SERVESIM_COST_MEMO_H
#include <stddef.h>
#include <stdint.h>

#include "base/dmemo.h"
#include "cost/costmodel.h"
#include "model/opgraph.h"

/* The ops moe_shared_at prices, in graph order: (kind, op), op -1 for a
 * kind's DP gather (found once: the table has up to 65,536 entries, and
 * matching every op's name at each was most of a DeepSeek run's
 * start-up). */
struct shared_ops {
	size_t n;
	struct shared_op_ref {
		size_t k;
		ptrdiff_t j;
	} *e;
};

/* What cost_lazy.moe_done[g] says is filled at g tokens. */
enum {
	MOE_DONE_SHARED = 1, /* moe_s[g], moe_flops[g], moe_bytes[g] */
	MOE_DONE_DPX = 2,    /* dpx_s[g] */
};

/* A decode-only step's table terms (cost_lazy.dec). */
struct dec_terms {
	double tok, head;
};

/* A decode-only step's local terms at n decoders (cost_lazy.loc, 1 <= n
 * <= max_m; past max_seqs a speculative step's verifying tokens):
 * components_local_x's table values that depend on n alone, each the same
 * expression on the same values as there (the engine terms, which tests
 * change between prices, are read at each step). */
struct loc_terms {
	double tok;    /* tok_part at the graph-padded count */
	double absorb; /* MLA: absorb_s[min(n, max_seqs)] / layers */
	double head;   /* head_part(n): n sampled */
	double send;   /* PP sends of n tokens' activations */
	double moe0;   /* moe_part(mtok x dp, no prefill): a step with no group's
			* MoE tokens (MTP's draft layer), NAN until first read */
	int64_t mtok;  /* the graph-padded count (the GEMMs' tokens) */
	/* the least mean context from which the step's price rises with its
	 * summed contexts (cost_local_rise_range; INFINITY: nowhere known) */
	double rise_mean;
};

/* What the per-token-count tables are filled from, kept from cost_init:
 * each entry is priced on its first use (a run touches a few of the max_m
 * token counts; pricing all of them was most of the start-up), by the same
 * code and from the same inputs as an eager fill, so to the same bits. */
struct cost_lazy {
	struct opgraph gr;
	bool *use;                   /* ops priced per token, in kind order */
	struct mfu_gemm_col *cols;   /* each GEMM's table column */
	double *kcnt;                /* each kind's layer count */
	uint8_t *tok_done;           /* [max_m + 1] */
	uint8_t *seq_done;           /* [max_seqs + 1]: head_s, absorb_s */
	uint8_t *row_done;           /* [max_seqs + 1]: decode_rows (cost_decode_row) */
	/* mfu_row_eval_hint's axis positions: the prefill row's and each
	 * decode row's last (a decode batch's mean context moves slowly) */
	size_t prefill_hint;
	size_t *decode_hint;         /* [max_seqs + 1] */
	/* every attention layer full GQA (no MLA, windows, chunks or linear
	 * mixers), one pipeline stage, no attention-DP: a decode-only step is
	 * priced by decode_step_s */
	bool plain;
	/* every attention layer full (GQA, or MLA without an indexer; no
	 * windows, chunks, linear mixers or DeepSeek-V4 blocks): a step's
	 * decode attention at n <= max_seqs is priced by full_decode_row_s
	 * (cost.c), attention-DP ranks' and MLA models' included */
	bool full_only;
	/* cost_attn_prefill_s(len, 0) for 1 <= len <= max_m, priced on first
	 * use (pre0_done[len]; both allocated at the first): a chunk without
	 * a cached prefix depends on its length only, and prompt lengths
	 * repeat */
	double *pre0_s;
	uint8_t *pre0_done;
	/* cost_attn_prefill_s(len, prefix) of recent chunks after a cached
	 * prefix (base/dmemo.h; made at the first): with prefix caching a
	 * chunk usually starts at a whole number of cached blocks, and with
	 * fixed prompt lengths the pairs recur (inference-perf's ground truth:
	 * 9 chunks in 10 repeat one of the same run) */
	struct dmemo pre;
	/* attention-DP: moe_s[g] priced on first use (moe_done[g] &
	 * MOE_DONE_SHARED) over the shared ops found once (up to 65,536
	 * entries, most never read); dpx_s[g] the extra of a step in which a
	 * rank prefills (dp_extend_extra_s; MOE_DONE_DPX), made at its first
	 * use */
	struct shared_ops moe_ops;
	uint8_t *moe_done;
	double *dpx_s;
	/* a decode-only step's table terms, which depend on its decoder
	 * count n only (decode_step_s with nlogits == n), read on first use:
	 * dec_done[n] 1 when filled, 2 when n pads past max_m (the overhead
	 * terms are computed at each step: cfg.ov may be changed, tests do) */
	struct dec_terms *dec;       /* [max_seqs + 1] */
	uint8_t *dec_done;           /* [max_seqs + 1] */
	/* full_only: a decode-only step's local terms at n decoders (the
	 * price of an attention-DP rank's own part, cost_step_local_s), made
	 * at the first such step, each entry on its first use (loc_done[n]
	 * as dec_done); up to max_m: MTP's verifying steps carry K + 1
	 * tokens a request, so most of their counts pass max_seqs */
	struct loc_terms *loc;       /* [max_m + 1] */
	uint8_t *loc_done;           /* [max_m + 1] */
	/* the decode attention's grid column at n sequences for max_seqs <
	 * n <= max_m (a speculative step's verifying tokens, past the decode
	 * rows), [n - max_seqs - 1], made at the first such step and each
	 * entry resolved on its first use (wide_done): log n and its place on
	 * the batch axis were a third of such a step's attention */
	struct mfu_attn_col *wide;
	uint8_t *wide_done;
};

/* The decode grid's column at n sequences, max_seqs < n <= max_m
 * (cost_lazy.wide), resolved on its first use (attn.c). */
struct mfu_attn_col *cost_decode_wide_col(const struct cost_model *c, int64_t n);

/* The decode attention row at n sequences (1 <= n <= max_seqs), read
 * from the tables on its first use. */
static inline const struct mfu_row *cost_decode_row(const struct cost_model *c, int64_t n)
{
	if (!c->lazy->row_done[n]) {
		mfu_attn_row(c->tabs, c->attn_decode_cfg, false, c->log_n[n], &c->decode_rows[n]);
		c->lazy->row_done[n] = 1;
	}
	return &c->decode_rows[n];
}

#endif
