/* gelu.c — GELU for training in float (chapter 13): GPT-2's tanh form and
 * its derivative over long arrays, written so that the compiler
 * vectorises them (kernels.h): the tanh comes from one exponential and
 * the exponential from 2^k times a short polynomial, where libm's tanhf
 * is a call per element.  Every
 * value is within 3e-7 of the double formula (check_train_step). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpt2/kernels.h"

#define GELU_K 0.7978845608f /* sqrt(2 / pi) */
#define GELU_C 0.044715f

/* e^x for -20 <= x <= 0: x = k ln 2 + r with |r| <= ln 2 / 2, e^r by its
 * Taylor series to r^6 (the first term left out is below 1.3e-7 of e^r),
 * 2^k put into the exponent's bits. */
static inline float exp_poly(float x)
{
    int32_t k = (int32_t)(x * 1.44269504f - 0.5f); /* round to nearest: x <= 0 */
    float kf = (float)k;
    /* ln 2 in two parts, the first short enough that k ln2_hi is exact */
    float r = x - kf * 0.693145752f - kf * 1.42860677e-6f;
    float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
                                                                            r * (1.0f / 720))))));
    int32_t bits = (k + 127) * (1 << 23);
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/* tanh(u) = sign(u) (1 - e) / (1 + e), e = e^(-2|u|).  |u| is capped at 9,
 * where tanh is 1 to float's precision, by its bits (an integer min, which
 * vectorises where a float comparison would be a branch); a NaN u caps to
 * 9, and the NaN comes through GELU's other factor, x. */
static inline float tanh_exp(float u)
{
    const int32_t nine = 0x41100000; /* 9.0f */
    float a = fabsf(u);
    int32_t bits;
    memcpy(&bits, &a, sizeof bits);
    bits = bits < nine ? bits : nine;
    memcpy(&a, &bits, sizeof a);
    float e = exp_poly(-2.0f * a);
    return copysignf((1.0f - e) / (1.0f + e), u);
}

NL_GPT2_CLONES
static void forward_cloned(float *y, const float *x, size_t n)
{
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        float th = tanh_exp(GELU_K * (x[i] + GELU_C * x[i] * x[i] * x[i]));
        y[i] = 0.5f * x[i] * (1.0f + th);
    }
}

/* d *= GELU'(x): (1 + tanh u) / 2 + x/2 (1 - tanh^2 u) k (1 + 3c x^2);
 * without tanh_term, the first half alone (the planted mistake of the
 * gradient check). */
NL_GPT2_CLONES
static void backward_cloned(float *d, const float *x, size_t n, int tanh_term)
{
    float with = tanh_term ? 1.0f : 0.0f;
#pragma omp simd
    for (size_t i = 0; i < n; i++) {
        float th = tanh_exp(GELU_K * (x[i] + GELU_C * x[i] * x[i] * x[i]));
        float local = 0.5f * (1.0f + th) +
                      with * 0.5f * x[i] * (1.0f - th * th) * GELU_K *
                          (1.0f + 3.0f * GELU_C * x[i] * x[i]);
        d[i] *= local;
    }
}

enum { BLOCK = 4096 }; /* elements a thread takes at a time */

void nl_gpt2_gelu_forward(float *y, const float *x, size_t n)
{
#pragma omp parallel for schedule(static) if (n > BLOCK)
    for (size_t i = 0; i < n; i += BLOCK)
        forward_cloned(y + i, x + i, n - i < BLOCK ? n - i : BLOCK);
}

void nl_gpt2_gelu_backward(float *d, const float *x, size_t n, int tanh_term)
{
#pragma omp parallel for schedule(static) if (n > BLOCK)
    for (size_t i = 0; i < n; i += BLOCK)
        backward_cloned(d + i, x + i, n - i < BLOCK ? n - i : BLOCK, tanh_term);
}
