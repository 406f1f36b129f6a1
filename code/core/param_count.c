/* param_count.c — how many parameters one norm layer learns over a width
 * of d features (chapter 1; the config reader of chapter 4 counts whole
 * models with it). */
#include "normlab.h"

size_t nl_param_count(nl_norm norm, size_t d)
{
    /* LayerNorm learns a scale and a shift per feature; RMSNorm only the
     * scale, because without re-centring there is nothing for a shift to
     * undo. */
    return norm == NL_LAYERNORM ? 2 * d : d;
}
