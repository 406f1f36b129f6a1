/* castorder_rungs_avx2.c — chapter 8's fast rungs (half_rungs.h) at 8
 * lanes: bf16 widened by a shift and narrowed by the integer trick, fp16
 * by F16C (half_vec_avx2.h); f32stats, pipe, split and block, each for
 * the Llama, Gemma and torch LayerNorm cast orders. */
#include "simd/vec_avx2.h"
#include "precision/half_vec_avx2.h"
#include "precision/half_rungs.h"

HALF_PLAIN_RUNGS()
