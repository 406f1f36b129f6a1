/* bench_fused.c — chapter 9's fused add + norm kernels as rows of `normlab
 * bench --fused`, against their unfused pairs.
 *
 * Every entry is first checked bit for bit against its unfused pair (a
 * fast wrong answer is not a result), then timed with paired copy
 * samples; its GB/s and fraction of copy count the bytes it must move:
 * 4 floats per element fused, 5 for the pair (nl_fused_values). */
#include <math.h>
#include <string.h>

#include "block/fused_bench.h"
#include "cli/bench.h"

/* The threaded pairs and their fused rungs: what a model would run. */
static const char *const default_impls =
    "add_rmsnorm_unfused_omp,fused_add_rmsnorm_omp,"
    "add_rmsnorm_gemma_unfused_omp,fused_add_rmsnorm_gemma_omp,"
    "add_layernorm_unfused_omp,fused_add_layernorm_omp";

/* The residual stream starts as a copy of x, afresh for each use. */
static float *new_residual(const nl_bench_data *b)
{
    float *r = nl_alloc(b->rows * b->d * sizeof(float));
    if (r)
        memcpy(r, b->x, b->rows * b->d * sizeof(float));
    return r;
}

static double fused_check(const bench_entry *e, const nl_bench_data *b, int *rc)
{
    float *residual = new_residual(b);
    if (!residual) {
        *rc = NL_ENOMEM;
        return NAN;
    }
    double err = nl_fused_bench_validate(e->impl, b, residual, rc);
    nl_free(residual);
    return err;
}

static int fused_time(const bench_entry *e, const nl_bench_data *b, size_t samples,
                      nl_bench_row *row)
{
    float *residual = new_residual(b);
    if (!residual)
        return NL_ENOMEM;
    int rc = nl_fused_bench_time(e->impl, b, residual, samples, row);
    nl_free(residual);
    return rc;
}

/* With --fused: the default pairs and rungs, or those --impl names;
 * without it, only those --impl names. */
size_t bench_fused_entries(const bench_options *o, bench_entry *out, size_t max)
{
    size_t n, k = 0;
    const nl_fused_impl *all = nl_fused_impls(&n);
    const char *list = o->impls ? o->impls : o->fused ? default_impls : NULL;
    if (!list || !bench_wants_dtype(o, NL_DT_F32))
        return 0;
    for (size_t i = 0; i < n && k < max; i++) {
        if (!bench_listed(list, all[i].name))
            continue;
        out[k++] = (bench_entry){
            .name = all[i].name, .norm = nl_fused_base_norm(all[i].norm),
            .device = (all[i].requires & NL_REQ_OPENCL) ? "opencl" : "cpu", .dtype = "f32",
            .bytes_per_elem = 4.0 * (double)nl_fused_values(&all[i]), .tol = 0.0,
            .threaded = (all[i].requires & NL_REQ_OPENMP) != 0,
            .unavailable = nl_fused_unavailable(&all[i]), .impl = &all[i],
            .check = fused_check, .time = fused_time};
    }
    return k;
}

int bench_fused_knows(const char *name)
{
    return nl_find_fused(name) != NULL;
}
