/* layernorm_rungs_avx2.c — layernorm_rungs.h at 8 lanes (vec_avx2.h). */
#include "simd/vec_avx2.h"
/* chapter 5's layernorm_avx2.c is this width's first rung, written out by hand */
#define NL_FIRST_RUNG_BY_HAND
#include "simd/layernorm_rungs.h"
