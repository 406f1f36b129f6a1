/* rmsnorm_rungs_avx512.c — rmsnorm_rungs.h at 16 lanes (vec_avx512.h). */
#include "simd/vec_avx512.h"
#include "simd/rmsnorm_rungs.h"
