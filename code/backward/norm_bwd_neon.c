/* norm_bwd_neon.c — LayerNorm and RMSNorm backward with Advanced SIMD
 * (aarch64): the structure of norm_bwd_avx512.c on 4 lanes, two FMA chains
 * per row sum, a scalar tail. */
#include <arm_neon.h>

#include "backward/backward.h"

static inline __attribute__((always_inline)) void
bwd_rows(int center, const float *x, const float *gamma, const float *mean,
         const float *rstd, const float *dy, size_t rows, size_t d, float *dx,
         float *dgamma, float *dbeta)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        float *dxr = dx + r * d;
        const float mus = center ? mean[r] : 0.0f, rss = rstd[r];
        const float32x4_t mu = vdupq_n_f32(mus), rs = vdupq_n_f32(rss);
        float32x4_t sg0 = vdupq_n_f32(0.0f), sg1 = sg0, sx0 = sg0, sx1 = sg0;
        size_t i = 0;
        for (; i + 8 <= d; i += 8) {
            float32x4_t g0 = vmulq_f32(vld1q_f32(gamma + i), vld1q_f32(dyr + i));
            float32x4_t g1 = vmulq_f32(vld1q_f32(gamma + i + 4), vld1q_f32(dyr + i + 4));
            float32x4_t h0 = vmulq_f32(vsubq_f32(vld1q_f32(xr + i), mu), rs);
            float32x4_t h1 = vmulq_f32(vsubq_f32(vld1q_f32(xr + i + 4), mu), rs);
            if (center) {
                sg0 = vaddq_f32(sg0, g0);
                sg1 = vaddq_f32(sg1, g1);
            }
            sx0 = vfmaq_f32(sx0, g0, h0);
            sx1 = vfmaq_f32(sx1, g1, h1);
        }
        float sum_g = vaddvq_f32(vaddq_f32(sg0, sg1)), sum_gx = vaddvq_f32(vaddq_f32(sx0, sx1));
        for (; i < d; i++) {
            float g = gamma[i] * dyr[i];
            sum_g += g;
            sum_gx += g * ((xr[i] - mus) * rss);
        }
        const float mgs = center ? sum_g / (float)d : 0.0f, mgxs = sum_gx / (float)d;
        const float32x4_t mg = vdupq_n_f32(mgs), mgx = vdupq_n_f32(mgxs);
        for (i = 0; i + 4 <= d; i += 4) {
            float32x4_t dyv = vld1q_f32(dyr + i);
            float32x4_t g = vmulq_f32(vld1q_f32(gamma + i), dyv);
            float32x4_t h = vmulq_f32(vsubq_f32(vld1q_f32(xr + i), mu), rs);
            vst1q_f32(dxr + i, vmulq_f32(rs, vfmsq_f32(vsubq_f32(g, mg), h, mgx)));
            vst1q_f32(dgamma + i, vfmaq_f32(vld1q_f32(dgamma + i), dyv, h));
            if (center)
                vst1q_f32(dbeta + i, vaddq_f32(vld1q_f32(dbeta + i), dyv));
        }
        for (; i < d; i++) {
            float h = (xr[i] - mus) * rss;
            dxr[i] = rss * (gamma[i] * dyr[i] - mgs - h * mgxs);
            dgamma[i] += dyr[i] * h;
            if (center)
                dbeta[i] += dyr[i];
        }
    }
}

NL_BWD_BOTH_NORMS(neon)
