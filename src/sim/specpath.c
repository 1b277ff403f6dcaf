/* specpath.c - lazy verifiers: a verifying decoder's path drawn as it
 * joins, summed per coming step in rings (specpath.h says why and when). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core.h"
#include "sim/decoders.h"
#include "sim/specpath.h"

bool spath_applies(const struct sim *s, const struct replica *rp)
{
	/* (a step's accepted drafts summed in an int32_t; a verifying step
	 * holds at least one draft) */
	return s->cfg.spec.k > 0 && s->cfg.spec.k <= SPEC_MAX_TOKENS && spath_cap(s) >= 2 &&
	       rp->mns <= INT32_MAX / SPEC_MAX_TOKENS && !s->cfg.no_lazy_decoders && !s->cfg.live && rp->pp == 1 &&
	       !rp->prefill_only && rp->no_gaps && s->bs_log2p1 > 0 &&
	       ((!s->cfg.policy->split_batches && s->cfg.policy->decode_segments && !s->cfg.policy->decoder_keys) ||
		(s->cfg.policy->split_batches && !s->cfg.mixed_chunk)) &&
	       !s->cfg.step_log && !s->cfg.on_chunk;
}

void spath_draws_init(const struct spec_cfg *sp, struct spath_draws *d)
{
	double p = 1;
	int j;

	memset(d, 0, sizeof(*d));
	d->k = sp->k < SPEC_MAX_TOKENS ? sp->k : SPEC_MAX_TOKENS;
	for (j = 0; j < d->k; j++) {
		double r = sp->rate[sp->nrates > 1 ? j : 0];
		p *= r < 0 ? 0 : r > 1 ? 1 : r;
		/* P(a >= j + 1) on 2^32: 0 never, 2^32 always */
		d->ge[j] = p >= 1 ? (uint64_t)1 << 32 : (uint64_t)(p * 0x1p32 + 0.5);
	}
}

/* The rings hold the steps up to rp->G + steps: grown to a power of two,
 * the live slots (G + 1 on) moved to their new places. */
static void ring_fit(struct replica *rp, int64_t steps)
{
	uint64_t n = rp->sp_step ? (uint64_t)rp->sp_mask + 1 : 0, m = n ? n : 64, j;
	struct spath_step *st;
	struct spath_rare *ra;

	if ((uint64_t)steps < n)
		return;
	while (m <= (uint64_t)steps)
		m *= 2;
	st = xcalloc(m, sizeof(*st));
	ra = xcalloc(m, sizeof(*ra));
	for (j = 1; j < n; j++) {
		uint64_t g = (uint64_t)rp->G + j, a = g & (m - 1), b = g & (n - 1);
		st[a] = rp->sp_step[b];
		ra[a] = rp->sp_rare[b];
	}
	free(rp->sp_step);
	free(rp->sp_rare);
	rp->sp_step = st;
	rp->sp_rare = ra;
	rp->sp_mask = (uint32_t)(m - 1);
}

/* Where a path stands after some of its steps. */
struct path_pos {
	int64_t c;    /* computed (generated moves with it) */
	int32_t nb;   /* blocks held */
};

/* The accepted count of one draw u against the first nthr thresholds g
 * (1 <= nthr <= 4, a constant where it is called; g padded with 0: never),
 * branch-free. */
static inline __attribute__((always_inline)) int64_t draw_n(uint32_t u, const uint64_t g[4], const int nthr)
{
	int64_t a = (int64_t)(u < g[0]);

	if (nthr > 1)
		a += (int64_t)(u < g[1]);
	if (nthr > 2)
		a += (int64_t)(u < g[2]);
	if (nthr > 3)
		a += (int64_t)(u < g[3]);
	return a;
}

/* Where a run of steps of K + 1 tokens stands: the stream state, the
 * context plus the step's tokens and a block less one (ce = c + cap + bm:
 * a step's blocks are ce >> sh before it advances) and the blocks held. */
struct run_pos {
	uint64_t st;
	int64_t ce;
	int32_t nb;
};

/* n >= 1 steps of K + 1 tokens whose ring slots are p[0..n-1] (contiguous):
 * a draw each against nthr thresholds, its accepted drafts and the blocks
 * it grows added to its slot times sign; two steps at a time (the
 * stream's two states from one: the multiplications apart, not on one
 * chain).  The join's loop: per verifying request-step a draw, two shifts
 * and two adds into the slot, so it is written for constant nthr and
 * sign (the callers' switch), with the position in locals (through a
 * pointer each store into the ring could alias it). */
static inline __attribute__((always_inline)) void run_steps(struct spath_step *p, int64_t n, const int32_t sign,
							    const int nthr, const uint64_t g[4], uint64_t inc,
							    uint64_t m2, uint64_t c2, int sh, struct run_pos *pos)
{
	uint64_t st = pos->st;
	const uint64_t gg[4] = {g[0], g[1], g[2], g[3]}; /* (in registers, not reloaded) */
	int64_t ce = pos->ce, k;
	int32_t nb = pos->nb;

	for (k = 0; k + 2 <= n; k += 2) {
		uint64_t s1 = st * PCG32_MULT + inc;
		uint32_t u0 = pcg32_output(st), u1 = pcg32_output(s1);
		int64_t a0 = draw_n(u0, gg, nthr), a1 = draw_n(u1, gg, nthr);
		int32_t b0 = (int32_t)(ce >> sh), b1;
		st = st * m2 + c2;
		ce += 1 + a0;
		b1 = (int32_t)(ce >> sh);
		ce += 1 + a1;
		p[k].acc += sign * (int32_t)a0;
		p[k].need += sign * (b0 - nb);
		p[k + 1].acc += sign * (int32_t)a1;
		p[k + 1].need += sign * (b1 - b0);
		nb = b1;
	}
	if (k < n) {
		int64_t a = draw_n(pcg32_output(st), gg, nthr);
		int32_t b = (int32_t)(ce >> sh);
		st = st * PCG32_MULT + inc;
		ce += 1 + a;
		p[k].acc += sign * (int32_t)a;
		p[k].need += sign * (b - nb);
		nb = b;
	}
	pos->st = st;
	pos->ce = ce;
	pos->nb = nb;
}

/* run_steps for nthr = min(k, 4) (1 <= k), sign (1 or -1) a constant. */
static inline __attribute__((always_inline)) void run_steps_k(struct spath_step *p, int64_t n, const int32_t sign,
							      int k, const uint64_t g[4], uint64_t inc, uint64_t m2,
							      uint64_t c2, int sh, struct run_pos *pos)
{
	switch (k) {
	case 1:
		run_steps(p, n, sign, 1, g, inc, m2, c2, sh, pos);
		break;
	case 2:
		run_steps(p, n, sign, 2, g, inc, m2, c2, sh, pos);
		break;
	case 3:
		run_steps(p, n, sign, 3, g, inc, m2, c2, sh, pos);
		break;
	default:
		run_steps(p, n, sign, 4, g, inc, m2, c2, sh, pos);
		break;
	}
}

/* Walk r's path from its join (step count r->dG0, context r->dc0, the
 * stream at r->sp_state): the steps up to count `upto` only move *at
 * (where r stands after step upto), those after it add their terms to the
 * rings times `sign` (1: its join, -1: leaving early; the rings then hold
 * them already); its completion's terms (count and context off as the
 * step after it starts) too.  Returns the completion's step count; *end
 * where the path ends; *state the stream after its draws.  Written into
 * its two callers with sign a constant: the join's loop is the lazy
 * verifiers' whole per-step cost. */
static inline __attribute__((always_inline)) int64_t path_walk(const struct sim *s, struct replica *rp,
							       const struct req *r, int64_t upto, const int32_t sign,
							       struct path_pos *at, struct path_pos *end,
							       uint64_t *state)
{
	const struct spath_draws *d = &s->spath_draws;
	const int64_t cap = spath_cap(s), kq = cap - 1;
	const int sh = s->bs_log2p1 - 1;
	const int64_t bm = ((int64_t)1 << sh) - 1;
	const uint64_t inc = s->spec_rng.inc, m2 = s->spec_draws.m2, c2 = s->spec_draws.c2;
	/* the context at which it has generated its output (computed and
	 * generated move together: computed = prompt + generated - 1) */
	const int64_t cend = r->dc0 + (r->output - r->dg0);
	uint64_t st = r->sp_state, mask = rp->sp_mask, g4[4] = {0, 0, 0, 0};
	int64_t c = r->dc0, G = r->dG0;
	int32_t nb = r->nblocks;
	struct spath_step *ps;
	/* a step of K + 1 tokens draws against the first kq thresholds: at
	 * most 4 of them in run_steps (0: more, spath_draw's loop) */
	const int nthr = d->k > 4 ? 0 : (int)(d->k < kq ? d->k : kq);
	int j;

	for (j = 0; j < nthr; j++)
		g4[j] = d->ge[j];
	for (; G < upto && c < cend; G++) { /* the steps gone: the position only */
		int64_t q = cend - c < cap ? cend - c : cap, a = q > 1 ? spath_draw(d, &st, inc, q - 1) : 0;
		int32_t b = (int32_t)((c + q + bm) >> sh);
		if (b > nb)
			nb = b;
		c += 1 + a;
	}
	at->c = c;
	at->nb = nb;
	/* the ring up to the path's end: it moves at least a token a step
	 * (grown in steps, not to the tokens left: most paths are far
	 * shorter) */
	if ((uint64_t)(G + 2 - rp->G) > mask)
		ring_fit(rp, G + 2 - rp->G);
	mask = rp->sp_mask;
	ps = rp->sp_step;
	/* the steps of K + 1 tokens: a draw, its accepted drafts and the
	 * blocks it grows (b >= nb: its context and so blocks_for only grow) */
	for (;;) {
		int64_t room = (int64_t)mask - 2 - (G - rp->G), left = (cend - c) / cap; /* steps sure to be such */
		int64_t n = left < room ? left : room, k;
		if (n <= 0) {
			if (cend - c < cap)
				break;
			ring_fit(rp, G + 3 - rp->G);
			mask = rp->sp_mask;
			ps = rp->sp_step;
			continue;
		}
		if (nthr > 0) {
			struct run_pos pos = {st, c + cap + bm, nb};
			while (n > 0) { /* in runs of slots up to the ring's wrap */
				uint64_t t0 = (uint64_t)(G + 1) & mask;
				int64_t m = (int64_t)(mask - t0) + 1 < n ? (int64_t)(mask - t0) + 1 : n;
				run_steps_k(ps + t0, m, sign, nthr, g4, inc, m2, c2, sh, &pos);
				G += m;
				n -= m;
			}
			st = pos.st;
			c = pos.ce - cap - bm;
			nb = pos.nb;
			continue;
		}
		for (k = 0; k < n; k++) {
			uint64_t t = (uint64_t)(G + 1) & mask;
			int32_t b = (int32_t)((c + cap + bm) >> sh);
			int64_t a = spath_draw(d, &st, inc, kq);
			ps[t].need += sign * (b - nb);
			nb = b;
			ps[t].acc += sign * (int32_t)a;
			c += 1 + a;
			G++;
		}
	}
	/* the last ones: fewer drafts, their corrections */
	for (; c < cend; G++) {
		uint64_t t;
		int64_t q = cend - c, a = 0;
		int32_t b = (int32_t)((c + q + bm) >> sh);
		struct spath_rare *ra;
		if ((uint64_t)(G + 2 - rp->G) > mask) {
			ring_fit(rp, G + 2 - rp->G);
			mask = rp->sp_mask;
			ps = rp->sp_step;
		}
		t = (uint64_t)(G + 1) & mask;
		ra = &rp->sp_rare[t];
		if (b > nb) {
			ps[t].need += sign * (b - nb);
			nb = b;
		}
		ra->ctok += sign * (int32_t)(q - cap);
		ra->cctx += sign * ((q - cap) * (c + 1) + (q * (q - 1) - cap * (cap - 1)) / 2);
		if (q > 1) {
			a = spath_draw(d, &st, inc, q - 1);
			ps[t].acc += sign * (int32_t)a;
		} else {
			ra->nq1 += sign;
		}
		c += 1 + a;
	}
	if ((uint64_t)(G + 1 - rp->G) > mask) { /* (a path without a step: never) */
		ring_fit(rp, G + 1 - rp->G);
		mask = rp->sp_mask;
	}
	rp->sp_rare[(uint64_t)(G + 1) & mask].dn -= sign;
	rp->sp_rare[(uint64_t)(G + 1) & mask].dC -= sign * c;
	end->c = c;
	end->nb = nb;
	*state = st;
	return G;
}

static int64_t path_add(const struct sim *s, struct replica *rp, const struct req *r, struct path_pos *end,
			uint64_t *state)
{
	struct path_pos at;

	return path_walk(s, rp, r, r->dG0, 1, &at, end, state);
}

static void path_sub(const struct sim *s, struct replica *rp, const struct req *r, struct path_pos *at)
{
	struct path_pos end;
	uint64_t st;

	(void)path_walk(s, rp, r, rp->G, -1, at, &end, &st);
}

void spath_join(struct sim *s, struct replica *rp, struct req *r)
{
	struct path_pos end;
	struct fin_entry fe;
	int64_t fin;

	r->spath = true;
	r->dG0 = rp->G;
	r->dc0 = r->computed;
	r->dg0 = r->generated;
	r->sp_state = s->spec_rng.state;
	if (!rp->sp_step)
		ring_fit(rp, 1);
	/* (the stream goes on past the path's draws) */
	fin = path_add(s, rp, r, &end, &s->spec_rng.state);
	r->sp_nb = end.nb;
	rp->nspath++;
	rp->sp_n++;
	rp->sp_C += r->dc0;
	rp->sp_K += r->output - r->dg0 + r->dc0;
	r->epoch++;
	r->heaped = true;
	r->heap_fin = fin;
	fe.fin_G = fin;
	fe.rseq = r->rseq;
	fe.epoch = r->epoch;
	fe.r = r;
	dec_fin_push(rp, fe);
}

/* r's fields at position p after `steps` steps as a lazy verifier, as
 * the explicit walk (spec_walk) leaves them: the blocks it registered
 * (only counted: its tail is anonymous), a gap and a decode step each. */
static void path_settle(const struct sim *s, struct replica *rp, struct req *r, const struct path_pos *p,
			int64_t steps)
{
	int32_t full = (int32_t)full_blocks(s, p->c);

	r->computed = p->c;
	r->generated = r->dg0 + (p->c - r->dc0);
	r->nblocks = p->nb;
	if (full > p->nb)
		full = p->nb;
	if (r->nhashed < full)
		r->nhashed = full;
	r->dsteps += (int32_t)steps;
	r->ngaps += (int32_t)steps;
	r->last_ns = s->now;
	r->scheduled = false;
	r->spath = false;
	rp->nspath--;
}

void spath_leave(const struct sim *s, struct replica *rp, struct req *r)
{
	struct path_pos at;

	path_sub(s, rp, r, &at);
	rp->sp_n--;
	rp->sp_C -= at.c;
	rp->sp_K -= r->output - r->dg0 + r->dc0;
	r->epoch++; /* its queued completion is stale */
	path_settle(s, rp, r, &at, rp->G - r->dG0);
}

void spath_leave_all(const struct sim *s, struct replica *rp)
{
	struct req *r;

	for (r = rp->run_head; r && rp->nspath > 0; r = r->next)
		if (r->spath)
			spath_leave(s, rp, r);
}

void spath_done(const struct sim *s, struct replica *rp, struct req *r)
{
	struct path_pos p;

	p.c = r->dc0 + (r->output - r->dg0);
	p.nb = r->sp_nb;
	rp->sp_K -= r->output - r->dg0 + r->dc0;
	path_settle(s, rp, r, &p, rp->G - r->dG0);
}

void spath_release(struct replica *rp)
{
	free(rp->sp_step);
	free(rp->sp_rare);
	rp->sp_step = NULL;
	rp->sp_rare = NULL;
}
