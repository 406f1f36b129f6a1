/* half-count.c — run one registered bf16/fp16 kernel REPS times on a fixed
 * problem, for `perf stat` (`make half-perf`, mk/precision.mk).
 *
 *     half-count IMPL ROWS D REPS
 *
 * Instruction and cycle counts move little with the load of a shared
 * machine, unlike wall time: chapters 8 and 10 quote instructions per 16
 * elements from this program (minus a REPS=0 run, which counts the set-up). */
#include <stdio.h>
#include <stdlib.h>

#include "normlab.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s IMPL ROWS D REPS\n", argv[0]);
        return 2;
    }
    const nl_half_impl *impl = nl_find_half_impl(argv[1]);
    char *end1, *end2, *end3;
    size_t rows = strtoul(argv[2], &end1, 10), d = strtoul(argv[3], &end2, 10);
    size_t reps = strtoul(argv[4], &end3, 10);
    if (!impl || rows == 0 || d == 0 || *end1 || *end2 || *end3) {
        fprintf(stderr, "%s: unknown bf16/fp16 implementation '%s' or bad ROWS D REPS\n",
                argv[0], argv[1]);
        return 2;
    }
    const char *why = nl_half_unavailable(impl);
    if (why) {
        fprintf(stderr, "%s: %s\n", impl->name, why);
        return 3;
    }
    nl_dtype dt = impl->dtype;
    uint16_t *x = nl_alloc(rows * d * 2), *y = nl_alloc(rows * d * 2);
    float *g = nl_alloc(d * 4);
    uint16_t *b = nl_alloc(d * 2);
    if (!x || !y || !g || !b)
        return 1;
    for (size_t i = 0; i < rows * d; i++)
        x[i] = nl_half_from_float(dt, (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f);
    int f32w = nl_cast_weight_dtype(impl->cast, dt) == NL_DT_F32;
    for (size_t i = 0; i < d; i++) {
        if (f32w)
            g[i] = 1.0f;
        else
            ((uint16_t *)g)[i] = nl_half_from_float(dt, impl->cast == NL_CAST_GEMMA ? 0.0f : 1.0f);
        b[i] = 0;
    }
    int rc = 0;
    for (size_t k = 0; k < reps && rc == 0; k++)
        rc = impl->fn(dt, x, g, b, 1e-5f, rows, d, y);
    printf("%s %zu x %zu x %zu calls: rc %d, y[1] = 0x%04x\n", impl->name, rows, d, reps, rc,
           (unsigned)y[1 % (rows * d)]);
    nl_free(x), nl_free(y), nl_free(g), nl_free(b);
    return rc != 0;
}
