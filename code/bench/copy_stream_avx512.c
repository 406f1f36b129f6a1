/* copy_stream_avx512.c — the fastest copy we know how to write, so that the
 * roof is never lower than what a norm kernel can reach.
 *
 * The _pf norm kernels stream their output (no read-for-ownership of the
 * destination) and prefetch the next row's input into L2 while they write.
 * A roof without those two tricks is a lower bar than the kernels it
 * measures (chapter 6's lab notebook: a norm once beat it).  So this copy streams whole
 * 64-byte lines and prefetches 16 KiB ahead (the distance a sweep chose,
 * chapter 6's lab notebook). */
#include "bench/bench.h"

#include <immintrin.h>
#include <stdint.h>

enum { PREFETCH_AHEAD = 4096 }; /* floats: 16 KiB */

void nl_copy_stream_avx512(const float *restrict src, float *restrict dst, size_t n)
{
    size_t i = 0;
    /* Streaming stores of a whole register need a 64-byte aligned target. */
    while (i < n && ((uintptr_t)(dst + i) & 63u))
        dst[i] = src[i], i++;
    for (; i + 16 <= n; i += 16) {
        /* Past the end is harmless: a prefetch never faults. */
        _mm_prefetch((const char *)(src + i + PREFETCH_AHEAD), _MM_HINT_T1);
        _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
    }
    for (; i < n; i++)
        dst[i] = src[i];
    _mm_sfence();
}
