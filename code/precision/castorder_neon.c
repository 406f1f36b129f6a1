/* castorder_neon.c — the cast orders with NEON (aarch64), 4 elements a
 * step, the operations of castorder_avx2.c: bf16 widened by a shift and
 * narrowed by the integer RNE trick; fp16 by vcvt_f32_f16 / vcvt_f16_f32,
 * which round to nearest even under the default FPCR; sums in double; the
 * tail through the scalar element code. */
#include <arm_neon.h>

#include "precision/precision.h"

static inline float32x4_t widen4(nl_dtype dt, const uint16_t *p)
{
    uint16x4_t h = vld1_u16(p);
    if (dt == NL_DT_BF16)
        return vreinterpretq_f32_u32(vshll_n_u16(h, 16));
    return vcvt_f32_f16(vreinterpret_f16_u16(h));
}

static inline uint16x4_t narrow4(nl_dtype dt, float32x4_t v)
{
    if (dt == NL_DT_F16)
        return vreinterpret_u16_f16(vcvt_f16_f32(v));
    uint32x4_t u = vreinterpretq_u32_f32(v);
    uint32x4_t odd = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
    uint32x4_t r = vshrq_n_u32(vaddq_u32(u, vaddq_u32(odd, vdupq_n_u32(0x7fff))), 16);
    uint32x4_t nan = vcgtq_u32(vandq_u32(u, vdupq_n_u32(0x7fffffff)), vdupq_n_u32(0x7f800000));
    uint32x4_t q = vorrq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(0x40));
    return vmovn_u32(vbslq_u32(nan, q, r));
}

static inline double sum_dev2(nl_dtype dt, const uint16_t *x, size_t d, double c)
{
    float64x2_t a0 = vdupq_n_f64(0.0), a1 = a0, cc = vdupq_n_f64(c);
    size_t i = 0;
    for (; i + 4 <= d; i += 4) {
        float32x4_t v = widen4(dt, x + i);
        float64x2_t lo = vsubq_f64(vcvt_f64_f32(vget_low_f32(v)), cc);
        float64x2_t hi = vsubq_f64(vcvt_high_f64_f32(v), cc);
        a0 = vfmaq_f64(a0, lo, lo);
        a1 = vfmaq_f64(a1, hi, hi);
    }
    double s = vaddvq_f64(vaddq_f64(a0, a1));
    for (; i < d; i++) {
        double v = (double)nl_half_to_float(dt, x[i]) - c;
        s += v * v;
    }
    return s;
}

static inline double sum_x(nl_dtype dt, const uint16_t *x, size_t d)
{
    float64x2_t a0 = vdupq_n_f64(0.0), a1 = a0;
    size_t i = 0;
    for (; i + 4 <= d; i += 4) {
        float32x4_t v = widen4(dt, x + i);
        a0 = vaddq_f64(a0, vcvt_f64_f32(vget_low_f32(v)));
        a1 = vaddq_f64(a1, vcvt_high_f64_f32(v));
    }
    double s = vaddvq_f64(vaddq_f64(a0, a1));
    for (; i < d; i++)
        s += nl_half_to_float(dt, x[i]);
    return s;
}

static inline __attribute__((always_inline)) void
rms_row(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma, const void *beta,
        float eps, size_t d, uint16_t *y)
{
    (void)beta;
    float invf = nl_half_rms_inv_from(sum_dev2(dt, x, d, 0.0), d, eps);
    const float32x4_t inv = vdupq_n_f32(invf), one = vdupq_n_f32(1.0f);
    const uint16_t *w = gamma;
    const float *wf = gamma;
    size_t i = 0;
    for (; i + 4 <= d; i += 4) {
        float32x4_t xr = vmulq_f32(widen4(dt, x + i), inv), out;
        if (cast == NL_CAST_T5_F32W) {
            out = vmulq_f32(vld1q_f32(wf + i), xr);
        } else if (cast == NL_CAST_GEMMA) {
            out = vmulq_f32(xr, vaddq_f32(one, widen4(dt, w + i)));
        } else {
            uint16_t h[4];
            vst1_u16(h, narrow4(dt, xr));
            out = vmulq_f32(widen4(dt, h), widen4(dt, w + i));
        }
        vst1_u16(y + i, narrow4(dt, out));
    }
    for (; i < d; i++)
        y[i] = nl_rms_point(dt, cast, nl_half_to_float(dt, x[i]) * invf, gamma, i);
}

static inline __attribute__((always_inline)) void
ln_row(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma, const void *beta,
       float eps, size_t d, uint16_t *y)
{
    (void)cast;
    const uint16_t *g = gamma, *b = beta;
    double mean = sum_x(dt, x, d) / (double)d;
    float meanf, rstdf;
    nl_half_ln_stats_from(mean, sum_dev2(dt, x, d, mean), d, eps, &meanf, &rstdf);
    const float shiftf = -rstdf * meanf;
    const float32x4_t shift = vdupq_n_f32(shiftf), rstd = vdupq_n_f32(rstdf);
    size_t i = 0;
    for (; i + 4 <= d; i += 4) {
        float32x4_t t = vaddq_f32(vmulq_f32(widen4(dt, x + i), rstd), shift);
        t = vmulq_f32(t, widen4(dt, g + i));
        vst1_u16(y + i, narrow4(dt, vaddq_f32(t, widen4(dt, b + i))));
    }
    for (; i < d; i++)
        y[i] = nl_torch_point(dt, nl_half_to_float(dt, x[i]), rstdf, shiftf, g[i], b[i]);
}

NL_HALF_ROW_KERNEL(rmsnorm_llama_neon, NL_CAST_LLAMA, rms_row)
NL_HALF_ROW_KERNEL(rmsnorm_gemma_neon, NL_CAST_GEMMA, rms_row)
NL_HALF_ROW_KERNEL(rmsnorm_t5_f32w_neon, NL_CAST_T5_F32W, rms_row)
NL_HALF_ROW_KERNEL(layernorm_torch_neon, NL_CAST_TORCH, ln_row)
