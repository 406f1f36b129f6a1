/* fused-bench.c — fused add + norm against the unfused pair, on chapter
 * 6's measuring (paired copy samples), with every core.
 *
 *   fused-bench [SAMPLES [RxD ...]]    default 11 samples, 4096x4096 16384x1024
 *
 * Prints, per shape, each fused and unfused implementation's median time
 * and its fraction of copy for the bytes it must move (4 floats per
 * element fused, 5 unfused), then the unfused/fused time ratios.
 * (`normlab bench` runs the same measurement; this tool needs no CLI.) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block/fused_bench.h"

static const char *const pairs[][2] = {
    {"add_rmsnorm_unfused_omp", "fused_add_rmsnorm_omp"},
    {"add_rmsnorm_gemma_unfused_omp", "fused_add_rmsnorm_gemma_omp"},
    {"add_layernorm_unfused_omp", "fused_add_layernorm_omp"},
};
enum { NPAIRS = sizeof pairs / sizeof pairs[0] };

static int measure(const char *name, const nl_bench_data *b, float *residual, size_t samples,
                   double *median)
{
    const nl_fused_impl *impl = nl_find_fused(name);
    if (!impl || nl_fused_unavailable(impl)) {
        printf("  %-30s skipped: %s\n", name, impl ? nl_fused_unavailable(impl) : "not built here");
        return 1;
    }
    int rc;
    double err = nl_fused_bench_validate(impl, b, residual, &rc);
    if (rc != 0 || !(err == 0.0)) {
        printf("  %-30s INVALID: differs from its unfused pair by %g (rc %d: %s)\n", name, err,
               rc, nl_last_error());
        return 1;
    }
    nl_bench_row row = {0};
    if ((rc = nl_fused_bench_time(impl, b, residual, samples, &row)) != 0) {
        printf("  %-30s error %d: %s\n", name, rc, nl_last_error());
        return 1;
    }
    printf("  %-30s %9.3f ms  %6.1f GB/s  %5.2f of copy (p10..p90 %.2f..%.2f) for %zu floats/elem\n",
           name, row.median_s * 1e3, row.gbps, row.frac_copy, row.frac_p10, row.frac_p90,
           nl_fused_values(impl));
    *median = row.median_s;
    return 0;
}

int main(int argc, char **argv)
{
    size_t samples = argc > 1 ? strtoul(argv[1], NULL, 10) : 11;
    if (samples == 0 || samples > 1000) {
        fprintf(stderr, "fused-bench: SAMPLES must be 1..1000\n");
        return 2;
    }
    const char *dflt[] = {"4096x4096", "16384x1024"};
    int nshapes = argc > 2 ? argc - 2 : 2;
    int status = 0;
    printf("fused-bench: %d threads, %zu samples\n", omp_get_max_threads(), samples);
    for (int s = 0; s < nshapes; s++) {
        nl_shape shape;
        if (!nl_parse_shape(argc > 2 ? argv[s + 2] : dflt[s], &shape))
            return 2;
        nl_bench_data b;
        float *residual = nl_alloc(shape.rows * shape.d * sizeof(float));
        if (!residual || nl_bench_data_new(&b, shape.rows, shape.d, 0x626c6f636bULL) != 0) {
            fprintf(stderr, "fused-bench: out of memory for %zux%zu\n", shape.rows, shape.d);
            return 1;
        }
        memcpy(residual, b.x, shape.rows * shape.d * sizeof(float));
        printf("== %zux%zu\n", shape.rows, shape.d);
        for (int p = 0; p < NPAIRS; p++) {
            double t[2] = {0, 0};
            int bad = measure(pairs[p][0], &b, residual, samples, &t[0]);
            bad |= measure(pairs[p][1], &b, residual, samples, &t[1]);
            if (!bad)
                printf("  -> fused is %.2fx faster than unfused\n", t[0] / t[1]);
            status |= bad;
        }
        nl_free(residual);
        nl_bench_data_free(&b);
    }
    return status;
}
