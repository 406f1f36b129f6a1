/* layernorm_welford.c — LayerNorm whose mean and variance come from one
 * pass of Welford's update (code/scalar/welford.c).
 *
 * One pass like layernorm_onepass, yet stable like layernorm_twopass: the
 * update never forms E[x^2], it nudges a running mean and adds products of
 * small distances to M2, so nothing large is subtracted. The summary it
 * keeps (count, mean, M2) is what Chan's merge combines, which is how the
 * SIMD, threaded and OpenCL chapters split a row and join the pieces.
 *
 * Range: |x| ~ 1e20 works (NL_PROP_HUGE_OK): the moments are doubles, and
 * M2 ~ d * 1e40 is far below double's limit. */
#include "normlab.h"

#include <math.h>

// @snippet layernorm-welford
int nl_layernorm_welford(const float *x, const float *gamma, const float *beta,
                         float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;

        nl_moments m = {0.0, 0.0, 0.0};
        for (size_t i = 0; i < d; i++)
            nl_welford_push(&m, xr[i]);
        double inv_std = 1.0 / sqrt(m.m2 / m.n + eps);

        for (size_t i = 0; i < d; i++)
            yr[i] = (float)((xr[i] - m.mean) * inv_std * gamma[i] + beta[i]);
    }
    return 0;
}
// @end
