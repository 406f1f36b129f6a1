/* rmsnorm_bwd_naive.c — RMSNorm's backward straight from the formula,
 * dx = rstd * g - rstd^3 * x * mean(g * x): a pass for the row sum, one
 * for dx, then dgamma as column sums over all rows (a second, strided
 * sweep over x and dy).  Sums in float. */
#include "backward/backward.h"

int nl_rmsnorm_bwd_naive(const float *x, const float *gamma, const float *mean,
                         const float *rstd, const float *dy, size_t rows, size_t d,
                         float *dx, float *dgamma, float *dbeta)
{
    (void)mean;
    (void)dbeta;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        const float rs = rstd[r];
        float sum_gx = 0.0f;
        for (size_t i = 0; i < d; i++)
            sum_gx += gamma[i] * dyr[i] * xr[i];
        const float mean_gx = sum_gx / (float)d;
        for (size_t i = 0; i < d; i++)
            dx[r * d + i] = rs * gamma[i] * dyr[i] - rs * rs * rs * xr[i] * mean_gx;
    }
    for (size_t i = 0; i < d; i++)
        for (size_t r = 0; r < rows; r++)
            dgamma[i] += dy[r * d + i] * x[r * d + i] * rstd[r];
    return 0;
}
