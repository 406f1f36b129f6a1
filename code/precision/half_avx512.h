/* half_avx512.h — 16 bf16/fp16 lanes widened to and narrowed from fp32
 * with AVX-512, and whether the CPU has avx512_bf16: what every AVX-512
 * kernel of chapter 8 shares (castorder_avx512.c, castorder_f32stats_avx512.c).
 * Include only from *_avx512.c. */
#ifndef NL_HALF_AVX512_H
#define NL_HALF_AVX512_H

#include <cpuid.h>
#include <immintrin.h>

#include "normlab.h"

static inline __m512 widen16(nl_dtype dt, __m256i h)
{
    if (dt == NL_DT_BF16)
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    return _mm512_cvtph_ps(h);
}

// @snippet bf16-narrow-avx512
/* Each fp32 lane rounded to bf16 (nearest, ties to even; NaN kept quiet),
 * left in the low 16 bits of its 32-bit lane. */
static inline __m512i bf16_round_lanes(__m512 v)
{
    __m512i u = _mm512_castps_si512(v);
    __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7fff))), 16);
    __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000));
    return _mm512_mask_or_epi32(r, nan, _mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40));
}

static inline __m256i narrow16(nl_dtype dt, __m512 v)
{
    if (dt == NL_DT_F16)
        return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512i r = bf16_round_lanes(v);
    /* the low 16 bits of each lane, gathered into the low 256 bits (one
     * vpermw; vpmovdw would do it too but becomes a slow store) */
    const __m512i even = _mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                          30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    return _mm512_castsi512_si256(_mm512_permutexvar_epi16(even, r));
}
// @end

/* avx512_bf16, asked of the CPU once (leaf 7, subleaf 1, EAX bit 5). */
static inline int cpu_has_bf16(void)
{
    static int known = -1;
    if (known < 0) {
        unsigned a = 0, b = 0, c = 0, d = 0;
        known = __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5));
    }
    return known;
}

#define BF16_TARGET __attribute__((target("avx512bf16")))

// @snippet bf16-narrow-avx512bf16
/* vcvtneps2bf16 alone: a subnormal lane becomes zero (the caller checks). */
BF16_TARGET static inline __m256i narrow16_bf16_hw(__m512 v)
{
    return (__m256i)_mm512_cvtneps_pbh(v);
}

BF16_TARGET static inline __m256i narrow16_hw(__m512 v)
{
    __m512i u = _mm512_castps_si512(v);
    __mmask16 subnormal = _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7f800000)) &
                          _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x007fffff));
    if (subnormal)
        return narrow16(NL_DT_BF16, v);
    return narrow16_bf16_hw(v);
}
// @end

static inline __m512 load16(nl_dtype dt, const uint16_t *p, __mmask16 k)
{
    return widen16(dt, _mm256_maskz_loadu_epi16(k, p));
}

#endif
