/* norm_kernels.c — the norms of the original and the converted GPT-2 in
 * float, for the bench and for training (kernels.h says why they are plain
 * C).  The forward pass (forward_body.h) has its own generic copy for float
 * and double; this one is written for speed: one simd reduction per pass,
 * one output pass. */
#include <math.h>

#include "gpt2/kernels.h"

/* mean and rstd, when given, keep each row's statistics for a backward. */
NL_GPT2_CLONES
static void ln_cloned(const float *x, const float *gamma, const float *beta, float eps,
                      size_t rows, size_t d, float *y, float *mean_out, float *rstd_out)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d;
        float sum = 0, sq = 0;
#pragma omp simd reduction(+ : sum)
        for (size_t i = 0; i < d; i++)
            sum += xr[i];
        float mean = sum / (float)d;
#pragma omp simd reduction(+ : sq)
        for (size_t i = 0; i < d; i++)
            sq += (xr[i] - mean) * (xr[i] - mean);
        float rstd = 1.0f / sqrtf(sq / (float)d + eps);
#pragma omp simd
        for (size_t i = 0; i < d; i++)
            yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
        if (mean_out) {
            mean_out[r] = mean;
            rstd_out[r] = rstd;
        }
    }
}

void nl_gpt2_layernorm_c(const float *x, const float *gamma, const float *beta, float eps,
                         size_t rows, size_t d, float *y)
{
    ln_cloned(x, gamma, beta, eps, rows, d, y, NULL, NULL);
}

/* The sum of squares, and the sum when `crms` asks for the dropped value. */
static inline float rms_scale(const float *xr, size_t width, size_t channels, int crms,
                              float eps)
{
    float sq = 0, sum = 0;
#pragma omp simd reduction(+ : sq, sum)
    for (size_t i = 0; i < width; i++) {
        sq += xr[i] * xr[i];
        sum += xr[i];
    }
    if (crms)
        sq += sum * sum;
    return 1.0f / sqrtf(sq / (float)channels + eps);
}

static inline void scale_row(const float *xr, float s, size_t width, float *yr)
{
#pragma omp simd
    for (size_t i = 0; i < width; i++)
        yr[i] = xr[i] * s;
}

/* RMSNorm with a gain, keeping rstd: the RMSNorm GPT-2 that trains. */
NL_GPT2_CLONES
static void rms_gain_cloned(const float *x, const float *gamma, float eps, size_t rows,
                            size_t d, float *y, float *rstd)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *yr = y + r * d, s = rms_scale(xr, d, d, 0, eps);
        rstd[r] = s;
        if (!gamma) {
            scale_row(xr, s, d, yr);
            continue;
        }
#pragma omp simd
        for (size_t i = 0; i < d; i++)
            yr[i] = xr[i] * s * gamma[i];
    }
}

void nl_gpt2_norm_forward(int ln, const float *x, const float *gamma, const float *beta,
                          float eps, size_t rows, size_t d, float *y, float *mean, float *rstd)
{
    enum { BLOCK = 64 }; /* rows a thread takes at a time */
#pragma omp parallel for schedule(static) if (rows > BLOCK)
    for (size_t r0 = 0; r0 < rows; r0 += BLOCK) {
        size_t n = rows - r0 < BLOCK ? rows - r0 : BLOCK;
        if (ln)
            ln_cloned(x + r0 * d, gamma, beta, eps, n, d, y + r0 * d, mean + r0, rstd + r0);
        else
            rms_gain_cloned(x + r0 * d, gamma, eps, n, d, y + r0 * d, rstd + r0);
    }
}

NL_GPT2_CLONES
static void rmsnorm_c_cloned(const float *x, float eps, size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++)
        scale_row(x + r * d, rms_scale(x + r * d, d, d, 0, eps), d, y + r * d);
}

void nl_gpt2_rmsnorm_c(const float *x, float eps, size_t rows, size_t d, float *y)
{
    rmsnorm_c_cloned(x, eps, rows, d, y);
}

NL_GPT2_CLONES
static void crms_cloned(const float *x, float eps, size_t rows, size_t width,
                        size_t channels, float *y)
{
    for (size_t r = 0; r < rows; r++)
        scale_row(x + r * width, rms_scale(x + r * width, width, channels, 1, eps), width,
                  y + r * width);
}

void nl_gpt2_crmsnorm_c(const float *x, float eps, size_t rows, size_t width, size_t channels,
                        float *y)
{
    crms_cloned(x, eps, rows, width, channels, y);
}
