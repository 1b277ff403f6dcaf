/* comm.h - placement of a parallel layout over nodes and the price of the
 * collectives it runs, each on the slowest link it crosses.
 *
 * Ranks are laid out as vLLM lays them out (world rank = ((dp x pp) + pp) x
 * tp + tp: TP innermost, then PP, then DP), filling NVLink domains of
 * gpu->nvlink_domain GPUs in order.  A collective whose group spans more
 * than one domain runs on the inter-node link (gpu->internode_bw per GPU);
 * inside a domain on NVLink (gpu->link_bw).
 *
 * EP all-to-all (dispatch before the routed experts, combine after) follows
 * DeepEP's measured bandwidths (data/comm/deepep.csv, PROVENANCE.md):
 * normal mode (throughput kernels, prefill-sized batches) and low-latency
 * mode (decode-sized batches), each as an achieved fraction of the link it
 * runs on. */
#ifndef SERVESIM_COMM_H
#define SERVESIM_COMM_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"

/* Link efficiency of the generic ring and send models, as cost.c has used
 * for NVLink since the first tier-0 model (README H1 notes): 0.7 of the
 * per-GPU figure. */
#define COMM_LINK_EFF 0.7

struct comm_place {
	int gpus;             /* tp x pp x dp */
	int domain;           /* NVLink domain size used */
	int nodes;            /* ceil(gpus / gpus_per_node) */
	int gpus_per_node;
	bool tp_cross;        /* a TP group spans NVLink domains */
	bool ep_cross;        /* the EP group (tp x dp GPUs of a stage) does */
	bool pp_cross;        /* some stage boundary does */
	int ep_domains;       /* NVLink domains one EP group spans */
	double nvlink_bw, net_bw; /* bytes/s per GPU */
};

enum comm_a2a_mode { COMM_A2A_NORMAL, COMM_A2A_LOW_LATENCY };

/* One row of data/comm/deepep.csv: t_us = alpha_us + bytes / (GB/s x 1e3). */
struct comm_a2a_row {
	char gpu[32];         /* kernel-table name (gpu->tables) or "h800" */
	bool internode;
	enum comm_a2a_mode mode;
	bool combine;
	int ep;
	double alpha_us, bw_GBps;
};

/* One measured NCCL collective of data/comm/nccl.csv: an all-gather or a
 * reduce-scatter of `bytes` (the whole gathered, or reduced, buffer) over
 * `gpus` GPUs of one node, nccl-tests' out-of-place time. */
enum comm_coll { COMM_ALL_GATHER, COMM_REDUCE_SCATTER };
struct comm_nccl_row {
	char gpu[32];         /* kernel-table name (gpu->tables) */
	enum comm_coll op;
	int gpus;
	double bytes, us;
};

/* One (gpu, op, gpus) series of nccl.csv: rows nccl[first, first + count). */
struct comm_nccl_series {
	enum comm_coll op;    /* its GPU: nccl[first].gpu */
	int gpus, first, count;
};

#define COMM_MAX_ROWS 64
#define COMM_MAX_NCCL 512
struct comm_table {
	struct comm_a2a_row rows[COMM_MAX_ROWS];
	int n;
	struct comm_nccl_row nccl[COMM_MAX_NCCL]; /* by (gpu, op, gpus), bytes ascending */
	int nn;
	/* the series, each a contiguous run of nccl[] (comm_nccl_s looks a
	 * series up here, then its bytes within it: ~30 compares a call where
	 * a scan of every row took ~2,000 instructions) */
	struct comm_nccl_series series[COMM_MAX_NCCL];
	int ns;
};

/* Read DIR/comm/deepep.csv and DIR/comm/nccl.csv (SS_EDATA naming file:line
 * on a bad row, on nccl.csv rows of one series out of byte order, or on a
 * series whose rows are not all together). */
int comm_table_load(const char *data_dir, struct comm_table *t, struct err *e);
/* Seconds of one NCCL all-gather or reduce-scatter of `bytes` (the whole
 * buffer) over n GPUs of the GPU whose kernel tables are named `gpu`, from
 * its measured series in nccl.csv: log-log interpolation between points,
 * the smallest message's latency below them, proportional to bytes past the
 * largest.  -1 when nccl.csv has no series for (gpu, op, n). */
double comm_nccl_s(const struct comm_table *t, const char *gpu, enum comm_coll op, int n, double bytes);

/* Place p on g's nodes (p->ep > 1 marks an EP group of tp x dp GPUs). */
void comm_place(const struct gpu_spec *g, const struct parallel *p, struct comm_place *out);
/* Seconds of one EP dispatch (combine: true for the combine) of `payload`
 * bytes per GPU (tokens x top-k x hidden x element bytes, all destinations)
 * over an EP group of ep GPUs placed as pl: the in-domain share on NVLink
 * (DeepEP intra-node fit for this GPU, else half the NVLink figure at
 * alpha 10 us), the off-domain share on the inter-node link at DeepEP's
 * measured RDMA efficiency; the slower of the two. */
double comm_a2a_s(const struct comm_table *t, const struct gpu_spec *g,
		  const struct comm_place *pl, enum comm_a2a_mode mode, bool combine, int ep,
		  double payload);
/* DeepEP's rule of thumb as SGLang's auto mode applies it: low-latency
 * kernels for decode-sized batches (at most 128 tokens per rank, DeepEP's
 * low-latency test size), normal kernels above. */
enum comm_a2a_mode comm_a2a_mode_for(double tokens_per_rank);
/* Ring all-reduce over n GPUs of `bytes` (message size) across domains. */
double comm_allreduce_cross_s(const struct comm_place *pl, int n, double bytes);
/* Attention-DP without EP (experts TP-sharded over the tp x dp GPUs): the
 * all-gather of every rank's hidden states before the experts and the
 * reduce-scatter after them, `bytes` being the gathered message: NCCL's
 * measured latencies for GPU g (comm_nccl_s) when the group stays in one
 * NVLink domain and nccl.csv has the series, else the ring over the slowest
 * link of the group. */
double comm_dp_gather_s(const struct comm_table *t, const struct gpu_spec *g, const struct comm_place *pl, int n,
			double bytes);
/* One all-gather over n GPUs of the group (tp x dp) placed as pl, `bytes`
 * being the gathered message: NCCL's measured latency as comm_dp_gather_s,
 * else the ring on the slowest link it crosses. */
double comm_all_gather_s(const struct comm_table *t, const struct gpu_spec *g, const struct comm_place *pl, int n,
			 double bytes);
/* One point-to-point activation send of `bytes` between pipeline stages
 * (the inter-node link when a stage boundary crosses domains). */
double comm_send_s(const struct comm_place *pl, double bytes);
/* "16 GPUs on 2 nodes of 8, NVLink domain 8 (900 GB/s per GPU), inter-node
 * 50 GB/s per GPU" */
void comm_place_describe(const struct comm_place *pl, char *buf, size_t n);

#endif
