/* comm.c - placement over nodes and collective pricing (see comm.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/comm.h"
#include "base/csv.h"

/* 10 us per collective of the generic ring and send models (their link
 * efficiency: COMM_LINK_EFF, comm.h). */
#define COMM_ALPHA_S 10e-6
/* DeepEP's inter-node figures were measured with one 400 Gb/s ConnectX-7
 * per GPU (DeepEP README): bandwidths scale with the GPU's NIC. */
#define COMM_DEEPEP_NIC_BPS 50e9

/* The series of (gpu, op, n), or NULL. */
static const struct comm_nccl_series *find_series(const struct comm_table *t, const char *gpu, enum comm_coll op,
						  int n)
{
	int i;

	for (i = 0; i < t->ns; i++) {
		const struct comm_nccl_series *sr = &t->series[i];
		if (sr->op == op && sr->gpus == n && strcmp(t->nccl[sr->first].gpu, gpu) == 0)
			return sr;
	}
	return NULL;
}

/* DIR/comm/nccl.csv into t->nccl and t->series (comm_table_load). */
static int nccl_load(const char *data_dir, struct comm_table *t, struct err *e)
{
	static const char *const cols[] = {"gpu", "op", "gpus", "bytes", "latency_us", NULL};
	char path[1100];
	struct csv *c;
	int idx[5], rc;

	snprintf(path, sizeof(path), "%s/comm/nccl.csv", data_dir);
	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	while ((rc = csv_next(c, e)) > 0) {
		struct comm_nccl_row *r, *prev;
		const char *op = csv_field(c, idx[1]);
		double n;
		if (t->nn == COMM_MAX_NCCL) {
			rc = err_set(e, SS_EDATA, "%s:%zu: more than %d rows", path, csv_lineno(c),
				     COMM_MAX_NCCL);
			goto out;
		}
		r = &t->nccl[t->nn];
		snprintf(r->gpu, sizeof(r->gpu), "%s", csv_field(c, idx[0]));
		if (strcmp(op, "all_gather") != 0 && strcmp(op, "reduce_scatter") != 0) {
			rc = err_set(e, SS_EDATA, "%s:%zu: 'op' must be all_gather or reduce_scatter, got '%s'",
				     path, csv_lineno(c), op);
			goto out;
		}
		r->op = op[0] == 'a' ? COMM_ALL_GATHER : COMM_REDUCE_SCATTER;
		if ((rc = csv_num(c, idx[2], &n, e)) < 0 || (rc = csv_num(c, idx[3], &r->bytes, e)) < 0 ||
		    (rc = csv_num(c, idx[4], &r->us, e)) < 0)
			goto out;
		if (!(n >= 2 && n <= 1024) || !(r->bytes > 0) || !(r->us > 0)) {
			rc = err_set(e, SS_EDATA, "%s:%zu: gpus must be in [2, 1024], bytes and latency_us > 0",
				     path, csv_lineno(c));
			goto out;
		}
		r->gpus = (int)n;
		prev = t->nn > 0 ? &t->nccl[t->nn - 1] : NULL;
		if (prev && strcmp(prev->gpu, r->gpu) == 0 && prev->op == r->op && prev->gpus == r->gpus) {
			if (!(r->bytes > prev->bytes)) {
				rc = err_set(e, SS_EDATA,
					     "%s:%zu: bytes must grow within a (gpu, op, gpus) series, got %.0f after %.0f",
					     path, csv_lineno(c), r->bytes, prev->bytes);
				goto out;
			}
			t->series[t->ns - 1].count++;
		} else {
			if (find_series(t, r->gpu, r->op, r->gpus)) {
				rc = err_set(e, SS_EDATA,
					     "%s:%zu: the rows of series (%s, %s, %d) must be together, found another series' rows between them",
					     path, csv_lineno(c), r->gpu, op, r->gpus);
				goto out;
			}
			t->series[t->ns++] = (struct comm_nccl_series){r->op, r->gpus, t->nn, 1};
		}
		t->nn++;
	}
out:
	csv_close(c);
	return rc < 0 ? rc : 0;
}

double comm_nccl_s(const struct comm_table *t, const char *gpu, enum comm_coll op, int n, double bytes)
{
	const struct comm_nccl_series *sr = find_series(t, gpu, op, n);
	const struct comm_nccl_row *row, *lo, *hi;
	int a, b;

	if (!sr)
		return -1;
	row = &t->nccl[sr->first];
	if (!(row[0].bytes <= bytes)) /* below the smallest message: its latency, the floor */
		return row[0].us * 1e-6;
	if (row[sr->count - 1].bytes <= bytes) /* past the largest: bandwidth-bound, in proportion */
		return row[sr->count - 1].us * 1e-6 * bytes / row[sr->count - 1].bytes;
	/* row[a].bytes <= bytes < row[b].bytes, b = a + 1 at the end */
	a = 0;
	b = sr->count - 1;
	while (b - a > 1) {
		int m = (a + b) / 2;
		if (row[m].bytes <= bytes)
			a = m;
		else
			b = m;
	}
	lo = &row[a];
	hi = &row[b];
	return exp(log(lo->us) + (log(hi->us) - log(lo->us)) * (log(bytes) - log(lo->bytes)) /
					 (log(hi->bytes) - log(lo->bytes))) *
	       1e-6;
}

int comm_table_load(const char *data_dir, struct comm_table *t, struct err *e)
{
	static const char *const cols[] = {"gpu", "scope", "mode", "op", "ep", "alpha_us",
					   "bandwidth_GBps", NULL};
	char path[1100];
	struct csv *c;
	int idx[7], rc;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/comm/deepep.csv", data_dir);
	if ((rc = csv_open(path, &c, e)) < 0)
		return rc;
	if ((rc = csv_require(c, cols, idx, e)) < 0)
		goto out;
	while ((rc = csv_next(c, e)) > 0) {
		struct comm_a2a_row *r;
		double ep;
		const char *scope = csv_field(c, idx[1]), *mode = csv_field(c, idx[2]),
			   *op = csv_field(c, idx[3]);
		if (t->n == COMM_MAX_ROWS) {
			rc = err_set(e, SS_EDATA, "%s:%zu: more than %d rows", path, csv_lineno(c),
				     COMM_MAX_ROWS);
			goto out;
		}
		r = &t->rows[t->n];
		snprintf(r->gpu, sizeof(r->gpu), "%s", csv_field(c, idx[0]));
		if ((strcmp(scope, "intranode") != 0 && strcmp(scope, "internode") != 0) ||
		    (strcmp(mode, "ll") != 0 && strcmp(mode, "normal") != 0) ||
		    (strcmp(op, "dispatch") != 0 && strcmp(op, "combine") != 0)) {
			rc = err_set(e, SS_EDATA,
				     "%s:%zu: scope/mode/op must be intranode|internode, ll|normal, dispatch|combine, got '%s', '%s', '%s'",
				     path, csv_lineno(c), scope, mode, op);
			goto out;
		}
		r->internode = strcmp(scope, "internode") == 0;
		r->mode = mode[0] == 'l' ? COMM_A2A_LOW_LATENCY : COMM_A2A_NORMAL;
		r->combine = op[0] == 'c';
		if ((rc = csv_num(c, idx[4], &ep, e)) < 0 || (rc = csv_num(c, idx[5], &r->alpha_us, e)) < 0 ||
		    (rc = csv_num(c, idx[6], &r->bw_GBps, e)) < 0)
			goto out;
		if (!(ep >= 1) || !(r->alpha_us >= 0) || !(r->bw_GBps > 0)) {
			rc = err_set(e, SS_EDATA,
				     "%s:%zu: ep must be >= 1, alpha_us >= 0 and bandwidth_GBps > 0",
				     path, csv_lineno(c));
			goto out;
		}
		r->ep = (int)ep;
		t->n++;
	}
out:
	csv_close(c);
	if (rc < 0)
		return rc;
	return nccl_load(data_dir, t, e);
}

/* NVLink domains that the members of a group (count members starting at
 * world rank `first`, `stride` apart) fall into. */
static int domains_of(int first, int count, int stride, int domain)
{
	int n = 0, last = -1, i;

	for (i = 0; i < count; i++) {
		int d = (first + i * stride) / domain;
		if (d != last) {
			n++;
			last = d;
		}
	}
	return n;
}

void comm_place(const struct gpu_spec *g, const struct parallel *p, struct comm_place *o)
{
	int tp = p->tp, pp = p->pp, dp = p->dp, s, d;

	memset(o, 0, sizeof(*o));
	o->gpus = tp * pp * dp;
	o->gpus_per_node = g->gpus_per_node;
	o->domain = g->nvlink_domain;
	o->nodes = (o->gpus + o->gpus_per_node - 1) / o->gpus_per_node;
	o->nvlink_bw = g->link_bw;
	o->net_bw = g->internode_bw;
	/* world rank = (dp_i x pp + pp_j) x tp + tp_k (vLLM's order) */
	o->tp_cross = domains_of(0, tp, 1, o->domain) > 1;
	o->ep_domains = 1;
	for (s = 0; s < pp; s++) {
		/* the EP group of stage s: its TP ranks on every DP rank */
		int n = 0, last = -1, i, k;
		for (i = 0; i < dp; i++)
			for (k = 0; k < tp; k++) {
				int dom = ((i * pp + s) * tp + k) / o->domain;
				if (dom != last) {
					n++;
					last = dom;
				}
			}
		if (n > o->ep_domains)
			o->ep_domains = n;
		for (d = 0; d < dp && s + 1 < pp; d++)
			if (((d * pp + s) * tp) / o->domain != ((d * pp + s + 1) * tp) / o->domain)
				o->pp_cross = true;
	}
	o->ep_cross = p->ep > 1 && o->ep_domains > 1;
}

static const struct comm_a2a_row *find_row(const struct comm_table *t, const char *gpu,
					   bool internode, enum comm_a2a_mode mode, bool combine,
					   int ep)
{
	const struct comm_a2a_row *best = NULL;
	int i;

	/* the row of the largest measured EP not above ep (else the smallest) */
	for (i = 0; i < t->n; i++) {
		const struct comm_a2a_row *r = &t->rows[i];
		if (r->internode != internode || r->mode != mode || r->combine != combine ||
		    (gpu && strcmp(r->gpu, gpu) != 0))
			continue;
		if (!best || (r->ep <= ep && (best->ep > ep || r->ep > best->ep)) ||
		    (best->ep > ep && r->ep < best->ep))
			best = r;
	}
	return best;
}

double comm_a2a_s(const struct comm_table *t, const struct gpu_spec *g,
		  const struct comm_place *pl, enum comm_a2a_mode mode, bool combine, int ep,
		  double payload)
{
	const struct comm_a2a_row *in, *net;
	double alpha, nvl, off, t_in, t_net = 0;

	if (ep <= 1 || payload <= 0)
		return 0; /* before the table: a one-GPU model has none (cost.c) */
	in = find_row(t, g->tables, false, mode, combine, ep);
	net = find_row(t, NULL, true, mode, combine, ep);
	alpha = in ? in->alpha_us * 1e-6 : COMM_ALPHA_S;
	nvl = in ? in->bw_GBps * 1e9 : 0.5 * pl->nvlink_bw;
	/* share of the destinations outside this GPU's NVLink domain */
	off = pl->ep_cross ? 1.0 - 1.0 / (double)pl->ep_domains : 0.0;
	t_in = alpha + payload * (1.0 - off) / nvl;
	if (off > 0) {
		double eff = net ? net->bw_GBps * 1e9 / COMM_DEEPEP_NIC_BPS : COMM_LINK_EFF;
		t_net = alpha + (net ? net->alpha_us * 1e-6 : 0) + payload * off / (pl->net_bw * eff);
	}
	return t_in > t_net ? t_in : t_net;
}

enum comm_a2a_mode comm_a2a_mode_for(double tokens_per_rank)
{
	return tokens_per_rank <= 128 ? COMM_A2A_LOW_LATENCY : COMM_A2A_NORMAL;
}

double comm_allreduce_cross_s(const struct comm_place *pl, int n, double bytes)
{
	if (n <= 1)
		return 0;
	return COMM_ALPHA_S + 2.0 * (n - 1) / n * bytes / (pl->net_bw * COMM_LINK_EFF);
}

/* NCCL's measured op for g's own kernel tables (a GPU that borrows another's
 * tables, tables_of, may have another NVLink: H800's is 400 GB/s against
 * H100's 900), a group inside one NVLink domain; -1 otherwise. */
static double nccl_in_domain_s(const struct comm_table *t, const struct gpu_spec *g, const struct comm_place *pl,
			       enum comm_coll op, int n, double bytes)
{
	if (!t || pl->ep_domains > 1 || g->tables[0] == '\0' || g->tables_of[0] != '\0')
		return -1;
	return comm_nccl_s(t, g->tables, op, n, bytes);
}

static double ring_all_gather_s(const struct comm_place *pl, int n, double bytes)
{
	double bw = pl->ep_domains > 1 ? pl->net_bw : pl->nvlink_bw;

	/* ring all-gather: (n-1)/n of the message */
	return COMM_ALPHA_S + (double)(n - 1) / n * bytes / (bw * COMM_LINK_EFF);
}

double comm_all_gather_s(const struct comm_table *t, const struct gpu_spec *g, const struct comm_place *pl, int n,
			 double bytes)
{
	double m;

	if (n <= 1)
		return 0;
	m = nccl_in_domain_s(t, g, pl, COMM_ALL_GATHER, n, bytes);
	return m >= 0 ? m : ring_all_gather_s(pl, n, bytes);
}

double comm_dp_gather_s(const struct comm_table *t, const struct gpu_spec *g, const struct comm_place *pl, int n,
			double bytes)
{
	double ag, rs;

	if (n <= 1)
		return 0;
	/* SGLang's MAX_LEN gather (dp_attention.py _dp_gather_via_all_gather:
	 * all_gather_into_tensor on the TP group) and reduce-scatter after the
	 * experts (reduce_scatter_tensor), both NCCL; TensorRT-LLM's attention-DP
	 * allgather / reducescatter on HGX likewise */
	ag = nccl_in_domain_s(t, g, pl, COMM_ALL_GATHER, n, bytes);
	rs = nccl_in_domain_s(t, g, pl, COMM_REDUCE_SCATTER, n, bytes);
	if (ag >= 0 && rs >= 0)
		return ag + rs;
	/* ring all-gather and reduce-scatter: (n-1)/n of the message each */
	return 2.0 * ring_all_gather_s(pl, n, bytes);
}

double comm_send_s(const struct comm_place *pl, double bytes)
{
	return COMM_ALPHA_S + bytes / ((pl->pp_cross ? pl->net_bw : pl->nvlink_bw) * COMM_LINK_EFF);
}

void comm_place_describe(const struct comm_place *pl, char *buf, size_t n)
{
	snprintf(buf, n, "%d GPU%s on %d node%s of %d, NVLink domain %d (%.0f GB/s per GPU), inter-node %.0f GB/s per GPU",
		 pl->gpus, pl->gpus > 1 ? "s" : "", pl->nodes, pl->nodes > 1 ? "s" : "",
		 pl->gpus_per_node, pl->domain, pl->nvlink_bw / 1e9, pl->net_bw / 1e9);
}
