/* fold.c — a norm's gamma and beta moved into the linear layer that reads
 * the norm: W (g * z + b) + c = (W diag(g)) z + (c + W b).  After the fold
 * the norm has no parameters left, which is what lets a LayerNorm become a
 * bare RMSNorm and lets FlashNorm defer its one scale to after the matmul.
 * Exercise 15 is this function. */
#include <stddef.h>

#include "gpt2/gpt2.h"

// @snippet fold-norm
void nl_fold_norm_into_linear(double *w, double *bias, const double *gamma,
                              const double *beta, size_t rows, size_t d)
{
    // @exercise 15-fold-norm
    for (size_t o = 0; o < rows; o++) {
        double *wo = w + o * d, shift = 0;
        for (size_t i = 0; i < d; i++) {
            /* beta meets the weight before gamma scales it: W b, not W diag(g) b */
            if (beta)
                shift += wo[i] * beta[i];
            wo[i] *= gamma[i];
        }
        if (bias)
            bias[o] += shift;
    }
    // @stub (void)w, (void)bias, (void)gamma, (void)beta, (void)rows, (void)d;
    // @end
}
// @end
