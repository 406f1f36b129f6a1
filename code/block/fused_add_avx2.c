/* fused_add_avx2.c — the fused ladder's rung at 8 lanes: fused_add_rungs.h
 * over vec_avx2.h. */
#include "simd/vec_avx2.h"
#include "block/fused_add_rungs.h"
NL_FUSED_RUNG(nl_fused_blocked, fused_add_, _avx2, rms, ln)
