/* cast_order.c — the names of the cast orders and what each one stores
 * its weight in. The rounding points themselves live in cast_points.c and
 * the kernels; the sources they follow (Hugging Face transformers,
 * src/transformers/models/..., read at the commits named):
 *   llama    llama/modeling_llama.py, LlamaRMSNorm.forward (0022728)
 *   gemma    gemma/modeling_gemma.py, GemmaRMSNorm.forward (c4cdd1a)
 *   t5       t5/modeling_t5.py, T5LayerNorm.forward (001359e)
 *   torch    pytorch aten/src/ATen/native/cpu/layer_norm_kernel.cpp,
 *            LayerNormKernelImplInternal (00a9f88) */
#include "normlab.h"

#include <string.h>

static const char *const names[NL_CAST_COUNT] = {
    [NL_CAST_LLAMA] = "llama", [NL_CAST_GEMMA] = "gemma", [NL_CAST_T5] = "t5",
    [NL_CAST_T5_F32W] = "t5_f32w", [NL_CAST_TORCH] = "torch",
};

const char *nl_cast_name(nl_cast c)
{
    return (unsigned)c < NL_CAST_COUNT ? names[c] : "?";
}

int nl_cast_parse(const char *name)
{
    for (int c = 0; name && c < NL_CAST_COUNT; c++)
        if (strcmp(name, names[c]) == 0)
            return c;
    return -1;
}

nl_dtype nl_cast_weight_dtype(nl_cast c, nl_dtype dt)
{
    return c == NL_CAST_T5_F32W ? NL_DT_F32 : dt;
}

nl_norm nl_cast_norm(nl_cast c)
{
    return c == NL_CAST_TORCH ? NL_LAYERNORM : NL_RMSNORM;
}
