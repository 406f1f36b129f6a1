/* bench_half.c — `normlab bench --dtype bf16,f16`: a bf16/fp16 kernel is
 * checked against the scalar kernel of its cast order, then timed against
 * a copy of the same bytes (half those of the f32 problem) by the same
 * paired sampling as the f32 kernels (bench/measure.c). */
#include <math.h>
#include <string.h>

#include "precision/bench_half.h"

void nl_half_bench_free(nl_half_bench *h)
{
    nl_free(h->x), nl_free(h->y), nl_free(h->gamma), nl_free(h->beta);
    memset(h, 0, sizeof *h);
}

int nl_half_bench_new(nl_half_bench *h, const nl_half_impl *impl, const nl_bench_data *b)
{
    memset(h, 0, sizeof *h);
    h->impl = impl;
    h->rows = b->rows, h->d = b->d, h->eps = b->eps;
    size_t n = b->rows * b->d;
    nl_dtype dt = impl->dtype, wdt = nl_cast_weight_dtype(impl->cast, dt);
    /* + 4: the copy roof copies whole floats */
    h->x = nl_alloc(n * 2 + 4), h->y = nl_alloc(n * 2 + 4);
    h->gamma = nl_alloc(b->d * 4), h->beta = nl_alloc(b->d * 2);
    if (!h->x || !h->y || !h->gamma || !h->beta) {
        nl_half_bench_free(h);
        return NL_ENOMEM;
    }
#pragma omp parallel for schedule(static)
    for (size_t r = 0; r < b->rows; r++)
        for (size_t i = r * b->d; i < (r + 1) * b->d; i++)
            h->x[i] = nl_half_from_float(dt, b->x[i]), h->y[i] = 0;
    for (size_t i = 0; i < b->d; i++) {
        /* Gemma stores the scale as an offset from 1 */
        float g = impl->cast == NL_CAST_GEMMA ? b->gamma[i] - 1.0f : b->gamma[i];
        if (wdt == NL_DT_F32)
            ((float *)h->gamma)[i] = g;
        else
            ((uint16_t *)h->gamma)[i] = nl_half_from_float(wdt, g);
        h->beta[i] = nl_half_from_float(dt, b->beta[i]);
    }
    return NL_OK;
}

static int call(void *ctx)
{
    nl_half_bench *h = ctx;
    return h->impl->fn(h->impl->dtype, h->x, h->gamma, h->beta, h->eps, h->rows, h->d, h->y);
}

double nl_half_bench_validate(nl_half_bench *h, int *rc)
{
    *rc = call(h);
    if (*rc)
        return NAN;
    const nl_half_impl *ref = nl_half_scalar_of(h->impl->cast, h->impl->dtype);
    uint16_t *want = nl_alloc(h->d * 2);
    if (!want) {
        *rc = NL_ENOMEM;
        return NAN;
    }
    /* every row of a small problem, 256 rows spread over a large one */
    size_t checks = h->rows <= 256 ? h->rows : 256;
    double worst = 0.0;
    for (size_t k = 0; k < checks && !*rc; k++) {
        size_t r = checks == h->rows ? k : k * (h->rows - 1) / (checks - 1);
        *rc = ref->fn(h->impl->dtype, h->x + r * h->d, h->gamma, h->beta, h->eps, 1, h->d, want);
        for (size_t i = 0; i < h->d && !*rc; i++) {
            double u = nl_half_contract_error(h->impl, h->y[r * h->d + i], want[i],
                                              h->impl->norm == NL_LAYERNORM ? h->beta : NULL, i);
            worst = u > worst || isnan(u) ? u : worst;
        }
    }
    nl_free(want);
    return worst;
}

int nl_half_bench_time(nl_half_bench *h, size_t samples, nl_bench_row *row)
{
    return nl_bench_time_call(call, h, h->x, h->y, h->rows * h->d * 2, samples, row);
}
