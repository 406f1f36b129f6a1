/* layernorm_torch.c — LayerNorm on bf16/fp16 activations the way torch's
 * CPU layer_norm runs it (aten/src/ATen/native/cpu/layer_norm_kernel.cpp,
 * LayerNormKernelImplInternal): mean and rstd in fp32, the row folded into
 * a scale and a shift, y = (x * rstd + (-rstd * mean)) * gamma + beta in
 * fp32, one rounding to the dtype at the end. torch takes the moments
 * with its own fp32 summation (RowwiseMoments); ours are double sums
 * rounded to fp32, so the last fp32 bit of mean or rstd may differ. */
#include "precision/precision.h"

// @snippet layernorm-torch-scalar
int nl_layernorm_torch_scalar(nl_dtype dt, const uint16_t *x, const void *gamma,
                              const void *beta, float eps, size_t rows, size_t d,
                              uint16_t *y)
{
    int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, NL_LAYERNORM);
    if (rc)
        return rc;
    const uint16_t *g = gamma, *b = beta;
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        uint16_t *yr = y + r * d;
        float mean, rstd;
        nl_half_ln_stats(dt, xr, d, eps, &mean, &rstd);
        const float shift = -rstd * mean;
        for (size_t i = 0; i < d; i++) {
            /* four fp32 roundings, in this order, and no FMA (the build
             * has -ffp-contract=off): the vector kernels do the same */
            float t = nl_half_to_float(dt, xr[i]) * rstd + shift;
            t = t * nl_half_to_float(dt, g[i]);
            yr[i] = nl_half_from_float(dt, t + nl_half_to_float(dt, b[i]));
        }
    }
    return NL_OK;
}
// @end
