/* layernorm_torch.c — LayerNorm on bf16/fp16 activations the way torch's
 * layer_norm runs it: statistics and the affine step in fp32, one rounding
 * to the dtype at the end. */
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
        for (size_t i = 0; i < d; i++) {
            /* three fp32 roundings, in this order, and no FMA (the build
             * has -ffp-contract=off): the vector kernels do the same */
            float t = (nl_half_to_float(dt, xr[i]) - mean) * rstd;
            t = t * nl_half_to_float(dt, g[i]);
            yr[i] = nl_half_from_float(dt, t + nl_half_to_float(dt, b[i]));
        }
    }
    return NL_OK;
}
// @end
