/* copy_kernel.c — the roof every norm is measured against.
 *
 * A forward norm at LLM sizes does a handful of flops per float and moves
 * 8 bytes per element (4 in, 4 out), so its speed limit is how fast the
 * machine can move those bytes: a copy of the same array on the same
 * threads.  There is more than one way to copy, and they differ, so the
 * bench measures three and takes the fastest as the roof. */
#include "bench/bench.h"

#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__x86_64__)
#include <immintrin.h> /* SSE2 only: part of the x86-64 baseline, no -m flag needed */
#endif

const char *nl_copy_name(nl_copy_kind kind)
{
    static const char *const names[NL_COPY_KINDS] = {"memcpy", "loop", "stream"};
    return (unsigned)kind < NL_COPY_KINDS ? names[kind] : "?";
}

/* Each thread's slice starts on a 16-float (64-byte) boundary, so no two
 * threads write the same cache line and the streaming stores stay aligned
 * whenever the arrays are. */
static void slice(size_t n, int t, int nt, size_t *lo, size_t *hi)
{
    size_t lines = (n + 15) / 16;
    size_t a = lines * (size_t)t / (size_t)nt * 16;
    size_t b = lines * (size_t)(t + 1) / (size_t)nt * 16;
    *lo = a < n ? a : n;
    *hi = b < n ? b : n;
}

// @snippet copy-loop
static void copy_loop(const float *restrict src, float *restrict dst, size_t n)
{
    /* Plain stores: the cache fetches each destination line before it is
     * overwritten (write-allocate), just as it does for a norm's output.
     * mk/bench.mk builds this file with -fno-builtin, or the compiler
     * would turn the loop back into a call to memcpy. */
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}
// @end

static void copy_stream(const float *restrict src, float *restrict dst, size_t n)
{
#if defined(__x86_64__)
    size_t i = 0;
    /* Non-temporal stores need 16-byte alignment; the head is copied plainly. */
    while (i < n && ((uintptr_t)(dst + i) & 15u))
        dst[i] = src[i], i++;
    /* Prefetching 16 KiB ahead keeps reads in flight while the stores
     * stream, as the _pf norm kernels do (see copy_stream_avx512.c). */
    for (; i + 4 <= n; i += 4) {
        if ((i & 15u) == 0)
            _mm_prefetch((const char *)(src + i + 4096), _MM_HINT_T1);
        _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
    }
    for (; i < n; i++)
        dst[i] = src[i];
    /* Streaming stores are weakly ordered: fence so the copy is complete
     * (and visible to other threads) when the timer stops. */
    _mm_sfence();
#else
    copy_loop(src, dst, n);
#endif
}

void nl_copy(nl_copy_kind kind, const float *src, float *dst, size_t n)
{
#pragma omp parallel
    {
        int nt = 1, t = 0;
#ifdef _OPENMP
        nt = omp_get_num_threads();
        t = omp_get_thread_num();
#endif
        size_t lo, hi;
        slice(n, t, nt, &lo, &hi);
        if (hi > lo) {
            switch (kind) {
            case NL_COPY_MEMCPY: memcpy(dst + lo, src + lo, (hi - lo) * sizeof *src); break;
            case NL_COPY_LOOP:   copy_loop(src + lo, dst + lo, hi - lo); break;
            default:
#if defined(__x86_64__)
                if (__builtin_cpu_supports("avx512f")) {
                    nl_copy_stream_avx512(src + lo, dst + lo, hi - lo);
                    break;
                }
#endif
                copy_stream(src + lo, dst + lo, hi - lo);
                break;
            }
        }
    }
}
