/* layernorm_welford_avx2.c — LayerNorm with Welford's update in AVX2 lanes.
 *
 * One sweep for the statistics instead of two: 32 running (mean, M2)
 * summaries (4 registers x 8 lanes), each fed every 32nd element, merged at
 * the end by Chan's formula as a tree, register against register, then
 * lane against lane.  All lanes see the same count n, so 1/n is one scalar
 * division per 32 elements, not one per element.  Each step is
 *     delta = x - mean;  mean += delta / n;  M2 += delta * (x - mean)
 * a chain of four dependent operations per element (the two-pass sweeps
 * have one or two), which is the cost chapter 5 measures.
 *
 * Numerics (build/tests/check_simd): max |y - ref| below 3e-6 on
 * unit-scale data; stated tol 1e-5.  On offset data (mean 1e4) the mean is
 * held in float, and each update rounds it to
 * a step of ~1e-3: measured output error 1.3e-3 at d = 4097 (bound 2e-3),
 * against 1.2e-6 for the corrected two-pass kernel.
 * |x| ~ 1e20 works: an overflowing M2 sends the row to double. */
#include <math.h>

#include "simd/avx2_util.h"
#include "simd/simd.h"
#include "simd/welford_lanes.h"

// @snippet welford-avx2-row
static void row_welford(const float *x, size_t d, float *mean, float *m2)
{
    __m256 m0 = _mm256_setzero_ps(), m1 = m0, m2v = m0, m3 = m0;
    __m256 q0 = m0, q1 = m0, q2 = m0, q3 = m0;
    float n = 0.0f;
    size_t i = 0;
    for (; i + 32 <= d; i += 32) {
        n += 1.0f;
        const __m256 rn = _mm256_set1_ps(1.0f / n);
        nl_welford_step256(_mm256_loadu_ps(x + i), rn, &m0, &q0);
        nl_welford_step256(_mm256_loadu_ps(x + i + 8), rn, &m1, &q1);
        nl_welford_step256(_mm256_loadu_ps(x + i + 16), rn, &m2v, &q2);
        nl_welford_step256(_mm256_loadu_ps(x + i + 24), rn, &m3, &q3);
    }
    float cn = 0.0f, cm = 0.0f, cq = 0.0f; /* all lanes, merged */
    if (n > 0.0f) {
        nl_chan_equal256(&m0, &q0, m1, q1, n);
        nl_chan_equal256(&m2v, &q2, m3, q3, n);
        nl_chan_equal256(&m0, &q0, m2v, q2, 2.0f * n);
        nl_chan_fold256(m0, q0, 4.0f * n, &cm, &cq);
        cn = 32.0f * n;
    }
    nl_welford_tail(x + i, d - i, &cn, &cm, &cq);
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
        float mean, m2, inv;
        row_welford(xr, d, &mean, &m2);
        if (isfinite(m2))
            inv = 1.0f / sqrtf(m2 / (float)d + eps);
        else
            nl_row_stats_wide(xr, d, 1, eps, &mean, &inv);
        const __m256 m = _mm256_set1_ps(mean), s = _mm256_set1_ps(inv);
        size_t i = 0;
        for (; i + 8 <= d; i += 8) {
            __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i), m), s);
            _mm256_storeu_ps(yr + i, _mm256_fmadd_ps(t, _mm256_loadu_ps(gamma + i),
                                                     _mm256_loadu_ps(beta + i)));
        }
        if (i < d) {
            __m256i k = nl_tail_mask256(d - i);
            __m256 t = _mm256_mul_ps(_mm256_sub_ps(_mm256_maskload_ps(xr + i, k), m), s);
            t = _mm256_fmadd_ps(t, _mm256_maskload_ps(gamma + i, k), _mm256_maskload_ps(beta + i, k));
            _mm256_maskstore_ps(yr + i, k, t);
        }
    }
    return 0;
}
