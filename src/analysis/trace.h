/* trace.h - operator flow extracted from profiler traces: torch-profiler /
 * Kineto Chrome traces (.json, .json.gz) and Ascend kernel_details.csv.
 *
 * Kineto: CPU operators with their recorded shapes ("Input Dims", needs
 * record_shapes=True), the scope they ran in (user annotations, Python
 * functions, nn.Module scopes), and the GPU kernels each launched (linked by
 * correlation id through the CUDA runtime call).  Kernels replayed from a
 * CUDA graph have no launching operator or shapes and are marked.
 * Ascend (design document 003): one row per kernel; collective kernels
 * listed twice (two streams) are deduplicated on (integer start, type); the
 * attention anchors (FusedInferAttentionScore, SparseFlashAttention) are
 * grouped into forward passes (anchors_per_pass consecutive anchors, i.e.
 * the model's layer count, as 003 does; else split where the gap between two
 * anchors is over TR_PASS_GAP x the pass's median anchor interval), one pass
 * is selected (fwd #N) and cut to [its first anchor's start, its last
 * anchor's end] (003), or with full_window from the end of the previous
 * pass's last anchor to the next pass's first anchor (the whole capture for
 * a single pass: 003's GLM-5.1 prefill). */
#ifndef SERVESIM_TRACE_H
#define SERVESIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "deploy/catalog.h"
#include "model/opgraph.h"

enum tr_cat { TRC_EMBED, TRC_NORM, TRC_ATTN, TRC_ROUTER, TRC_MOE_FFN, TRC_COMM, TRC_OTHER, TRC__COUNT };
const char *tr_cat_name(enum tr_cat c);

struct tr_op {
	char name[96];         /* operator (Kineto) or op type (Ascend) */
	char kernel[96];       /* first kernel it launched (shortened) */
	char scope[96];        /* innermost scope ("" when none) */
	char dims[192];        /* input shapes as recorded, "" when none */
	enum tr_cat cat;
	int layer;             /* 0-based; -1 before the first attention */
	bool matmul;           /* mm, bmm, matmul, linear, addmm, baddbmm, MatMul* */
	bool graph;            /* its kernels came from a CUDA-graph replay */
	double flops;          /* 2mnk for the matmul family with shapes; NAN otherwise */
	int nkernels;
	double kernel_us;
	double ts;
	long scope_id;         /* which scope instance (layer finding); -1 none */
};

struct tr_pass {
	double start, end;     /* first anchor's start, last anchor's end (us) */
	int anchors;
};

struct tr_read_opts {
	const char *anchor;    /* Ascend anchor op type; NULL: the defaults */
	int fwd;               /* Ascend forward pass to cut, 1-based; 0: the first */
	int anchors_per_pass;  /* 0: split passes at gaps */
	bool full_window;      /* 003's un-truncated window */
};

/* What a trace records about the pass it holds, for `--compare` at the
 * trace's own shape (0 / false / "" where it says nothing): */
struct tr_shape {
	/* scaled-dot-product attention ops' recorded dims (queries [batch,
	 * heads, tokens, dim], keys [batch, heads, keys, dim]), the most
	 * frequent: requests, new tokens and keys per request on this GPU */
	long long attn_batch, attn_seq, attn_keys;
	/* the matmul family's activation rows (tokens on this GPU), the most
	 * frequent */
	long long rows;
	/* the trace's name (Kineto traceName): parts like "seqlen4096",
	 * "bs8", "tp1", "ep64" */
	char name[160];
	long long name_seq, name_batch;
	int name_tp, name_pp, name_dp, name_ep;
	int world;             /* distributedInfo.world_size */
	/* a training step: autograd backward operators, or scopes marked as
	 * backward ("(B)", "(W)", "backward"); the first one in why */
	bool backward;
	char backward_why[96];
	/* attention scope instances among forward scopes (a training trace's
	 * forward layers) */
	int fwd_attn_scopes;
	bool fp8;              /* fp8 kernels or operators ("fp8", "e4m3" in a name) */
	char fp8_why[96];
};

struct trace {
	char format[16];       /* "kineto" or "ascend" */
	struct tr_pass *passes; /* Ascend: every forward pass found */
	size_t npasses;
	int fwd;               /* the pass cut out, 1-based (0: kineto) */
	bool full_window, by_count;
	double win_start, win_end; /* the window cut (us) */
	char device[96];
	struct tr_op *ops;
	size_t n, cap;
	size_t nkernels, ncpu_ops, unattributed, graph_kernels, dup_collectives;
	double kernel_us, unattributed_us;
	int nlayers;
	bool has_shapes;
	struct tr_shape shape;
};

/* ro: Ascend pass selection, NULL for the defaults. */
int trace_read(const char *path, const struct tr_read_opts *ro, struct trace *t, struct err *e);
int trace_read_kineto_mem(const char *buf, size_t len, const char *name, struct trace *t,
			  struct err *e);
void trace_release(struct trace *t);
/* --profiler-root: the kernel_details.csv files under root (003: the
 * profiler writes ASCEND_PROFILER_OUTPUT/kernel_details.csv per rank), sorted
 * by path, at most max; *n = how many were found (may exceed max). */
int trace_find_kernel_details(const char *root, char (*paths)[512], size_t max, size_t *n,
			      struct err *e);
/* What `trace --compare` lines the trace up with: the caller's flags where
 * given, else what the trace records (struct tr_shape), else batch-1
 * decode; each part says where it came from (for the report). */
struct tr_compare {
	struct pass_shape shape;   /* batch over all DP ranks, as opgraph_build takes it */
	struct parallel par;
	enum dtype dt;
	/* a training step: the template's forward layers and as many backward
	 * ones, whose GEMMs run twice (input and weight gradients) */
	bool train;
	int layers;                /* forward layers the template counts */
	char shape_src[240], par_src[160], dt_src[160], phase_src[140];
};
/* Fill c (shape, par, dt and train already set from the flags given, which
 * the *_given say) from trace t; phase_given: train was given (--phase). */
void trace_compare_settings(const struct trace *t, bool shape_given, bool par_given, bool dt_given,
			    bool phase_given, struct tr_compare *c);

/* The template --compare lines trace t up with: model m's operator graph at
 * c's shape, layout and dtype (*og, opgraph_release) and the layer kind it
 * compares (*lk: 'moe' for an MoE model, else 'dense').  SS_EUSAGE naming
 * the model when its graph cannot be built at that layout or has no such
 * kind. */
int trace_template(const struct model_cfg *m, const struct tr_compare *c, struct opgraph *og,
		   const struct layer_kind **lk, struct err *e);
/* trace_template's checks alone, so a caller can refuse before it prints
 * anything. */
int trace_compare_check(const struct model_cfg *m, const struct tr_compare *c, struct err *e);

/* 003's window rule when none is asked for: a GLM-5.x prefill
 * (compare_model, the model compared against, NULL: none; shape: the
 * compared shape) uses the whole capture, anything else the anchors'
 * window. */
bool trace_full_window_default(const char *compare_model, const struct pass_shape *shape);
/* The GPU a trace is judged on: gpu when gpu_given, else the one its device
 * name says when gpus.json knows it, else gpu (ascend-a3 for an Ascend
 * trace). */
int trace_gpu(const struct trace *t, const char *gpu, bool gpu_given, struct catalog *cat,
	      const struct gpu_spec **g, struct err *e);

/* 2*m*n*k of a matmul-family operator from its recorded input dims. */
double tr_matmul_flops(const char *op, const long long (*dims)[8], const int *ndim, int ninputs);

#endif
