/* layernorm_opencl.c — LayerNorm on an OpenCL device (kernels/layernorm.cl). */
#include "opencl/internal.h"

int nl_layernorm_opencl(const float *x, const float *gamma, const float *beta, float eps,
                        size_t rows, size_t d, float *y)
{
    return nl_cl_forward(NL_LAYERNORM, x, gamma, beta, eps, rows, d, y);
}
