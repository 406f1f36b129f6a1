/* half_stats_avx512.h — the fp32 row statistics of chapter 8's fast
 * rungs (castorder_f32stats_avx512.c, castorder_pipe_avx512.c): both take
 * them in exactly this order, so the two rungs agree bit for bit. Include
 * only from *_avx512.c. */
#ifndef NL_HALF_STATS_AVX512_H
#define NL_HALF_STATS_AVX512_H

#include <math.h>

#include "precision/half_avx512.h"
#include "precision/precision.h"
#include "simd/avx512_util.h"

/* A sum of squares (or of squared deviations) inside this range kept
 * every term of the row inside fp32's normal range with room to spare. */
static inline int trusted(double s)
{
    return s >= 0x1p-96 && s <= 0x1p100;
}

static inline __mmask32 lanes32(size_t i, size_t d)
{
    return d - i >= 32 ? (__mmask32)0xffffffffu : (__mmask32)((1ull << (d - i)) - 1u);
}

static inline __mmask16 lanes16(size_t i, size_t d)
{
    return d - i >= 16 ? (__mmask16)0xffff : nl_mask16(d - i);
}

/* The 16 fp32 lanes of v added to 8 double lanes. */
static inline __m512d add_halves(__m512d acc, __m512 v)
{
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    return _mm512_add_pd(acc, _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)),
                                            _mm512_cvtps_pd(hi)));
}

// @snippet f32stats-sumsq
/* Sum of (x - c)^2 over the row (RMSNorm: c = 0), and of x - c in *sdev:
 * fp32 accumulators over blocks of BLOCK elements (4 terms a lane), each
 * block's sums then added in double. The fp32 error stays that of a few
 * additions, so the row's fp32 statistic is, but for a last bit now and
 * then, the scalar kernel's; the cost is two conversions per block. */
enum { BLOCK = 256 };
static inline __attribute__((always_inline)) double dev_sums(nl_dtype dt, const uint16_t *x,
                                                             size_t d, float c, double *sdev)
{
    __m512d q = _mm512_setzero_pd(), s = q;
    const __m512 cc = _mm512_set1_ps(c);
    size_t i = 0;
    while (i < d) {
        __m512 q0 = _mm512_setzero_ps(), q1 = q0, s0 = q0, s1 = q0;
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 32 <= end; i += 32) {
            __m512 v0 = _mm512_sub_ps(load16(dt, x + i, 0xffff), cc);
            __m512 v1 = _mm512_sub_ps(load16(dt, x + i + 16, 0xffff), cc);
            q0 = _mm512_fmadd_ps(v0, v0, q0), q1 = _mm512_fmadd_ps(v1, v1, q1);
            if (sdev)
                s0 = _mm512_add_ps(s0, v0), s1 = _mm512_add_ps(s1, v1);
        }
        for (; i < end; i += 16) {
            __mmask16 k = lanes16(i, end);
            __m512 v = _mm512_maskz_sub_ps(k, load16(dt, x + i, k), cc);
            q0 = _mm512_fmadd_ps(v, v, q0);
            if (sdev)
                s0 = _mm512_add_ps(s0, v);
        }
        q = add_halves(q, _mm512_add_ps(q0, q1));
        if (sdev)
            s = add_halves(s, _mm512_add_ps(s0, s1));
    }
    if (sdev)
        *sdev = _mm512_reduce_add_pd(s);
    return _mm512_reduce_add_pd(q);
}

/* bf16 with avx512_bf16: sum of x*y over the row by vdpbf16ps, 32 pairs a
 * step; y = x gives the sum of squares, y = 1.0 the sum of x. Blocks of
 * 4 BLOCK elements (8 products a lane) are added in double, as above. */
BF16_TARGET static inline __attribute__((always_inline)) double
dot_bf16(const uint16_t *x, size_t d, int square)
{
    const __m512i one = _mm512_set1_epi16(0x3f80); /* 1.0 in bf16 */
    __m512d acc = _mm512_setzero_pd();
    size_t i = 0;
    while (i < d) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        size_t end = d - i > 4 * BLOCK ? i + 4 * BLOCK : d;
        for (; i + 128 <= end; i += 128) {
            __m512i v0 = _mm512_loadu_si512(x + i), v1 = _mm512_loadu_si512(x + i + 32);
            __m512i v2 = _mm512_loadu_si512(x + i + 64), v3 = _mm512_loadu_si512(x + i + 96);
            a0 = _mm512_dpbf16_ps(a0, (__m512bh)v0, (__m512bh)(square ? v0 : one));
            a1 = _mm512_dpbf16_ps(a1, (__m512bh)v1, (__m512bh)(square ? v1 : one));
            a2 = _mm512_dpbf16_ps(a2, (__m512bh)v2, (__m512bh)(square ? v2 : one));
            a3 = _mm512_dpbf16_ps(a3, (__m512bh)v3, (__m512bh)(square ? v3 : one));
        }
        for (; i < end; i += 32) {
            __m512i v = _mm512_maskz_loadu_epi16(lanes32(i, end), x + i);
            a0 = _mm512_dpbf16_ps(a0, (__m512bh)v, (__m512bh)(square ? v : one));
        }
        acc = add_halves(acc, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
    }
    return _mm512_reduce_add_pd(acc);
}
// @end

static inline __attribute__((always_inline)) float sum_f32(nl_dtype dt, const uint16_t *x,
                                                           size_t d)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 64 <= d; i += 64) {
        a0 = _mm512_add_ps(a0, load16(dt, x + i, 0xffff));
        a1 = _mm512_add_ps(a1, load16(dt, x + i + 16, 0xffff));
        a2 = _mm512_add_ps(a2, load16(dt, x + i + 32, 0xffff));
        a3 = _mm512_add_ps(a3, load16(dt, x + i + 48, 0xffff));
    }
    for (; i < d; i += 16)
        a0 = _mm512_add_ps(a0, load16(dt, x + i, lanes16(i, d)));
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

/* RMSNorm's 1/rms from the row's fp32-summed squares `s`, or from the
 * scalar kernel's double sum where fp32 could not hold them. */
static inline float rms_inv_of(nl_dtype dt, const uint16_t *x, size_t d, float eps, double s)
{
    return trusted(s) ? nl_half_rms_inv_from(s, d, eps) : nl_half_rms_inv(dt, x, d, eps);
}

/* LayerNorm's mean and 1/std from the row's first fp32 sum `s` (of x). The
 * deviations are taken from c, the first mean rounded to the dtype: then
 * x - c is exact in fp32 for every x within 2^13 of c's scale. From the
 * fp32 mean itself each x - c would round away the same low bits of c, an
 * error of one sign that d terms add up (32 fp32 ulps of the mean on a
 * 4096-wide row). */
static inline __attribute__((always_inline)) void
ln_stats_of(nl_dtype dt, const uint16_t *x, size_t d, float eps, double s, float *meanf,
            float *rstdf)
{
    float c = nl_half_to_float(dt, nl_half_from_float(dt, (float)(s / (double)d)));
    double sdev = 0.0, s2 = isfinite(s) ? dev_sums(dt, x, d, c, &sdev) : NAN;
    /* the mean is c + sdev/d; the squares about it sum to s2 - sdev^2/d */
    double m2 = s2 - sdev * sdev / (double)d;
    if (trusted(m2))
        nl_half_ln_stats_from((double)c + sdev / (double)d, m2, d, eps, meanf, rstdf);
    else
        nl_half_ln_stats(dt, x, d, eps, meanf, rstdf);
}

static inline __attribute__((always_inline)) double first_sum(nl_dtype dt, nl_cast cast,
                                                              const uint16_t *x, size_t d)
{
    return cast == NL_CAST_TORCH ? (double)sum_f32(dt, x, d) : dev_sums(dt, x, d, 0.0f, NULL);
}

/* gamma (Gemma: 1 + gamma, in fp32 as GemmaRMSNorm adds it) and beta,
 * widened once for every row of the call. With `split`, each full 32 of
 * the row is stored as its 16 even elements, then its 16 odd ones: the
 * lanes in which castorder_pipe_avx512.c holds a 32-element load of bf16
 * (the rest of the row stays in order). */
static inline void widen_weights(nl_dtype dt, nl_cast cast, const uint16_t *gamma,
                                 const uint16_t *beta, size_t d, float *w, float *b, int split)
{
    for (size_t i = 0; i < d; i++) {
        size_t at = i;
        if (split && (i | 31) < d) /* i's 32 is full */
            at = (i & ~(size_t)31) + (i & 1) * 16 + (i & 31) / 2;
        float g = nl_half_to_float(dt, gamma[i]);
        w[at] = cast == NL_CAST_GEMMA ? 1.0f + g : g;
        if (b)
            b[at] = nl_half_to_float(dt, beta[i]);
    }
}

#endif
