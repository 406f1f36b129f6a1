/* dtype.c — names and sizes of the storage types, and the conversions
 * chosen by dtype, for code that handles bf16 and fp16 alike. */
#include "normlab.h"

#include <string.h>
#include <strings.h>

const char *nl_dtype_name(nl_dtype dt)
{
    switch (dt) {
    case NL_DT_BF16: return "bf16";
    case NL_DT_F16: return "f16";
    default: return "f32";
    }
}

size_t nl_dtype_size(nl_dtype dt)
{
    return dt == NL_DT_F32 ? 4 : 2;
}

int nl_dtype_parse(const char *name)
{
    static const struct { const char *name; nl_dtype dt; } names[] = {
        {"f32", NL_DT_F32},   {"float32", NL_DT_F32}, {"fp32", NL_DT_F32},
        {"bf16", NL_DT_BF16}, {"bfloat16", NL_DT_BF16},
        {"f16", NL_DT_F16},   {"fp16", NL_DT_F16},    {"float16", NL_DT_F16},
    };
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0)
            return (int)names[i].dt;
    return -1;
}

uint16_t nl_half_from_float(nl_dtype dt, float f)
{
    return dt == NL_DT_BF16 ? nl_bf16_from_float(f) : nl_fp16_from_float(f);
}

float nl_half_to_float(nl_dtype dt, uint16_t h)
{
    return dt == NL_DT_BF16 ? nl_bf16_to_float(h) : nl_fp16_to_float(h);
}
