/* backward_opencl.c — host side of the OpenCL backward (kernels/backward.cl).
 *
 * It borrows the context and queue of runtime.c and builds its own program
 * (vec.cl, reduce.cl, backward.cl) on first use.  Buffers are made per
 * call: the backward is checked for correctness here, not benchmarked.
 * dgamma/dbeta go to the device with the caller's values and come back
 * with this batch's gradient added, as the header promises. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backward/backward.h"
#include "opencl/internal.h"

static struct {
    cl_context context; /* retained: the program belongs to it */
    cl_program program;
    cl_kernel dx, partials, reduce;
    size_t max_local;
} B;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Rows per chunk of the partials: one work-item sums one column of one
 * chunk, so the chunk sets how many work-items there are (d x rows/32)
 * and how long each one's loop is.  The CPU's 256 (NL_BWD_CHUNK_ROWS)
 * suits a few threads that each stream many rows; a GPU wants many
 * work-items, and this kernel was written and checked with 32. */
enum { CL_CHUNK_ROWS = 32 };

static void release_program(void)
{
    cl_kernel *ks[] = {&B.dx, &B.partials, &B.reduce};
    for (size_t i = 0; i < 3; i++)
        if (*ks[i])
            clReleaseKernel(*ks[i]);
    if (B.program)
        clReleaseProgram(B.program);
    if (B.context)
        clReleaseContext(B.context);
    memset(&B, 0, sizeof B);
}

static void at_exit(void)
{
    pthread_mutex_lock(&lock);
    release_program();
    pthread_mutex_unlock(&lock);
}

/* The program for rt's context; rebuilt when nl_opencl_shutdown() made a
 * new context since. */
static int ensure_program(nl_cl_runtime *rt)
{
    static int hooked;
    if (B.program && B.context == rt->context)
        return NL_OK;
    release_program();
    int rc = nl_cl_build(rt->context, rt->device, "backward", &B.program);
    if (rc != NL_OK)
        return rc;
    clRetainContext(rt->context);
    B.context = rt->context;
    if (!hooked) {
        atexit(at_exit); /* runs before runtime.c's shutdown, registered earlier */
        hooked = 1;
    }
    cl_int err;
    const char *names[] = {"norm_bwd_dx", "norm_bwd_partials", "norm_bwd_reduce"};
    cl_kernel *ks[] = {&B.dx, &B.partials, &B.reduce};
    for (size_t i = 0; i < 3; i++) {
        *ks[i] = clCreateKernel(B.program, names[i], &err);
        if (err != CL_SUCCESS) {
            release_program();
            return nl_cl_fail("clCreateKernel (backward)", err);
        }
    }
    size_t dev_max = 0, kern_max = 0;
    clGetDeviceInfo(rt->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_max, &dev_max, NULL);
    clGetKernelWorkGroupInfo(B.dx, rt->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kern_max,
                             &kern_max, NULL);
    B.max_local = kern_max && kern_max < dev_max ? kern_max : dev_max;
    return NL_OK;
}

enum { X, DY, GAMMA, MEAN, RSTD, DX, PG, PB, DGAMMA, DBETA, NBUF };

static int make(cl_context ctx, cl_mem *m, cl_mem_flags flags, size_t bytes, const void *host)
{
    cl_int err;
    *m = clCreateBuffer(ctx, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)host, &err);
    return err == CL_SUCCESS ? NL_OK : nl_cl_fail("clCreateBuffer (backward)", err);
}

static int set_args(cl_kernel k, const void *const *vals, const size_t *sizes, cl_uint n)
{
    cl_int err = CL_SUCCESS;
    for (cl_uint a = 0; a < n; a++)
        err |= clSetKernelArg(k, a, sizes[a], vals[a]);
    return err == CL_SUCCESS ? NL_OK : nl_cl_fail("clSetKernelArg (backward)", CL_INVALID_KERNEL_ARGS);
}

static int run(nl_norm norm, const float *x, const float *gamma, const float *mean,
               const float *rstd, const float *dy, size_t rows, size_t d, float *dx,
               float *dgamma, float *dbeta, cl_mem *m)
{
    nl_cl_runtime *rt;
    int rc = nl_cl_runtime_get(norm, &rt);
    if (rc != NL_OK || (rc = ensure_program(rt)) != NL_OK)
        return rc;
    const size_t chunks = (rows + CL_CHUNK_ROWS - 1) / CL_CHUNK_ROWS;
    const size_t big = rows * d * sizeof(float), row = d * sizeof(float);
    if (rows > CL_UINT_MAX || d > CL_UINT_MAX || big > rt->max_alloc) {
        nl_set_error("%zu x %zu floats exceed what this OpenCL device holds in one buffer "
                     "(%llu bytes)", rows, d, (unsigned long long)rt->max_alloc);
        return NL_EARG;
    }
    const cl_uint center = norm == NL_LAYERNORM;
    const cl_mem_flags RO = CL_MEM_READ_ONLY, RW = CL_MEM_READ_WRITE;
    if ((rc = make(rt->context, &m[X], RO, big, x)) || (rc = make(rt->context, &m[DY], RO, big, dy)) ||
        (rc = make(rt->context, &m[GAMMA], RO, row, gamma)) ||
        (rc = make(rt->context, &m[RSTD], RO, rows * sizeof(float), rstd)) ||
        (center && (rc = make(rt->context, &m[MEAN], RO, rows * sizeof(float), mean))) ||
        (rc = make(rt->context, &m[DX], CL_MEM_WRITE_ONLY, big, NULL)) ||
        (rc = make(rt->context, &m[PG], RW, chunks * row, NULL)) ||
        (center && (rc = make(rt->context, &m[PB], RW, chunks * row, NULL))) ||
        (rc = make(rt->context, &m[DGAMMA], RW, row, dgamma)) ||
        (center && (rc = make(rt->context, &m[DBETA], RW, row, dbeta))))
        return rc;

    cl_uint urows = (cl_uint)rows, ud = (cl_uint)d, uchunk = CL_CHUNK_ROWS;
    cl_uint uparts = (cl_uint)chunks;
    nl_cl_layout l = nl_cl_plan(rows, d, B.max_local, rt->per_item);
    cl_uint team = (cl_uint)l.team;
    const void *dx_args[] = {&m[X], &m[GAMMA], center ? &m[MEAN] : NULL, &m[RSTD], &m[DY], &m[DX],
                             &urows, &ud, &team, &center, NULL};
    const size_t dx_sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                               sizeof(cl_mem), sizeof(cl_mem), 4, 4, 4, 4, l.local * sizeof(float)};
    if ((rc = set_args(B.dx, dx_args, dx_sizes, 11)) != NL_OK)
        return rc;
    size_t global = l.groups * l.local;
    cl_int err = clEnqueueNDRangeKernel(rt->queue, B.dx, 1, NULL, &global, &l.local, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return nl_cl_fail("launching norm_bwd_dx", err);

    const void *p_args[] = {&m[X], center ? &m[MEAN] : NULL, &m[RSTD], &m[DY], &m[PG],
                            center ? &m[PB] : NULL, &urows, &ud, &uchunk, &center};
    const size_t p_sizes[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                              sizeof(cl_mem), sizeof(cl_mem), 4, 4, 4, 4};
    if ((rc = set_args(B.partials, p_args, p_sizes, 10)) != NL_OK)
        return rc;
    size_t grid[2] = {d, chunks};
    err = clEnqueueNDRangeKernel(rt->queue, B.partials, 2, NULL, grid, NULL, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return nl_cl_fail("launching norm_bwd_partials", err);

    for (cl_uint t = 0; t <= center; t++) {
        const void *r_args[] = {&m[t ? PB : PG], &m[t ? DBETA : DGAMMA], &uparts, &ud};
        const size_t r_sizes[] = {sizeof(cl_mem), sizeof(cl_mem), 4, 4};
        if ((rc = set_args(B.reduce, r_args, r_sizes, 4)) != NL_OK)
            return rc;
        err = clEnqueueNDRangeKernel(rt->queue, B.reduce, 1, NULL, &grid[0], NULL, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return nl_cl_fail("launching norm_bwd_reduce", err);
    }
    if ((err = clEnqueueReadBuffer(rt->queue, m[DX], CL_TRUE, 0, big, dx, 0, NULL, NULL)) ||
        (err = clEnqueueReadBuffer(rt->queue, m[DGAMMA], CL_TRUE, 0, row, dgamma, 0, NULL, NULL)) ||
        (center && (err = clEnqueueReadBuffer(rt->queue, m[DBETA], CL_TRUE, 0, row, dbeta, 0, NULL, NULL))))
        return nl_cl_fail("reading gradients back from the device", err);
    return NL_OK;
}

static int backward(nl_norm norm, const float *x, const float *gamma, const float *mean,
                    const float *rstd, const float *dy, size_t rows, size_t d, float *dx,
                    float *dgamma, float *dbeta)
{
    if (rows == 0)
        return NL_OK;
    cl_mem m[NBUF] = {NULL};
    pthread_mutex_lock(&lock);
    int rc = run(norm, x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta, m);
    nl_cl_runtime *rt;
    /* a failed call may leave work queued that still reads the buffers */
    if (rc != NL_OK && nl_cl_runtime_get(norm, &rt) == NL_OK)
        clFinish(rt->queue);
    for (int i = 0; i < NBUF; i++)
        if (m[i])
            clReleaseMemObject(m[i]);
    pthread_mutex_unlock(&lock);
    return rc;
}

int nl_layernorm_bwd_opencl(const float *x, const float *gamma, const float *mean,
                            const float *rstd, const float *dy, size_t rows, size_t d,
                            float *dx, float *dgamma, float *dbeta)
{
    return backward(NL_LAYERNORM, x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);
}

int nl_rmsnorm_bwd_opencl(const float *x, const float *gamma, const float *mean,
                          const float *rstd, const float *dy, size_t rows, size_t d,
                          float *dx, float *dgamma, float *dbeta)
{
    return backward(NL_RMSNORM, x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);
}
