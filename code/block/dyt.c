/* dyt.c — Dynamic Tanh, the norm-free alternative of chapter 9
 * ("Transformers without Normalization", Zhu, Chen, He, LeCun and Liu,
 * arXiv 2503.10622): y = gamma * tanh(alpha * x) + beta.
 *
 * No sum over the row, hence no second look at it and nothing to keep in
 * double: one read of x, one write of y, like RMSNorm's bytes but without
 * its reduction.  What it gives up is the norm's defining property: a row
 * scaled by c does not come out the same (tests/check_block_dyt.c).
 * tanh is evaluated in double and rounded once, so the result is the
 * correctly rounded value of the formula up to tanh's own last bit. */
#include <math.h>

#include "normlab.h"

// @snippet dyt
int nl_dyt(const float *x, float alpha, const float *gamma, const float *beta,
           size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        for (size_t i = 0; i < d; i++) {
            double t = tanh((double)alpha * xr[i]);
            yr[i] = (float)(gamma[i] * t + (beta ? beta[i] : 0.0));
        }
    }
    return NL_OK;
}
// @end
