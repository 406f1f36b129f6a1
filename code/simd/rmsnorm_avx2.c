/* rmsnorm_avx2.c — RMSNorm with AVX2 + FMA: one sweep for the sum of
 * squares (four FMA chains), one for the output; masked tail, unaligned
 * pointers accepted.  One sweep fewer than LayerNorm, and no beta.  The
 * fast rungs at 8 lanes (rmsnorm_rungs_avx2.c) sum in this order, so they
 * give this kernel's bits.
 *
 * Numerics (build/tests/check_simd): max |y - ref| below 1e-6 on
 * unit-scale data; stated tol 1e-5.  |x| ~ 1e20 works: a row whose float
 * sum of squares overflows is redone in double (rowstats_wide.c). */
#include <math.h>

#include "simd/avx2_util.h"
#include "simd/simd.h"

// @snippet rms-avx2-sumsq
static float row_sumsq(const float *x, size_t d)
{
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    __m256 a2 = _mm256_setzero_ps(), a3 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= d; i += 32) {
        __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
        __m256 v2 = _mm256_loadu_ps(x + i + 16), v3 = _mm256_loadu_ps(x + i + 24);
        a0 = _mm256_fmadd_ps(v0, v0, a0);
        a1 = _mm256_fmadd_ps(v1, v1, a1);
        a2 = _mm256_fmadd_ps(v2, v2, a2);
        a3 = _mm256_fmadd_ps(v3, v3, a3);
    }
    for (; i + 8 <= d; i += 8) { /* the rest into a1, as the tail: the */
        __m256 v = _mm256_loadu_ps(x + i); /* order of rmsnorm_rungs.h */
        a1 = _mm256_fmadd_ps(v, v, a1);
    }
    if (i < d) {
        __m256 v = _mm256_maskload_ps(x + i, nl_tail_mask256(d - i));
        a1 = _mm256_fmadd_ps(v, v, a1);
    }
    return nl_hsum256(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
}
// @end

int nl_rmsnorm_avx2(const float *x, const float *gamma, const float *beta,
                    float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float ss = row_sumsq(xr, d), inv, zero;
        if (isfinite(ss))
            inv = 1.0f / sqrtf(ss / (float)d + eps);
        else
            nl_row_stats_wide(xr, d, 0, eps, &zero, &inv);
        const __m256 s = _mm256_set1_ps(inv);
        size_t i = 0;
        for (; i + 8 <= d; i += 8)
            _mm256_storeu_ps(yr + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(xr + i), s),
                                                   _mm256_loadu_ps(gamma + i)));
        if (i < d) {
            __m256i k = nl_tail_mask256(d - i);
            _mm256_maskstore_ps(yr + i, k, _mm256_mul_ps(_mm256_mul_ps(_mm256_maskload_ps(xr + i, k), s),
                                                         _mm256_maskload_ps(gamma + i, k)));
        }
    }
    return 0;
}
