/* train_float.c — the training passes in float, as the model trains: the
 * matmuls through nl_gpt2_gemm (OpenBLAS, or chapter 12's blocked matmul),
 * GELU vectorised (gelu.c), the norms' forward through chapter 12's
 * kernels and their backward through chapter 10's threaded kernels, each
 * timed into tr->norm_seconds. */
#include <math.h>
#include <string.h>

#include "backward/backward.h"
#include "gpt2/kernels.h"
#include "gpt2/train.h"
#include "normlab.h"

static void norm_forward(nl_train *tr, int ln, const float *x, const float *gamma,
                         const float *beta, size_t rows, size_t d, float *y, float *mean,
                         float *rstd)
{
    double t0 = nl_now();
    nl_gpt2_norm_forward(ln, x, gamma, beta, NL_GPT2_EPS, rows, d, y, mean, rstd);
    tr->norm_seconds += nl_now() - t0;
}

// @snippet train-norm-backward
/* Chapter 10's threaded backward: dgamma and dbeta summed chunk by chunk
 * in a fixed order, so the bits do not depend on the thread count. */
static void norm_backward(nl_train *tr, int ln, const float *x, const float *gamma,
                          const float *mean, const float *rstd, const float *dy, size_t rows,
                          size_t d, float *dx, float *dgamma, float *dbeta)
{
    double t0 = nl_now();
    if (ln)
        nl_layernorm_bwd_omp(x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);
    else
        nl_rmsnorm_bwd_omp(x, gamma, NULL, rstd, dy, rows, d, dx, dgamma, NULL);
    tr->norm_seconds += nl_now() - t0;
}
// @end

#define REAL float
#define FN(name) name##_f
#define SQRT sqrtf
#define EXP expf
#define LOG logf
#define GEMM nl_gpt2_gemm
#define NORM_FWD norm_forward
#define NORM_BWD norm_backward
#define GELU_FWD nl_gpt2_gelu_forward
#define GELU_BWD nl_gpt2_gelu_backward
#include "gpt2/train_body.h"
