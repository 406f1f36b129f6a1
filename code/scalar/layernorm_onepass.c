/* layernorm_onepass.c — LayerNorm with the variance as E[x^2] - E[x]^2,
 * both sums gathered in float in a single pass. Kept on purpose: it is the
 * formula in many textbooks and the first "optimisation" people reach for,
 * and it is wrong whenever the mean is large next to the spread. At mean
 * 1e4 and std 1, E[x^2] ~ 1e8 + 1 and E[x]^2 ~ 1e8 agree in every digit a
 * float holds; their difference is rounding noise, often negative, and the
 * output is off by whole units. The registry marks it NL_PROP_UNSTABLE and
 * tests/check_numerics.c asserts that it IS wrong there, so nobody "fixes"
 * the lesson away.
 *
 * Range: |x| ~ 1e20 is out of range. x*x overflows float, the variance
 * becomes inf (or inf - inf = NaN), and every output of the row is exactly
 * beta (0 in the tests) or NaN: visibly dead, never a plausible number. */
#include "normlab.h"

#include <math.h>

// @snippet layernorm-onepass
int nl_layernorm_onepass(const float *x, const float *gamma, const float *beta,
                         float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;

        float sum = 0.0f, sumsq = 0.0f;
        for (size_t i = 0; i < d; i++) {
            sum += xr[i];
            sumsq += xr[i] * xr[i];
        }
        float mean = sum / (float)d;
        float var = sumsq / (float)d - mean * mean;
        /* The clamp hides the symptom (a negative variance) without curing
         * the cause. `<` rather than fmaxf so that a NaN stays a NaN. */
        if (var < 0.0f)
            var = 0.0f;

        float inv_std = 1.0f / sqrtf(var + eps);
        for (size_t i = 0; i < d; i++)
            yr[i] = (xr[i] - mean) * inv_std * gamma[i] + beta[i];
    }
    return 0;
}
// @end
