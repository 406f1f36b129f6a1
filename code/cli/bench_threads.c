/* bench_threads.c — the cores there are and the thread count each
 * measurement runs with (OpenMP's; one without it). */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/bench.h"

int bench_cores(void)
{
#ifdef _OPENMP
    return omp_get_num_procs();
#else
    return 1;
#endif
}

void bench_set_threads(size_t t)
{
#ifdef _OPENMP
    omp_set_num_threads((int)t);
#else
    (void)t;
#endif
}

