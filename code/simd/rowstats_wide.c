/* rowstats_wide.c — the rescue path for rows too large for float sums.
 *
 * The fast kernels square floats in float: once |x| passes ~1e19 the sum of
 * squares overflows to inf even though every input is finite.  Checking the
 * sum for inf after the statistics pass costs one compare per row, so the
 * kernels stay fast and hand only such rows to this double-precision code
 * (double reaches 1e308: a float squared cannot overflow it). */
#include <math.h>

#include "simd/simd.h"

// @snippet rowstats-wide
void nl_row_stats_wide(const float *x, size_t d, int center, float eps,
                       float *mean, float *inv)
{
    double m = 0.0;
    if (center) {
        for (size_t i = 0; i < d; i++)
            m += x[i];
        m /= (double)d;
    }
    double m2 = 0.0;
    for (size_t i = 0; i < d; i++) {
        double c = (double)x[i] - m;
        m2 += c * c;
    }
    *mean = (float)m;
    *inv = (float)(1.0 / sqrt(m2 / (double)d + (double)eps));
}
// @end

/* A LayerNorm row's scale from its two-pass sums about mf (s1 of x - mf,
 * s2 of its squares): the correction s1/d, and 1/sqrt(var + eps), the
 * variance clamped at 0 against rounding; a row whose squares overflowed
 * (s2 not finite) is redone in double, mf with it.  Every LayerNorm
 * kernel of chapters 5 and 6 ends its statistics here. */
void nl_ln_row_scale(const float *x, size_t d, float eps, float s1, float s2, float *mf,
                     float *corr, float *inv)
{
    if (isfinite(s2)) {
        *corr = s1 / (float)d;
        float var = s2 / (float)d - *corr * *corr;
        *inv = 1.0f / sqrtf((var > 0.0f ? var : 0.0f) + eps);
    } else { /* |x| too large for float squares: rare, so slow is fine */
        nl_row_stats_wide(x, d, 1, eps, mf, inv);
        *corr = 0.0f;
    }
}
