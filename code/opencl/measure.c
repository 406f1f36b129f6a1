/* measure.c — the OpenCL kernels' time against the device's own copy
 * bandwidth, for `normlab bench --opencl`.
 * A norm reads x and writes y, as a copy does; timing a clEnqueueCopyBuffer
 * of x next to each kernel, on the same queue and with the same profiling
 * events, gives the ceiling this device reaches in this run.  Copies
 * between host and device are timed on their own: they are what a caller
 * pays per call here, but mixing them into kernel time would hide the
 * kernel behind the bus. */
#include <math.h>
#include <stdlib.h>

#include "opencl/internal.h"
#include "opencl/measure.h"

static double seconds(cl_event ev)
{
    cl_ulong t0 = 0, t1 = 0;
    clWaitForEvents(1, &ev);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    clReleaseEvent(ev);
    return (double)(t1 - t0) * 1e-9;
}

enum { KERNEL, COPY, H2D, D2H, RATIO, NTIMES };

/* Everything timed `samples` times into t[KERNEL..D2H]. */
static int time_all(nl_cl_runtime *rt, nl_norm norm, const nl_bench_data *b, size_t samples,
                    double *t[NTIMES])
{
    size_t bytes = b->rows * b->d * sizeof(float), pbytes = b->d * sizeof(float);
    cl_mem bx = NULL, by = NULL, bg = NULL, bb = NULL;
    cl_int err, e2, e3, e4;
    int rc;
    bx = clCreateBuffer(rt->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    by = clCreateBuffer(rt->context, CL_MEM_READ_WRITE, bytes, NULL, &e2);
    bg = clCreateBuffer(rt->context, CL_MEM_READ_ONLY, pbytes, NULL, &e3);
    bb = clCreateBuffer(rt->context, CL_MEM_READ_ONLY, pbytes, NULL, &e4);
    if (err || e2 || e3 || e4) {
        rc = nl_cl_fail("clCreateBuffer", err ? err : e2 ? e2 : e3 ? e3 : e4);
        goto done;
    }
    if ((err = clEnqueueWriteBuffer(rt->queue, bg, CL_TRUE, 0, pbytes, b->gamma, 0, NULL, NULL)) ||
        (err = clEnqueueWriteBuffer(rt->queue, bb, CL_TRUE, 0, pbytes, b->beta, 0, NULL, NULL))) {
        rc = nl_cl_fail("copying gamma and beta to the device", err);
        goto done;
    }
    for (size_t s = 0; s < samples; s++) {
        cl_event ev;
        if ((err = clEnqueueWriteBuffer(rt->queue, bx, CL_TRUE, 0, bytes, b->x, 0, NULL, &ev))) {
            rc = nl_cl_fail("copying x to the device", err);
            goto done;
        }
        t[H2D][s] = seconds(ev);
    }
    /* One untimed launch and copy: first-touch page faults and lazy
     * allocation belong to neither. */
    if ((rc = nl_cl_enqueue(rt, norm, bx, bg, bb, by, b->eps, b->rows, b->d, NULL)) != NL_OK)
        goto done;
    clEnqueueCopyBuffer(rt->queue, bx, by, 0, 0, bytes, 0, NULL, NULL);
    clFinish(rt->queue);
    for (size_t s = 0; s < samples; s++) {
        cl_event kev, cev;
        if ((rc = nl_cl_enqueue(rt, norm, bx, bg, bb, by, b->eps, b->rows, b->d, &kev)) != NL_OK)
            goto done;
        t[KERNEL][s] = seconds(kev);
        if ((err = clEnqueueCopyBuffer(rt->queue, bx, by, 0, 0, bytes, 0, NULL, &cev))) {
            rc = nl_cl_fail("clEnqueueCopyBuffer", err);
            goto done;
        }
        t[COPY][s] = seconds(cev);
        t[RATIO][s] = t[COPY][s] / t[KERNEL][s];
    }
    for (size_t s = 0; s < samples; s++) {
        cl_event ev;
        if ((err = clEnqueueReadBuffer(rt->queue, by, CL_TRUE, 0, bytes, b->y, 0, NULL, &ev))) {
            rc = nl_cl_fail("reading y back", err);
            goto done;
        }
        t[D2H][s] = seconds(ev);
    }
    rc = NL_OK;
done:
    for (cl_mem *m = (cl_mem[]){bx, by, bg, bb}, *end = m + 4; m < end; m++)
        if (*m)
            clReleaseMemObject(*m);
    return rc;
}

int nl_cl_bench_time(nl_norm norm, const nl_bench_data *b, size_t samples, nl_bench_row *row)
{
    nl_cl_runtime *rt;
    int rc = nl_cl_runtime_get(norm, &rt);
    if (rc != NL_OK)
        return rc;
    if (samples == 0)
        samples = 1;
    double *t[NTIMES];
    for (int k = 0; k < NTIMES; k++)
        t[k] = malloc(samples * sizeof(double));
    rc = NL_ENOMEM;
    if (t[0] && t[1] && t[2] && t[3] && t[4])
        rc = time_all(rt, norm, b, samples, t);
    if (rc == NL_OK) {
        double bytes = 2.0 * (double)(b->rows * b->d) * sizeof(float);
        nl_stats k = nl_summarize(t[KERNEL], samples), f = nl_summarize(t[RATIO], samples);
        row->samples = samples;
        row->reps = 1;
        row->median_s = k.median;
        row->p10_s = k.p10;
        row->p90_s = k.p90;
        row->gbps = bytes / k.median / 1e9;
        row->copy_gbps = bytes / nl_summarize(t[COPY], samples).median / 1e9;
        row->roof = "device"; /* its own copy of the same bytes */
        row->frac_copy = f.median;
        row->frac_p10 = f.p10;
        row->frac_p90 = f.p90;
        for (int c = 0; c < NL_COPY_KINDS; c++)
            row->copy_gbps_by_kind[c] = NAN;
        /* Each transfer moves one buffer: half the bytes a pass counts. */
        row->h2d_gbps = bytes / 2 / nl_summarize(t[H2D], samples).median / 1e9;
        row->d2h_gbps = bytes / 2 / nl_summarize(t[D2H], samples).median / 1e9;
    }
    for (int k = 0; k < NTIMES; k++)
        free(t[k]);
    return rc;
}
