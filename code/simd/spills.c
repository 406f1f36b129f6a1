/* spills.c — whether a call's rows outgrow the core's own cache: the one
 * question every streaming-store kernel asks (the dispatcher, the shifted
 * LayerNorm, the half-precision and backward rungs), in a file of its own
 * so that a kernel asking it does not depend on the dispatcher that picks
 * kernels. */
#include <unistd.h>

#include "simd/simd.h"

/* Streaming stores and the next-row prefetch (the *_pf kernels) win once a
 * call's rows no longer fit in the core's own cache, and lose while they
 * do (the next reader misses).  The test is therefore the bytes one call
 * touches, input and output, against the per-core L2, not the last-level
 * cache, which a virtual machine may report at any size; a thread of the
 * _omp kernels asks it for its own block of rows.  Chapter 6 shows the
 * measurements behind the rule; exercise 16 is this function's body. */
// @snippet output-spills
int nl_output_spills(size_t rows, size_t d)
{
    // @exercise 16-output-spills
    static long l2; /* 0: not asked yet; the same answer for every thread */
    long c = __atomic_load_n(&l2, __ATOMIC_RELAXED);
    if (c == 0) {
        c = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (c <= 0)
            c = 1L << 20; /* unknown: assume a small L2 */
        __atomic_store_n(&l2, c, __ATOMIC_RELAXED);
    }
    return rows * d * 2 * sizeof(float) > (size_t)c;
    // @stub (void)rows, (void)d;
    // @stub return 0;
    // @end
}
// @end
