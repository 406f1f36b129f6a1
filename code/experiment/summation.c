/* summation.c — three ways to add up doubles, and why they disagree.
 *
 * A floating-point sum rounds after every addition, so its result depends
 * on the order and method of adding. The seed article's LayerNorm figure
 * (the mean of an output that is zero in exact arithmetic) is nothing but
 * this rounding, which is why normlab demo shows it under all three. */
#include "normlab.h"

#include <math.h>

static double sum_left(const double *v, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* Neumaier's variant of Kahan summation, in the form CPython 3.12 adopted
 * for sum() of floats: the rounding error of each addition is recovered
 * exactly (whichever operand is larger) and accumulated on the side, then
 * added once at the end. */
// @snippet neumaier-sum
static double sum_neumaier(const double *v, size_t n)
{
    double s = 0.0, c = 0.0;
    for (size_t i = 0; i < n; i++) {
        double t = s + v[i];
        if (fabs(s) >= fabs(v[i]))
            c += (s - t) + v[i];
        else
            c += (v[i] - t) + s;
        s = t;
    }
    /* Skipping a zero correction keeps the sign of a -0.0 sum; skipping a
     * non-finite one keeps an overflowed sum from turning into NaN. */
    if (c != 0.0 && isfinite(c))
        s += c;
    return s;
}
// @end

/* The exact sum rounded once (Shewchuk's non-overlapping partials, the
 * idea behind math.fsum). The partials are kept so that their exact total
 * is the exact running sum; for finite doubles they are at least 53 bits
 * apart, so about 40 of them cover the whole exponent range. */
enum { MAX_PARTIALS = 64 };

static double sum_exact(const double *v, size_t n)
{
    double p[MAX_PARTIALS];
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        size_t k = 0;
        for (size_t j = 0; j < np; j++) {
            double y = p[j];
            if (fabs(x) < fabs(y)) {
                double t = x;
                x = y;
                y = t;
            }
            double hi = x + y;
            double lo = y - (hi - x); /* exact: what hi lost of x + y */
            if (lo != 0.0)
                p[k++] = lo;
            x = hi;
        }
        if (k < MAX_PARTIALS) /* always true for finite input, see above */
            p[k++] = x;
        np = k;
    }

    /* Add the partials from the largest down until an addition is inexact;
     * then, if what is left lies exactly half-way, round to even by
     * looking at the sign of the next partial. */
    double hi = 0.0, lo = 0.0;
    if (np > 0) {
        hi = p[--np];
        while (np > 0) {
            double x = hi, y = p[--np];
            hi = x + y;
            lo = y - (hi - x);
            if (lo != 0.0)
                break;
        }
        if (np > 0 && ((lo < 0.0 && p[np - 1] < 0.0) || (lo > 0.0 && p[np - 1] > 0.0))) {
            double y = lo * 2.0;
            double x = hi + y;
            if (y == x - hi)
                hi = x;
        }
    }
    return hi;
}

double nl_sum(const double *v, size_t n, nl_sum_method how)
{
    switch (how) {
    case NL_SUM_NEUMAIER:
        return sum_neumaier(v, n);
    case NL_SUM_EXACT:
        return sum_exact(v, n);
    case NL_SUM_LEFT:
    default:
        return sum_left(v, n);
    }
}
