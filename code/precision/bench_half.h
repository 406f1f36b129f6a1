/* bench_half.h — bf16/fp16 problems for `normlab bench --dtype`
 * (bench_half.c), built on chapter 6's measuring (bench/bench.h). */
#ifndef NL_BENCH_HALF_H
#define NL_BENCH_HALF_H

#include "bench/bench.h"
#include "precision/precision.h"

/* A bf16/fp16 problem converted from the f32 one of the same shape and
 * seed, with the weight in the cast order's dtype (Gemma: gamma - 1). */
typedef struct {
    const nl_half_impl *impl;
    size_t rows, d;
    float eps;
    uint16_t *x, *y, *beta;
    void *gamma; /* in nl_cast_weight_dtype */
} nl_half_bench;

int nl_half_bench_new(nl_half_bench *h, const nl_half_impl *impl, const nl_bench_data *b);
void nl_half_bench_free(nl_half_bench *h);
/* Runs the kernel once; the worst distance of its output from the scalar
 * kernel of its cast order, in ulps of the dtype (all rows of a small
 * problem, 256 of a large one). NaN, with *rc set, when the call fails. */
double nl_half_bench_validate(nl_half_bench *h, int *rc);
/* nl_bench_time for it: the copy roofs copy the same 16-bit bytes. */
int nl_half_bench_time(nl_half_bench *h, size_t samples, nl_bench_row *row);

#endif
