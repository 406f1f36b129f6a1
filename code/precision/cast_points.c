/* cast_points.c — where Llama and Gemma round (exercise 10).
 *
 * Both compute r = 1/sqrt(mean(x^2) + eps) in fp32 and x * r in fp32;
 * they part ways after that, and with 8 bits of bf16 precision the two
 * answers differ on real weights. */
#include "precision/precision.h"

// @snippet cast-points
// @exercise 10-cast-order
/* LlamaRMSNorm: `self.weight * hidden_states.to(input_dtype)`. The
 * normalised value is rounded to the dtype first; the product with the
 * weight is taken in the dtype, so it is rounded a second time. (The
 * product of two 16-bit values is exact in float, so computing it there
 * and rounding once is exactly what a bf16 multiply does.) */
uint16_t nl_llama_point(nl_dtype dt, float xr, uint16_t w)
{
    uint16_t h = nl_half_from_float(dt, xr);
    float prod = nl_half_to_float(dt, h) * nl_half_to_float(dt, w);
    return nl_half_from_float(dt, prod);
}

/* GemmaRMSNorm: `(x.float() normalised) * (1.0 + self.weight.float())`,
 * then `.type_as(x)`. The weight is stored as an offset from 1 and added
 * in fp32, where a small w survives; one rounding, at the very end. */
uint16_t nl_gemma_point(nl_dtype dt, float xr, uint16_t w)
{
    float scale = 1.0f + nl_half_to_float(dt, w);
    return nl_half_from_float(dt, xr * scale);
}
// @stub uint16_t nl_llama_point(nl_dtype dt, float xr, uint16_t w)
// @stub {
// @stub     /* TODO: round where LlamaRMSNorm rounds */
// @stub     return nl_half_from_float(dt, xr * nl_half_to_float(dt, w));
// @stub }
// @stub
// @stub uint16_t nl_gemma_point(nl_dtype dt, float xr, uint16_t w)
// @stub {
// @stub     /* TODO: round where GemmaRMSNorm rounds */
// @stub     return nl_half_from_float(dt, xr * nl_half_to_float(dt, w));
// @stub }
// @end
// @end
