/* count.c — parameters of norm layers.  A LayerNorm of width d learns a
 * scale and a shift (2d); an RMSNorm learns the scale only (d).  Variants
 * drop one or both vectors (Cohere's LayerNorm has no bias, OLMo's has
 * neither); Gemma's (1 + w) RMSNorm still learns d numbers. */
#include "normlab.h"

/* TODO(05-param-count): your code here; see exercises/05-param-count/README.md */
size_t nl_norm_layer_params(nl_norm_shape shape, size_t width)
{
(void)shape; (void)width;
return 0; /* TODO: scale and shift, as the shape says */
}

size_t nl_norm_total_params(nl_norm_shape shape, const nl_norm_group *groups, size_t n)
{
(void)shape; (void)groups; (void)n;
return 0; /* TODO: every group: count x params of one norm */
}

size_t nl_norm_params_saved(nl_norm_shape shape, const nl_norm_group *groups, size_t n)
{
(void)shape; (void)groups; (void)n;
return 0; /* TODO: the bias vectors of the LayerNorm version */
}
