/* rmsnorm_rows_omp.c — the short-row kernel over OpenMP threads: one
 * contiguous block of rows per thread (nl_row_block), as chapter 5's
 * threads.c does, so each core streams through its part of the array in
 * order.  Rows are far too short to split across cores.  Bits: those of
 * rmsnorm_rows_avx512 for any thread count (a row's result does not
 * depend on whether it was batched). */
#include <omp.h>

#include "simd/simd.h"

#if defined(__x86_64__)
int nl_rmsnorm_rows_avx512(const float *x, const float *gamma, const float *beta,
                           float eps, size_t rows, size_t d, float *y);

int nl_rmsnorm_rows_omp(const float *x, const float *gamma, const float *beta, float eps,
                        size_t rows, size_t d, float *y)
{
    int rc = 0;
#pragma omp parallel if (rows > 1) reduction(min : rc)
    {
        size_t begin, end;
        nl_row_block(rows, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(),
                     &begin, &end);
        if (end > begin)
            rc = nl_rmsnorm_rows_avx512(x + begin * d, gamma, beta, eps, end - begin, d,
                                        y + begin * d);
    }
    return rc;
}
#endif
