/* stats.c — what the forward pass of training keeps for the backward.
 *
 * Per row: the mean (LayerNorm) and rstd.  Not x-hat: x-hat is as large as
 * x, and the backward reads x anyway, so rebuilding x-hat from two floats
 * per row costs no memory traffic, while saving it would cost a write in
 * the forward and a read in the backward of a whole rows x d tensor. */
#include <math.h>

#include "normlab.h"

// @snippet bwd-forward-stats
int nl_forward_stats(nl_norm norm, const float *x, float eps, size_t rows,
                     size_t d, float *mean, float *rstd)
{
    if (rows == 0)
        return NL_OK;
    if (d == 0 || !x || !rstd || (norm == NL_LAYERNORM && !mean)) {
        nl_set_error("nl_forward_stats: d must be >= 1 and x, rstd%s non-NULL",
                     norm == NL_LAYERNORM ? ", mean" : "");
        return NL_EARG;
    }
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        double mu = 0.0, ss = 0.0;
        if (norm == NL_LAYERNORM) {
            for (size_t i = 0; i < d; i++)
                mu += xr[i];
            mu /= (double)d;
        }
        for (size_t i = 0; i < d; i++)
            ss += ((double)xr[i] - mu) * ((double)xr[i] - mu);
        if (mean)
            mean[r] = (float)mu;
        rstd[r] = (float)(1.0 / sqrt(ss / (double)d + (double)eps));
    }
    return NL_OK;
}
// @end
