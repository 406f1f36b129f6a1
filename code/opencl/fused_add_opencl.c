/* fused_add_opencl.c — host glue for kernels/fused_add.cl (chapter 9).
 *
 * It borrows chapter 7's context, device and queue (nl_cl_runtime_get) and
 * keeps its own program and buffers beside them, rebuilt when that context
 * changes (after nl_opencl_shutdown).  The launch layout is the unfused
 * kernel's (nl_cl_plan with the same work-group bound), so each row's tree
 * sum has the same shape and the result the pair's bits. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "block/block.h"
#include "opencl/internal.h"

enum { K_RMS, K_LN };
static const char *const kernel_names[2] = {"fused_add_rmsnorm", "fused_add_layernorm"};

static struct {
    cl_context context; /* the runtime's context these objects belong to */
    cl_program program;
    cl_kernel kernel[2];
    size_t max_local[2];
    cl_mem x, r, y, gamma, beta;
    size_t cap_rows, cap_d; /* x, r, y hold cap_rows x cap_d; gamma, beta cap_d */
} F;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int exit_hook;

static void release(void)
{
    cl_mem *mems[] = {&F.x, &F.r, &F.y, &F.gamma, &F.beta};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    for (int k = 0; k < 2; k++)
        if (F.kernel[k])
            clReleaseKernel(F.kernel[k]);
    if (F.program)
        clReleaseProgram(F.program);
    memset(&F, 0, sizeof F);
}

static void release_locked(void)
{
    pthread_mutex_lock(&lock);
    release();
    pthread_mutex_unlock(&lock);
}

static int build(nl_cl_runtime *rt)
{
    int rc = nl_cl_build(rt->context, rt->device, "fused_add", &F.program);
    if (rc != NL_OK)
        return rc;
    F.context = rt->context;
    for (int k = 0; k < 2; k++) {
        cl_int err;
        F.kernel[k] = clCreateKernel(F.program, kernel_names[k], &err);
        if (err != CL_SUCCESS)
            return nl_cl_fail("clCreateKernel (fused_add.cl)", err);
        size_t kern_max = 0;
        clGetKernelWorkGroupInfo(F.kernel[k], rt->device, CL_KERNEL_WORK_GROUP_SIZE,
                                 sizeof kern_max, &kern_max, NULL);
        F.max_local[k] = kern_max;
    }
    if (!exit_hook) {
        atexit(release_locked); /* runs before the runtime's own exit hook */
        exit_hook = 1;
    }
    return NL_OK;
}

static int ensure(cl_mem *buf, size_t bytes, cl_mem_flags flags)
{
    cl_int err;
    *buf = clCreateBuffer(F.context, flags, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        *buf = NULL;
        return nl_cl_fail("clCreateBuffer (fused add)", err);
    }
    return NL_OK;
}

/* Buffers for chunk x d: regrown when either grows. */
static int buffers(size_t chunk, size_t d)
{
    if (F.x && F.cap_rows >= chunk && F.cap_d == d)
        return NL_OK;
    cl_mem *mems[] = {&F.x, &F.r, &F.y, &F.gamma, &F.beta};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i]) {
            clReleaseMemObject(*mems[i]);
            *mems[i] = NULL;
        }
    size_t bytes = chunk * d * sizeof(float);
    int rc;
    if ((rc = ensure(&F.x, bytes, CL_MEM_READ_ONLY)) || (rc = ensure(&F.r, bytes, CL_MEM_READ_WRITE)) ||
        (rc = ensure(&F.y, bytes, CL_MEM_WRITE_ONLY)) ||
        (rc = ensure(&F.gamma, d * sizeof(float), CL_MEM_READ_ONLY)) ||
        (rc = ensure(&F.beta, d * sizeof(float), CL_MEM_READ_ONLY)))
        return rc;
    F.cap_rows = chunk;
    F.cap_d = d;
    return NL_OK;
}

static int launch(nl_cl_runtime *rt, nl_fused_norm norm, float eps, size_t rows, size_t d)
{
    int k = norm == NL_FUSED_LAYERNORM ? K_LN : K_RMS;
    nl_norm base = nl_fused_base_norm(norm);
    size_t bound = rt->max_local[base];
    if (F.max_local[k] && F.max_local[k] < bound)
        bound = F.max_local[k];
    nl_cl_layout l = nl_cl_plan(rows, d, bound, rt->per_item);
    cl_uint urows = (cl_uint)rows, ud = (cl_uint)d, uteam = (cl_uint)l.team;
    cl_uint offset = norm == NL_FUSED_RMSNORM_GEMMA;
    cl_kernel kern = F.kernel[k];
    cl_uint a = 0;
    cl_int err = clSetKernelArg(kern, a++, sizeof F.x, &F.x);
    err |= clSetKernelArg(kern, a++, sizeof F.r, &F.r);
    err |= clSetKernelArg(kern, a++, sizeof F.gamma, &F.gamma);
    if (k == K_LN)
        err |= clSetKernelArg(kern, a++, sizeof F.beta, &F.beta);
    err |= clSetKernelArg(kern, a++, sizeof F.y, &F.y);
    err |= clSetKernelArg(kern, a++, sizeof eps, &eps);
    err |= clSetKernelArg(kern, a++, sizeof urows, &urows);
    err |= clSetKernelArg(kern, a++, sizeof ud, &ud);
    err |= clSetKernelArg(kern, a++, sizeof uteam, &uteam);
    if (k == K_RMS)
        err |= clSetKernelArg(kern, a++, sizeof offset, &offset);
    err |= clSetKernelArg(kern, a++, l.local * sizeof(float), NULL);
    if (err != CL_SUCCESS)
        return nl_cl_fail("clSetKernelArg (fused add)", CL_INVALID_KERNEL_ARGS);
    size_t global = l.groups * l.local;
    err = clEnqueueNDRangeKernel(rt->queue, kern, 1, NULL, &global, &l.local, 0, NULL, NULL);
    return err == CL_SUCCESS ? NL_OK : nl_cl_fail(kernel_names[k], err);
}

static int run(nl_fused_norm norm, NL_FUSED_ARGS)
{
    nl_cl_runtime *rt;
    /* the pair's kernel is built too: its work-group bound sets the layout */
    int rc = nl_cl_runtime_get(nl_fused_base_norm(norm), &rt);
    if (rc != NL_OK)
        return rc;
    if (F.context != rt->context) {
        release();
        if ((rc = build(rt)) != NL_OK) {
            release();
            return rc;
        }
    }
    size_t row_bytes = d * sizeof(float);
    if (d > CL_UINT_MAX || row_bytes > rt->max_alloc) {
        nl_set_error("a row of %zu floats exceeds what this OpenCL device can hold in one buffer", d);
        return NL_EARG;
    }
    size_t chunk = rt->max_alloc / row_bytes;
    if (chunk > rows)
        chunk = rows;
    if (chunk > CL_UINT_MAX)
        chunk = CL_UINT_MAX;
    if ((rc = buffers(chunk, d)) != NL_OK)
        return rc;
    cl_command_queue q = rt->queue;
    cl_int err = clEnqueueWriteBuffer(q, F.gamma, CL_FALSE, 0, row_bytes, gamma, 0, NULL, NULL);
    if (err == CL_SUCCESS && norm == NL_FUSED_LAYERNORM)
        err = clEnqueueWriteBuffer(q, F.beta, CL_FALSE, 0, row_bytes, beta, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return nl_cl_fail("copying gamma/beta to the device", err);
    for (size_t r = 0; r < rows; r += chunk) {
        size_t n = rows - r < chunk ? rows - r : chunk, off = r * d, bytes = n * row_bytes;
        err = clEnqueueWriteBuffer(q, F.x, CL_FALSE, 0, bytes, x + off, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueWriteBuffer(q, F.r, CL_FALSE, 0, bytes, residual + off, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return nl_cl_fail("copying x and the residual to the device", err);
        if ((rc = launch(rt, norm, eps, n, d)) != NL_OK)
            return rc;
        err = clEnqueueReadBuffer(q, F.r, CL_FALSE, 0, bytes, residual + off, 0, NULL, NULL);
        /* Blocking: y may be x, and the next chunk reuses the buffers. */
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(q, F.y, CL_TRUE, 0, bytes, y + off, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return nl_cl_fail("reading the residual and y back from the device", err);
    }
    return NL_OK;
}

static int fused_opencl(const nl_fused_plan *unused, nl_fused_norm norm, NL_FUSED_ARGS)
{
    (void)unused;
    int rc = nl_fused_check_args(x, residual, gamma, beta, rows, d, y, norm);
    if (rc != NL_OK || rows == 0)
        return rc;
    pthread_mutex_lock(&lock);
    rc = run(norm, x, residual, gamma, beta, eps, rows, d, y);
    nl_cl_runtime *rt;
    /* a failed call may leave writes queued that read the caller's arrays */
    if (rc != NL_OK && nl_cl_runtime_get(NL_RMSNORM, &rt) == NL_OK)
        clFinish(rt->queue);
    pthread_mutex_unlock(&lock);
    return rc;
}

static const nl_fused_plan none = {NULL, NULL, NULL};
NL_FUSED_RUNG(fused_opencl, fused_add_, _opencl, none, none)
