/* rmsnorm_naive.c — RMSNorm straight from the formula, in float.
 * LayerNorm with one step taken out: no mean, so no re-centring and no
 * beta. Two passes per row instead of three.
 *
 * Range: |x| ~ 1e20 is out of range. x*x overflows float, the mean square
 * becomes inf, 1/sqrt(inf) is 0, and every output of the row is exactly 0:
 * visibly dead, never a plausible number. rmsnorm_fused handles that
 * range by summing in double. */
#include "normlab.h"

#include <math.h>

// @snippet rmsnorm-naive
int nl_rmsnorm_naive(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    (void)beta; /* RMSNorm has no shift */
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;

        float sq = 0.0f;
        for (size_t i = 0; i < d; i++)
            sq += xr[i] * xr[i];
        float ms = sq / (float)d;

        float inv_rms = 1.0f / sqrtf(ms + eps);
        for (size_t i = 0; i < d; i++)
            yr[i] = xr[i] * inv_rms * gamma[i];
    }
    return 0;
}
// @end
