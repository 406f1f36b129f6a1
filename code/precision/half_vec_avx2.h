/* half_vec_avx2.h — the 16-bit layer (half_vec.h) at 8 lanes: AVX2 for
 * bf16, F16C for fp16 (every AVX2 CPU has it; mk/precision.mk switches it
 * on for the *_avx2.c files here).  AVX2 has no 16-bit masked loads or
 * stores, so a tail goes through a zeroed 8-value buffer.  Include after
 * simd/vec_avx2.h. */
#ifndef NL_HALF_VEC_AVX2_H
#define NL_HALF_VEC_AVX2_H

#include <string.h>

#include "precision/half_vec.h"

typedef __m128i vh;
typedef __m256d vd;

NL_VINLINE vh vh_load(const uint16_t *p) { return _mm_loadu_si128((const __m128i *)p); }
NL_VINLINE vh vh_load_n(const uint16_t *p, size_t n)
{
    uint16_t t[8] = {0};
    memcpy(t, p, n * sizeof *p);
    return _mm_loadu_si128((const __m128i *)t);
}
NL_VINLINE void vh_store(uint16_t *p, vh h) { _mm_storeu_si128((__m128i *)p, h); }
NL_VINLINE void vh_store_n(uint16_t *p, size_t n, vh h)
{
    uint16_t t[8];
    _mm_storeu_si128((__m128i *)t, h);
    memcpy(p, t, n * sizeof *p);
}
NL_VINLINE void vh_stream(uint16_t *p, vh h) { _mm_stream_si128((__m128i *)p, h); }

// @snippet bf16-avx2
NL_VINLINE vf vh_widen(nl_dtype dt, vh h)
{
    if (dt == NL_DT_BF16) /* the 16 bits become a float's top half */
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    return _mm256_cvtph_ps(h);
}

/* Each lane of v rounded to bf16 in place, to nearest even, its kept half
 * in the top 16 bits (the low half is garbage but for ties' carries): add
 * just under half of what is dropped, plus the kept part's low bit. A NaN
 * lane must not round (a carry could make it Inf): one unordered compare
 * finds any, and only then are they blended to their top bits, quieted. */
NL_VINLINE __m256i bf16_rounded_lanes(vf v)
{
    __m256i u = _mm256_castps_si256(v);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(u, _mm256_add_epi32(odd, _mm256_set1_epi32(NL_BF16_HALF)));
    __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
    if (__builtin_expect(!_mm256_testz_ps(nan, nan), 0))
        r = _mm256_blendv_epi8(r, _mm256_or_si256(u, _mm256_set1_epi32(NL_BF16_QUIET << 16)),
                               _mm256_castps_si256(nan));
    return r;
}

NL_VINLINE vh vh_narrow(nl_dtype dt, vf v)
{
    if (dt == NL_DT_F16)
        return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i r = _mm256_srli_epi32(bf16_rounded_lanes(v), 16);
    /* 8 x 32 -> 8 x 16: packus works within 128-bit halves; join them */
    __m256i p = _mm256_packus_epi32(r, r);
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(p, 0x08));
}
// @end

NL_VINLINE vf bf16_kept_lanes(vf v)
{
    return _mm256_castsi256_ps(
        _mm256_and_si256(bf16_rounded_lanes(v), _mm256_set1_epi32((int)0xffff0000u)));
}
NL_HALF_WITHOUT_BF16_INSTRUCTIONS

// @snippet bf16-avx2-pairs
/* Pairs (half_vec.h): 16 bf16 values from one load, each 128-bit half
 * interleaved with zeros, so that each value lands in the top half of a
 * 32-bit lane: no lane-crossing widening.  a holds values 0-3 and 8-11, b
 * 4-7 and 12-15; packus, which works within 128-bit halves, puts them
 * back in memory order.  fp16 pairs are in memory order (F16C). */
NL_VINLINE void vh_widen2(nl_dtype dt, const uint16_t *p, vf *a, vf *b)
{
    if (dt == NL_DT_F16) {
        *a = _mm256_cvtph_ps(vh_load(p));
        *b = _mm256_cvtph_ps(vh_load(p + 8));
        return;
    }
    __m256i h = _mm256_loadu_si256((const __m256i *)p), z = _mm256_setzero_si256();
    *a = _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, h));
    *b = _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, h));
}

/* Value i of a bf16 pair: 4-7 and 8-11 trade places (bits 2 and 3 of i). */
NL_VINLINE size_t vh_slot2(nl_dtype dt, size_t i)
{
    if (dt == NL_DT_F16)
        return i;
    return (i & ~(size_t)12) | ((i & 4) << 1) | ((i & 8) >> 1);
}

/* Both vectors of a pair rounded as bf16_rounded_lanes does, with one
 * test for a NaN in either where one may be there (nan). */
NL_VINLINE void bf16_rounded_pair(int nan, vf a, vf b, __m256i *ra, __m256i *rb)
{
    const __m256i one = _mm256_set1_epi32(1), half = _mm256_set1_epi32(NL_BF16_HALF);
    __m256i ua = _mm256_castps_si256(a), ub = _mm256_castps_si256(b);
    *ra = _mm256_add_epi32(ua, _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(ua, 16), one), half));
    *rb = _mm256_add_epi32(ub, _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(ub, 16), one), half));
    if (!nan)
        return;
    __m256 any = _mm256_or_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q), _mm256_cmp_ps(b, b, _CMP_UNORD_Q));
    if (__builtin_expect(!_mm256_testz_ps(any, any), 0)) {
        *ra = bf16_rounded_lanes(a);
        *rb = bf16_rounded_lanes(b);
    }
}

NL_VINLINE void vh_round2(nl_dtype dt, int hw, int nan, vf *a, vf *b)
{
    if (dt == NL_DT_F16) {
        *a = vh_round(dt, hw, *a);
        *b = vh_round(dt, hw, *b);
        return;
    }
    const __m256i kept = _mm256_set1_epi32((int)0xffff0000u);
    __m256i ra, rb;
    bf16_rounded_pair(nan, *a, *b, &ra, &rb);
    *a = _mm256_castsi256_ps(_mm256_and_si256(ra, kept));
    *b = _mm256_castsi256_ps(_mm256_and_si256(rb, kept));
}

NL_VINLINE void vh_put2(nl_dtype dt, int hw, int nan, int nt, uint16_t *p, vf a, vf b)
{
    (void)hw;
    __m256i h;
    if (dt == NL_DT_F16) {
        h = _mm256_set_m128i(vh_narrow(dt, b), vh_narrow(dt, a));
    } else {
        __m256i ra, rb;
        bf16_rounded_pair(nan, a, b, &ra, &rb);
        h = _mm256_packus_epi32(_mm256_srli_epi32(ra, 16), _mm256_srli_epi32(rb, 16));
    }
    if (nt && ((uintptr_t)p & 31) == 0)
        _mm256_stream_si256((__m256i *)p, h);
    else
        _mm256_storeu_si256((__m256i *)p, h);
}
// @end

NL_VINLINE vd vd_zero(void) { return _mm256_setzero_pd(); }
NL_VINLINE vd vd_lo(vf v) { return _mm256_cvtps_pd(_mm256_castps256_ps128(v)); }
NL_VINLINE vd vd_hi(vf v) { return _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)); }
NL_VINLINE vd vd_set1(double a) { return _mm256_set1_pd(a); }
NL_VINLINE vd vd_add(vd a, vd b) { return _mm256_add_pd(a, b); }
NL_VINLINE vd vd_sub(vd a, vd b) { return _mm256_sub_pd(a, b); }
NL_VINLINE vd vd_fma(vd a, vd b, vd c) { return _mm256_fmadd_pd(a, b, c); }
NL_VINLINE vd vd_add_halves(vd acc, vf v) { return vd_add(acc, vd_add(vd_lo(v), vd_hi(v))); }
NL_VINLINE double vd_sum(vd a)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

#endif
