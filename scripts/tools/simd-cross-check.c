/* simd_cross_check.c — a Check-free test of every registered kernel, for
 * architectures where the Check suites cannot be built (no libcheck for
 * the target): `make simd-cross-check` compiles it with
 * aarch64-linux-gnu-gcc and runs it under qemu-aarch64.
 *
 * For each usable implementation: max |y - ref| over tails d = 1..4097
 * with pointers aligned and one float off, the same on |x| ~ 1e20 for
 * those claiming NL_PROP_HUGE_OK, writes outside y, and bit-identity of
 * the OpenMP kernels for 1..7 threads.  Exit status 0 only if all pass. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normlab.h"
#include "simd/simd.h"

/* The OpenCL host code is not built here. */
const char *nl_opencl_unavailable(void) { return "not built in the cross check"; }

static float uniform(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) * (1.0f / 16777216.0f);
}

/* max |y - ref| of impl on rows x d at pointer offset off (floats);
 * -1 if it wrote outside y. */
static double run_one(const nl_impl *impl, size_t rows, size_t d, size_t off, float scale)
{
    size_t n = rows * d;
    float *x = malloc((n + 1) * sizeof(float)), *y = malloc((n + 3) * sizeof(float));
    float *g = malloc((d + 1) * sizeof(float)), *b = malloc((d + 1) * sizeof(float));
    double *ref = malloc(n * sizeof(double));
    if (!x || !y || !g || !b || !ref)
        exit(2);
    unsigned s = (unsigned)(d * 7 + off);
    for (size_t i = 0; i < n + 1; i++)
        x[i] = (uniform(&s) * 4.0f - 2.0f) * scale;
    for (size_t i = 0; i < d + 1; i++) {
        g[i] = 0.5f + uniform(&s);
        b[i] = uniform(&s) - 0.5f;
    }
    y[off] = y[off + n + 1] = 99.0f;
    const float *beta = impl->norm == NL_LAYERNORM ? b + off : NULL;
    impl->fn(x + off, g + off, beta, 1e-5f, rows, d, y + off + 1);
    nl_reference(impl->norm, x + off, g + off, b + off, 1e-5, rows, d, ref);
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)y[off + 1 + i] - ref[i]);
        if (!(e <= worst))
            worst = e; /* NaN sticks */
    }
    if (y[off] != 99.0f || y[off + n + 1] != 99.0f)
        worst = -1.0;
    free(x); free(y); free(g); free(b); free(ref);
    return worst;
}

int main(void)
{
    static const size_t widths[] = {1, 3, 4, 7, 8, 15, 16, 17, 31, 33, 4095, 4097};
    size_t count;
    const nl_impl *all = nl_impls(&count);
    int bad = 0;
    printf("active path: %s\n", nl_isa_name(nl_isa_active()));
    for (size_t k = 0; k < count; k++) {
        const nl_impl *impl = &all[k];
        const char *why = nl_impl_unavailable(impl);
        if (why) {
            printf("%-26s skipped: %s\n", impl->name, why);
            continue;
        }
        double unit = 0.0, huge = 0.0;
        for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
            for (size_t off = 0; off < 2; off++) {
                double e = run_one(impl, 3, widths[w], off, 1.0f);
                unit = e < 0 || !(e <= unit) ? e : unit;
            }
        int ok = unit >= 0 && unit <= impl->tol;
        if (impl->props & NL_PROP_HUGE_OK) {
            huge = run_one(impl, 2, 1000, 1, 1e20f);
            ok = ok && huge >= 0 && huge <= impl->tol;
        }
        printf("%-26s max |y - ref| %.3g, |x| ~ 1e20: %s%.3g  %s\n", impl->name, unit,
               impl->props & NL_PROP_HUGE_OK ? "" : "(not claimed) ", huge, ok ? "ok" : "FAIL");
        bad |= !ok;
    }
    /* the OpenMP kernels: same bits for every thread count */
    const char *omp_names[] = {"layernorm_omp", "rmsnorm_omp"};
    for (size_t k = 0; k < 2; k++) {
        const nl_impl *impl = nl_find_impl(omp_names[k]);
        size_t rows = 13, d = 257, n = rows * d;
        float *x = malloc(n * sizeof(float)), *y1 = malloc(n * sizeof(float));
        float *y2 = malloc(n * sizeof(float)), *g = malloc(d * sizeof(float));
        float *b = malloc(d * sizeof(float));
        if (!impl || !x || !y1 || !y2 || !g || !b)
            exit(2);
        for (size_t i = 0; i < n; i++)
            x[i] = sinf((float)i);
        for (size_t i = 0; i < d; i++) {
            g[i] = 1.0f;
            b[i] = 0.0f;
        }
        omp_set_num_threads(1);
        impl->fn(x, g, b, 1e-5f, rows, d, y1);
        for (int t = 2; t <= 7; t++) {
            omp_set_num_threads(t);
            impl->fn(x, g, b, 1e-5f, rows, d, y2);
            if (memcmp(y1, y2, n * sizeof(float)) != 0) {
                printf("%s: %d threads differ from 1\n", impl->name, t);
                bad = 1;
            }
        }
        free(x); free(y1); free(y2); free(g); free(b);
    }
    printf("nl_sumsq(1, 2, 3, 4, 5) = %g (expected 55)\n", (double)nl_sumsq((const float[]){1, 2, 3, 4, 5}, 5));
    printf("%s\n", bad ? "FAILED" : "all passed");
    return bad;
}
