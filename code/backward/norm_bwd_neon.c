/* norm_bwd_neon.c — the backward's rungs (bwd_rungs.h) at 4 lanes
 * (vec_neon.h). */
#include "simd/vec_neon.h"
#include "backward/bwd_rungs.h"
