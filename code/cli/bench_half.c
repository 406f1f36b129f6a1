/* bench_half.c — chapter 8's bf16/fp16 kernels as rows of `normlab bench
 * --dtype`: each is checked against the scalar kernel of its cast order (in
 * ulps of its dtype) and timed against a copy of the same 16-bit bytes. */
#include <math.h>

#include "cli/bench.h"
#include "precision/bench_half.h"

static double half_check(const bench_entry *e, const nl_bench_data *b, int *rc)
{
    nl_half_bench hb;
    if ((*rc = nl_half_bench_new(&hb, e->impl, b)) != 0)
        return NAN;
    double ulps = nl_half_bench_validate(&hb, rc);
    nl_half_bench_free(&hb);
    return ulps;
}

static int half_time(const bench_entry *e, const nl_bench_data *b, size_t samples,
                     nl_bench_row *row)
{
    nl_half_bench hb;
    int rc = nl_half_bench_new(&hb, e->impl, b);
    if (rc == 0)
        rc = nl_half_bench_time(&hb, samples, row);
    nl_half_bench_free(&hb);
    return rc;
}

/* The scalar orders are the models the fast kernels are checked against,
 * not contenders, and OpenCL copies its buffers on every call: each runs
 * only when --impl names it. */
size_t bench_half_entries(const bench_options *o, bench_entry *out, size_t max)
{
    size_t n, k = 0;
    const nl_half_impl *all = nl_half_impls(&n);
    for (size_t i = 0; i < n && k < max; i++) {
        const nl_half_impl *h = &all[i];
        if (!bench_wants_dtype(o, (int)h->dtype) || !bench_listed(o->impls, h->name))
            continue;
        if (!o->impls && (nl_half_scalar_of(h->cast, h->dtype) == h || (h->requires & NL_REQ_OPENCL)))
            continue;
        out[k++] = (bench_entry){
            .name = h->name, .norm = h->norm, .device = (h->requires & NL_REQ_OPENCL) ? "opencl" : "cpu",
            .dtype = nl_dtype_name(h->dtype),
            .bytes_per_elem = 4, .tol = h->ulp,
            .threaded = (h->requires & NL_REQ_OPENMP) != 0,
            .unavailable = nl_half_unavailable(h), .impl = h,
            .check = half_check, .time = half_time};
    }
    return k;
}

int bench_half_knows(const char *name)
{
    return nl_find_half_impl(name) != NULL;
}
