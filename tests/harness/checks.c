/* checks.c — helpers the property suites share: reference outputs,
 * non-trivial parameters, where the worst error is, and row moments. */
#include "harness.h"

#include <math.h>
#include <omp.h>

void nl_problem_reference(nl_problem *p, nl_norm norm, float eps)
{
    nl_reference(norm, p->x, p->gamma, norm == NL_LAYERNORM ? p->beta : NULL,
                 eps, p->rows, p->d, p->ref);
}

void nl_fill_params(nl_problem *p, uint64_t seed)
{
    nl_fill_gauss(p->gamma, p->d, 1.0, 0.25, seed);
    nl_fill_gauss(p->beta, p->d, 0.0, 0.5, seed + 1);
}

nl_err_at nl_worst_err(const nl_problem *p)
{
    nl_err_at w = {0.0, 0, 0, 0.0, 0.0};
    for (size_t r = 0; r < p->rows; r++)
        for (size_t i = 0; i < p->d; i++) {
            size_t k = r * p->d + i;
            double e = fabs((double)p->y[k] - p->ref[k]);
            int worse = isnan(e) ? !isnan(p->ref[k]) && !isnan(w.err) : e > w.err;
            if (worse)
                w = (nl_err_at){e, r, i, p->y[k], p->ref[k]};
        }
    return w;
}

nl_row_stats nl_stats_of(const float *v, size_t n)
{
    double sum = 0.0, sq = 0.0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        sq += (double)v[i] * v[i];
    }
    double mean = sum / (double)n;
    double var = 0.0;
    for (size_t i = 0; i < n; i++)
        var += ((double)v[i] - mean) * ((double)v[i] - mean);
    return (nl_row_stats){mean, var / (double)n, sq / (double)n};
}

int nl_threads_granted(int n)
{
    int got = 0;
    omp_set_num_threads(n);
#pragma omp parallel
    {
#pragma omp single
        got = omp_get_num_threads();
    }
    return got;
}
