/* gemm.c — the matrix products of training (chapter 13): OpenBLAS's
 * cblas_sgemm where the build found it (NL_HAVE_OPENBLAS, set by
 * mk/train.mk from pkg-config), chapter 12's blocked matmul otherwise.
 *
 * The fallback packs what the blocked matmul cannot read in place (a
 * transposed or strided operand) into a contiguous copy, O(size) against
 * the product's O(M N K), and splits the rows of C over the threads in
 * blocks of 64: a multiple of the matmul's 4-row register tile, so that
 * every row is summed in the same order for any thread count. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "gpt2/kernels.h"
#include "normlab.h"

#ifdef NL_HAVE_OPENBLAS
#include <cblas.h>

void nl_gpt2_gemm(int ta, int tb, size_t M, size_t N, size_t K, const float *A, size_t lda,
                  const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                (int)M, (int)N, (int)K, 1.0f, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
}

const char *nl_gpt2_gemm_name(void)
{
    static char name[160];
    if (!name[0])
        snprintf(name, sizeof name, "cblas_sgemm of %s", openblas_get_config());
    return name;
}

void nl_gpt2_gemm_threads(int n) { openblas_set_num_threads(n); }

int nl_gpt2_gemm_blas(void) { return 1; }

#else

enum { ROWS = 64 };

/* The copies' memory, kept from call to call on each calling thread (the
 * attention calls this once per sequence and head; a fresh allocation of
 * that size is a fresh mapping from the kernel each time).  Grown, never
 * shrunk. */
static _Thread_local nl_reused scratch;

/* op(X) as a contiguous rows x cols matrix: X itself when it already is
 * one, else a copy in `buf`. */
static const float *packed(int trans, size_t rows, size_t cols, const float *X, size_t ld,
                           float *buf)
{
    if (!trans && ld == cols)
        return X;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            buf[r * cols + c] = trans ? X[c * ld + r] : X[r * ld + c];
    return buf;
}

/* Rows [r0, r1) of C from the packed A (M x K) and B (K x N). */
static void rows_of(size_t r0, size_t r1, size_t N, size_t K, const float *a, const float *b,
                    float beta, float *C, size_t ldc, float *tmp)
{
    nl_gpt2_matmul(a + r0 * K, b, NULL, r1 - r0, K, N, tmp);
    for (size_t r = r0; r < r1; r++)
        for (size_t c = 0; c < N; c++) {
            float v = tmp[(r - r0) * N + c];
            C[r * ldc + c] = beta == 0.0f ? v : beta * C[r * ldc + c] + v;
        }
}

void nl_gpt2_gemm(int ta, int tb, size_t M, size_t N, size_t K, const float *A, size_t lda,
                  const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
    if (M == 0 || N == 0)
        return;
    int split = !omp_in_parallel() && M > ROWS;
    size_t nthreads = split ? (size_t)omp_get_max_threads() : 1;
    size_t rows = M < ROWS ? M : ROWS;
    float *buf = nl_reused_floats(&scratch, M * K + K * N + nthreads * rows * N);
    if (!buf) {
        /* no memory for the copies: say so in every element rather than
         * return a product that was never computed */
        for (size_t r = 0; r < M; r++)
            for (size_t c = 0; c < N; c++)
                C[r * ldc + c] = NAN;
        return;
    }
    const float *a = packed(ta, M, K, A, lda, buf);
    const float *b = packed(tb, K, N, B, ldb, buf + M * K);
    float *tmp = buf + M * K + K * N;
#pragma omp parallel for schedule(static) if (split)
    for (size_t r0 = 0; r0 < M; r0 += ROWS)
        rows_of(r0, r0 + ROWS < M ? r0 + ROWS : M, N, K, a, b, beta, C, ldc,
                tmp + (size_t)omp_get_thread_num() * rows * N);
}

const char *nl_gpt2_gemm_name(void)
{
    return "chapter 12's blocked matmul (no BLAS in this build)";
}

void nl_gpt2_gemm_threads(int n) { (void)n; }

int nl_gpt2_gemm_blas(void) { return 0; }

#endif
