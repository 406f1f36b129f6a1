/* kernels.h — chapter 12's float kernels for the bench rows: the norms a
 * converted GPT-2 runs (no gamma, no beta: they live in the next matrix),
 * and a cache-blocked matmul with and without FlashNorm's deferred 1/rms.
 *
 * These are plain C, vectorised by the compiler (-O3; on x86-64 cloned
 * for AVX-512F, AVX2 and the baseline and picked at load time), not
 * intrinsics and not a BLAS: the point is the norm's share of a matmul a
 * reader could write, not a race with OpenBLAS or oneDNN. */
#ifndef NL_GPT2_KERNELS_H
#define NL_GPT2_KERNELS_H

#include <stddef.h>

#if defined(__x86_64__) && !defined(NL_NO_CLONES)
#define NL_GPT2_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NL_GPT2_CLONES
#endif

/* LayerNorm with gamma and beta, two passes (mean, then variance), as the
 * original GPT-2 runs it; the same compiler-vectorised style as the two
 * below, so that the three compare like with like. */
void nl_gpt2_layernorm_c(const float *x, const float *gamma, const float *beta, float eps,
                         size_t rows, size_t d, float *y);
/* The converted model's RMSNorm: y = x / rms(x), no weight. */
void nl_gpt2_rmsnorm_c(const float *x, float eps, size_t rows, size_t d, float *y);
/* Pre-CRMSNorm: rows of `width` = channels - 1 values whose dropped last
 * value is minus their sum; the mean square is over `channels` values. */
void nl_gpt2_crmsnorm_c(const float *x, float eps, size_t rows, size_t width, size_t channels,
                        float *y);

/* y[T x n] = x[T x k] wt[k x n] + b[n] (b may be NULL); wt is the layer's
 * weight transposed (in x out), packed once, so that the inner loop runs
 * along contiguous outputs.  Blocked: 256 x 256 tiles of wt (256 KiB, in
 * L2), 4 rows x 16 outputs of y in registers. */
void nl_gpt2_matmul(const float *x, const float *wt, const float *b, size_t T, size_t k,
                    size_t n, float *y);
/* FlashNorm: y = rstd[t] (x wt)[t] + b with rstd = 1/sqrt(mean(x^2) + eps)
 * from the sum of squares taken while each block of x is in cache for the
 * matmul (no pass of its own, no normalised copy of x).  rstd: T floats of
 * scratch, left holding each row's 1/rms. */
void nl_gpt2_matmul_flashnorm(const float *x, const float *wt, const float *b, float eps,
                              size_t T, size_t k, size_t n, float *rstd, float *y);

/* The norms of training (chapter 13), one row at a time over OpenMP
 * threads: LayerNorm (ln = 1, with gamma and beta) or RMSNorm (gamma, or
 * NULL for none), keeping what the backward needs: mean (LayerNorm only)
 * and rstd per row. */
void nl_gpt2_norm_forward(int ln, const float *x, const float *gamma, const float *beta,
                          float eps, size_t rows, size_t d, float *y, float *mean, float *rstd);

/* GELU in GPT-2's tanh form over n values, and d *= its derivative (the
 * tanh's own derivative left out when tanh_term is 0: a planted mistake
 * for the gradient check); vectorised, over OpenMP threads. */
void nl_gpt2_gelu_forward(float *y, const float *x, size_t n);
void nl_gpt2_gelu_backward(float *d, const float *x, size_t n, int tanh_term);

/* C = beta C + op(A) op(B), row-major, op(A) M x K and op(B) K x N (the
 * transpose when ta, tb), as cblas_sgemm: through BLAS where the build
 * found one (gemm.c), else through nl_gpt2_matmul above, its rows split
 * over OpenMP threads in blocks of whole register tiles (each row's sums
 * then do not depend on the thread count).  Inside a parallel region it
 * runs on the calling thread. */
void nl_gpt2_gemm(int ta, int tb, size_t M, size_t N, size_t K, const float *A, size_t lda,
                  const float *B, size_t ldb, float beta, float *C, size_t ldc);
/* "cblas_sgemm of OpenBLAS 0.3.21 ..." (its configuration), or the
 * fallback's name; and whether the build has BLAS at all. */
const char *nl_gpt2_gemm_name(void);
int nl_gpt2_gemm_blas(void);
/* The threads BLAS uses outside parallel regions (OpenBLAS's own count,
 * which its OpenMP build also takes from OpenMP). */
void nl_gpt2_gemm_threads(int n);

#endif
