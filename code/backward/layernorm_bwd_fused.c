/* layernorm_bwd_fused.c — LayerNorm's backward in two passes per row.
 *
 * Pass 1 takes both row sums, of g and of g * x-hat, together: one read of
 * x, dy and gamma instead of two.  Pass 2 writes dx and, while x-hat and
 * dy are in registers, adds this row's share to dgamma and dbeta: the
 * column sums ride along instead of sweeping all rows again.  dgamma and
 * dbeta (d floats each) stay in cache across rows.  Sums in float. */
#include "backward/backward.h"

// @snippet bwd-layernorm-fused
int nl_layernorm_bwd_fused(const float *x, const float *gamma, const float *mean,
                           const float *rstd, const float *dy, size_t rows, size_t d,
                           float *dx, float *dgamma, float *dbeta)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        float *dxr = dx + r * d;
        const float mu = mean[r], rs = rstd[r];
        float sum_g = 0.0f, sum_gx = 0.0f;
        for (size_t i = 0; i < d; i++) {
            float g = gamma[i] * dyr[i];
            sum_g += g;
            sum_gx += g * ((xr[i] - mu) * rs);
        }
        const float mean_g = sum_g / (float)d, mean_gx = sum_gx / (float)d;
        for (size_t i = 0; i < d; i++) {
            float xhat = (xr[i] - mu) * rs;
            dxr[i] = rs * (gamma[i] * dyr[i] - mean_g - xhat * mean_gx);
            dgamma[i] += dyr[i] * xhat;
            dbeta[i] += dyr[i];
        }
    }
    return 0;
}
// @end
