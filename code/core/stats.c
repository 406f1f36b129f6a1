/* stats.c — median and spread of repeated timings. */
#include "normlab.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted data. */
static double percentile(const double *sorted, size_t n, double p)
{
    size_t k = (size_t)(p * (double)(n - 1) + 0.5);
    return sorted[k < n ? k : n - 1];
}

nl_stats nl_summarize(double *samples, size_t n)
{
    nl_stats st = {0, 0, 0, 0, 0, n};
    if (n == 0)
        return st;
    qsort(samples, n, sizeof *samples, cmp_double);
    st.min = samples[0];
    st.max = samples[n - 1];
    st.p10 = percentile(samples, n, 0.10);
    st.p90 = percentile(samples, n, 0.90);
    st.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    return st;
}
