/* reference.c — the cast orders without any rounding, in double, and the
 * distance of a 16-bit result from it in ulps of its format. Chapter 8's
 * error tables are these two functions applied to each kernel's output. */
#include "normlab.h"

#include <math.h>

static double weight_at(nl_cast cast, nl_dtype dt, const void *w, size_t i)
{
    if (nl_cast_weight_dtype(cast, dt) == NL_DT_F32)
        return ((const float *)w)[i];
    double v = nl_half_to_float(dt, ((const uint16_t *)w)[i]);
    return cast == NL_CAST_GEMMA ? 1.0 + v : v;
}

void nl_half_reference(nl_cast cast, nl_dtype dt, const uint16_t *x,
                       const void *gamma, const void *beta, double eps,
                       size_t rows, size_t d, double *y)
{
    int center = nl_cast_norm(cast) == NL_LAYERNORM;
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        double mean = 0.0, s2 = 0.0;
        if (center) {
            for (size_t i = 0; i < d; i++)
                mean += nl_half_to_float(dt, xr[i]);
            mean /= (double)d;
        }
        for (size_t i = 0; i < d; i++) {
            double v = nl_half_to_float(dt, xr[i]) - mean;
            s2 += v * v;
        }
        double inv = 1.0 / sqrt(s2 / (double)d + eps);
        for (size_t i = 0; i < d; i++) {
            double v = (nl_half_to_float(dt, xr[i]) - mean) * inv * weight_at(cast, dt, gamma, i);
            if (center)
                v += nl_half_to_float(dt, ((const uint16_t *)beta)[i]);
            y[r * d + i] = v;
        }
    }
}

// @snippet half-ulp
double nl_half_ulp_error(nl_dtype dt, uint16_t got, double want)
{
    double g = nl_half_to_float(dt, got);
    if (isnan(g) || isnan(want))
        return isnan(g) && isnan(want) ? 0.0 : INFINITY;
    if (isinf(g) || isinf(want))
        return g == want ? 0.0 : INFINITY;
    /* spacing of the format at |want|: 2^(e - fraction bits), with e held
     * at the smallest normal exponent so subnormals have a fixed spacing */
    int frac = dt == NL_DT_BF16 ? 7 : 10, emin = dt == NL_DT_BF16 ? -126 : -14;
    int e = want == 0.0 ? emin : ilogb(want);
    if (e < emin)
        e = emin;
    return fabs(g - want) / ldexp(1.0, e - frac);
}
// @end

double nl_half_contract_error(const nl_half_impl *impl, uint16_t got, uint16_t want,
                              const void *beta, size_t i)
{
    nl_dtype dt = impl->dtype;
    double w = nl_half_to_float(dt, want), u = nl_half_ulp_error(dt, got, w);
    if (u <= impl->ulp || impl->ulp < 2)
        return u;
    /* across a power of two the spacing halves: count in the larger one */
    double back = nl_half_ulp_error(dt, want, nl_half_to_float(dt, got));
    u = back < u ? back : u;
    if (u <= impl->ulp || impl->norm != NL_LAYERNORM || !beta)
        return u;
    /* t*g + b in fp32 cancels: its error is relative to the terms, which
     * |y| + 2|b| bounds, as for the double reference (check_half_cast) */
    double b = nl_half_to_float(nl_cast_weight_dtype(impl->cast, dt), ((const uint16_t *)beta)[i]);
    return fabs(nl_half_to_float(dt, got) - w) <= 0x1p-20 * (fabs(w) + 2 * fabs(b)) ? 0.0 : u;
}
