/* simd_count.c — run one registered kernel on a fixed problem, for
 * instruction counting under callgrind (`make simd-count`, mk/simd.mk).
 *
 *     simd-count IMPL ROWS D [REPS]
 *
 * Counts, unlike timings, repeat exactly on a shared machine: chapter 5
 * quotes instructions per element from this program.  With REPS it also
 * times REPS calls and prints the median ns per element: a rough guide
 * only (`normlab bench` is the measurement). */
#include <stdio.h>
#include <stdlib.h>

#include "normlab.h"

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s IMPL ROWS D [REPS]\n", argv[0]);
        return 2;
    }
    const nl_impl *impl = nl_find_impl(argv[1]);
    size_t rows = strtoul(argv[2], NULL, 10), d = strtoul(argv[3], NULL, 10);
    if (!impl || rows == 0 || d == 0) {
        fprintf(stderr, "%s: unknown implementation or empty shape\n", argv[0]);
        return 2;
    }
    const char *why = nl_impl_unavailable(impl);
    if (why) {
        fprintf(stderr, "%s: %s\n", impl->name, why);
        return 3;
    }
    float *x = nl_alloc(rows * d * sizeof(float)), *y = nl_alloc(rows * d * sizeof(float));
    float *g = nl_alloc(d * sizeof(float)), *b = nl_alloc(d * sizeof(float));
    if (!x || !y || !g || !b)
        return 1;
    for (size_t i = 0; i < rows * d; i++)
        x[i] = (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    for (size_t i = 0; i < d; i++) {
        g[i] = 1.0f;
        b[i] = 0.0f;
    }
    int rc = impl->fn(x, g, impl->norm == NL_LAYERNORM ? b : NULL, 1e-5f, rows, d, y);
    printf("%s %zu x %zu: rc %d, y[0] = %g\n", impl->name, rows, d, rc, (double)y[0]);
    size_t reps = argc == 5 ? strtoul(argv[4], NULL, 10) : 0;
    double *t = reps ? malloc(reps * sizeof(double)) : NULL;
    if (t) {
        for (size_t k = 0; k < reps; k++) {
            double t0 = nl_now();
            impl->fn(x, g, impl->norm == NL_LAYERNORM ? b : NULL, 1e-5f, rows, d, y);
            t[k] = nl_now() - t0;
        }
        nl_stats st = nl_summarize(t, reps);
        printf("  median %.3f ns/element (p10 %.3f, p90 %.3f) over %zu calls\n",
               st.median * 1e9 / (double)(rows * d), st.p10 * 1e9 / (double)(rows * d),
               st.p90 * 1e9 / (double)(rows * d), reps);
        free(t);
    }
    nl_free(x);
    nl_free(y);
    nl_free(g);
    nl_free(b);
    return rc ? 1 : 0;
}
