/* rmsnorm_cast.c — the scalar RMSNorm of each model family on bf16/fp16
 * activations: the bit-exact model every faster kernel is checked against.
 * Row statistics come from row_stats.c, the per-element rounding from
 * cast_points.c; what is left here is the loop. */
#include "precision/precision.h"

// @snippet rmsnorm-llama-scalar
/* LlamaRMSNorm, and T5LayerNorm with a weight in the activations' dtype
 * (the same rounding points: its `.to(self.weight.dtype)` is the dtype). */
int nl_rmsnorm_llama_scalar(nl_dtype dt, const uint16_t *x, const void *gamma,
                            const void *beta, float eps, size_t rows, size_t d,
                            uint16_t *y)
{
    (void)beta;
    int rc = nl_half_check_args(dt, x, gamma, NULL, rows, d, y, NL_RMSNORM);
    if (rc)
        return rc;
    const uint16_t *w = gamma;
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        uint16_t *yr = y + r * d;
        float inv = nl_half_rms_inv(dt, xr, d, eps);
        for (size_t i = 0; i < d; i++)
            yr[i] = nl_llama_point(dt, nl_half_to_float(dt, xr[i]) * inv, w[i]);
    }
    return NL_OK;
}
// @end

int nl_rmsnorm_gemma_scalar(nl_dtype dt, const uint16_t *x, const void *gamma,
                            const void *beta, float eps, size_t rows, size_t d,
                            uint16_t *y)
{
    (void)beta;
    int rc = nl_half_check_args(dt, x, gamma, NULL, rows, d, y, NL_RMSNORM);
    if (rc)
        return rc;
    const uint16_t *w = gamma;
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        uint16_t *yr = y + r * d;
        float inv = nl_half_rms_inv(dt, xr, d, eps);
        for (size_t i = 0; i < d; i++)
            yr[i] = nl_gemma_point(dt, nl_half_to_float(dt, xr[i]) * inv, w[i]);
    }
    return NL_OK;
}

/* T5LayerNorm with an fp32 weight: no cast inside, `self.weight *
 * hidden_states` happens in fp32 and the module returns fp32. Here the
 * output keeps the input's dtype, so that fp32 result is rounded once, as
 * the next bf16 layer would round it. */
int nl_rmsnorm_t5_f32w_scalar(nl_dtype dt, const uint16_t *x, const void *gamma,
                              const void *beta, float eps, size_t rows, size_t d,
                              uint16_t *y)
{
    (void)beta;
    int rc = nl_half_check_args(dt, x, gamma, NULL, rows, d, y, NL_RMSNORM);
    if (rc)
        return rc;
    const float *w = gamma;
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        uint16_t *yr = y + r * d;
        float inv = nl_half_rms_inv(dt, xr, d, eps);
        for (size_t i = 0; i < d; i++)
            yr[i] = nl_half_from_float(dt, w[i] * (nl_half_to_float(dt, xr[i]) * inv));
    }
    return NL_OK;
}
