/* threads.c — the best kernels over OpenMP threads, one contiguous block
 * of rows per thread (nl_row_block, partition.c).
 *
 * Rows are independent, and each is computed by the same single-threaded
 * code whichever thread owns it, so the output is bit-identical for every
 * thread count (tests/check_threads.c).  The thread count is OpenMP's:
 * omp_set_num_threads() or OMP_NUM_THREADS, as `normlab bench` sets it.
 * The path (AVX-512, AVX2, ...) and streaming are chosen per block.
 * Numerics: exactly those of the wrapped kernel (tol 1e-5, |x| ~ 1e20
 * handled), bit for bit. */
#include <omp.h>

#include "simd/simd.h"

// @snippet thread-omp-rows
int nl_forward_omp_rows(nl_forward_fn fn, const float *x, const float *gamma,
                       const float *beta, float eps, size_t rows, size_t d, float *y)
{
    int rc = 0;
#pragma omp parallel if (rows > 1) reduction(min : rc)
    {
        size_t begin, end;
        nl_row_block(rows, (size_t)omp_get_num_threads(),
                     (size_t)omp_get_thread_num(), &begin, &end);
        if (end > begin)
            rc = fn(x + begin * d, gamma, beta, eps, end - begin, d, y + begin * d);
    }
    return rc;
}
// @end

/* Each thread runs the dispatcher on its own block: whether to stream is
 * a question about the rows one core touches (nl_output_spills), and the
 * streamed and ordinary kernels give the same bits, so the answer cannot
 * make results depend on the thread count. */
int nl_layernorm_omp(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    return nl_forward_omp_rows(nl_layernorm_best, x, gamma, beta, eps, rows, d, y);
}

int nl_rmsnorm_omp(const float *x, const float *gamma, const float *beta,
                   float eps, size_t rows, size_t d, float *y)
{
    return nl_forward_omp_rows(nl_rmsnorm_best, x, gamma, beta, eps, rows, d, y);
}

#if defined(__x86_64__)
/* Streaming stores pay off, if anywhere, when many cores together write
 * far more than the last-level cache holds: hence threaded variants. */
int nl_layernorm_avx512_nt_omp(const float *x, const float *gamma, const float *beta,
                               float eps, size_t rows, size_t d, float *y)
{
    return nl_forward_omp_rows(nl_layernorm_avx512_nt, x, gamma, beta, eps, rows, d, y);
}

int nl_rmsnorm_avx512_nt_omp(const float *x, const float *gamma, const float *beta,
                             float eps, size_t rows, size_t d, float *y)
{
    return nl_forward_omp_rows(nl_rmsnorm_avx512_nt, x, gamma, beta, eps, rows, d, y);
}
#endif
