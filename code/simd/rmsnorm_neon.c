/* rmsnorm_neon.c — RMSNorm with Advanced SIMD (aarch64): four FMA chains
 * for the sum of squares, vaddvq_f32 across the lanes, a scalar tail.
 *
 * Numerics: max |y - ref| 3.7e-7 on data uniform in [-2, 2], d from 1 to
 * 4097 (`make simd-cross-check`, under qemu-aarch64); stated tol 1e-5.  |x| ~ 1e20 works: overflowing rows are redone in double. */
#include <arm_neon.h>
#include <math.h>

#include "simd/simd.h"

static float row_sumsq(const float *x, size_t d)
{
    float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 16 <= d; i += 16) {
        float32x4_t v0 = vld1q_f32(x + i), v1 = vld1q_f32(x + i + 4);
        float32x4_t v2 = vld1q_f32(x + i + 8), v3 = vld1q_f32(x + i + 12);
        a0 = vfmaq_f32(a0, v0, v0);
        a1 = vfmaq_f32(a1, v1, v1);
        a2 = vfmaq_f32(a2, v2, v2);
        a3 = vfmaq_f32(a3, v3, v3);
    }
    for (; i + 4 <= d; i += 4) {
        float32x4_t v = vld1q_f32(x + i);
        a0 = vfmaq_f32(a0, v, v);
    }
    float s = vaddvq_f32(vaddq_f32(vaddq_f32(a0, a1), vaddq_f32(a2, a3)));
    for (; i < d; i++)
        s += x[i] * x[i];
    return s;
}

int nl_rmsnorm_neon(const float *x, const float *gamma, const float *beta,
                    float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float ss = row_sumsq(xr, d), inv, zero;
        if (isfinite(ss))
            inv = 1.0f / sqrtf(ss / (float)d + eps);
        else
            nl_row_stats_wide(xr, d, 0, eps, &zero, &inv);
        const float32x4_t s = vdupq_n_f32(inv);
        size_t i = 0;
        for (; i + 4 <= d; i += 4)
            vst1q_f32(yr + i, vmulq_f32(vmulq_f32(vld1q_f32(xr + i), s), vld1q_f32(gamma + i)));
        for (; i < d; i++)
            yr[i] = xr[i] * inv * gamma[i];
    }
    return 0;
}
