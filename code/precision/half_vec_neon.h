/* half_vec_neon.h — the 16-bit layer (half_vec.h) at 4 lanes, Advanced
 * SIMD: bf16 by shifts and the integer trick, fp16 by FCVTL/FCVTN, which
 * round to nearest even under the default FPCR; a tail through a zeroed
 * 4-value buffer.  Include after simd/vec_neon.h. */
#ifndef NL_HALF_VEC_NEON_H
#define NL_HALF_VEC_NEON_H

#include <string.h>

#include "precision/half_vec.h"

typedef uint16x4_t vh;
typedef float64x2_t vd;

NL_VINLINE vh vh_load(const uint16_t *p) { return vld1_u16(p); }
NL_VINLINE vh vh_load_n(const uint16_t *p, size_t n)
{
    uint16_t t[4] = {0, 0, 0, 0};
    memcpy(t, p, n * sizeof *p);
    return vld1_u16(t);
}
NL_VINLINE void vh_store(uint16_t *p, vh h) { vst1_u16(p, h); }
NL_VINLINE void vh_store_n(uint16_t *p, size_t n, vh h)
{
    uint16_t t[4];
    vst1_u16(t, h);
    memcpy(p, t, n * sizeof *p);
}
/* 8 bytes a store: too little for a non-temporal pair to pay; stored. */
NL_VINLINE void vh_stream(uint16_t *p, vh h) { vst1_u16(p, h); }

NL_VINLINE vf vh_widen(nl_dtype dt, vh h)
{
    if (dt == NL_DT_BF16)
        return vreinterpretq_f32_u32(vshll_n_u16(h, 16));
    return vcvt_f32_f16(vreinterpret_f16_u16(h));
}

/* Each lane of v rounded to bf16 in place, to nearest even, its kept half
 * in the top 16 bits: add just under half of what is dropped, plus the
 * kept part's low bit; a NaN lane (it must not round: a carry could make
 * it Inf) keeps its bits, quieted. */
NL_VINLINE uint32x4_t bf16_rounded_lanes(vf v)
{
    uint32x4_t u = vreinterpretq_u32_f32(v);
    uint32x4_t odd = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
    uint32x4_t r = vaddq_u32(u, vaddq_u32(odd, vdupq_n_u32(NL_BF16_HALF)));
    uint32x4_t nan = vcgtq_u32(vandq_u32(u, vdupq_n_u32(0x7fffffff)), vdupq_n_u32(0x7f800000));
    return vbslq_u32(nan, vorrq_u32(u, vdupq_n_u32(NL_BF16_QUIET << 16)), r);
}

NL_VINLINE vh vh_narrow(nl_dtype dt, vf v)
{
    if (dt == NL_DT_F16)
        return vreinterpret_u16_f16(vcvt_f16_f32(v));
    return vmovn_u32(vshrq_n_u32(bf16_rounded_lanes(v), 16));
}

NL_VINLINE vf bf16_kept_lanes(vf v)
{
    return vreinterpretq_f32_u32(vandq_u32(bf16_rounded_lanes(v), vdupq_n_u32(0xffff0000u)));
}
NL_HALF_WITHOUT_BF16_INSTRUCTIONS
NL_HALF_PAIRS_IN_MEMORY_ORDER

NL_VINLINE vd vd_zero(void) { return vdupq_n_f64(0.0); }
NL_VINLINE vd vd_lo(vf v) { return vcvt_f64_f32(vget_low_f32(v)); }
NL_VINLINE vd vd_hi(vf v) { return vcvt_high_f64_f32(v); }
NL_VINLINE vd vd_set1(double a) { return vdupq_n_f64(a); }
NL_VINLINE vd vd_add(vd a, vd b) { return vaddq_f64(a, b); }
NL_VINLINE vd vd_sub(vd a, vd b) { return vsubq_f64(a, b); }
NL_VINLINE vd vd_fma(vd a, vd b, vd c) { return vfmaq_f64(c, a, b); }
NL_VINLINE vd vd_add_halves(vd acc, vf v) { return vd_add(acc, vd_add(vd_lo(v), vd_hi(v))); }
NL_VINLINE double vd_sum(vd a) { return vaddvq_f64(a); }

#endif
