/* norm_bwd_avx512.c — the backward's rungs (bwd_rungs.h) at 16 lanes
 * (vec_avx512.h). */
#include "simd/vec_avx512.h"
#include "backward/bwd_rungs.h"
