/* vision.h - the image encoder of a vision-language model priced as
 * operators (model/opgraph.h opgraph_vision) through the cost model's
 * tables: what encoding a step's images adds to it. */
#ifndef SERVESIM_COST_VISION_H
#define SERVESIM_COST_VISION_H
#include <stdint.h>

#include "cost/costmodel.h"

/* Seconds the encoder takes on one GPU of c's layout to encode `images`
 * images of `patches` patches each in one call (vLLM and SGLang batch a
 * step's images into one encoder forward): GEMMs on the GEMM tables in
 * bf16, the attention per image on the prefill table
 * (cost_attn_vision_s; in windowed blocks, win not NULL, one varlen call
 * over every image's windows), the elementwise operators at the GPU's
 * bandwidth (at least one launch each: the encoder runs eagerly), the
 * all-reduces on the collective table.  0 when c's model has no encoder
 * or images < 1. */
double cost_vision_s(const struct cost_model *c, int64_t images, int64_t patches, const struct vis_windows *win);

#endif
