/* row_stats.c — the fp32 statistics of a row of bf16/fp16 values.
 *
 * Models take them in fp32 (torch's .mean on a float tensor). We sum in
 * double and round the result to float once: a square of a 16-bit value
 * is exact in double, and a double sum is so far below float's spacing
 * that the scalar and vector kernels, summing in different orders, land on
 * the same float except when a double sum sits within ~1e-16 of a halfway
 * point between floats. That is why the fast kernels are bit-identical to
 * the scalar ones in practice and held to <= 1 ulp of the dtype in
 * principle. */
#include "precision/precision.h"

#include <math.h>

// @snippet half-rms-inv
float nl_half_rms_inv_from(double sumsq, size_t d, float eps)
{
    float ms = (float)(sumsq / (double)d); /* the fp32 mean of squares */
    return 1.0f / sqrtf(ms + eps);         /* torch.rsqrt(variance + eps) in fp32 */
}
// @end

float nl_half_rms_inv(nl_dtype dt, const uint16_t *x, size_t d, float eps)
{
    double s = 0.0;
    for (size_t i = 0; i < d; i++) {
        double v = nl_half_to_float(dt, x[i]);
        s += v * v;
    }
    return nl_half_rms_inv_from(s, d, eps);
}

void nl_half_ln_stats_from(double mean, double sumdev2, size_t d, float eps,
                           float *meanf, float *rstd)
{
    float var = (float)(sumdev2 / (double)d); /* biased, as torch's layer_norm */
    *meanf = (float)mean;
    *rstd = 1.0f / sqrtf(var + eps);
}

void nl_half_ln_stats(nl_dtype dt, const uint16_t *x, size_t d, float eps,
                      float *mean, float *rstd)
{
    double s = 0.0;
    for (size_t i = 0; i < d; i++)
        s += nl_half_to_float(dt, x[i]);
    double m = s / (double)d, s2 = 0.0;
    for (size_t i = 0; i < d; i++) {
        double dv = nl_half_to_float(dt, x[i]) - m;
        s2 += dv * dv;
    }
    nl_half_ln_stats_from(m, s2, d, eps, mean, rstd);
}

int nl_half_check_args(nl_dtype dt, const uint16_t *x, const void *gamma,
                       const void *beta, size_t rows, size_t d,
                       const uint16_t *y, nl_norm norm)
{
    if (dt != NL_DT_BF16 && dt != NL_DT_F16) {
        nl_set_error("16-bit kernel called with dtype %s: only bf16 and f16", nl_dtype_name(dt));
        return NL_EARG;
    }
    if (rows == 0)
        return NL_OK;
    if (d == 0) {
        nl_set_error("d must be at least 1");
        return NL_EARG;
    }
    if (!x || !y || !gamma || (norm == NL_LAYERNORM && !beta)) {
        nl_set_error("NULL %s", !x ? "x" : !y ? "y" : !gamma ? "gamma" : "beta");
        return NL_EARG;
    }
    if (rows > SIZE_MAX / d / sizeof(uint16_t)) {
        nl_set_error("rows x d = %zu x %zu overflows", rows, d);
        return NL_EARG;
    }
    return NL_OK;
}
