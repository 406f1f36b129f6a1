/* layernorm_naive.c — LayerNorm straight from the formula, in float.
 * Three passes over each row: the mean, the variance around it, then the
 * output. Slow and clear; every faster version must agree with it.
 *
 * Accuracy: float sums of d terms, so the error grows slowly with d, and
 * on offset data (mean m, spread s) the rounding error of the float mean is
 * amplified by m/s: fine at m/s ~ 1, about 1e-2 at m = 1e4, s = 1.
 *
 * Range: |x| ~ 1e20 is out of range. (x - mean)^2 overflows float, the
 * variance becomes inf, 1/sqrt(inf) is 0, and every output of the row is
 * exactly beta (0 in the tests): visibly dead, never a plausible number.
 * layernorm_twopass and layernorm_welford handle that range. */
#include "normlab.h"

#include <math.h>

// @snippet layernorm-naive
int nl_layernorm_naive(const float *x, const float *gamma, const float *beta,
                       float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;

        float sum = 0.0f;
        for (size_t i = 0; i < d; i++)
            sum += xr[i];
        float mean = sum / (float)d;

        float sq = 0.0f;
        for (size_t i = 0; i < d; i++)
            sq += (xr[i] - mean) * (xr[i] - mean);
        float var = sq / (float)d;

        float inv_std = 1.0f / sqrtf(var + eps);
        for (size_t i = 0; i < d; i++)
            yr[i] = (xr[i] - mean) * inv_std * gamma[i] + beta[i];
    }
    return 0;
}
// @end
