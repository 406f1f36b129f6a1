/* rmsnorm_rows_omp.c — the short-row kernel over OpenMP threads: one
 * contiguous block of rows per thread, through chapter 5's
 * nl_forward_omp_rows, so each core streams through its part of the array
 * in order.  Rows are far too short to split across cores.  Bits: those of
 * rmsnorm_rows_avx512 for any thread count (a row's result does not
 * depend on whether it was batched). */
#include "simd/simd.h"

#if defined(__x86_64__)
int nl_rmsnorm_rows_avx512(const float *x, const float *gamma, const float *beta,
                           float eps, size_t rows, size_t d, float *y);

int nl_rmsnorm_rows_omp(const float *x, const float *gamma, const float *beta, float eps,
                        size_t rows, size_t d, float *y)
{
    return nl_forward_omp_rows(nl_rmsnorm_rows_avx512, x, gamma, beta, eps, rows, d, y);
}
#endif
