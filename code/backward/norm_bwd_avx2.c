/* norm_bwd_avx2.c — the backward's rungs (bwd_rungs.h) at 8 lanes
 * (vec_avx2.h). */
#include "simd/vec_avx2.h"
#include "backward/bwd_rungs.h"
