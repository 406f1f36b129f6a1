/* rmsnorm_vec.c — RMSNorm with the SIMD algorithm in plain C: the sum of
 * squares in LANES x ACCS partial sums (nl_sumsq, sumsq.c), then one output
 * pass.  Runs on any machine; the fallback of rmsnorm_best.
 *
 * Numerics (tests/check_simd.c): max |y - ref| on unit-scale data below
 * 1e-6; stated tol 1e-5.  |x| ~ 1e20 works: an overflowing sum of squares
 * sends the row to double (rowstats_wide.c). */
#include <math.h>

#include "simd/simd.h"

int nl_rmsnorm_vec(const float *x, const float *gamma, const float *beta,
                   float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float ss = nl_sumsq(xr, d), inv, zero;
        if (isfinite(ss))
            inv = 1.0f / sqrtf(ss / (float)d + eps);
        else
            nl_row_stats_wide(xr, d, 0, eps, &zero, &inv);
        for (size_t i = 0; i < d; i++)
            yr[i] = xr[i] * inv * gamma[i];
    }
    return 0;
}
