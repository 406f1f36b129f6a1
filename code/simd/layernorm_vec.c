/* layernorm_vec.c — the SIMD algorithm written in plain C, for machines
 * with none of the instruction sets below (and as the readable model of
 * them): LANES x ACCS independent partial sums instead of one.
 *
 * Statistics: the corrected two-pass scheme.  Pass 1 gives a rough float
 * mean mf; pass 2 sums c = x - mf and c^2, and the small sum of c corrects
 * mf (on data with mean 1e4 a float mean alone is off by up to 5e-4, its
 * rounding step; the correction recovers it).  Pass 3 writes
 * y = ((x - mf) - corr) / sqrt(var + eps) * gamma + beta.
 *
 * Numerics (tests/check_simd.c, build/tests/check_simd): max |y - ref|
 * on unit-scale data below 2e-6 at d = 4097; stated tol 1e-5.  |x| ~ 1e20
 * works: a row whose sum of squares overflows is redone in double
 * (rowstats_wide.c).  No FMA: this file follows -ffp-contract=off. */
#include <math.h>

#include "simd/simd.h"

enum { LANES = 8, ACCS = 4, STEP = LANES * ACCS };

// @snippet vec-sum
static float sum_all(const float *x, size_t d)
{
    float acc[STEP] = {0};
    size_t i = 0;
    for (; i + STEP <= d; i += STEP)
        for (size_t k = 0; k < STEP; k++)
            acc[k] += x[i + k];
    for (size_t k = 0; i < d; i++, k++)
        acc[k] += x[i];
    /* pairwise, like the horizontal reduction of a register */
    for (size_t half = STEP / 2; half >= 1; half /= 2)
        for (size_t k = 0; k < half; k++)
            acc[k] += acc[k + half];
    return acc[0];
}
// @end

/* sum of (x - mf) and of (x - mf)^2 in one sweep */
static void sum_dev(const float *x, size_t d, float mf, float *s1, float *s2)
{
    float a1[STEP] = {0}, a2[STEP] = {0};
    size_t i = 0;
    for (; i + STEP <= d; i += STEP)
        for (size_t k = 0; k < STEP; k++) {
            float c = x[i + k] - mf;
            a1[k] += c;
            a2[k] += c * c;
        }
    for (size_t k = 0; i < d; i++, k++) {
        float c = x[i] - mf;
        a1[k] += c;
        a2[k] += c * c;
    }
    for (size_t half = STEP / 2; half >= 1; half /= 2)
        for (size_t k = 0; k < half; k++) {
            a1[k] += a1[k + half];
            a2[k] += a2[k + half];
        }
    *s1 = a1[0];
    *s2 = a2[0];
}

int nl_layernorm_vec(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float mf = sum_all(xr, d) / (float)d, s1, s2, corr, inv;
        sum_dev(xr, d, mf, &s1, &s2);
        nl_ln_row_scale(xr, d, eps, s1, s2, &mf, &corr, &inv);
        const float m = mf, c = corr, s = inv; /* not address-taken: registers */
        size_t i = 0;
        for (; i + LANES <= d; i += LANES) {
            /* all loads of a block before its stores: y == x stays safe,
             * and the block maps onto one vector register */
            float t[LANES];
            for (size_t k = 0; k < LANES; k++)
                t[k] = ((xr[i + k] - m) - c) * s * gamma[i + k] + beta[i + k];
            for (size_t k = 0; k < LANES; k++)
                yr[i + k] = t[k];
        }
        for (; i < d; i++)
            yr[i] = ((xr[i] - m) - c) * s * gamma[i] + beta[i];
    }
    return 0;
}
