/* cast_points.c — where Llama and Gemma round (exercise 10).
 *
 * Both compute r = 1/sqrt(mean(x^2) + eps) in fp32 and x * r in fp32;
 * they part ways after that, and with 8 bits of bf16 precision the two
 * answers differ on real weights. */
#include "precision/precision.h"

/* TODO(10-cast-order): your code here; see exercises/10-cast-order/README.md */
uint16_t nl_llama_point(nl_dtype dt, float xr, uint16_t w)
{
/* TODO: round where LlamaRMSNorm rounds */
return nl_half_from_float(dt, xr * nl_half_to_float(dt, w));
}

uint16_t nl_gemma_point(nl_dtype dt, float xr, uint16_t w)
{
/* TODO: round where GemmaRMSNorm rounds */
return nl_half_from_float(dt, xr * nl_half_to_float(dt, w));
}
