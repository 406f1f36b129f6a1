/* layernorm_rungs_neon.c — layernorm_rungs.h at 4 lanes (vec_neon.h). */
#include "simd/vec_neon.h"
#include "simd/layernorm_rungs.h"
