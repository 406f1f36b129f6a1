/* fused_add_neon.c — the fused ladder's rung at 4 lanes: fused_add_rungs.h
 * over vec_neon.h. */
#include "simd/vec_neon.h"
#include "block/fused_add_rungs.h"
NL_FUSED_RUNG(nl_fused_blocked, fused_add_, _neon, rms, ln)
