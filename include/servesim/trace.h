/* trace.h - operator flow extracted from profiler traces: torch-profiler /
 * Kineto Chrome traces (.json, .json.gz) and Ascend kernel_details.csv.
 *
 * Kineto: CPU operators with their recorded shapes ("Input Dims", needs
 * record_shapes=True), the scope they ran in (user annotations, Python
 * functions, nn.Module scopes), and the GPU kernels each launched (linked by
 * correlation id through the CUDA runtime call).  Kernels replayed from a
 * CUDA graph have no launching operator or shapes and are marked.
 * Ascend: one row per kernel; collective kernels listed twice (two streams)
 * are deduplicated on (integer start, type); one forward pass is cut by the
 * attention anchors (FusedInferAttentionScore, SparseFlashAttention). */
#ifndef SERVESIM_TRACE_H
#define SERVESIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "servesim/err.h"

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

struct trace {
	char format[16];       /* "kineto" or "ascend" */
	char device[96];
	struct tr_op *ops;
	size_t n, cap;
	size_t nkernels, ncpu_ops, unattributed, graph_kernels, dup_collectives;
	double kernel_us, unattributed_us;
	int nlayers;
	bool has_shapes;
};

/* anchor: Ascend forward-pass anchor op type, NULL for the defaults. */
int trace_read(const char *path, const char *anchor, struct trace *t, struct err *e);
int trace_read_kineto_mem(const char *buf, size_t len, const char *name, struct trace *t,
			  struct err *e);
void trace_release(struct trace *t);
/* 2*m*n*k of a matmul-family operator from its recorded input dims. */
double tr_matmul_flops(const char *op, const long long (*dims)[8], const int *ndim, int ninputs);

#endif
