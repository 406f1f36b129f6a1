/* layernorm_twopass.c — LayerNorm as two steps: re-centre, then scale.
 *
 * Step one subtracts the row's mean; step two divides the centred row by
 * its root mean square, which for a centred row IS the standard deviation,
 * then applies gamma and beta. RMSNorm (rmsnorm_fused.c) is step two alone:
 * that is the one word less.
 *
 * Statistics are summed in double: a float sum of 4097 terms loses digits,
 * and on offset data (mean 1e4, std 1) the lost digits of the mean become
 * an error in every output. Centring before squaring is what keeps this
 * version accurate where layernorm_onepass is not: no large numbers are
 * subtracted after squaring.
 *
 * Range: |x| ~ 1e20 works (NL_PROP_HUGE_OK). The centred values still fit a
 * float, and their squares (1e40) fit a double. */
#include "normlab.h"

#include <math.h>

// @snippet layernorm-recentre
/* yr = xr - mean(xr). y may be x: each element is read before it is
 * written, and the mean is known before the first write. */
static void recentre(const float *xr, size_t d, float *yr)
{
    // @exercise 01-layernorm-mean
    double sum = 0.0;
    for (size_t i = 0; i < d; i++)
        sum += xr[i];
    double mean = sum / (double)d;
    for (size_t i = 0; i < d; i++)
        yr[i] = (float)(xr[i] - mean);
    // @stub for (size_t i = 0; i < d; i++) yr[i] = xr[i]; /* TODO: compute the row's mean, subtract it */
    // @end
}
// @end

// @snippet layernorm-scale
/* yr = yr / sqrt(mean(yr^2) + eps) * gamma + beta, for a centred row. */
static void scale_centred(float *yr, const float *gamma, const float *beta,
                          float eps, size_t d)
{
    double sq = 0.0;
    for (size_t i = 0; i < d; i++)
        sq += (double)yr[i] * yr[i];
    double inv_std = 1.0 / sqrt(sq / (double)d + eps);
    for (size_t i = 0; i < d; i++)
        yr[i] = (float)(yr[i] * inv_std * gamma[i] + beta[i]);
}
// @end

// @snippet layernorm-twopass
int nl_layernorm_twopass(const float *x, const float *gamma, const float *beta,
                         float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        recentre(x + r * d, d, y + r * d);
        scale_centred(y + r * d, gamma, beta, eps, d);
    }
    return 0;
}
// @end
