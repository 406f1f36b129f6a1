/* apply.c — from a row's combined statistics to its normalised slice. */
#include <math.h>

#include "mpi/mpinorm.h"

// @snippet mpi-finish
void nl_mpi_finish(const nl_mpi_partials_buf *p, size_t d, double eps, nl_row_scale *scale)
{
    for (size_t r = 0; r < p->rows; r++) {
        double mean = 0.0, var;
        if (p->kind == NL_MPI_SUMSQ) {
            var = ((const double *)p->data)[r] / (double)d;   /* mean square */
        } else if (p->kind == NL_MPI_SUMS) {
            const float *s = (const float *)p->data + 2 * r;
            float m = s[0] / (float)d;
            float v = s[1] / (float)d - m * m;  /* E[x^2] - E[x]^2: it cancels */
            mean = m;
            var = v < 0.0f ? 0.0f : v;          /* as layernorm_onepass clamps */
        } else {
            nl_moments m = ((const nl_moments *)p->data)[r];
            mean = m.mean;
            var = m.m2 / m.n;
        }
        scale[r].mean = mean;
        scale[r].inv_std = 1.0 / sqrt(var + eps);
    }
}
// @end

void nl_mpi_apply(const nl_row_scale *scale, const float *xs, const float *gs, const float *bs,
                  size_t rows, size_t dk, float *ys)
{
    for (size_t r = 0; r < rows; r++) {
        const float *x = xs + r * dk;
        float *y = ys + r * dk;
        for (size_t i = 0; i < dk; i++) {
            double v = ((double)x[i] - scale[r].mean) * scale[r].inv_std * gs[i];
            y[i] = (float)(bs ? v + bs[i] : v);
        }
    }
}
