/* matmul.c — the matmul chapter 12 folds a norm into: y = x wt + b, cache
 * blocked, vectorised by the compiler (kernels.h).  FlashNorm's variant
 * takes the sum of squares of each block of x while the block is in cache
 * for the product, and scales each row of y by its 1/rms at the end: the
 * norm costs no pass over memory of its own.
 *
 * Blocking: for each 256-wide block of outputs and 256-deep block of
 * inputs (a 256 KiB tile of wt, which stays in L2), every group of 4 rows
 * accumulates 4 x 16 outputs in registers over the 256 inputs; y is read
 * and written once per input block. */
#include <math.h>
#include <string.h>

#include "gpt2/kernels.h"

enum { KB = 256, NB = 256, RT = 4, OT = 16 };

/* One register tile: RT rows x OT outputs of y += x[., k0..k1) wt. */
static inline void tile_full(const float *x, const float *wt, size_t k, size_t n, size_t t0,
                             size_t o0, size_t k0, size_t k1, float *y)
{
    float acc[RT][OT] = {{0}};
    for (size_t i = k0; i < k1; i++) {
        const float *w = wt + i * n + o0;
        for (size_t r = 0; r < RT; r++) {
            float a = x[(t0 + r) * k + i];
#pragma omp simd
            for (size_t c = 0; c < OT; c++)
                acc[r][c] += a * w[c];
        }
    }
    for (size_t r = 0; r < RT; r++)
#pragma omp simd
        for (size_t c = 0; c < OT; c++)
            y[(t0 + r) * n + o0 + c] += acc[r][c];
}

/* The ragged edge (rows not a multiple of 4, outputs not of 16). */
static void tile_edge(const float *x, const float *wt, size_t k, size_t n, size_t t0,
                      size_t t1, size_t o0, size_t o1, size_t k0, size_t k1, float *y)
{
    for (size_t t = t0; t < t1; t++)
        for (size_t i = k0; i < k1; i++) {
            float a = x[t * k + i];
            for (size_t o = o0; o < o1; o++)
                y[t * n + o] += a * wt[i * n + o];
        }
}

/* Clang gives a target_clones function its plain name only where the
 * callers see the attribute, so each public function calls a static
 * cloned one of this file. */

/* y = x wt (no bias, no scale); sumsq, when given, gets each row's sum of
 * squares, accumulated block by block beside the product. */
static inline void blocked(const float *x, const float *wt, size_t T, size_t k, size_t n,
                           float *sumsq, float *y)
{
    memset(y, 0, T * n * sizeof *y);
    if (sumsq)
        memset(sumsq, 0, T * sizeof *sumsq);
    size_t tfull = T / RT * RT;
    for (size_t n0 = 0; n0 < n; n0 += NB) {
        size_t n1 = n0 + NB < n ? n0 + NB : n, ofull = n0 + (n1 - n0) / OT * OT;
        for (size_t k0 = 0; k0 < k; k0 += KB) {
            size_t k1 = k0 + KB < k ? k0 + KB : k;
            for (size_t t0 = 0; t0 < tfull; t0 += RT) {
                if (sumsq && n0 == 0)
                    for (size_t r = t0; r < t0 + RT; r++) {
                        float s = 0;
#pragma omp simd reduction(+ : s)
                        for (size_t i = k0; i < k1; i++)
                            s += x[r * k + i] * x[r * k + i];
                        sumsq[r] += s;
                    }
                for (size_t o0 = n0; o0 < ofull; o0 += OT)
                    tile_full(x, wt, k, n, t0, o0, k0, k1, y);
                tile_edge(x, wt, k, n, t0, t0 + RT, ofull, n1, k0, k1, y);
            }
            if (sumsq && n0 == 0)
                for (size_t r = tfull; r < T; r++)
                    for (size_t i = k0; i < k1; i++)
                        sumsq[r] += x[r * k + i] * x[r * k + i];
            tile_edge(x, wt, k, n, tfull, T, n0, n1, k0, k1, y);
        }
    }
}

NL_GPT2_CLONES
static void matmul_cloned(const float *x, const float *wt, const float *b, size_t T, size_t k,
                          size_t n, float *y)
{
    blocked(x, wt, T, k, n, NULL, y);
    if (b)
        for (size_t t = 0; t < T; t++)
#pragma omp simd
            for (size_t o = 0; o < n; o++)
                y[t * n + o] += b[o];
}

void nl_gpt2_matmul(const float *x, const float *wt, const float *b, size_t T, size_t k,
                    size_t n, float *y)
{
    matmul_cloned(x, wt, b, T, k, n, y);
}

// @snippet gpt2-flashnorm-matmul
NL_GPT2_CLONES
static void flash_cloned(const float *x, const float *wt, const float *b, float eps, size_t T,
                         size_t k, size_t n, float *rstd, float *y)
{
    blocked(x, wt, T, k, n, rstd, y);
    for (size_t t = 0; t < T; t++) {
        float s = 1.0f / sqrtf(rstd[t] / (float)k + eps);
        rstd[t] = s;
        float *yt = y + t * n;
        if (b) {
#pragma omp simd
            for (size_t o = 0; o < n; o++)
                yt[o] = yt[o] * s + b[o];
        } else {
#pragma omp simd
            for (size_t o = 0; o < n; o++)
                yt[o] *= s;
        }
    }
}

void nl_gpt2_matmul_flashnorm(const float *x, const float *wt, const float *b, float eps,
                              size_t T, size_t k, size_t n, float *rstd, float *y)
{
    flash_cloned(x, wt, b, eps, T, k, n, rstd, y);
}
// @end
