/* internal.h — what the OpenCL host files share; not part of the public
 * header, so that normlab.h never needs CL/cl.h. */
#ifndef NL_OPENCL_INTERNAL_H
#define NL_OPENCL_INTERNAL_H

#include <CL/cl.h>
#include <CL/cl_ext.h> /* CL_PLATFORM_NOT_FOUND_KHR, the ICD loader's "no driver" */

#include "normlab.h"

/* Sets nl_last_error() to "WHAT: CL_NAME (code)" and returns NL_EDEVICE. */
int nl_cl_fail(const char *what, cl_int err);

/* platform.c: 1 (with nl_last_error set) in a child forked after OpenCL
 * was first used, where any OpenCL call may hang. */
int nl_cl_forked(void);
/* platform.c: resolves a device spec (see nl_opencl_pick) to a device. */
int nl_cl_find(const char *spec, cl_device_id *device);
/* platform.c: remembers the device nl_opencl_use chose (NULL: none). */
void nl_cl_choose(const char *spec);

/* program.c: builds the program for `kernel` ("layernorm", "rmsnorm") from
 * vec.cl, reduce.cl and KERNEL.cl, each taken from $NORMLAB_CL_KERNELS when
 * that folder has it, else from the embedded copy.  On a failed build the
 * error names the kernel and its files and carries the compiler log. */
int nl_cl_build(cl_context ctx, cl_device_id device, const char *kernel,
                cl_program *out);

/* workgroups.c: how a launch maps rows onto work-groups. */
typedef struct {
    size_t team;      /* work-items per row: a power of two */
    size_t local;     /* work-group size: team x rows per group */
    size_t groups;    /* work-groups in the launch */
} nl_cl_layout;
/* per_item: how many float4s each work-item should load at least before
 * its team combines the sums (nl_cl_runtime.per_item). */
nl_cl_layout nl_cl_plan(size_t rows, size_t d, size_t max_local, size_t per_item);

/* runtime.c: the lazily created context every call and the bench share. */
typedef struct {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue; /* in order, with profiling enabled */
    cl_program program[2];  /* by nl_norm; built on first use */
    cl_kernel kernel[2];
    size_t max_local[2];    /* the largest work-group each kernel allows */
    size_t per_item;        /* float4s per work-item at least (see start()) */
    cl_ulong max_alloc;     /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    char device_name[256];
} nl_cl_runtime;
/* The runtime, with the kernel for `norm` built; NL_OK or an NL_E* code. */
int nl_cl_runtime_get(nl_norm norm, nl_cl_runtime **out);
/* The registered functions' common body: copy in, launch, copy back. */
int nl_cl_forward(nl_norm norm, const float *x, const float *gamma, const float *beta,
                  float eps, size_t rows, size_t d, float *y);
/* Sets the arguments and enqueues one launch over `rows` rows of buffers
 * already on the device (beta is ignored for RMSNorm). */
int nl_cl_enqueue(nl_cl_runtime *rt, nl_norm norm, cl_mem x, cl_mem gamma,
                  cl_mem beta, cl_mem y, float eps, size_t rows, size_t d,
                  cl_event *done);

#endif
