/* fused_add_neon.c — the fused ladder's NEON rung (aarch64): the residual
 * add in 4-lane vectors, fused by cache block with chapter 5's NEON
 * kernels.  Bits: those of rmsnorm_neon / layernorm_neon on the updated
 * residual.  Tested under qemu-aarch64 (make cross-test). */
#include <arm_neon.h>

#include "block/block.h"
#include "simd/simd.h"

static void add_neon(float *residual, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        vst1q_f32(residual + i, vaddq_f32(vld1q_f32(residual + i), vld1q_f32(x + i)));
    for (; i < n; i++) /* the same correctly rounded add, one lane */
        residual[i] += x[i];
}

static const nl_fused_plan rms = {add_neon, nl_rmsnorm_neon, NULL};
static const nl_fused_plan ln = {add_neon, nl_layernorm_neon, NULL};
NL_FUSED_RUNG(nl_fused_blocked, fused_add_, _neon, rms, ln)
