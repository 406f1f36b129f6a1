/* layernorm_bwd_naive.c — LayerNorm's backward straight from the formula:
 * one pass over the row per row sum, one for dx, and then dgamma and dbeta
 * as column sums, a second sweep over all of x and dy (column by column,
 * striding d floats per step: the cache-unfriendly way the formula reads).
 * Sums in float.  The fused kernel does the same arithmetic in two passes
 * per row and no second sweep. */
#include "backward/backward.h"

int nl_layernorm_bwd_naive(const float *x, const float *gamma, const float *mean,
                           const float *rstd, const float *dy, size_t rows, size_t d,
                           float *dx, float *dgamma, float *dbeta)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        const float mu = mean[r], rs = rstd[r];
        float sum_g = 0.0f;
        for (size_t i = 0; i < d; i++)
            sum_g += gamma[i] * dyr[i];
        float sum_gx = 0.0f;
        for (size_t i = 0; i < d; i++)
            sum_gx += gamma[i] * dyr[i] * ((xr[i] - mu) * rs);
        const float mean_g = sum_g / (float)d, mean_gx = sum_gx / (float)d;
        for (size_t i = 0; i < d; i++) {
            float xhat = (xr[i] - mu) * rs;
            dx[r * d + i] = rs * (gamma[i] * dyr[i] - mean_g - xhat * mean_gx);
        }
    }
    for (size_t i = 0; i < d; i++)
        for (size_t r = 0; r < rows; r++) {
            dgamma[i] += dy[r * d + i] * ((x[r * d + i] - mean[r]) * rstd[r]);
            dbeta[i] += dy[r * d + i];
        }
    return 0;
}
