/* roofline.h - which resource bounds a forward pass: FLOPs and bytes of the
 * operator graph (efficient execution: flash attention, fused operators,
 * each weight read once per step) against the GPU's peak compute, achievable
 * HBM bandwidth and interconnect.
 *
 *   T_comp = (F_tc / eta + F_other / eta_scalar) / peak(dtype), per operator
 *            eta = min(1, GEMM rows / b_sat); attention at eta 1
 *   T_hbm  = HBM bytes / (BW x bw_eff)      (weights / min(WRF, GEMM rows)
 *                                           + activations + KV + temporaries,
 *                                           design doc 001)
 *   T_net  = collective bytes / link BW     (TP all-reduce, EP all-to-all)
 *   T_est  = max(T_comp, T_hbm, T_net)
 * Regime: the largest term; HBM splits into "HBM weights" and "HBM KV" by
 * the larger byte class.  Arithmetic intensity AI_hbm = FLOPs / HBM bytes
 * against 001's OI_knee = peak / BW (datasheet bandwidth), and against the
 * effective ridge peak / (BW x bw_eff) that T_hbm implies. */
#ifndef SERVESIM_ROOFLINE_H
#define SERVESIM_ROOFLINE_H

#include <stdint.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "model/model.h"

struct rl_point {
	int64_t batch, seq, kv_len;   /* requests, new tokens each, cached tokens each */
	double flops;                 /* per GPU, one forward pass */
	double weight_bytes, act_bytes, kv_bytes, temp_bytes, net_bytes;
	double t_comp, t_hbm, t_net, t_est; /* seconds */
	double intensity;             /* FLOP per HBM byte */
	const char *regime;           /* "compute", "HBM weights", "HBM KV", "network" */
};

struct rl_cfg {
	const struct model_cfg *m;
	const struct gpu_spec *g;
	struct parallel p;
	enum dtype wdt, kvdt;
	bool naive;         /* naive execution: S x S scores in HBM, no fusion, no weight reuse */
	bool train;         /* forward + backward (rl_eval with train set) */
	double b_sat;       /* GEMM rows that saturate the tensor cores (eta = min(1, m / b_sat)) */
	double eta_scalar;  /* non-tensor-core FLOP rate as a fraction of the tensor peak */
	double tile;        /* naive mode: rows per GEMM tile; weights re-read per tile */
	double res_attn, res_dense, res_moe; /* efficient: fraction of weight bytes read from HBM
					      * per step = 1 / WRF (001: 1/4, 1/4, 1/2), at
					      * least 1 / the GEMM's rows */
};

/* defaults of the constants above (see roofline.c for their sources) */
void rl_cfg_defaults(struct rl_cfg *c);

/* One forward pass of batch requests, seq new tokens after kv_len cached. */
int rl_eval(const struct rl_cfg *c, int64_t batch, int64_t seq, int64_t kv_len,
	    struct rl_point *out, struct err *e);
/* 001's OI_knee = peak / HBM bandwidth (datasheet) */
double rl_oi_knee(const struct rl_cfg *c);
/* the effective ridge = peak / (HBM bandwidth x bw_eff) */
double rl_ridge(const struct rl_cfg *c);
/* Smallest decode batch (<= max) at kv_len where T_comp >= T_hbm; 0 if none. */
int rl_critical_batch(const struct rl_cfg *c, int64_t kv_len, int64_t max, int64_t *out,
		      struct err *e);

#endif
