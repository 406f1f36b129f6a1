/* rmsnorm_cast.c — the scalar RMSNorm of each model family on bf16/fp16
 * activations: the bit-exact model every faster kernel is checked against.
 * Row statistics come from row_stats.c, the per-element rounding from
 * cast_points.c (through nl_rms_point); what is left here is the loop.
 *
 * llama: LlamaRMSNorm. t5: T5LayerNorm with a weight in the activations'
 * dtype, the same rounding points (its `.to(self.weight.dtype)` is the
 * dtype). t5_f32w: T5LayerNorm with an fp32 weight: no cast inside,
 * `self.weight * hidden_states` in fp32, and the module returns fp32;
 * here the output keeps the input's dtype, so that fp32 result is rounded
 * once, as the next bf16 layer would round it. */
#include "precision/precision.h"

// @snippet rmsnorm-cast-scalar
static inline void rms_row(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma,
                           const void *beta, float eps, size_t d, uint16_t *y)
{
    (void)beta;
    float inv = nl_half_rms_inv(dt, x, d, eps);
    for (size_t i = 0; i < d; i++)
        y[i] = nl_rms_point(dt, cast, nl_half_to_float(dt, x[i]) * inv, gamma, i);
}
// @end

NL_HALF_ROW_KERNEL(rmsnorm_llama_scalar, NL_CAST_LLAMA, rms_row)
NL_HALF_ROW_KERNEL(rmsnorm_gemma_scalar, NL_CAST_GEMMA, rms_row)
NL_HALF_ROW_KERNEL(rmsnorm_t5_f32w_scalar, NL_CAST_T5_F32W, rms_row)
