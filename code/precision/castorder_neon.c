/* castorder_neon.c — the cast orders' first SIMD rung (castorder_first.h)
 * at 4 lanes, NEON (half_vec_neon.h). */
#include "simd/vec_neon.h"
#include "precision/half_vec_neon.h"
#include "precision/castorder_first.h"
