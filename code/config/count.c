/* count.c — parameters of norm layers.  A LayerNorm of width d learns a
 * scale and a shift (2d); an RMSNorm learns the scale only (d).  Variants
 * drop one or both vectors (Cohere's LayerNorm has no bias, OLMo's has
 * neither); Gemma's (1 + w) RMSNorm still learns d numbers. */
#include "normlab.h"

// @snippet param-count
// @exercise 05-param-count
size_t nl_norm_layer_params(nl_norm_shape shape, size_t width)
{
    size_t n = 0;
    if (shape.weight)
        n += width;
    /* RMSNorm has no mean to put back, so no shift, whatever the flag says. */
    if (shape.bias && shape.norm == NL_LAYERNORM)
        n += width;
    return n;
}

size_t nl_norm_total_params(nl_norm_shape shape, const nl_norm_group *groups, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        nl_norm_shape s = shape;
        if (groups[i].nobias)
            s.bias = 0;
        total += groups[i].count * nl_norm_layer_params(s, groups[i].width);
    }
    return total;
}

size_t nl_norm_params_saved(nl_norm_shape shape, const nl_norm_group *groups, size_t n)
{
    /* The saving is the LayerNorm version's bias.  A norm without a scale
     * would have no shift either, and a LayerNorm that already dropped its
     * bias has nothing left for RMSNorm to save. */
    if (!shape.weight)
        return 0;
    if (shape.norm == NL_LAYERNORM && !shape.bias)
        return 0;
    size_t saved = 0;
    for (size_t i = 0; i < n; i++)
        if (shape.norm == NL_RMSNORM || !groups[i].nobias)
            saved += groups[i].count * groups[i].width;
    return saved;
}
// @stub size_t nl_norm_layer_params(nl_norm_shape shape, size_t width)
// @stub {
// @stub     (void)shape; (void)width;
// @stub     return 0; /* TODO: scale and shift, as the shape says */
// @stub }
// @stub
// @stub size_t nl_norm_total_params(nl_norm_shape shape, const nl_norm_group *groups, size_t n)
// @stub {
// @stub     (void)shape; (void)groups; (void)n;
// @stub     return 0; /* TODO: every group: count x params of one norm */
// @stub }
// @stub
// @stub size_t nl_norm_params_saved(nl_norm_shape shape, const nl_norm_group *groups, size_t n)
// @stub {
// @stub     (void)shape; (void)groups; (void)n;
// @stub     return 0; /* TODO: the bias vectors of the LayerNorm version */
// @stub }
// @end
// @end
