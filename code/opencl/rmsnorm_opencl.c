/* rmsnorm_opencl.c — RMSNorm on an OpenCL device (kernels/rmsnorm.cl). */
#include "opencl/internal.h"

int nl_rmsnorm_opencl(const float *x, const float *gamma, const float *beta, float eps,
                      size_t rows, size_t d, float *y)
{
    return nl_cl_forward(NL_RMSNORM, x, gamma, beta, eps, rows, d, y);
}
