/* bench_rows.h — chapter 12's rows of `normlab bench`: what the converted
 * GPT-2 saves, on GPT-2's own shapes (T tokens x C channels).
 *
 *   norm rows (--gpt2): the original's LayerNorm (gamma, beta) against the
 *     converted model's RMSNorm (no weight) and Pre-CRMSNorm (C - 1 values
 *     and the dropped one): the library's fastest single-thread rungs
 *     (layernorm_best, rmsnorm_best with gamma = 1: it has no weight-free
 *     form) and the three in the same plain C (kernels.h);
 *   matmul rows (--flashnorm): GPT-2's qkv (C -> 3C) and fc (C -> 4C)
 *     layers as the matmul alone, RMSNorm then the matmul, and FlashNorm
 *     (the matmul then each row's 1/rms).
 *
 * Every row is checked against a double reference before it is timed:
 * max |y - ref| / max |ref| over an even sample of rows.  It is timed with
 * nl_bench_time_call against a copy of the activations (T x C floats in,
 * as many out), so "of copy" of a matmul row is its time in units of one
 * memory-bound pass over x: how many norms one matmul is worth. */
#ifndef NL_GPT2_BENCH_ROWS_H
#define NL_GPT2_BENCH_ROWS_H

#include "bench/bench.h"
#include "normlab.h"

typedef struct nl_gpt2_bench nl_gpt2_bench;

/* What the check compares a row with. */
typedef enum {
    NL_GPT2_REF_LAYERNORM, NL_GPT2_REF_RMSNORM, NL_GPT2_REF_CRMSNORM,
    NL_GPT2_REF_MATMUL,    /* x wt + b */
    NL_GPT2_REF_NORM_MATMUL /* rmsnorm(x) wt + b = rstd (x wt) + b */
} nl_gpt2_ref;

typedef struct {
    const char *name;
    nl_norm norm;
    size_t widen;   /* 0: a norm row; else the matmul's outputs = widen x C */
    nl_gpt2_ref ref;
    int (*run)(const nl_gpt2_bench *p); /* one pass; NL_OK or an NL_E* code */
    const char *summary;
} nl_gpt2_bench_impl;

/* One row's problem over the bench's shared data (b->x is T x C). */
struct nl_gpt2_bench {
    const nl_gpt2_bench_impl *im;
    const nl_bench_data *b;
    size_t T, C, width, n; /* width: what a norm row reads (C, or C - 1); n: outputs */
    float *wt, *bias;      /* the matmul's weight, C x n (in x out), and bias */
    float *xn, *rstd;      /* RMSNorm's output before the matmul; FlashNorm's 1/rms */
    float *ones;           /* gamma = 1 for rmsnorm_best */
    float *y;              /* the row's output: T x n (matmul) or T x C (norm) */
};

const nl_gpt2_bench_impl *nl_gpt2_bench_impls(size_t *n);
const nl_gpt2_bench_impl *nl_find_gpt2_bench(const char *name);

/* A problem for one row; NL_ENOMEM with nothing left allocated, NL_EARG
 * when the shape cannot hold the row (d < 2 for Pre-CRMSNorm, or a weight
 * that overflows). */
int nl_gpt2_bench_new(nl_gpt2_bench *p, const nl_gpt2_bench_impl *im, const nl_bench_data *b);
void nl_gpt2_bench_free(nl_gpt2_bench *p);
/* Runs the row once and returns max |y - ref| / max |ref| on an even sample
 * of at most 64 rows (first and last included); NaN for a NaN output. */
double nl_gpt2_bench_validate(const nl_gpt2_bench *p, int *rc);
/* Times the row (see above); fills row's timing fields. */
int nl_gpt2_bench_time(const nl_gpt2_bench *p, size_t samples, nl_bench_row *row);

#endif
