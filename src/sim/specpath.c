/* specpath.c - lazy verifiers: a verifying decoder's path drawn as it
 * joins, summed per coming step in rings (specpath.h says why and when). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "core.h"
#include "sim/decoders.h"
#include "sim/specpath.h"

bool spath_applies(const struct sim *s, const struct replica *rp)
{
	/* (a step's accepted drafts and blocks grown summed in a uint16_t:
	 * at most K + 1 a verifier; a verifying step holds at least one
	 * draft) */
	return s->cfg.spec.k > 0 && s->cfg.spec.k <= SPEC_MAX_TOKENS && spath_cap(s) >= 2 &&
	       rp->mns <= UINT16_MAX / spath_cap(s) && !s->cfg.no_lazy_decoders && !s->cfg.live && rp->pp == 1 &&
	       !rp->prefill_only && rp->no_gaps && s->bs_log2p1 > 0 &&
	       ((!s->cfg.policy->split_batches && s->cfg.policy->decode_segments && !s->cfg.policy->decoder_keys) ||
		(s->cfg.policy->split_batches && !s->cfg.mixed_chunk)) &&
	       !s->cfg.step_log && !s->cfg.on_chunk;
}

/* The runs' tables for steps of kq drafts: each outcome of d->rl steps
 * (SPATH_RUN1 with one draft a step: 2^8 outcomes, else SPATH_RUN: at
 * most 4^4) weighs the product of its counts' probabilities (those of one
 * draw against the first min(k, kq) thresholds, exact on 2^-32), rounded
 * to 2^-32 and the weights' sum made 2^32 on the heaviest one (so each
 * outcome's probability is off the product by < 2^-24 x 2^-32 at most:
 * far below any test's reach); Vose's alias method in integers on cells
 * of 2^24 (the same tables on every machine). */
static void runs_init(struct spath_draws *d, int64_t kq, int64_t bs)
{
	const int nthr = d->k < kq ? d->k : (int)kq, no = nthr + 1, rl = nthr == 1 ? SPATH_RUN1 : SPATH_RUN;
	const uint64_t CELL = (uint64_t)1 << 24;
	uint64_t w1[4], w[SPATH_CELLS], sum = 0;
	int small[SPATH_CELLS], large[SPATH_CELLS], ns = 0, nl = 0, nout = 1, o, j, heavy = 0;

	d->rk = 0;
	d->rl = 0;
	if (nthr < 1 || nthr > 3)
		return;
	for (j = 0; j < rl; j++)
		nout *= no;
	for (j = 0; j <= nthr; j++) /* P(a = j) x 2^32 */
		w1[j] = (j == 0 ? (uint64_t)1 << 32 : d->ge[j - 1]) - (j == nthr ? 0 : d->ge[j]);
	for (o = 0; o < SPATH_CELLS; o++) {
		uint16_t a[SPATH_RUN_MAX] = {0};
		int32_t p = 0;
		double pr = 1;
		int x = o;
		struct spath_tuple *t = &d->tup[o];
		memset(t, 0, sizeof(*t));
		w[o] = 0;
		if (o >= nout)
			continue;
		for (j = 0; j < rl; j++) {
			a[j] = (uint16_t)(x % no);
			x /= no;
			pr *= (double)w1[a[j]] * 0x1p-32;
			if (j > 0)
				t->p[j - 1] = p;
			p += 1 + a[j];
		}
		t->adv = p;
		memcpy(t->acc, a, sizeof(a));
		w[o] = (uint64_t)(pr * 0x1p32 + 0.5);
		sum += w[o];
		if (w[o] > w[heavy])
			heavy = o;
	}
	w[heavy] = w[heavy] + ((uint64_t)1 << 32) - sum; /* (mod 2^64: the sum is within 2^8 of 2^32) */
	for (o = 0; o < SPATH_CELLS; o++) {
		if (w[o] < CELL)
			small[ns++] = o;
		else
			large[nl++] = o;
	}
	while (ns > 0 && nl > 0) {
		int sm = small[--ns], lg = large[nl - 1];
		d->cell[sm].thr = ((uint32_t)sm << 24) + (uint32_t)w[sm];
		d->cell[sm].alias = (uint32_t)lg;
		w[lg] -= CELL - w[sm];
		if (w[lg] < CELL) {
			nl--;
			small[ns++] = lg;
		}
	}
	while (nl > 0) { /* (full cells: their own outcome always) */
		int lg = large[--nl];
		d->cell[lg].thr = ((uint32_t)lg << 24) + (uint32_t)CELL;
		d->cell[lg].alias = (uint32_t)lg;
	}
	while (ns > 0) { /* (none: the weights sum to 2^32 exactly) */
		int sm = small[--ns];
		d->cell[sm].thr = ((uint32_t)sm << 24) + (uint32_t)CELL;
		d->cell[sm].alias = (uint32_t)sm;
	}
	d->rk = (int)kq;
	d->rl = rl;
	/* the crossings (struct spath_draws): blocks of bs tokens, a power
	 * of two, at least a run's most tokens; step j crosses where the
	 * context's advance before it reaches lim, the first such j counted
	 * by the advances below lim (increasing in j) */
	if (bs < rl * (kq + 1) || bs + kq + 1 > SPATH_XW || (bs & (bs - 1)) != 0)
		return;
	d->xw = (int)(bs + kq + 1);
	for (o = 0; o < nout; o++) {
		const struct spath_tuple *t = &d->tup[o];
		int li;
		for (li = 0; li < d->xw; li++) {
			int64_t lim = li - kq, nli;
			int e = 0;
			if (t->p[rl - 2] >= lim) {
				e = 1 + (lim > 0);
				for (j = 0; j < rl - 2; j++)
					e += t->p[j] < lim;
			}
			nli = lim + (e ? bs : 0) - t->adv + kq;
			assert(nli >= 0 && nli < d->xw);
			d->cross[o * d->xw + li] = (uint16_t)(e | nli << 4);
		}
	}
	for (j = 0; j < rl; j++) {
		uint16_t lane[4] = {0, 0, 0, 0};
		lane[j & 3] = 1;
		memcpy(&d->nadd[j + 1], lane, sizeof(lane));
		d->noff[j + 1] = (uint8_t)(j & ~3);
	}
}

/* The runs' outcomes by draw (struct spath_pick), from the alias cells,
 * the outcomes and the crossings' width. */
static void picks_init(struct spath_draws *d)
{
	int i, h;

	for (i = 0; i < SPATH_CELLS; i++)
		for (h = 0; h < 2; h++) {
			struct spath_pick *p = &d->pick[2 * i + h];
			uint32_t oi = h ? d->cell[i].alias : (uint32_t)i;
			memcpy(p->acc, d->tup[oi].acc, sizeof(p->acc));
			p->adv = d->tup[oi].adv;
			p->xrow = oi * (uint32_t)d->xw;
			p->oi = oi;
			p->pad = 0;
		}
}

void spath_draws_init(const struct spec_cfg *sp, int64_t kq, int64_t bs, struct spath_draws *d)
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
	if (kq >= 1)
		runs_init(d, kq, bs);
	if (d->rk > 0)
		picks_init(d);
}

/* The rings hold the steps up to rp->G + steps: grown to a power of two
 * (at least 64: a multiple of every run's steps), the live slots (G + 1 on) moved
 * to their new places. */
static void ring_fit(struct replica *rp, int64_t steps)
{
	uint64_t n = rp->sp_acc ? (uint64_t)rp->sp_mask + 1 : 0, m = n ? n : 64, j;
	uint16_t *acc, *need;
	struct spath_rare *ra;

	if ((uint64_t)steps < n)
		return;
	while (m <= (uint64_t)steps)
		m *= 2;
	acc = xcalloc(m, sizeof(*acc));
	need = xcalloc(m, sizeof(*need));
	ra = xcalloc(m, sizeof(*ra));
	for (j = 1; j < n; j++) {
		uint64_t g = (uint64_t)rp->G + j, a = g & (m - 1), b = g & (n - 1);
		acc[a] = rp->sp_acc[b];
		need[a] = rp->sp_need[b];
		ra[a] = rp->sp_rare[b];
	}
	free(rp->sp_acc);
	free(rp->sp_need);
	free(rp->sp_rare);
	rp->sp_acc = acc;
	rp->sp_need = need;
	rp->sp_rare = ra;
	rp->sp_mask = (uint32_t)(m - 1);
}

/* Where a path stands after some of its steps. */
struct path_pos {
	int64_t c;    /* computed (generated moves with it) */
	int32_t nb;   /* blocks held */
};

/* The shape of a path (the same draws in every walk of it): at step count
 * G (its next step G + 1) and context c, a run of d->rl steps of K + 1
 * tokens, one draw, when runs are drawn for K (d->rk), slot G + 1 starts a
 * group of d->rl in the ring and the run is sure to be such (at least
 * d->rl (K + 1) tokens left); otherwise one step, one draw (none without
 * a draft). */
static inline bool run_starts(const struct spath_draws *d, int64_t kq, int64_t G, int64_t c, int64_t cend,
			      int64_t cap)
{
	return d->rk == kq && ((uint64_t)(G + 1) & (uint64_t)(d->rl - 1)) == 0 && cend - c >= d->rl * cap;
}

/* One step of a path outside a run: its terms at ring slot t times sign
 * (q query tokens, a accepted, b its blocks). */
static inline void step_terms(struct replica *rp, uint64_t t, int32_t sign, int64_t c, int64_t q, int64_t cap,
			      int64_t a, int32_t b, int32_t *nb)
{
	struct spath_rare *ra = &rp->sp_rare[t];

	if (b > *nb) {
		rp->sp_need[t] = (uint16_t)(rp->sp_need[t] + sign * (b - *nb));
		*nb = b;
	}
	if (q > 1)
		rp->sp_acc[t] = (uint16_t)(rp->sp_acc[t] + sign * (int32_t)a);
	else
		ra->nq1 += sign;
	if (q < cap) {
		ra->ctok += sign * (int32_t)(q - cap);
		ra->cctx += sign * ((q - cap) * (c + 1) + (q * (q - 1) - cap * (cap - 1)) / 2);
	}
}

/* The completion's terms (count and context off as the step after it,
 * count G + 1, starts) times sign. */
static inline void fin_terms(struct replica *rp, int64_t G, int32_t sign, int64_t c)
{
	if ((uint64_t)(G + 1 - rp->G) > rp->sp_mask) /* (a path without a step: never) */
		ring_fit(rp, G + 1 - rp->G);
	rp->sp_rare[(uint64_t)(G + 1) & rp->sp_mask].dn -= sign;
	rp->sp_rare[(uint64_t)(G + 1) & rp->sp_mask].dC -= sign * c;
}

/* Walk r's path from its join (step count r->dG0, context r->dc0, the
 * stream at r->sp_state) step by step: the steps up to count `upto` only
 * move *at (where r stands after step upto), those after it add their
 * terms to the rings times `sign` (-1: leaving early; the rings hold them
 * already), its completion's too.  Returns the completion's step count;
 * *end where the path ends; *state the stream after its draws.  The
 * reference walk (a leave, its tests): path_join's loops add the same
 * terms faster. */
static int64_t path_walk(const struct sim *s, struct replica *rp, const struct req *r, int64_t upto,
			 int32_t sign, struct path_pos *at, struct path_pos *end, uint64_t *state)
{
	const struct spath_draws *d = s->spath_draws;
	const int64_t cap = spath_cap(s), kq = cap - 1;
	const int sh = s->bs_log2p1 - 1;
	const int64_t bm = ((int64_t)1 << sh) - 1;
	const uint64_t inc = s->spec_rng.inc;
	/* the context at which it has generated its output (computed and
	 * generated move together: computed = prompt + generated - 1) */
	const int64_t cend = r->dc0 + (r->output - r->dg0);
	uint64_t st = r->sp_state;
	int64_t c = r->dc0, G = r->dG0;
	int32_t nb = r->nblocks;
	const struct spath_tuple *run = NULL;
	int left = 0; /* steps of the current run still to take */
	bool seen = false;

	for (; c < cend; G++) {
		int64_t q = cend - c < cap ? cend - c : cap, a;
		int32_t b = (int32_t)((c + q + bm) >> sh);
		if (G == upto) {
			at->c = c;
			at->nb = nb;
			seen = true;
		}
		if (left == 0 && run_starts(d, kq, G, c, cend, cap)) {
			run = &d->tup[spath_run_draw(d, &st, inc)];
			left = d->rl;
		}
		if (left > 0)
			a = spath_run_count(run, d->rl - left--);
		else
			a = q > 1 ? spath_draw(d, &st, inc, q - 1) : 0;
		if (G >= upto) {
			if ((uint64_t)(G + 2 - rp->G) > rp->sp_mask)
				ring_fit(rp, G + 2 - rp->G);
			step_terms(rp, (uint64_t)(G + 1) & rp->sp_mask, sign, c, q, cap, a, b, &nb);
		} else if (b > nb) {
			nb = b;
		}
		c += 1 + a;
	}
	if (!seen) {
		at->c = c;
		at->nb = nb;
	}
	fin_terms(rp, G, sign, c);
	end->c = c;
	end->nb = nb;
	*state = st;
	return G;
}

/* The word of the ring's four uint16 slots at p added w (lanes in
 * [0, 2^16) before and after: no carry crosses). */
static inline __attribute__((always_inline)) void lanes_add(uint16_t *p, uint64_t w)
{
	uint64_t x;

	memcpy(&x, p, sizeof(x));
	x += w;
	memcpy(p, &x, sizeof(x));
}

/* n >= 1 runs of rl steps (d->rl) whose first slot is t0 (a multiple of
 * rl) in a ring of mask + 1 slots: a draw each, its counts added as words
 * of four slots, the blocks it grows at the step where it crosses into them
 * (d->cross by the tokens lim left below the next block's end; step by
 * step where lim is out of the table's range or there is none).  The
 * join's loop: per run of rl verifying request-steps a draw, an alias
 * look-up, a crossing look-up and rl / 4 + 1 word adds into the ring at
 * slots known ahead (the slot of a crossing computed from the chain of
 * runs before made each run wait on the ring's load).  rl is a constant
 * at each call (runs_add4, runs_add8). */
static inline __attribute__((always_inline)) void runs_add(uint16_t *acc, uint16_t *need, uint64_t t0, uint64_t mask,
							   int64_t n, const struct spath_draws *d, uint64_t inc,
							   int sh, int64_t kq, uint64_t *state, int64_t *cep, int32_t *nbp,
							   const int rl)
{
	const uint64_t xw = (uint64_t)d->xw;
	const struct spath_pick *pk = d->pick;
	uint64_t st = *state, li = (uint64_t)((((int64_t)*nbp + 1) << sh) - *cep + kq);
	int64_t ce = *cep;

	/* the runs up to the ring's end, then from its start: a run never
	 * crosses it (t0 and the ring's size are multiples of rl), so each
	 * part walks the rings by pointers, without the mask */
	while (n > 0) {
		int64_t m = (int64_t)((mask + 1 - t0) / (uint64_t)rl);
		uint16_t *pa = acc + t0, *pn = need + t0, *end;
		if (m > n)
			m = n;
		end = pa + m * rl;
		n -= m;
		t0 = 0;
		for (; pa < end; pa += rl, pn += rl) {
			/* spath_run_draw's outcome, by its pick */
			uint32_t u = pcg32_output(st), i = u >> 24;
			const struct spath_pick *o = pk + (2 * i + (u >= d->cell[i].thr));
			int w;
			st = st * PCG32_MULT + inc;
			for (w = 0; w < rl / 4; w++)
				lanes_add(pa + 4 * w, o->acc[w]);
			if (li < xw) {
				unsigned x = d->cross[o->xrow + li], e = x & 15;
				lanes_add(pn + d->noff[e], d->nadd[e]);
				li = x >> 4;
			} else { /* step by step (nb from lim: (nb + 1) bs = lim + ce) */
				int64_t lim = (int64_t)li - kq, nb = ((lim + ce) >> sh) - 1;
				int j;
				for (j = 0; j < rl; j++) {
					int64_t b = (ce + (j ? d->tup[o->oi].p[j - 1] : 0)) >> sh;
					if (b > nb) {
						pn[j] = (uint16_t)(pn[j] + (b - nb));
						nb = b;
					}
				}
				li = (uint64_t)(((nb + 1) << sh) - (ce + o->adv) + kq);
			}
			ce += o->adv;
		}
	}
	*state = st;
	*cep = ce;
	*nbp = (int32_t)((((int64_t)li - kq + ce) >> sh) - 1);
}

static void runs_add4(uint16_t *acc, uint16_t *need, uint64_t t0, uint64_t mask, int64_t n,
		      const struct spath_draws *d, uint64_t inc, int sh, int64_t kq, uint64_t *state, int64_t *cep,
		      int32_t *nbp)
{
	runs_add(acc, need, t0, mask, n, d, inc, sh, kq, state, cep, nbp, SPATH_RUN);
}

static void runs_add8(uint16_t *acc, uint16_t *need, uint64_t t0, uint64_t mask, int64_t n,
		      const struct spath_draws *d, uint64_t inc, int sh, int64_t kq, uint64_t *state, int64_t *cep,
		      int32_t *nbp)
{
	runs_add(acc, need, t0, mask, n, d, inc, sh, kq, state, cep, nbp, SPATH_RUN1);
}

/* r joins: its path walked as path_walk(upto = r->dG0, sign 1) walks it
 * (the same shape, draws and terms), the runs by runs_add. */
static int64_t path_join(const struct sim *s, struct replica *rp, const struct req *r, struct path_pos *end,
			 uint64_t *state)
{
	const struct spath_draws *d = s->spath_draws;
	const int64_t cap = spath_cap(s), kq = cap - 1;
	const int sh = s->bs_log2p1 - 1;
	const int64_t bm = ((int64_t)1 << sh) - 1;
	const uint64_t inc = s->spec_rng.inc;
	const int64_t cend = r->dc0 + (r->output - r->dg0);
	uint64_t st = r->sp_state;
	int64_t c = r->dc0, G = r->dG0;
	int32_t nb = r->nblocks;

	while (c < cend) {
		int64_t q, a;
		int32_t b;
		if (run_starts(d, kq, G, c, cend, cap)) {
			/* the runs sure to be such, as far as the ring reaches */
			const int rl = d->rl;
			int64_t n = (cend - c) / (rl * cap), room = ((int64_t)rp->sp_mask - 2 - (G - rp->G)) / rl,
				ce = c + cap + bm;
			if (n > room)
				n = room;
			if (n <= 0) {
				ring_fit(rp, G + rl + 2 - rp->G);
				continue;
			}
			(rl == SPATH_RUN1 ? runs_add8 : runs_add4)(rp->sp_acc, rp->sp_need,
								  (uint64_t)(G + 1) & rp->sp_mask, rp->sp_mask, n,
								  d, inc, sh, kq, &st, &ce, &nb);
			c = ce - cap - bm;
			G += rl * n;
			continue;
		}
		/* one step (before a run's slot, near the end, or no runs) */
		q = cend - c < cap ? cend - c : cap;
		b = (int32_t)((c + q + bm) >> sh);
		a = q > 1 ? spath_draw(d, &st, inc, q - 1) : 0;
		if ((uint64_t)(G + 2 - rp->G) > rp->sp_mask)
			ring_fit(rp, G + 2 - rp->G);
		step_terms(rp, (uint64_t)(G + 1) & rp->sp_mask, 1, c, q, cap, a, b, &nb);
		c += 1 + a;
		G++;
	}
	fin_terms(rp, G, 1, c);
	end->c = c;
	end->nb = nb;
	*state = st;
	return G;
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
	int64_t fin;

	r->spath = true;
	r->dG0 = rp->G;
	r->dc0 = r->computed;
	r->dg0 = r->generated;
	r->sp_state = s->spec_rng.state;
	if (!rp->sp_acc)
		ring_fit(rp, 1);
	/* (the stream goes on past the path's draws) */
	fin = path_join(s, rp, r, &end, &s->spec_rng.state);
	r->sp_nb = end.nb;
	rp->nspath++;
	rp->sp_n++;
	rp->sp_C += r->dc0;
	rp->sp_K += r->output - r->dg0 + r->dc0;
	dec_fin_queue(rp, r, fin);
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
	free(rp->sp_acc);
	free(rp->sp_need);
	free(rp->sp_rare);
	rp->sp_acc = NULL;
	rp->sp_need = NULL;
	rp->sp_rare = NULL;
}
