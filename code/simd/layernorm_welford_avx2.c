/* layernorm_welford_avx2.c — LayerNorm with Welford's update in AVX2 lanes.
 *
 * One sweep for the statistics instead of two: 32 running (mean, M2)
 * summaries (4 registers x 8 lanes), each fed every 32nd element, merged at
 * the end by Chan's formula as a tree, register against register, then
 * lane against lane.  All lanes see the same count n, so 1/n is one scalar
 * division per 32 elements, not one per element.  Each step is
 *     delta = v - mean;  mean += delta / n;  M2 += delta * (v - mean)
 * with v = x - shift (nl_welford_shift: the mean of the first 32 elements),
 * so the running means stay small and a float holds them finely.
 *
 * Cost (chapter 5): 2.25 instructions per element against 2.09 for the
 * corrected two-pass kernel (`make simd-count`), the shift included.
 *
 * Numerics (NL_SHOW_ERR=1 build/tests/check_simd): max |y - ref| 9.6e-7 on
 * unit-scale data, 4.7e-7 on data with mean 1e4 (1.3e-3 without the shift:
 * the float mean's rounding), 5.3e-7 relative with a 1e4 outlier first;
 * stated tol 1e-5.  |x| ~ 1e20 works: an overflowing M2 sends the row to
 * double. */
#include <math.h>

#include "simd/avx2_util.h"
#include "simd/simd.h"
#include "simd/welford_lanes.h"

// @snippet welford-avx2-row
/* Welford over x - shift: the statistics of the shifted row. */
static void row_welford(const float *x, size_t d, float shift, float *mean, float *m2)
{
    const __m256 k = _mm256_set1_ps(shift);
    __m256 m0 = _mm256_setzero_ps(), m1 = m0, m2v = m0, m3 = m0;
    __m256 q0 = m0, q1 = m0, q2 = m0, q3 = m0;
    float n = 0.0f;
    size_t i = 0;
    for (; i + 32 <= d; i += 32) {
        n += 1.0f;
        const __m256 rn = _mm256_set1_ps(1.0f / n);
        nl_welford_step256(_mm256_sub_ps(_mm256_loadu_ps(x + i), k), rn, &m0, &q0);
        nl_welford_step256(_mm256_sub_ps(_mm256_loadu_ps(x + i + 8), k), rn, &m1, &q1);
        nl_welford_step256(_mm256_sub_ps(_mm256_loadu_ps(x + i + 16), k), rn, &m2v, &q2);
        nl_welford_step256(_mm256_sub_ps(_mm256_loadu_ps(x + i + 24), k), rn, &m3, &q3);
    }
    float cn = 0.0f, cm = 0.0f, cq = 0.0f; /* all lanes, merged */
    if (n > 0.0f) {
        nl_chan_equal256(&m0, &q0, m1, q1, n);
        nl_chan_equal256(&m2v, &q2, m3, q3, n);
        nl_chan_equal256(&m0, &q0, m2v, q2, 2.0f * n);
        nl_chan_fold256(m0, q0, 4.0f * n, &cm, &cq);
        cn = 32.0f * n;
    }
    nl_welford_tail(x + i, d - i, shift, &cn, &cm, &cq);
    *mean = cm;
    *m2 = cq;
}
// @end

int nl_layernorm_welford_avx2(const float *x, const float *gamma, const float *beta,
                              float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        /* y = ((x - shift) - mean) * inv: the same two subtractions as the
         * corrected two-pass output */
        float shift = nl_welford_shift(xr, d), mean, m2, inv;
        row_welford(xr, d, shift, &mean, &m2);
        if (isfinite(m2)) {
            inv = 1.0f / sqrtf(m2 / (float)d + eps);
        } else {
            nl_row_stats_wide(xr, d, 1, eps, &shift, &inv);
            mean = 0.0f;
        }
        const __m256 k = _mm256_set1_ps(shift), m = _mm256_set1_ps(mean);
        const __m256 s = _mm256_set1_ps(inv);
        size_t i = 0;
        for (; i + 8 <= d; i += 8) {
            __m256 t = _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i), k), m);
            t = _mm256_mul_ps(t, s);
            _mm256_storeu_ps(yr + i, _mm256_fmadd_ps(t, _mm256_loadu_ps(gamma + i),
                                                     _mm256_loadu_ps(beta + i)));
        }
        if (i < d) {
            __m256i km = nl_tail_mask256(d - i);
            __m256 t = _mm256_sub_ps(_mm256_sub_ps(_mm256_maskload_ps(xr + i, km), k), m);
            t = _mm256_mul_ps(t, s);
            t = _mm256_fmadd_ps(t, _mm256_maskload_ps(gamma + i, km), _mm256_maskload_ps(beta + i, km));
            _mm256_maskstore_ps(yr + i, km, t);
        }
    }
    return 0;
}
