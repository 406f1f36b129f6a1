/* layernorm_welford_avx512.c — LayerNorm with Welford lanes in AVX-512:
 * 64 running summaries (4 registers x 16 lanes) of x - shift, merged by
 * Chan's formula register against register, then 16 lanes -> 8 -> 4 -> 2
 * -> 1; the last d % 64 elements go through scalar Welford and one general
 * merge.  See layernorm_welford_avx2.c for the algorithm and the shift.
 *
 * Numerics (NL_SHOW_ERR=1 build/tests/check_simd): max |y - ref| 9.6e-7 on
 * unit-scale data, 3.3e-7 on data with mean 1e4, 3.6e-7 relative with a
 * 1e4 outlier first; stated tol 1e-5.  |x| ~ 1e20 works: an overflowing M2
 * sends the row to double. */
#include <math.h>

#include "simd/avx512_util.h"
#include "simd/simd.h"
#include "simd/welford_lanes.h"

static inline void welford_step512(__m512 v, __m512 rn, __m512 *m, __m512 *q)
{
    __m512 delta = _mm512_sub_ps(v, *m);
    *m = _mm512_fmadd_ps(delta, rn, *m);
    *q = _mm512_fmadd_ps(delta, _mm512_sub_ps(v, *m), *q);
}

static inline void chan_equal512(__m512 *m, __m512 *q, __m512 mb, __m512 qb, float n)
{
    __m512 delta = _mm512_sub_ps(mb, *m);
    *m = _mm512_fmadd_ps(delta, _mm512_set1_ps(0.5f), *m);
    *q = _mm512_fmadd_ps(_mm512_mul_ps(delta, delta), _mm512_set1_ps(0.5f * n),
                         _mm512_add_ps(*q, qb));
}

static void row_welford(const float *x, size_t d, float shift, float *mean, float *m2)
{
    const __m512 k = _mm512_set1_ps(shift);
    __m512 m0 = _mm512_setzero_ps(), m1 = m0, m2v = m0, m3 = m0;
    __m512 q0 = m0, q1 = m0, q2 = m0, q3 = m0;
    float n = 0.0f;
    size_t i = 0;
    for (; i + 64 <= d; i += 64) {
        n += 1.0f;
        const __m512 rn = _mm512_set1_ps(1.0f / n);
        welford_step512(_mm512_sub_ps(_mm512_loadu_ps(x + i), k), rn, &m0, &q0);
        welford_step512(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), k), rn, &m1, &q1);
        welford_step512(_mm512_sub_ps(_mm512_loadu_ps(x + i + 32), k), rn, &m2v, &q2);
        welford_step512(_mm512_sub_ps(_mm512_loadu_ps(x + i + 48), k), rn, &m3, &q3);
    }
    float cn = 0.0f, cm = 0.0f, cq = 0.0f;
    if (n > 0.0f) {
        chan_equal512(&m0, &q0, m1, q1, n);
        chan_equal512(&m2v, &q2, m3, q3, n);
        chan_equal512(&m0, &q0, m2v, q2, 2.0f * n);
        __m256 ml = _mm512_castps512_ps256(m0), ql = _mm512_castps512_ps256(q0);
        nl_chan_equal256(&ml, &ql, _mm512_extractf32x8_ps(m0, 1), _mm512_extractf32x8_ps(q0, 1),
                         4.0f * n);
        nl_chan_fold256(ml, ql, 8.0f * n, &cm, &cq);
        cn = 64.0f * n;
    }
    nl_welford_tail(x + i, d - i, shift, &cn, &cm, &cq);
    *mean = cm;
    *m2 = cq;
}

int nl_layernorm_welford_avx512(const float *x, const float *gamma, const float *beta,
                                float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float shift = nl_welford_shift(xr, d), mean, m2, inv; /* see layernorm_welford_avx2.c */
        row_welford(xr, d, shift, &mean, &m2);
        if (isfinite(m2)) {
            inv = 1.0f / sqrtf(m2 / (float)d + eps);
        } else {
            nl_row_stats_wide(xr, d, 1, eps, &shift, &inv);
            mean = 0.0f;
        }
        const __m512 sh = _mm512_set1_ps(shift), m = _mm512_set1_ps(mean);
        const __m512 s = _mm512_set1_ps(inv);
        for (size_t i = 0; i < d; i += 16) {
            __mmask16 k = d - i >= 16 ? (__mmask16)0xFFFF : nl_mask16(d - i);
            __m512 t = _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + i), sh), m);
            t = _mm512_mul_ps(t, s);
            t = _mm512_fmadd_ps(t, _mm512_maskz_loadu_ps(k, gamma + i),
                                _mm512_maskz_loadu_ps(k, beta + i));
            _mm512_mask_storeu_ps(yr + i, k, t);
        }
    }
    return 0;
}
