/* cast_order.c — the names of the cast orders and what each one stores
 * its weight in. The rounding points themselves live in cast_points.c and
 * the kernels; the sources they follow (Hugging Face transformers):
 *   llama    models/llama/modeling_llama.py, LlamaRMSNorm.forward
 *   gemma    models/gemma/modeling_gemma.py, GemmaRMSNorm.forward
 *   t5       models/t5/modeling_t5.py, T5LayerNorm.forward
 *   torch    torch.nn.functional.layer_norm on a bf16/fp16 tensor */
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
