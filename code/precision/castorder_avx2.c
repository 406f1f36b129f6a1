/* castorder_avx2.c — the cast orders with AVX2 + F16C, 8 elements a step.
 *
 * The same operations as castorder_avx512.c on half the lanes; AVX2 has no
 * masked 16-bit loads, so the last d % 8 elements of a row go through the
 * scalar element code (cast_points.c), which rounds identically. F16C
 * (vcvtph2ps/vcvtps2ph) is on every AVX2 CPU; mk/precision.mk enables it
 * for this file. */
#include <immintrin.h>

#include "precision/precision.h"

static inline __m256 widen8(nl_dtype dt, __m128i h)
{
    if (dt == NL_DT_BF16)
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    return _mm256_cvtph_ps(h);
}

static inline __m128i narrow8(nl_dtype dt, __m256 v)
{
    if (dt == NL_DT_F16)
        return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256i u = _mm256_castps_si256(v);
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff))), 16);
    /* NaN lanes: |u| > 0x7f800000, as signed ints (|u| < 2^31) */
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)),
                                     _mm256_set1_epi32(0x7f800000));
    __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    r = _mm256_blendv_epi8(r, q, nan);
    /* 8 x 32 -> 8 x 16: packus works within 128-bit halves; put them together */
    __m256i p = _mm256_packus_epi32(r, r);
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(p, 0x08));
}

static inline __m256 load8(nl_dtype dt, const uint16_t *p)
{
    return widen8(dt, _mm_loadu_si128((const __m128i *)p));
}

static inline void store8(nl_dtype dt, uint16_t *p, __m256 v)
{
    _mm_storeu_si128((__m128i *)p, narrow8(dt, v));
}

static inline double hsum4(__m256d a)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(a), _mm256_extractf128_pd(a, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

/* sum of (x - c)^2 (c = 0: of x^2), and of x, in double */
static inline double sum_dev2(nl_dtype dt, const uint16_t *x, size_t d, double c)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0, cc = _mm256_set1_pd(c);
    size_t i = 0;
    for (; i + 8 <= d; i += 8) {
        __m256 v = load8(dt, x + i);
        __m256d lo = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), cc);
        __m256d hi = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), cc);
        a0 = _mm256_fmadd_pd(lo, lo, a0);
        a1 = _mm256_fmadd_pd(hi, hi, a1);
    }
    double s = hsum4(_mm256_add_pd(a0, a1));
    for (; i < d; i++) {
        double v = (double)nl_half_to_float(dt, x[i]) - c;
        s += v * v;
    }
    return s;
}

static inline double sum_x(nl_dtype dt, const uint16_t *x, size_t d)
{
    __m256d a0 = _mm256_setzero_pd(), a1 = a0;
    size_t i = 0;
    for (; i + 8 <= d; i += 8) {
        __m256 v = load8(dt, x + i);
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
    double s = hsum4(_mm256_add_pd(a0, a1));
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
    const __m256 inv = _mm256_set1_ps(invf), one = _mm256_set1_ps(1.0f);
    const uint16_t *w = gamma;
    const float *wf = gamma;
    size_t i = 0;
    for (; i + 8 <= d; i += 8) {
        __m256 xr = _mm256_mul_ps(load8(dt, x + i), inv), out;
        if (cast == NL_CAST_T5_F32W)
            out = _mm256_mul_ps(_mm256_loadu_ps(wf + i), xr);
        else if (cast == NL_CAST_GEMMA)
            out = _mm256_mul_ps(xr, _mm256_add_ps(one, load8(dt, w + i)));
        else
            out = _mm256_mul_ps(widen8(dt, narrow8(dt, xr)), load8(dt, w + i));
        store8(dt, y + i, out);
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
    const __m256 shift = _mm256_set1_ps(shiftf), rstd = _mm256_set1_ps(rstdf);
    size_t i = 0;
    for (; i + 8 <= d; i += 8) {
        __m256 t = _mm256_add_ps(_mm256_mul_ps(load8(dt, x + i), rstd), shift);
        t = _mm256_mul_ps(t, load8(dt, g + i));
        store8(dt, y + i, _mm256_add_ps(t, load8(dt, b + i)));
    }
    for (; i < d; i++)
        y[i] = nl_torch_point(dt, nl_half_to_float(dt, x[i]), rstdf, shiftf, g[i], b[i]);
}

NL_HALF_ROW_KERNEL(rmsnorm_llama_avx2, NL_CAST_LLAMA, rms_row)
NL_HALF_ROW_KERNEL(rmsnorm_gemma_avx2, NL_CAST_GEMMA, rms_row)
NL_HALF_ROW_KERNEL(rmsnorm_t5_f32w_avx2, NL_CAST_T5_F32W, rms_row)
NL_HALF_ROW_KERNEL(layernorm_torch_avx2, NL_CAST_TORCH, ln_row)
