/* rmsnorm_vec.c — RMSNorm with the SIMD algorithm in plain C: the sum of
 * squares in LANES x ACCS partial sums (nl_sumsq, sumsq.c), then one output
 * pass.  Runs on any machine; the fallback of rmsnorm_best.
 *
 * Numerics (tests/check_simd.c): max |y - ref| on unit-scale data below
 * 1e-6; stated tol 1e-5.  |x| ~ 1e20 works: an overflowing sum of squares
 * sends the row to double (rowstats_wide.c). */
#include <math.h>

#include "simd/simd.h"

enum { LANES = 8 };

int nl_rmsnorm_vec(const float *x, const float *gamma, const float *beta,
                   float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float ss = nl_sumsq(xr, d), zero, wide;
        if (!isfinite(ss))
            nl_row_stats_wide(xr, d, 0, eps, &zero, &wide);
        /* a local never passed by address: the compiler may keep it in a
         * register and vectorise the loop below */
        const float inv = isfinite(ss) ? 1.0f / sqrtf(ss / (float)d + eps) : wide;
        size_t i = 0;
        for (; i + LANES <= d; i += LANES) {
            /* all loads of a block before its stores: y == x stays safe,
             * and the block maps onto one vector register */
            float t[LANES];
            for (size_t k = 0; k < LANES; k++)
                t[k] = xr[i + k] * inv * gamma[i + k];
            for (size_t k = 0; k < LANES; k++)
                yr[i + k] = t[k];
        }
        for (; i < d; i++)
            yr[i] = xr[i] * inv * gamma[i];
    }
    return 0;
}
