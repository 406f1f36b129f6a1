/* train_double.c — the training passes in double: plain loops for the
 * matmuls, the norms and GELU, the same body as the float passes
 * otherwise.
 * The gradient check holds these to finite differences of the double
 * loss, and the float passes to these. */
#include <math.h>
#include <string.h>

#include "gpt2/train.h"
#include "normlab.h"

/* C = beta C + op(A) op(B), row by row in one order. */
static void gemm(int ta, int tb, size_t M, size_t N, size_t K, const double *A, size_t lda,
                 const double *B, size_t ldb, double beta, double *C, size_t ldc)
{
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            double s = 0;
            for (size_t k = 0; k < K; k++)
                s += (ta ? A[k * lda + i] : A[i * lda + k]) * (tb ? B[j * ldb + k] : B[k * ldb + j]);
            C[i * ldc + j] = beta == 0 ? s : beta * C[i * ldc + j] + s;
        }
}

static void norm_forward(nl_train *tr, int ln, const double *x, const double *gamma,
                         const double *beta, size_t rows, size_t d, double *y, double *mean,
                         double *rstd)
{
    (void)tr;
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * d;
        double mu = 0, ss = 0;
        if (ln) {
            for (size_t i = 0; i < d; i++)
                mu += xr[i];
            mu /= (double)d;
            mean[r] = mu;
        }
        for (size_t i = 0; i < d; i++)
            ss += (xr[i] - mu) * (xr[i] - mu);
        rstd[r] = 1 / sqrt(ss / (double)d + (double)NL_GPT2_EPS);
        for (size_t i = 0; i < d; i++)
            y[r * d + i] = (xr[i] - mu) * rstd[r] * (gamma ? gamma[i] : 1) + (beta ? beta[i] : 0);
    }
}

/* The formulas of normlab.h's nl_backward_fn, in double: with x^ the
 * normalised row and g = gamma dy, dx = rstd (g - mean(g) - x^ mean(g x^))
 * for LayerNorm, the same without mean(g) for RMSNorm. */
static void norm_backward(nl_train *tr, int ln, const double *x, const double *gamma,
                          const double *mean, const double *rstd, const double *dy, size_t rows,
                          size_t d, double *dx, double *dgamma, double *dbeta)
{
    (void)tr;
    for (size_t r = 0; r < rows; r++) {
        const double *xr = x + r * d, *dyr = dy + r * d;
        double mu = ln ? mean[r] : 0, rs = rstd[r], mean_g = 0, mean_gx = 0;
        for (size_t i = 0; i < d; i++) {
            double xhat = (xr[i] - mu) * rs, g = gamma[i] * dyr[i];
            mean_g += g;
            mean_gx += g * xhat;
            dgamma[i] += dyr[i] * xhat;
            if (ln && dbeta)
                dbeta[i] += dyr[i];
        }
        mean_g = ln ? mean_g / (double)d : 0;
        mean_gx /= (double)d;
        for (size_t i = 0; i < d; i++) {
            double xhat = (xr[i] - mu) * rs;
            dx[r * d + i] = rs * (gamma[i] * dyr[i] - mean_g - xhat * mean_gx);
        }
    }
}

/* GELU in GPT-2's tanh form (llm.c gelu_forward), and its derivative:
 * d (x/2 (1 + tanh u)) / dx = (1 + tanh u) / 2 + x/2 (1 - tanh^2 u) du/dx,
 * u = k (x + c x^3), du/dx = k (1 + 3c x^2). */
#define GELU_K 0.7978845608028654 /* sqrt(2 / pi) */
#define GELU_C 0.044715

static void gelu_forward(double *y, const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = 0.5 * x[i] * (1 + tanh(GELU_K * (x[i] + GELU_C * x[i] * x[i] * x[i])));
}

static void gelu_backward(double *d, const double *x, size_t n, int tanh_term)
{
    for (size_t i = 0; i < n; i++) {
        double th = tanh(GELU_K * (x[i] + GELU_C * x[i] * x[i] * x[i]));
        double local = 0.5 * (1 + th);
        if (tanh_term)
            local += 0.5 * x[i] * (1 - th * th) * GELU_K * (1 + 3 * GELU_C * x[i] * x[i]);
        d[i] *= local;
    }
}

#define REAL double
#define FN(name) name##_d
#define SQRT sqrt
#define EXP exp
#define LOG log
#define GEMM gemm
#define NORM_FWD norm_forward
#define NORM_BWD norm_backward
#define GELU_FWD gelu_forward
#define GELU_BWD gelu_backward
#include "gpt2/train_body.h"
