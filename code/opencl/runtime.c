/* runtime.c — the OpenCL context behind every call.
 * Creating a context and building a program cost milliseconds to seconds,
 * so they are made on first use and kept; each forward call then only
 * copies its inputs over, launches, and reads y back.  The device buffers
 * grow to the largest call seen.  nl_opencl_shutdown() (also run at exit)
 * releases it all. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sizes.h"
#include "opencl/internal.h"

static const char *const kernel_names[2] = {"layernorm", "rmsnorm"};

static struct {
    int live;
    nl_cl_runtime rt;
    cl_mem x, y, gamma, beta;
    size_t cap_x, cap_y, cap_gamma, cap_beta; /* bytes */
} S;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int exit_hook;

static void release_all(void)
{
    cl_mem *mems[] = {&S.x, &S.y, &S.gamma, &S.beta};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    for (int n = 0; n < 2; n++) {
        if (S.rt.kernel[n])
            clReleaseKernel(S.rt.kernel[n]);
        if (S.rt.program[n])
            clReleaseProgram(S.rt.program[n]);
    }
    if (S.rt.queue) {
        clFinish(S.rt.queue);
        clReleaseCommandQueue(S.rt.queue);
    }
    if (S.rt.context)
        clReleaseContext(S.rt.context);
    memset(&S, 0, sizeof S);
}

void nl_opencl_shutdown(void)
{
    pthread_mutex_lock(&lock);
    release_all();
    pthread_mutex_unlock(&lock);
}

/* Here, not in platform.c, so that calls run one way: the runtime asks the
 * platform for its device, never the reverse. */
int nl_opencl_use(const char *spec)
{
    nl_cl_choose(spec);
    nl_opencl_shutdown(); /* the next call starts on the new device */
    return NL_OK;
}

/* An experiment knob from the environment: unset leaves *value alone; a
 * value that is not a whole number in 1..max is refused, not ignored, so
 * that no run claims a setting it did not use. */
static int knob(const char *name, size_t max, size_t *value)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return NL_OK;
    if (!nl_parse_size(text, max, value)) {
        char why[128];
        snprintf(why, sizeof why, "%s", nl_last_error());
        nl_set_error("%s=%s: %s", name, text, why);
        return NL_EARG;
    }
    return NL_OK;
}

static int start(void)
{
    cl_int err;
    int rc = nl_cl_find(NULL, &S.rt.device);
    if (rc != NL_OK)
        return rc;
    S.rt.context = clCreateContext(NULL, 1, &S.rt.device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return nl_cl_fail("clCreateContext", err);
    S.rt.queue = clCreateCommandQueue(S.rt.context, S.rt.device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS)
        return nl_cl_fail("clCreateCommandQueue", err);
    /* A GPU's barrier is one instruction: a team as wide as the row has
     * float4s (up to the group) keeps the most loads in flight.  A CPU
     * device (PoCL) runs a work-group as loops, and each barrier ends one
     * loop and starts the next: fewer, busier work-items per row do better
     * there: at least 8 float4s each (chapter 7 has the measurements).
     * NORMLAB_CL_PER_ITEM overrides it, for that experiment. */
    cl_device_type type = 0;
    clGetDeviceInfo(S.rt.device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    S.rt.per_item = (type & CL_DEVICE_TYPE_CPU) ? 8 : 1;
    if ((rc = knob("NORMLAB_CL_PER_ITEM", 4096, &S.rt.per_item)) != NL_OK)
        return rc;
    if (clGetDeviceInfo(S.rt.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof S.rt.max_alloc,
                        &S.rt.max_alloc, NULL) != CL_SUCCESS || S.rt.max_alloc == 0)
        S.rt.max_alloc = 128u << 20; /* the least the standard promises */
    clGetDeviceInfo(S.rt.device, CL_DEVICE_NAME, sizeof S.rt.device_name - 1,
                    S.rt.device_name, NULL);
    S.live = 1;
    if (!exit_hook) {
        atexit(nl_opencl_shutdown);
        exit_hook = 1;
    }
    return NL_OK;
}

static int build(nl_norm norm)
{
    cl_int err;
    int rc = nl_cl_build(S.rt.context, S.rt.device, kernel_names[norm], &S.rt.program[norm]);
    if (rc != NL_OK)
        return rc;
    S.rt.kernel[norm] = clCreateKernel(S.rt.program[norm], kernel_names[norm], &err);
    if (err != CL_SUCCESS)
        return nl_cl_fail("clCreateKernel", err);
    size_t dev_max = 0, kern_max = 0;
    clGetDeviceInfo(S.rt.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_max, &dev_max, NULL);
    clGetKernelWorkGroupInfo(S.rt.kernel[norm], S.rt.device, CL_KERNEL_WORK_GROUP_SIZE,
                             sizeof kern_max, &kern_max, NULL);
    S.rt.max_local[norm] = kern_max && kern_max < dev_max ? kern_max : dev_max;
    /* An experiment knob (chapter 7): a cap on the work-group size. */
    size_t want = SIZE_MAX;
    int rc2 = knob("NORMLAB_CL_MAX_LOCAL", SIZE_MAX, &want);
    if (rc2 != NL_OK)
        return rc2;
    if (want < S.rt.max_local[norm])
        S.rt.max_local[norm] = want;
    return NL_OK;
}

/* Call with the lock held. */
static int get(nl_norm norm, nl_cl_runtime **out)
{
    int rc = NL_OK;
    if (nl_cl_forked())
        return NL_EUNAVAIL;
    if (!S.live && (rc = start()) != NL_OK) {
        release_all();
        return rc;
    }
    if (!S.rt.kernel[norm] && (rc = build(norm)) != NL_OK) {
        /* keep the context: the other norm's kernel may still be fine */
        if (S.rt.program[norm])
            clReleaseProgram(S.rt.program[norm]);
        S.rt.program[norm] = NULL;
        return rc;
    }
    *out = &S.rt;
    return NL_OK;
}

int nl_cl_runtime_get(nl_norm norm, nl_cl_runtime **out)
{
    pthread_mutex_lock(&lock);
    int rc = get(norm, out);
    pthread_mutex_unlock(&lock);
    return rc;
}

int nl_cl_enqueue(nl_cl_runtime *rt, nl_norm norm, cl_mem x, cl_mem gamma, cl_mem beta,
                  cl_mem y, float eps, size_t rows, size_t d, cl_event *done)
{
    nl_cl_layout l = nl_cl_plan(rows, d, rt->max_local[norm], rt->per_item);
    cl_uint urows = (cl_uint)rows, ud = (cl_uint)d, uteam = (cl_uint)l.team;
    cl_kernel k = rt->kernel[norm];
    cl_uint a = 0;
    cl_int err = clSetKernelArg(k, a++, sizeof x, &x);
    err |= clSetKernelArg(k, a++, sizeof gamma, &gamma);
    if (norm == NL_LAYERNORM)
        err |= clSetKernelArg(k, a++, sizeof beta, &beta);
    err |= clSetKernelArg(k, a++, sizeof y, &y);
    err |= clSetKernelArg(k, a++, sizeof eps, &eps);
    err |= clSetKernelArg(k, a++, sizeof urows, &urows);
    err |= clSetKernelArg(k, a++, sizeof ud, &ud);
    err |= clSetKernelArg(k, a++, sizeof uteam, &uteam);
    err |= clSetKernelArg(k, a++, l.local * sizeof(float), NULL);
    if (err != CL_SUCCESS) /* OR-ed codes are no longer one name */
        return nl_cl_fail("clSetKernelArg", CL_INVALID_KERNEL_ARGS);
    size_t global = l.groups * l.local;
    err = clEnqueueNDRangeKernel(rt->queue, k, 1, NULL, &global, &l.local, 0, NULL, done);
    if (err != CL_SUCCESS)
        return nl_cl_fail(norm == NL_LAYERNORM ? "launching layernorm" : "launching rmsnorm", err);
    return NL_OK;
}

/* Grows *buf to hold `bytes` (contents are not kept). */
static int ensure(cl_mem *buf, size_t *cap, size_t bytes, cl_mem_flags flags)
{
    if (*buf && *cap >= bytes)
        return NL_OK;
    if (*buf)
        clReleaseMemObject(*buf);
    cl_int err;
    *buf = clCreateBuffer(S.rt.context, flags, bytes, NULL, &err);
    *cap = err == CL_SUCCESS ? bytes : 0;
    if (err != CL_SUCCESS) {
        *buf = NULL;
        return nl_cl_fail("clCreateBuffer", err);
    }
    return NL_OK;
}

static int forward(nl_norm norm, const float *x, const float *gamma, const float *beta,
                   float eps, size_t rows, size_t d, float *y)
{
    nl_cl_runtime *rt;
    int rc = get(norm, &rt);
    if (rc != NL_OK)
        return rc;
    if (d > CL_UINT_MAX || d * sizeof(float) > rt->max_alloc) {
        nl_set_error("a row of %zu floats exceeds what this OpenCL device can hold in one buffer", d);
        return NL_EARG;
    }
    /* Rows go over in chunks no larger than one device allocation. */
    size_t row_bytes = d * sizeof(float);
    size_t chunk = rt->max_alloc / row_bytes;
    if (chunk > rows)
        chunk = rows;
    if (chunk > CL_UINT_MAX)
        chunk = CL_UINT_MAX;
    if ((rc = ensure(&S.x, &S.cap_x, chunk * row_bytes, CL_MEM_READ_ONLY)) ||
        (rc = ensure(&S.y, &S.cap_y, chunk * row_bytes, CL_MEM_WRITE_ONLY)) ||
        (rc = ensure(&S.gamma, &S.cap_gamma, row_bytes, CL_MEM_READ_ONLY)) ||
        (rc = ensure(&S.beta, &S.cap_beta, row_bytes, CL_MEM_READ_ONLY)))
        return rc;

    cl_int err = clEnqueueWriteBuffer(rt->queue, S.gamma, CL_FALSE, 0, row_bytes, gamma, 0, NULL, NULL);
    if (err == CL_SUCCESS && norm == NL_LAYERNORM)
        err = clEnqueueWriteBuffer(rt->queue, S.beta, CL_FALSE, 0, row_bytes, beta, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return nl_cl_fail("copying gamma/beta to the device", err);
    // @snippet cl-forward-chunks
    for (size_t r = 0; r < rows; r += chunk) {
        size_t n = rows - r < chunk ? rows - r : chunk;
        err = clEnqueueWriteBuffer(rt->queue, S.x, CL_FALSE, 0, n * row_bytes, x + r * d, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return nl_cl_fail("copying x to the device", err);
        if ((rc = nl_cl_enqueue(rt, norm, S.x, S.gamma, S.beta, S.y, eps, n, d, NULL)) != NL_OK)
            return rc;
        /* Blocking: y may be x, and the next chunk reuses the buffers. */
        err = clEnqueueReadBuffer(rt->queue, S.y, CL_TRUE, 0, n * row_bytes, y + r * d, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return nl_cl_fail("reading y back from the device", err);
    }
    // @end
    return NL_OK;
}

int nl_cl_forward(nl_norm norm, const float *x, const float *gamma, const float *beta,
                  float eps, size_t rows, size_t d, float *y)
{
    int rc = nl_check_args(x, gamma, beta, rows, d, y, norm);
    if (rc != NL_OK || rows == 0)
        return rc;
    pthread_mutex_lock(&lock);
    rc = forward(norm, x, gamma, beta, eps, rows, d, y);
    /* A failed call may leave non-blocking writes queued that still read
     * the caller's arrays: drain them before the caller frees those. */
    if (rc != NL_OK && S.rt.queue)
        clFinish(S.rt.queue);
    pthread_mutex_unlock(&lock);
    return rc;
}
