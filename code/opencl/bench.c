/* bench.c — `normlab bench --opencl`: kernel time against the device's own
 * copy bandwidth.
 * A norm reads x and writes y, so it cannot beat a copy of the same bytes;
 * timing a clEnqueueCopyBuffer of x next to each kernel, on the same queue
 * and with the same profiling events, gives the ceiling this device reaches
 * in this run.  Copies between host and device are timed on their own:
 * they are what a caller pays per call here, but mixing them into kernel
 * time would hide the kernel behind the bus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/args.h"
#include "opencl/internal.h"

static double seconds(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    clWaitForEvents(1, &ev);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    clReleaseEvent(ev);
    return (double)(t1 - t0) * 1e-9;
}

typedef struct {
    nl_stats kernel, copy, h2d, d2h;
} timings;

/* One shape, one norm: everything timed with `reps` repetitions. */
static int run_shape(nl_cl_runtime *rt, nl_norm norm, size_t rows, size_t d, int reps,
                     timings *out)
{
    size_t bytes = rows * d * sizeof(float);
    float *x = nl_alloc(bytes), *y = nl_alloc(bytes);
    float *gamma = nl_alloc(d * sizeof(float)), *beta = nl_alloc(d * sizeof(float));
    double *t[4];
    for (int k = 0; k < 4; k++)
        t[k] = malloc((size_t)reps * sizeof(double));
    cl_mem bx = NULL, by = NULL, bg = NULL, bb = NULL;
    int rc = NL_ENOMEM;
    if (!x || !y || !gamma || !beta || !t[0] || !t[1] || !t[2] || !t[3])
        goto done;
    for (size_t i = 0; i < rows * d; i++)
        x[i] = (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    for (size_t i = 0; i < d; i++) {
        gamma[i] = 1.0f;
        beta[i] = 0.0f;
    }

    cl_int err, e2, e3, e4;
    bx = clCreateBuffer(rt->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    by = clCreateBuffer(rt->context, CL_MEM_READ_WRITE, bytes, NULL, &e2);
    bg = clCreateBuffer(rt->context, CL_MEM_READ_ONLY, d * sizeof(float), NULL, &e3);
    bb = clCreateBuffer(rt->context, CL_MEM_READ_ONLY, d * sizeof(float), NULL, &e4);
    if (err || e2 || e3 || e4) {
        rc = nl_cl_fail("clCreateBuffer", err ? err : e2 ? e2 : e3 ? e3 : e4);
        goto done;
    }
    clEnqueueWriteBuffer(rt->queue, bg, CL_TRUE, 0, d * sizeof(float), gamma, 0, NULL, NULL);
    clEnqueueWriteBuffer(rt->queue, bb, CL_TRUE, 0, d * sizeof(float), beta, 0, NULL, NULL);

    for (int r = 0; r < reps; r++) {
        cl_event ev;
        if ((err = clEnqueueWriteBuffer(rt->queue, bx, CL_TRUE, 0, bytes, x, 0, NULL, &ev))) {
            rc = nl_cl_fail("copying x to the device", err);
            goto done;
        }
        t[2][r] = seconds(ev);
    }
    /* One untimed launch and copy: first-touch page faults and lazy
     * allocation belong to neither. */
    if ((rc = nl_cl_enqueue(rt, norm, bx, bg, bb, by, 1e-5f, rows, d, NULL)) != NL_OK)
        goto done;
    clEnqueueCopyBuffer(rt->queue, bx, by, 0, 0, bytes, 0, NULL, NULL);
    clFinish(rt->queue);
    for (int r = 0; r < reps; r++) {
        cl_event kev, cev;
        if ((rc = nl_cl_enqueue(rt, norm, bx, bg, bb, by, 1e-5f, rows, d, &kev)) != NL_OK)
            goto done;
        t[0][r] = seconds(kev);
        if ((err = clEnqueueCopyBuffer(rt->queue, bx, by, 0, 0, bytes, 0, NULL, &cev))) {
            rc = nl_cl_fail("clEnqueueCopyBuffer", err);
            goto done;
        }
        t[1][r] = seconds(cev);
    }
    for (int r = 0; r < reps; r++) {
        cl_event ev;
        if ((err = clEnqueueReadBuffer(rt->queue, by, CL_TRUE, 0, bytes, y, 0, NULL, &ev))) {
            rc = nl_cl_fail("reading y back", err);
            goto done;
        }
        t[3][r] = seconds(ev);
    }
    out->kernel = nl_summarize(t[0], (size_t)reps);
    out->copy = nl_summarize(t[1], (size_t)reps);
    out->h2d = nl_summarize(t[2], (size_t)reps);
    out->d2h = nl_summarize(t[3], (size_t)reps);
    rc = NL_OK;
done:
    for (cl_mem *m = (cl_mem[]){bx, by, bg, bb}, *end = m + 4; m < end; m++)
        if (*m)
            clReleaseMemObject(*m);
    for (int k = 0; k < 4; k++)
        free(t[k]);
    nl_free(x);
    nl_free(y);
    nl_free(gamma);
    nl_free(beta);
    return rc;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: normlab bench --opencl [--quick] [--reps N] [--device SPEC]\n\n"
            "Times the OpenCL LayerNorm and RMSNorm kernels with profiling events on\n"
            "4096x4096, 8192x8192, 16384x1024 and 16x1024 (rows x d), each next to a\n"
            "device-side copy of the same bytes, and reports the kernel's share of that\n"
            "copy bandwidth. Host<->device transfers are timed and listed apart.\n"
            "Times are the median over N runs (default 10, --quick: 3) with the 10th-90th\n"
            "percentile spread. SPEC: as for `normlab devices` (or NORMLAB_CL_DEVICE).\n"
            "NORMLAB_CL_MAX_LOCAL=N caps the work-group size (default: up to 256).\n");
}

int nl_cl_bench_main(int argc, char **argv)
{
    size_t reps = 10;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--opencl")) {
            continue;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--quick")) {
            reps = 3;
        } else if (!strcmp(argv[i], "--reps")) {
            const char *v = nl_option_value(argc, argv, &i);
            if (!v || !nl_parse_size_max(v, "--reps", 100000, &reps))
                return 2;
        } else if (!strcmp(argv[i], "--device")) {
            const char *v = nl_option_value(argc, argv, &i);
            if (!v)
                return 2;
            nl_opencl_use(v);
        } else {
            fprintf(stderr, "normlab bench --opencl: unknown argument '%s' (try --help)\n", argv[i]);
            return 2;
        }
    }

    static const struct { size_t rows, d; } shapes[] = {
        {4096, 4096}, {8192, 8192}, {16384, 1024}, {16, 1024},
    };
    const char *why = nl_opencl_unavailable();
    if (why) {
        fprintf(stderr, "normlab bench --opencl: %s\n", why);
        return 1;
    }
    int header = 0;
    for (int norm = NL_LAYERNORM; norm <= NL_RMSNORM; norm++) {
        nl_cl_runtime *rt;
        if (nl_cl_runtime_get((nl_norm)norm, &rt) != NL_OK) {
            fprintf(stderr, "normlab bench --opencl: %s\n", nl_last_error());
            return 1;
        }
        if (!header) {
            printf("device: %s; median of %zu runs [p10-p90]; GB/s counts x read once and y "
                   "written once\n\n", rt->device_name, reps);
            if (getenv("NORMLAB_CL_MAX_LOCAL"))
                printf("work-groups capped at NORMLAB_CL_MAX_LOCAL=%s\n\n", getenv("NORMLAB_CL_MAX_LOCAL"));
            printf("%-9s %11s %24s %6s %24s %6s %7s %8s %8s\n", "norm", "rows x d",
                   "kernel ms", "GB/s", "copy ms", "GB/s", "of copy", "h2d GB/s", "d2h GB/s");
            header = 1;
        }
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            size_t rows = shapes[s].rows, d = shapes[s].d;
            double gb = 2.0 * (double)(rows * d * sizeof(float)) * 1e-9;
            timings tm;
            if (run_shape(rt, (nl_norm)norm, rows, d, (int)reps, &tm) != NL_OK) {
                fprintf(stderr, "normlab bench --opencl: %zu x %zu: %s\n", rows, d, nl_last_error());
                nl_opencl_shutdown();
                return 1;
            }
            char shape[32], k[32], c[32];
            snprintf(shape, sizeof shape, "%zux%zu", rows, d);
            snprintf(k, sizeof k, "%.3f [%.3f-%.3f]", tm.kernel.median * 1e3, tm.kernel.p10 * 1e3,
                     tm.kernel.p90 * 1e3);
            snprintf(c, sizeof c, "%.3f [%.3f-%.3f]", tm.copy.median * 1e3, tm.copy.p10 * 1e3,
                     tm.copy.p90 * 1e3);
            printf("%-9s %11s %24s %6.1f %24s %6.1f %6.0f%% %8.1f %8.1f\n",
                   nl_norm_name((nl_norm)norm), shape, k, gb / tm.kernel.median, c,
                   gb / tm.copy.median, 100.0 * tm.copy.median / tm.kernel.median,
                   gb / 2 / tm.h2d.median, gb / 2 / tm.d2h.median);
            fflush(stdout);
        }
    }
    nl_opencl_shutdown();
    return 0;
}
