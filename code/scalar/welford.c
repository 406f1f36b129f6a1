/* welford.c — running mean and variance in one pass, and Chan's merge.
 *
 * Welford's update keeps the mean and M2 = sum (x - mean)^2 without ever
 * subtracting two large numbers, which is what sinks E[x^2]-E[x]^2.
 * Chan, Golub & LeVeque (1979) merge two such summaries; SIMD lanes,
 * threads and OpenCL work-items each keep one and merge at the end. */
#include "normlab.h"

// @snippet welford-update
void nl_welford_push(nl_moments *m, double x)
{
    // @exercise 03-welford
    m->n += 1.0;
    double delta = x - m->mean;      /* distance to the old mean */
    m->mean += delta / m->n;
    m->m2 += delta * (x - m->mean);  /* old distance times new distance */
    // @stub (void)m; (void)x; /* TODO: count x, move the mean towards it, grow M2 */
    // @end
}
// @end

// @snippet chan-merge
nl_moments nl_chan_merge(nl_moments a, nl_moments b)
{
    /* An empty side must give the other back unchanged; the general
     * formula would too, except that delta^2 * 0 is NaN once delta^2
     * overflows. */
    if (b.n == 0.0)
        return a;
    if (a.n == 0.0)
        return b;
    double n = a.n + b.n;
    double delta = b.mean - a.mean;
    nl_moments out;
    out.n = n;
    out.mean = a.mean + delta * (b.n / n);
    out.m2 = a.m2 + b.m2 + delta * delta * (a.n * b.n / n);
    return out;
}
// @end
