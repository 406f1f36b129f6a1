/* block.h — what the fused add + norm kernels of chapter 9 share inside
 * the library (not part of the public header).
 *
 * Most rungs of the fused ladder are one driver (fused_blocked.c) given
 * three pieces: the residual add of an instruction set, and the forward
 * norm kernel of chapter 5 or 1-3 that is the rung's unfused pair. */
#ifndef NL_BLOCK_H
#define NL_BLOCK_H

#include <stddef.h>

#include "normlab.h"

/* residual[i] += x[i] for i < n: one float rounding per element. */
typedef void (*nl_add_fn)(float *residual, const float *x, size_t n);

typedef struct {
    nl_add_fn add;
    nl_forward_fn norm;       /* the pair: a forward kernel of nl_impls */
    nl_forward_fn norm_spill; /* same bits, streaming output; NULL: none */
} nl_fused_plan;

/* The portable add (a plain loop). */
void nl_residual_add(float *residual, const float *x, size_t n);

/* gamma' = 1.0f + w, d floats from nl_alloc (NULL when out of memory). */
float *nl_gemma_gamma(const float *w, size_t d);

/* Unfused: plan->add over all rows, then plan->norm over all rows. */
int nl_add_then_norm(const nl_fused_plan *plan, nl_fused_norm norm, const float *x,
                     float *residual, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y);
/* Fused by cache block: add a block of rows, normalise it while the new
 * residual is still in L1, move on. */
int nl_fused_blocked(const nl_fused_plan *plan, nl_fused_norm norm, const float *x,
                     float *residual, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y);

/* The three registered functions of one rung, each one line over a plan. */
#define NL_FUSED_ARGS                                                         \
    const float *x, float *residual, const float *gamma, const float *beta,  \
        float eps, size_t rows, size_t d, float *y
#define NL_FUSED_RUNG(driver, pre, sfx, rms_plan, ln_plan)                    \
    int nl_##pre##rmsnorm##sfx(NL_FUSED_ARGS)                                 \
    {                                                                         \
        return driver(&(rms_plan), NL_FUSED_RMSNORM, x, residual, gamma,     \
                      beta, eps, rows, d, y);                                 \
    }                                                                         \
    int nl_##pre##rmsnorm_gemma##sfx(NL_FUSED_ARGS)                           \
    {                                                                         \
        return driver(&(rms_plan), NL_FUSED_RMSNORM_GEMMA, x, residual,      \
                      gamma, beta, eps, rows, d, y);                          \
    }                                                                         \
    int nl_##pre##layernorm##sfx(NL_FUSED_ARGS)                               \
    {                                                                         \
        return driver(&(ln_plan), NL_FUSED_LAYERNORM, x, residual, gamma,    \
                      beta, eps, rows, d, y);                                 \
    }

/* The scalar forward kernels the reference pairs call (chapters 1-2). */
int nl_rmsnorm_fused(const float *x, const float *gamma, const float *beta, float eps,
                     size_t rows, size_t d, float *y);
int nl_layernorm_twopass(const float *x, const float *gamma, const float *beta, float eps,
                         size_t rows, size_t d, float *y);
/* Chapter 5's threaded kernels, the threaded unfused pair's norm pass. */
int nl_rmsnorm_omp(const float *x, const float *gamma, const float *beta, float eps,
                   size_t rows, size_t d, float *y);
int nl_layernorm_omp(const float *x, const float *gamma, const float *beta, float eps,
                     size_t rows, size_t d, float *y);

#define NL_DECLARE_FUSED(name) int nl_##name(NL_FUSED_ARGS)
NL_DECLARE_FUSED(fused_add_rmsnorm_best);
NL_DECLARE_FUSED(fused_add_rmsnorm_gemma_best);
NL_DECLARE_FUSED(fused_add_layernorm_best);

#endif
