/* castorder_avx2.c — the cast orders' first SIMD rung (castorder_first.h)
 * at 8 lanes, AVX2 + F16C (half_vec_avx2.h). */
#include "simd/vec_avx2.h"
#include "precision/half_vec_avx2.h"
#include "precision/castorder_first.h"
