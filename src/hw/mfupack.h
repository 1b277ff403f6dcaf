/* mfupack.h - compact kernel tables: the CSV tables of one kernel collection
 * (the .csv.gz files of data/mfu/<gpu>/<engine>-<version>) turned once, for one GPU of
 * data/gpus.json, into the grids and curves mfu_load builds from them (holes
 * filled, latencies turned into utilisation), written as one binary file
 * next to them (compact-<gpu id>.bin) by `make`, mapped and read in place
 * at every start instead of parsed and filled (the grids point into the
 * mapping, mfu_grid.mapped, which the tables keep until mfu_release).
 *
 * The CSV tables stay the reference: a pack is used only when it was made by
 * this format version for a GPU with bit-identical peaks and bandwidths, and
 * a section only while its CSV file has the size and modification time it
 * had when packed.  Anything else (no pack, an old pack, a pack made for
 * other figures, an edited CSV, a short read) silently falls back to the CSV
 * parse, which gives the same values bit for bit (tests/unit/test_kernels.c
 * compares both for every GPU and collection).  Library-internal: mfu.c and
 * moetab.c are its only callers, with tools/mfupack.c and the tests. */
#ifndef SERVESIM_MFUPACK_H
#define SERVESIM_MFUPACK_H
#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "hw/gpu.h"
#include "hw/mfu.h"
#include "hw/moetab.h"
#include "base/bytepack.h"
#include "base/sbuf.h"

/* Sections of a pack, one per CSV file (MoE: one per routing distribution). */
enum mfupack_sec {
	MFUPACK_GEMM, MFUPACK_ATTN_PREFILL, MFUPACK_ATTN_DECODE, MFUPACK_ALLREDUCE,
	MFUPACK_MLA_PREFILL, MFUPACK_MLA_DECODE, MFUPACK_ATTN_PREFILL_WIN, MFUPACK_ATTN_DECODE_WIN,
	MFUPACK_MLA_PREFILL_ABS,
	MFUPACK_MOE_0, MFUPACK__COUNT = MFUPACK_MOE_0 + MOE_DIST__COUNT
};

struct mfu_pack; /* an open pack file */

/* The pack of collection folder coll_dir for g, or NULL (absent, another
 * format, other GPU figures, unreadable). */
struct mfu_pack *mfupack_open(const char *coll_dir, const struct gpu_spec *g);
void mfupack_close(struct mfu_pack *p);
/* Close p but keep its mapping, handed to *m (the tables that read grids
 * from it in place hold it: mfu_tables.packs, unmapped by mfu_release). */
void mfupack_detach(struct mfu_pack *p, struct mfu_map *m);
/* Readers: 0 when the section was used; -1 when it is absent or stale
 * (csv_path changed since it was packed) or malformed, with the tables
 * untouched, so the caller parses csv_path instead.  mfupack_gemm adds the
 * dtypes t has not yet (bits in *got, as mfu_csv_gemm). */
int mfupack_gemm(struct mfu_pack *p, const char *csv_path, struct mfu_tables *t, unsigned *got);
int mfupack_attn(struct mfu_pack *p, enum mfupack_sec sec, const char *csv_path,
		 struct mfu_attn_cfg **out, size_t *nout);
int mfupack_allreduce(struct mfu_pack *p, const char *csv_path, struct mfu_tables *t);
/* mfupack_moe reads the curves in place: p must stay open while *t lives. */
int mfupack_moe(struct mfu_pack *p, enum moe_dist d, const char *csv_path, struct moetab **t);

/* The section parsers behind the readers, on one section's bytes (the
 * fuzz harness feeds them anything): -1 and nothing changed when malformed.
 * in_place: the grids' arrays point into buf where aligned (mfu_grid.mapped;
 * buf must outlive them), as the readers do on a mapped pack. */
int mfupack_parse_gemm(const unsigned char *buf, size_t len, struct mfu_tables *t, unsigned *got,
		       bool in_place);
int mfupack_parse_attn(const unsigned char *buf, size_t len, struct mfu_attn_cfg **out,
		       size_t *nout, bool in_place);
int mfupack_parse_allreduce(const unsigned char *buf, size_t len, struct mfu_tables *t);

/* Write the pack of collection folder coll_dir for g (the sections whose
 * CSV parses; a CSV that fails is left to the CSV path at run time). */
int mfupack_write(const char *coll_dir, const struct gpu_spec *g, struct err *e);
/* Every pack of data_dir: each GPU of data_dir/gpus.json with kernel
 * tables, each collection of its table folder.  *npacks gets the count. */
int mfupack_write_all(const char *data_dir, size_t *npacks, struct err *e);

#endif
