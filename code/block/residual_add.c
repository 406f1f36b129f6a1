/* residual_add.c — the two small pieces every fused rung shares: the
 * residual add itself and the Gemma scale (1 + w).
 *
 * Both round exactly once per element, and IEEE float addition is
 * correctly rounded, so any vector width, any order of elements and any
 * thread split give the same bits: the residual stream of a fused kernel
 * is the unfused one's, bit for bit, by construction. */
#include "block/block.h"

// @snippet residual-add
void nl_residual_add(float *residual, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        residual[i] += x[i];
}
// @end

// @snippet gemma-gamma
/* Gemma's RMSNorm multiplies by (1.0 + weight) (modeling_gemma.py): the
 * sum is formed in float before it scales anything, so a fused kernel that
 * adds 1 on the fly and an unfused one that builds gamma' first agree. */
float *nl_gemma_gamma(const float *w, size_t d)
{
    float *g = nl_alloc(d * sizeof(float));
    if (!g) {
        nl_set_error("no memory for gamma' = 1 + w (%zu floats)", d);
        return NULL;
    }
    for (size_t i = 0; i < d; i++)
        g[i] = 1.0f + w[i];
    return g;
}
// @end
