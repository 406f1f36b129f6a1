/* castorder_rungs_neon.c — chapter 8's fast rungs (half_rungs.h) at 4
 * lanes: bf16 widened by a shift and narrowed by the integer trick, fp16
 * by FCVTL/FCVTN (half_vec_neon.h); f32stats, pipe, split and block, each for
 * the Llama, Gemma and torch LayerNorm cast orders. */
#include "simd/vec_neon.h"
#include "precision/half_vec_neon.h"
#include "precision/half_rungs.h"

HALF_PLAIN_RUNGS()
