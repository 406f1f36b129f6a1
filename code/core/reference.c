/* reference.c — the yardstick: both norms in double precision, two-pass.
 * Every implementation is validated against this before it is timed. */
#include "normlab.h"

#include <math.h>

void nl_reference(nl_norm norm, const float *x, const float *gamma,
                  const float *beta, double eps, size_t rows, size_t d,
                  double *y)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;

        double mean = 0.0;
        if (norm == NL_LAYERNORM) {
            for (size_t i = 0; i < d; i++)
                mean += xr[i];
            mean /= (double)d;
        }
        /* Variance around the mean for LayerNorm, mean square (variance
         * around zero) for RMSNorm: the one step RMSNorm leaves out. */
        double m2 = 0.0;
        for (size_t i = 0; i < d; i++) {
            double c = (double)xr[i] - mean;
            m2 += c * c;
        }
        double inv = 1.0 / sqrt(m2 / (double)d + eps);

        for (size_t i = 0; i < d; i++) {
            double v = ((double)xr[i] - mean) * inv * gamma[i];
            y[r * d + i] = norm == NL_LAYERNORM ? v + beta[i] : v;
        }
    }
}

double nl_max_abs_diff(const float *y, const double *ref, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)y[i] - ref[i]);
        if (isnan(e) && !isnan(ref[i]))
            return NAN;
        if (e > worst)
            worst = e;
    }
    return worst;
}
