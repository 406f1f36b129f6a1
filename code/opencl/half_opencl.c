/* half_opencl.c — host side of kernels/half.cl: the bf16/fp16 cast orders
 * of chapter 8 on an OpenCL device. It borrows the context and queue of
 * the fp32 runtime (runtime.c) and builds its own program on first use;
 * buffers are made per call, since these kernels are for checking against
 * the CPU, and `normlab bench` times the f32 ones. */
#include <pthread.h>

#include "opencl/internal.h"
#include "precision/precision.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    cl_context context; /* the runtime's context the kernel was built for */
    cl_program program;
    cl_kernel kernel;
    size_t max_local;
} H;

static int kernel_for(nl_cl_runtime *rt)
{
    if (H.kernel && H.context == rt->context)
        return NL_OK;
    if (H.kernel)
        clReleaseKernel(H.kernel), clReleaseProgram(H.program);
    H.kernel = NULL;
    int rc = nl_cl_build(rt->context, rt->device, "half", &H.program);
    if (rc != NL_OK)
        return rc;
    cl_int err;
    H.kernel = clCreateKernel(H.program, "half_norm", &err);
    if (err != CL_SUCCESS) {
        clReleaseProgram(H.program);
        return nl_cl_fail("clCreateKernel(half_norm)", err);
    }
    err = clGetKernelWorkGroupInfo(H.kernel, rt->device, CL_KERNEL_WORK_GROUP_SIZE,
                                   sizeof H.max_local, &H.max_local, NULL);
    if (err != CL_SUCCESS)
        return nl_cl_fail("clGetKernelWorkGroupInfo", err);
    H.context = rt->context;
    return NL_OK;
}

static cl_mem buffer(cl_context ctx, cl_mem_flags flags, size_t bytes, const void *from, cl_int *err)
{
    if (*err != CL_SUCCESS)
        return NULL;
    return clCreateBuffer(ctx, flags | (from ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)from, err);
}

static int run(nl_cl_runtime *rt, nl_cast cast, nl_dtype dt, const uint16_t *x,
               const void *gamma, const void *beta, float eps, size_t rows, size_t d, uint16_t *y)
{
    int rc = kernel_for(rt);
    if (rc != NL_OK)
        return rc;
    if (d > CL_UINT_MAX || rows > CL_UINT_MAX || rows * d * 2 > rt->max_alloc) {
        nl_set_error("%zu x %zu 16-bit values exceed what this OpenCL device holds in one buffer",
                     rows, d);
        return NL_EARG;
    }
    size_t bytes = rows * d * 2, wbytes = d * (cast == NL_CAST_T5_F32W ? 4 : 2);
    cl_int err = CL_SUCCESS;
    cl_mem bx = buffer(rt->context, CL_MEM_READ_ONLY, bytes, x, &err);
    cl_mem bg = buffer(rt->context, CL_MEM_READ_ONLY, wbytes, gamma, &err);
    cl_mem bb = buffer(rt->context, CL_MEM_READ_ONLY, beta ? d * 2 : 2, beta, &err);
    cl_mem by = buffer(rt->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        rc = nl_cl_fail("clCreateBuffer", err);
        goto done;
    }
    nl_cl_layout l = nl_cl_plan(rows, d, H.max_local, rt->per_item);
    cl_uint ur = (cl_uint)rows, ud = (cl_uint)d, ut = (cl_uint)l.team;
    cl_int bf = dt == NL_DT_BF16, c = cast == NL_CAST_GEMMA ? 1 : cast == NL_CAST_T5_F32W ? 2
                                    : cast == NL_CAST_TORCH ? 3 : 0;
    cl_uint a = 0;
    err = clSetKernelArg(H.kernel, a++, sizeof bx, &bx);
    err |= clSetKernelArg(H.kernel, a++, sizeof bg, &bg); /* as ushort */
    err |= clSetKernelArg(H.kernel, a++, sizeof bg, &bg); /* as float (t5_f32w) */
    err |= clSetKernelArg(H.kernel, a++, sizeof bb, &bb);
    err |= clSetKernelArg(H.kernel, a++, sizeof by, &by);
    err |= clSetKernelArg(H.kernel, a++, sizeof eps, &eps);
    err |= clSetKernelArg(H.kernel, a++, sizeof ur, &ur);
    err |= clSetKernelArg(H.kernel, a++, sizeof ud, &ud);
    err |= clSetKernelArg(H.kernel, a++, sizeof ut, &ut);
    err |= clSetKernelArg(H.kernel, a++, sizeof bf, &bf);
    err |= clSetKernelArg(H.kernel, a++, sizeof c, &c);
    err |= clSetKernelArg(H.kernel, a++, l.local * sizeof(float), NULL);
    if (err != CL_SUCCESS) {
        rc = nl_cl_fail("clSetKernelArg(half_norm)", CL_INVALID_KERNEL_ARGS);
        goto done;
    }
    size_t global = l.groups * l.local;
    err = clEnqueueNDRangeKernel(rt->queue, H.kernel, 1, NULL, &global, &l.local, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(rt->queue, by, CL_TRUE, 0, bytes, y, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        rc = nl_cl_fail("launching half_norm", err);
done:
    if (bx) clReleaseMemObject(bx);
    if (bg) clReleaseMemObject(bg);
    if (bb) clReleaseMemObject(bb);
    if (by) clReleaseMemObject(by);
    return rc;
}

static int half_cl(nl_cast cast, nl_dtype dt, const uint16_t *x, const void *gamma,
                   const void *beta, float eps, size_t rows, size_t d, uint16_t *y)
{
    int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, nl_cast_norm(cast));
    if (rc || rows == 0)
        return rc;
    nl_cl_runtime *rt;
    pthread_mutex_lock(&lock);
    rc = nl_cl_runtime_get(NL_RMSNORM, &rt);
    if (rc == NL_OK)
        rc = run(rt, cast, dt, x, gamma, nl_cast_norm(cast) == NL_LAYERNORM ? beta : NULL, eps,
                 rows, d, y);
    pthread_mutex_unlock(&lock);
    return rc;
}

#define CL_KERNEL(name, cast)                                                        \
    int nl_##name(nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta, \
                  float eps, size_t rows, size_t d, uint16_t *y)                     \
    {                                                                                \
        return half_cl(cast, dt, x, gamma, beta, eps, rows, d, y);                   \
    }
CL_KERNEL(rmsnorm_llama_opencl, NL_CAST_LLAMA)
CL_KERNEL(rmsnorm_gemma_opencl, NL_CAST_GEMMA)
CL_KERNEL(rmsnorm_t5_f32w_opencl, NL_CAST_T5_F32W)
CL_KERNEL(layernorm_torch_opencl, NL_CAST_TORCH)
