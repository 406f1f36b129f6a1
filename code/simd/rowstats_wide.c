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
