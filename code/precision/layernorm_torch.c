/* layernorm_torch.c — LayerNorm on bf16/fp16 activations the way torch's
 * CPU layer_norm runs it (aten/src/ATen/native/cpu/layer_norm_kernel.cpp,
 * LayerNormKernelImplInternal): mean and rstd in fp32, the row folded into
 * a scale and a shift, y = (x * rstd + (-rstd * mean)) * gamma + beta in
 * fp32, one rounding to the dtype at the end. torch takes the moments
 * with its own fp32 summation (RowwiseMoments); ours are double sums
 * rounded to fp32, so the last fp32 bit of mean or rstd may differ. */
#include "precision/precision.h"

// @snippet layernorm-torch-scalar
static inline void ln_row(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma,
                          const void *beta, float eps, size_t d, uint16_t *y)
{
    (void)cast;
    const uint16_t *g = gamma, *b = beta;
    float mean, rstd;
    nl_half_ln_stats(dt, x, d, eps, &mean, &rstd);
    const float shift = -rstd * mean;
    for (size_t i = 0; i < d; i++)
        y[i] = nl_torch_point(dt, nl_half_to_float(dt, x[i]), rstd, shift, g[i], b[i]);
}
// @end

NL_HALF_ROW_KERNEL(layernorm_torch_scalar, NL_CAST_TORCH, ln_row)
