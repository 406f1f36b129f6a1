/* fused_add_avx512.c — the fused ladder's rung at 16 lanes: fused_add_rungs.h
 * over vec_avx512.h. */
#include "simd/vec_avx512.h"
#include "block/fused_add_rungs.h"
NL_FUSED_RUNG(nl_fused_blocked, fused_add_, _avx512, rms, ln)
