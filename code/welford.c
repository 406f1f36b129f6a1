/* welford.c — running mean and variance in one pass, and Chan's merge.
 *
 * Welford's update keeps the mean and M2 = sum (x - mean)^2 exact enough
 * that no large numbers are subtracted, which is what sinks E[x^2]-E[x]^2.
 * Chan, Golub & LeVeque (1979) merge two such summaries; SIMD lanes,
 * threads and OpenCL work-items each keep one and merge at the end. */
#include "normlab.h"

// @snippet welford-update
void nl_welford_push(nl_moments *m, double x)
{
    m->n += 1.0;
    double delta = x - m->mean;      /* distance to the old mean */
    m->mean += delta / m->n;
    m->m2 += delta * (x - m->mean);  /* old distance times new distance */
}
// @end

// @snippet chan-merge
nl_moments nl_chan_merge(nl_moments a, nl_moments b)
{
    double n = a.n + b.n;
    if (n == 0.0)
        return a;
    double delta = b.mean - a.mean;
    nl_moments out;
    out.n = n;
    out.mean = a.mean + delta * (b.n / n);
    out.m2 = a.m2 + b.m2 + delta * delta * (a.n * b.n / n);
    return out;
}
// @end
