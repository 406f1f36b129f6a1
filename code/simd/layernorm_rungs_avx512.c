/* layernorm_rungs_avx512.c — layernorm_rungs.h at 16 lanes (vec_avx512.h). */
#include "simd/vec_avx512.h"
#include "simd/layernorm_rungs.h"
