/* mfu.h - measured kernel tables (data/mfu/<gpu>/) turned into utilisation
 * lookups: MFU = useful FLOPs / (measured latency x peak), interpolated as
 * log(MFU) over log-spaced shape axes (trilinear for GEMM m,n,k; bilinear for
 * attention batch x length), held at the boundary when extrapolating, nearest
 * measured head configuration by a normalised log distance.  With
 * `nearest` set (tier-0 correction H6 switched off) lookups snap to the
 * nearest grid point instead, the step behaviour H6 exists to remove. */
#ifndef SERVESIM_MFU_H
#define SERVESIM_MFU_H
#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/axis.h"
#include "hw/gpu.h"
#include "hw/moetab.h"

/* Documented defaults for GPUs without measured tables (utilisation of the
 * dense peak; the bandwidth term of the roofline still applies). */
#define MFU_DEFAULT_GEMM 0.60
#define MFU_DEFAULT_ATTN_PREFILL 0.45
#define MFU_DEFAULT_ATTN_DECODE 0.30

/* The FLOPs-equivalent head dims of the MLA tables (scripts/mfu/derive.py):
 * absorbed decode 2 x (576 + 512) / 4, expanded prefill 2 x (192 + 128) / 4,
 * so that 4 x batch x heads x dim x pairs is MLA's attention FLOPs. */
#define MFU_MLA_DECODE_DIM 544
#define MFU_MLA_PREFILL_DIM 160

struct mfu_grid {
	size_t dims;          /* 1..3 */
	size_t len[3];
	double *axis[3];      /* log of the axis values, ascending */
	double *v;            /* log(MFU), NAN where not measured; row-major */
	/* axis and v point into a kernel pack read in place (mfupack.h), a
	 * read-only mapping the tables keep (mfu_tables.packs): never written
	 * or freed through the grid; mfu_grid_unshare copies them first */
	bool mapped;
};

/* Give g arrays of its own (copies of the mapped ones), before changing it. */
void mfu_grid_unshare(struct mfu_grid *g);
/* g's own arrays freed (a mapped grid's left to its pack), g cleared. */
void mfu_grid_release(struct mfu_grid *g);

struct mfu_attn_cfg {
	int heads, kv_heads, head_dim;
	enum dtype kv_dtype;
	/* 0: full attention.  > 0: a sliding-window table (mfu_tables
	 * prefill_win / decode_win), whose grid holds, once loaded, the log of
	 * its MFU over the dense table's at the same keys (mfu_attn_window_rebase) */
	int window;
	struct mfu_grid g;    /* batch x length */
	bool own;             /* from the GPU's own measurements (gpu_spec.measured) */
	/* a borrowed configuration the GPU's own measurements replace: kept
	 * only as the reference of mfu_attn_anchor_own, never resolved */
	bool shadow;
	/* a borrowed configuration rebased on the GPU's own measured layout
	 * anchor_* (mfu_attn_anchor_own): own(anchor) x borrowed(this) /
	 * borrowed(anchor) */
	bool anchored;
	int anchor_heads, anchor_kv_heads, anchor_head_dim;
	enum dtype anchor_kv_dtype;
};

struct moetab;

/* A read-only file mapping the tables hold (mfu_tables.packs). */
struct mfu_map {
	const void *addr;
	size_t len;
};

/* Most further collections' MoE tables kept (mfu_tables.moe_more): a GPU
 * holds four collections today (data/mfu/h100_sxm). */
#define MFU_MOE_MORE 7

/* What each priced component was looked up in, for the run header. */
enum mfu_part {
	MFU_P_GEMM_BF16, MFU_P_GEMM_FP8, MFU_P_GEMM_FP4, MFU_P_ATTN_PREFILL, MFU_P_ATTN_DECODE,
	MFU_P_ALLREDUCE, MFU_P_MOE, MFU_P_MLA_PREFILL, MFU_P_MLA_DECODE, MFU_P_ATTN_PREFILL_WIN,
	MFU_P_ATTN_DECODE_WIN, MFU_P_MLA_PREFILL_ABS, MFU_P__COUNT
};

struct mfu_tables {
	bool have_gemm[DT__COUNT];
	struct mfu_grid gemm[DT__COUNT];
	struct mfu_attn_cfg *prefill, *decode;
	size_t nprefill, ndecode;
	/* MLA kernel tables (DeepSeek geometry), in the attention format with
	 * kv_heads 1 and head_dim MFU_MLA_PREFILL_DIM / MFU_MLA_DECODE_DIM */
	struct mfu_attn_cfg *mla_prefill, *mla_decode;
	size_t nmla_prefill, nmla_decode;
	/* MLA context attention in the absorbed form (as decode: head_dim
	 * MFU_MLA_DECODE_DIM), the form SGLang prefills with when a batch's
	 * summed cached prefix is in (0, its chunked-prefix threshold) */
	struct mfu_attn_cfg *mla_prefill_abs;
	size_t nmla_prefill_abs;
	/* sliding-window GQA tables (attn_{prefill,decode}_window), cfg->window
	 * > 0, their grids rebased on the dense rows of their own collection
	 * (mfu_attn_window_rebase): log(windowed MFU / dense MFU at the same
	 * keys), the kernel's penalty for the window */
	struct mfu_attn_cfg *prefill_win, *decode_win;
	size_t nprefill_win, ndecode_win;
	double *ar_size[9], *ar_lat[9]; /* all-reduce by num_gpus (2,4,8): log elems, log us */
	size_t ar_len[9];
	struct moetab *moe;   /* fused-MoE kernel tables (mfu_load_moe), or NULL */
	char moe_path[700];   /* where they are, or "" */
	/* the MoE tables of the collections after moe_path's, in the same
	 * fallback order (same engine by version distance, then vLLM, then the
	 * others): a routed-expert format moe has no rows for comes from the
	 * first of these that measures it (cost_init), not from the roofline */
	struct moetab *moe_more[MFU_MOE_MORE];
	char moe_more_path[MFU_MOE_MORE][700];
	char moe_more_src[MFU_MOE_MORE][112]; /* as src[MFU_P_MOE] */
	size_t nmoe_more;
	/* the GPU's own measurements (gpu_spec.measured), loaded first: their
	 * GEMM dtypes win, their attention and MLA configurations are listed
	 * before the borrowed ones (cfg->own), their MoE curves are apart */
	struct moetab *moe_own;
	char moe_own_path[700];
	char src_own[MFU_P__COUNT][112]; /* per component: own table, or "" */
	bool nearest;         /* H6 off */
	char dir[600];        /* where the tables came from, or "" */
	char engine[16];      /* collection chosen: engine and version ("" for a flat dir) */
	char version[32];
	char src[MFU_P__COUNT][112]; /* per component: table it came from, or "" (none) */
	char warning[700];    /* set when defaults are in use */
	/* the mappings of the kernel packs the grids were read from in place
	 * (mfu_grid.mapped; mfupack_detach), unmapped by mfu_release */
	struct mfu_map *packs;
	size_t npacks;
};

const char *mfu_part_name(enum mfu_part p);

/* Load the tables for g measured with `engine` (a collection name: "vllm",
 * "sglang", "trtllm") at the collected version nearest `version` ("" or
 * NULL: the newest) from data_dir/mfu/<g->tables>/<engine>-<version>/.  A
 * component that collection lacks comes from the nearest other collection
 * (same engine first, then `fallback`'s (NULL: none preferred), then the
 * others, newest first) and t->src says which; an engine with no collection
 * on this GPU falls back the same way with a warning.
 * A GPU without tables is not an error: defaults apply and `warning` says
 * so.  Latencies become utilisation against g->table_peak (the GPU the
 * tables were measured on), so borrowed tables carry their MFU over. */
int mfu_load(struct mfu_tables *t, const char *data_dir, const struct gpu_spec *g,
	     const char *engine, const char *fallback, const char *version, struct err *e);
/* Load the fused-MoE tables found by mfu_load for routing distribution d
 * (a no-op without them, or when d's are loaded already). */
int mfu_load_moe(struct mfu_tables *t, const struct gpu_spec *g, enum moe_dist d, struct err *e);
/* The first collection, in mfu_load's order for (engine, fallback, version) on g's
 * tables, that holds `file` (e.g. "dsa_module.csv.gz"): 1 with its path and
 * "mfu/<tables>/<collection>/<file without .csv.gz>" in src, 0 when none
 * does (or g has no tables). */
int mfu_find_file(const char *data_dir, const struct gpu_spec *g, const char *engine,
		  const char *fallback, const char *version, const char *file, char *path, size_t path_cap, char *src,
		  size_t src_cap);
void mfu_release(struct mfu_tables *t);
/* The kernel collections under data_dir/mfu/<tables>/ (folders named
 * <engine>-<version>; packs and files skipped), sorted by name, at most cap
 * of them, into names; the count found. */
size_t mfu_collections(const char *data_dir, const char *tables, char (*names)[64], size_t cap);
/* The same from an explicit folder (tier-2 measured tables). */
int mfu_load_dir(struct mfu_tables *t, const char *dir, const struct gpu_spec *g, struct err *e);

double mfu_gemm(const struct mfu_tables *t, enum dtype dt, double m, double n, double k);
/* One GEMM shape (n, k) at many token counts m (the cost model prices every
 * count at start-up): log n, log k and their place on the grid resolved
 * once; mfu_gemm_col_eval(col, m) is mfu_gemm(t, dt, m, n, k) bit for bit.
 * col borrows t. */
struct mfu_gemm_col {
	const struct mfu_tables *t;
	const struct mfu_grid *g;   /* NULL: mfu_gemm's own path */
	enum dtype dt;
	double n, k;
	size_t lo[3];
	double w[3], pos[3];        /* entries 1 and 2 (n and k) */
};
void mfu_gemm_col_init(const struct mfu_tables *t, enum dtype dt, double n, double k,
		       struct mfu_gemm_col *col);
double mfu_gemm_col_eval(const struct mfu_gemm_col *col, double m);
/* One attention batch size at many lengths (a decode step of more
 * sequences than the decode rows hold, cost_gqa_decode_s): its place on
 * the grid's batch axis resolved once; mfu_attn_col_eval(col, log_len) is
 * mfu_attn_eval_log(t, c, prefill, log_batch, log_len) bit for bit.  col
 * borrows t and c. */
struct mfu_attn_col {
	const struct mfu_tables *t;
	const struct mfu_attn_cfg *c;
	const struct mfu_grid *g;   /* NULL: mfu_attn_eval_log's own path */
	bool prefill;
	double log_batch;
	size_t lo;
	double w, pos;              /* the batch axis' */
	size_t hint;                /* the length axis' last place (axis_bracket_hint) */
};
void mfu_attn_col_init(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
		       double log_batch, struct mfu_attn_col *col);
double mfu_attn_col_eval(struct mfu_attn_col *col, double log_len);
double mfu_attn_prefill(const struct mfu_tables *t, int heads, int kv_heads, int head_dim,
			enum dtype kvdt, double batch, double isl);
double mfu_attn_decode(const struct mfu_tables *t, int heads, int kv_heads, int head_dim,
		       enum dtype kvdt, double batch, double kv_len);
/* The measured head configuration nearest to (heads, kv_heads, head_dim,
 * kv dtype), resolved once so per-step lookups skip the search; NULL when
 * there are no tables.  A configuration of the GPU's own measurements wins
 * when it is the exact one; otherwise it counts 0.5 farther than a borrowed
 * one (the borrowed tables sweep far more head layouts). */
const struct mfu_attn_cfg *mfu_attn_resolve(const struct mfu_tables *t, bool prefill, int heads,
					    int kv_heads, int head_dim, enum dtype kvdt);
double mfu_attn_eval(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
		     double batch, double len);
/* The measured MLA configuration nearest heads (per GPU) and kv dtype, or
 * NULL when no MLA table was loaded. */
const struct mfu_attn_cfg *mfu_mla_resolve(const struct mfu_tables *t, bool prefill, int heads,
					   enum dtype kvdt);
/* The same for the absorbed-form MLA context table (mla_prefill_abs), or
 * NULL when none was loaded. */
const struct mfu_attn_cfg *mfu_mla_absorbed_resolve(const struct mfu_tables *t, int heads, enum dtype kvdt);
/* The own configurations (cfg->own) of c measured only from some length
 * on (InferSim: decode from 1024 keys, prefill from 1024 tokens) get the
 * shorter lengths of their nearest borrowed configuration, at the own
 * utilisation of their shortest length times the borrowed ratio (short
 * kernels are launch-bound: holding the utilisation would price a 128-key
 * decode at an eighth of a 1024-key one). */
void mfu_attn_extend_own(struct mfu_attn_cfg *c, size_t n);
/* Rebase every borrowed configuration within MFU_OWN_ANCHOR_REACH of one of
 * the GPU's own (measured) layouts on it: log MFU = own(anchor) +
 * borrowed(this) - borrowed(anchor) on this configuration's grid, so the
 * GPU's own efficiency carries the level and the borrowed collection only
 * the ratio between the two layouts (head counts, head dim, KV dtype). */
void mfu_attn_anchor_own(struct mfu_attn_cfg *c, size_t n);
/* The same with the axis values given as logs (callers that keep them). */
double mfu_attn_eval_log(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
			 double log_batch, double log_len);
/* A 2-D attention grid restricted to one batch size: log(MFU) at each of
 * the grid's length-axis points, so a lookup along the length is one bracket
 * and one linear interpolation (exactly the bilinear surface of the grid). */
struct mfu_row {
	const double *axis;   /* log lengths (the grid's) */
	double *v;            /* log(MFU) at each axis point */
	size_t len;
	double dflt;          /* when there is no table */
};

/* Fill `row` for log_batch; row->v is allocated (free with mfu_row_release). */
void mfu_attn_row(const struct mfu_tables *t, const struct mfu_attn_cfg *c, bool prefill,
		  double log_batch, struct mfu_row *row);
void mfu_row_release(struct mfu_row *row);
/* The least log length from which x / mfu_row_eval(row, log x) -- the
 * compute time of a kernel whose work is linear in x -- rises with x by
 * a margin no rounding of the evaluation can undo (at least (1 - max_slope)
 * / x relatively, from x to the next integer): each segment of the axis
 * from there up has log MFU rising at most max_slope times as fast as log
 * x (0 < max_slope < 1), spans at least min_width and a log MFU step of at
 * most 4, and no value is missing (a NaN's default would jump).  -INFINITY
 * when that holds everywhere (a constant MFU too: held ends, no table),
 * INFINITY when a value is missing (the ends are held: past the last
 * axis point the MFU is constant).  A caller that needs the
 * slowest of many such prices takes it from the largest x there
 * (step.c's attention-DP groups). */
double mfu_row_rises_from(const struct mfu_row *row, double max_slope, double min_width);
/* The same for a grid's column (mfu_attn_col_eval: its bilinear surface
 * at the column's batch, whose slope along the length axis is a blend of
 * its two batch rows' -- each must pass); INFINITY for a column evaluated
 * otherwise (no 2-D grid, nearest cells). */
double mfu_attn_col_rises_from(const struct mfu_attn_col *col, double max_slope, double min_width);
/* MFU at log_len (held at the ends of the axis). */
/* A table value lv (log MFU) as a utilisation: dflt where the table has
 * none (NaN), at most 1. */
static inline double mfu_clamp(double lv, double dflt)
{
	double v;

	if (isnan(lv))
		return dflt;
	v = exp(lv);
	return v > 1.0 ? 1.0 : v;
}
double mfu_row_eval(const struct mfu_row *row, double log_len);
/* The same value, bit for bit, looked up first at *hint (an axis index,
 * 0 at first), which it updates: a caller whose lengths move slowly (a
 * decode batch's mean context) skips the search.  Inline: it prices every
 * decode step's attention (an attention-DP rank's at each of its steps),
 * where the call and its spills were a fifth of its instructions. */
static inline double mfu_row_eval_hint(const struct mfu_row *row, double log_len, size_t *hint)
{
	const double *a = row->axis;
	size_t i = *hint, n = row->len, lo;
	double w;

	if (!row->v || n == 1 || log_len <= a[0] || log_len >= a[n - 1])
		return mfu_row_eval(row, log_len); /* held at an end */
	/* axis_bracket's search finds the first axis value >= log_len (the axis
	 * is strictly increasing): a[i] when the hint's neighbours enclose it */
	if (!(i >= 1 && i < n && a[i - 1] < log_len && log_len <= a[i]))
		*hint = i = axis_find(a, n, log_len);
	if (a[i] == log_len) { /* as axis_bracket: i < n - 1 here */
		lo = i;
		w = 0;
	} else {
		lo = i - 1;
		w = (log_len - a[i - 1]) / (a[i] - a[i - 1]);
	}
	return mfu_clamp((1 - w) * row->v[lo] + w * row->v[lo + 1], row->dflt);
}
/* Seconds for one all-reduce of `elems` bf16 elements over n GPUs, or a
 * negative value when no table covers n. */
double mfu_allreduce_s(const struct mfu_tables *t, int n, double elems);
/* Interpolate a grid at log-space point x (dims entries). */
double mfu_grid_eval(const struct mfu_grid *g, const double *x, bool nearest);

/* The CSV loaders of mfu.c (the reference parse). */
int mfu_csv_gemm(struct mfu_tables *t, const char *path, const struct gpu_spec *gs, unsigned *got,
		 struct err *e);
int mfu_csv_attn(const char *path, bool prefill, const struct gpu_spec *gs,
		 struct mfu_attn_cfg **out, size_t *nout, struct err *e);
int mfu_csv_allreduce(struct mfu_tables *t, const char *path, struct err *e);
/* A sliding-window table (columns heads, kv_heads, head_dim, kv_dtype,
 * window, batch, isl | kv_len, latency_us): one configuration per layout
 * and window, log MFU over (log batch, log length) with the useful FLOPs of
 * the attended pairs (prefill: query i sees min(i, window) keys; decode:
 * min(kv_len, window) keys). */
int mfu_csv_attn_window(const char *path, bool prefill, const struct gpu_spec *gs,
			struct mfu_attn_cfg **out, size_t *nout, struct err *e);
/* Turn each windowed configuration's log MFU into its offset from the
 * dense table of the same collection (dense, n of them; own measurements
 * skipped) at the same keys: the nearest dense layout, looked up as the
 * cost model looks up a sliding layer on dense rows (prefill: the length
 * whose causal pairs equal the windowed prefill's, sqrt(2 x pairs); decode:
 * min(kv_len, window) keys).  Without a dense configuration the values
 * become 0 (no penalty known). */
void mfu_attn_window_rebase(struct mfu_attn_cfg *win, size_t nwin, const struct mfu_attn_cfg *dense,
			    size_t ndense, bool prefill);
/* The windowed tables' penalty for one layout and window: the nearest
 * layout measured at each of the two measured windows that bracket it,
 * mixed linearly in 1 / window (a window's masked-tile overhead goes as
 * tile / window); held at the smallest or largest measured window outside
 * them.  cfg[0] NULL: no windowed table. */
struct mfu_window {
	const struct mfu_attn_cfg *cfg[2];
	double mix;           /* weight of cfg[1] */
	int window;           /* the layer's */
};
void mfu_window_resolve(const struct mfu_tables *t, bool prefill, int heads, int kv_heads,
			int head_dim, enum dtype kvdt, int window, struct mfu_window *out);
/* log(windowed MFU / dense MFU) at (log batch, log length), 0 without a
 * windowed table; length: the prefix-free prefill length (isl) or the
 * decode's kv_len, as the tables are keyed. */
double mfu_window_off(const struct mfu_tables *t, const struct mfu_window *w, double log_batch,
		      double log_len);
/* mfu_load and mfu_load_moe with the packs used or not (use_pack false:
 * the CSV parse only, the reference the tests compare against). */
int mfu_load_opt(struct mfu_tables *t, const char *data_dir, const struct gpu_spec *g,
		 const char *engine, const char *fallback, const char *version, bool use_pack,
		 struct err *e);
int mfu_load_moe_opt(struct mfu_tables *t, const struct gpu_spec *g, enum moe_dist d,
		     bool use_pack, struct err *e);

#endif
