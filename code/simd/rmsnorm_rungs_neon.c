/* rmsnorm_rungs_neon.c — rmsnorm_rungs.h at 4 lanes (vec_neon.h). */
#include "simd/vec_neon.h"
#include "simd/rmsnorm_rungs.h"
