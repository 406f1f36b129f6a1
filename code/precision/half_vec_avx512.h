/* half_vec_avx512.h — the 16-bit layer (half_vec.h) at 16 lanes, AVX-512:
 * half_avx512.h's conversions (bf16 by shifts and the integer trick, or
 * by vcvtneps2bf16 where the CPU has avx512_bf16; fp16 by
 * vcvtph2ps/vcvtps2ph), tails by 16-bit masked loads and stores.  Include
 * after simd/vec_avx512.h. */
#ifndef NL_HALF_VEC_AVX512_H
#define NL_HALF_VEC_AVX512_H

#include "precision/half_avx512.h"
#include "precision/half_vec.h"

typedef __m256i vh;
typedef __m512d vd;

/* The rows of a call on its 32-lane bf16 path (half_bf16_avx512.h):
 * rows_<tag>_hw beside rows_<tag>. */
#define HALF_HW_ROWS(tag) rows_##tag##_hw

NL_VINLINE vh vh_load(const uint16_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
NL_VINLINE vh vh_load_n(const uint16_t *p, size_t n) { return _mm256_maskz_loadu_epi16(nl_mask16(n), p); }
NL_VINLINE void vh_store(uint16_t *p, vh h) { _mm256_storeu_si256((__m256i *)p, h); }
NL_VINLINE void vh_store_n(uint16_t *p, size_t n, vh h) { _mm256_mask_storeu_epi16(p, nl_mask16(n), h); }
NL_VINLINE void vh_stream(uint16_t *p, vh h) { _mm256_stream_si256((__m256i *)p, h); }
NL_VINLINE vf vh_widen(nl_dtype dt, vh h) { return widen16(dt, h); }
NL_VINLINE vh vh_narrow(nl_dtype dt, vf v) { return narrow16(dt, v); }

/* Narrow 16 full lanes. With `hw` (bf16 on an avx512_bf16 CPU) by
 * vcvtneps2bf16, which reads a subnormal lane as zero: a vector with one
 * (one vfpclassps finds it) takes the exact integer trick instead, before
 * it is stored.  Fixed up here, not by computing the row again: in place
 * (y == x) the row's x is gone by then.  The branch is practically never
 * taken, so it is always predicted. */
NL_VINLINE vh vh_narrow_out(nl_dtype dt, int hw, vf v)
{
    if (hw && dt == NL_DT_BF16) {
        if (__builtin_expect(_mm512_fpclass_ps_mask(v, 0x20) != 0, 0)) /* 0x20: denormal */
            return narrow16(dt, v);
        return narrow16_bf16_hw(v);
    }
    return narrow16(dt, v);
}
NL_VINLINE int vh_hw_here(void) { return cpu_has_bf16(); }
NL_VINLINE vf vh_round(nl_dtype dt, int hw, vf v) { return widen16(dt, vh_narrow_out(dt, hw, v)); }
NL_HALF_PAIRS_IN_MEMORY_ORDER

NL_VINLINE vd vd_zero(void) { return _mm512_setzero_pd(); }
NL_VINLINE vd vd_lo(vf v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
NL_VINLINE vd vd_hi(vf v)
{
    return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}
NL_VINLINE vd vd_set1(double a) { return _mm512_set1_pd(a); }
NL_VINLINE vd vd_add(vd a, vd b) { return _mm512_add_pd(a, b); }
NL_VINLINE vd vd_sub(vd a, vd b) { return _mm512_sub_pd(a, b); }
NL_VINLINE vd vd_fma(vd a, vd b, vd c) { return _mm512_fmadd_pd(a, b, c); }
NL_VINLINE vd vd_add_halves(vd acc, vf v) { return vd_add(acc, vd_add(vd_lo(v), vd_hi(v))); }
NL_VINLINE double vd_sum(vd a) { return _mm512_reduce_add_pd(a); }

#endif
