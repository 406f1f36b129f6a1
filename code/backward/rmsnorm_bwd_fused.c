/* rmsnorm_bwd_fused.c — RMSNorm's backward in two passes per row
 * (exercise 13): pass 1 takes the row sum the coupling term needs; pass 2
 * writes dx and adds the row's share of dgamma while x and dy are in
 * registers.  Sums in float. */
#include "backward/backward.h"

// @snippet bwd-rmsnorm-fused
int nl_rmsnorm_bwd_fused(const float *x, const float *gamma, const float *mean,
                         const float *rstd, const float *dy, size_t rows, size_t d,
                         float *dx, float *dgamma, float *dbeta)
{
    (void)mean;
    (void)dbeta;
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        float *dxr = dx + r * d;
        const float rs = rstd[r];
// @exercise 13-rmsnorm-backward
        /* dx = rstd * g - rstd^3 * x * mean(g * x), g = gamma * dy: the
         * direct term, and the coupling term, which is what moving x[i]
         * does to rstd and through it to every y of the row. */
        float sum_gx = 0.0f;
        for (size_t i = 0; i < d; i++)
            sum_gx += gamma[i] * dyr[i] * xr[i];
        /* rstd^3: d rstd / d x[i] = -rstd^3 * x[i] / d */
        const float coupling = rs * rs * rs * (sum_gx / (float)d);
        for (size_t i = 0; i < d; i++) {
            dxr[i] = rs * gamma[i] * dyr[i] - coupling * xr[i];
            dgamma[i] += dyr[i] * xr[i] * rs;
        }
// @stub         (void)gamma;
// @stub         for (size_t i = 0; i < d; i++) {
// @stub             dxr[i] = 0.0f; /* TODO: dL/dx[i] */
// @stub             dgamma[i] += dyr[i] * xr[i] * rs;
// @stub         }
// @end
    }
    return 0;
}
// @end
