/* fused_args.c — the arguments of a fused add + norm call (chapter 9):
 * the plain forward norm it reduces to, and whether the buffers are valid.
 * Kernels ask these (code/opencl/fused_add_opencl.c does), and the
 * registry (fused_registry.c) lists the kernels: kept in the registry,
 * they made the two call each other.  Here, calls go one way: registry ->
 * kernels -> this file. */
#include "normlab.h"

#include <stdint.h>

nl_norm nl_fused_base_norm(nl_fused_norm norm)
{
    return norm == NL_FUSED_LAYERNORM ? NL_LAYERNORM : NL_RMSNORM;
}

int nl_fused_check_args(const float *x, const float *residual, const float *gamma,
                        const float *beta, size_t rows, size_t d, const float *y,
                        nl_fused_norm norm)
{
    int rc = nl_check_args(x, gamma, beta, rows, d, y, nl_fused_base_norm(norm));
    if (rc != NL_OK || rows == 0)
        return rc;
    if (!residual) {
        nl_set_error("residual is NULL: the fused kernel adds x into it");
        return NL_EARG;
    }
    /* The residual is written while x is still being read and before y is
     * written: any overlap would feed one into the other. */
    uintptr_t n = (uintptr_t)(rows * d * sizeof(float));
    uintptr_t r = (uintptr_t)residual, a = (uintptr_t)x, b = (uintptr_t)y;
    if ((r < a + n && a < r + n) || (r < b + n && b < r + n)) {
        nl_set_error("residual overlaps x or y: it must be a buffer of its own "
                     "(y may equal x, never the residual)");
        return NL_EARG;
    }
    return NL_OK;
}
