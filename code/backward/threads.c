/* threads.c — the backward over OpenMP threads, deterministically.
 *
 * dx is per row, like the forward: any thread may compute any row.  dgamma
 * and dbeta are sums over all rows, and float addition is not associative:
 * if each thread summed its own block of rows and the blocks were then
 * added, the bits would depend on where the blocks begin, that is on the
 * thread count.  So the rows are cut into chunks of NL_BWD_CHUNK_ROWS,
 * fixed by `rows` alone; each chunk's sum goes to its own partial (whichever
 * thread computes it, in the same order), and the partials are added in
 * chunk order.  Same bits for 1, 2, 3 or 7 threads
 * (tests/check_backward_threads.c).  The partials cost 2/256 of x's
 * bytes per parameter tensor (written once, read once). */
#include <omp.h>
#include <string.h>

#include "backward/backward.h"
#include "simd/simd.h"

// @snippet bwd-add-partials
void nl_bwd_add_partials(float *dst, float *parts, size_t nparts, size_t d)
{
    /* The running sums are the first partial's own columns: each thread
     * takes a block of columns and walks down the chunks, reading each
     * chunk's piece of the block as one run of memory while the sums stay
     * in cache.  Every column is still summed in chunk order. */
    enum { COLS = 8192 }; /* 32 KiB of running sums at a time */
#pragma omp parallel if (nparts * d > 65536)
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t c0 = d * t / nt / 16 * 16, c1 = t + 1 == nt ? d : d * (t + 1) / nt / 16 * 16;
        for (size_t b0 = c0; b0 < c1; b0 += COLS) {
            size_t n = c1 - b0 < COLS ? c1 - b0 : COLS;
            float *restrict acc = parts + b0;
            for (size_t p = 1; p < nparts; p++) {
                const float *restrict src = parts + p * d + b0;
#pragma omp simd
                for (size_t i = 0; i < n; i++)
                    acc[i] += src[i];
            }
#pragma omp simd
            for (size_t i = 0; i < n; i++)
                dst[b0 + i] += acc[i];
        }
    }
}
// @end

/* The partials' memory, kept from call to call on the calling thread.
 * With 32-row chunks they were 32 MiB for a LayerNorm backward of
 * 16384 x 8192, which glibc's malloc gives as a fresh mmap every call (at
 * or above its 32 MiB mmap threshold), so every call paid 8192 page
 * faults and the kernel's zeroing of the pages: on one thread about a
 * fifth of the skew rung's time (chapter 10's lab notebook).  At 256 rows they are
 * 4 MiB, still a fresh mmap at glibc's default threshold of 128 KiB.
 * Grown, never shrunk; one buffer per thread that calls, so concurrent
 * callers do not share it. */
static _Thread_local nl_reused partials;

// @snippet bwd-chunked
int nl_bwd_chunked(nl_backward_fn fn, int fills, nl_norm norm, const float *x, const float *gamma,
                   const float *mean, const float *rstd, const float *dy, size_t rows,
                   size_t d, float *dx, float *dgamma, float *dbeta)
{
    if (rows == 0)
        return 0;
    const size_t chunks = (rows + NL_BWD_CHUNK_ROWS - 1) / NL_BWD_CHUNK_ROWS;
    const int ln = norm == NL_LAYERNORM;
    float *pg = nl_reused_floats(&partials, chunks * d * (ln ? 2 : 1));
    if (!pg)
        return NL_ENOMEM;
    float *pb = ln ? pg + chunks * d : NULL;
    int rc = 0;
    if (fills == NL_BWD_SPANS) {
        /* the chunks schedule(static) would give each thread, in one call */
#pragma omp parallel reduction(min : rc) if (chunks > 1)
        {
            size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
            size_t c0 = chunks * t / nt, c1 = chunks * (t + 1) / nt;
            size_t r0 = c0 * NL_BWD_CHUNK_ROWS, r1 = c1 * NL_BWD_CHUNK_ROWS;
            r1 = r1 < rows ? r1 : rows;
            if (c1 > c0) {
                int r = fn(x + r0 * d, gamma, ln ? mean + r0 : NULL, rstd + r0, dy + r0 * d,
                           r1 - r0, d, dx + r0 * d, pg + c0 * d, ln ? pb + c0 * d : NULL);
                rc = r < rc ? r : rc;
            }
        }
    } else {
#pragma omp parallel for schedule(static) reduction(min : rc) if (chunks > 1)
        for (size_t c = 0; c < chunks; c++) {
            size_t r0 = c * NL_BWD_CHUNK_ROWS;
            size_t n = rows - r0 < NL_BWD_CHUNK_ROWS ? rows - r0 : NL_BWD_CHUNK_ROWS;
            memset(pg + c * d, 0, d * sizeof(float));
            if (ln)
                memset(pb + c * d, 0, d * sizeof(float));
            int r = fn(x + r0 * d, gamma, ln ? mean + r0 : NULL, rstd + r0, dy + r0 * d, n, d,
                       dx + r0 * d, pg + c * d, ln ? pb + c * d : NULL);
            rc = r < rc ? r : rc;
        }
    }
    if (rc == 0) {
        nl_bwd_add_partials(dgamma, pg, chunks, d);
        if (ln)
            nl_bwd_add_partials(dbeta, pb, chunks, d);
    }
    return rc;
}
// @end

/* The plain threaded backward: the widest path's threaded stream or skew
 * rung below (the shape nl_rungs_active names, as for _best), or without
 * SIMD the fused rung on each chunk of rows. */
static nl_backward_fn filled_omp(nl_norm norm);

/* The chunked reduction over `best` without SIMD: the same chunks, so the
 * same bits for every thread count. */
#define NL_BWD_OMP(name, norm, best)                                                      \
    NL_DECLARE_BWD(name)                                                                  \
    {                                                                                     \
        nl_backward_fn fast = filled_omp(norm);                                           \
        if (fast)                                                                         \
            return fast(x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);            \
        return nl_bwd_chunked(best, 0, norm, x, gamma, mean, rstd, dy, rows, d, dx,        \
                              dgamma, dbeta);                                             \
    }
NL_BWD_OMP(layernorm_bwd_omp, NL_LAYERNORM, nl_layernorm_bwd_best)
NL_BWD_OMP(rmsnorm_bwd_omp, NL_RMSNORM, nl_rmsnorm_bwd_best)

/* The stream and skew rungs over threads: each thread's whole run of
 * chunks goes to one call, which fills their partials and carries its
 * prefetch of the next rows (or its skew) across chunk boundaries; whether
 * dx is streamed is decided for the whole call (a chunk alone may fit in
 * cache where the batch does not). */
#define NL_BWD_FILLED_OMP(name, norm, spilled, cached)                                    \
    NL_DECLARE_BWD(name)                                                                  \
    {                                                                                     \
        return nl_bwd_chunked(nl_output_spills(rows, d) ? nl_##spilled : nl_##cached,       \
                              NL_BWD_SPANS, norm, x, gamma, mean, rstd, dy, rows, d, dx,    \
                              dgamma, dbeta);                                             \
    }
/* One width's four threaded rungs, named by `stream` and `skew`. */
#define NL_BWD_FILLED_WIDTH(isa, stream, skew)                                             \
    NL_BWD_FILLED_OMP(layernorm_bwd_##stream, NL_LAYERNORM, layernorm_bwd_##isa##_span_nt,  \
                      layernorm_bwd_##isa##_span)                                         \
    NL_BWD_FILLED_OMP(rmsnorm_bwd_##stream, NL_RMSNORM, rmsnorm_bwd_##isa##_span_nt,        \
                      rmsnorm_bwd_##isa##_span)                                           \
    NL_BWD_FILLED_OMP(layernorm_bwd_##skew, NL_LAYERNORM, layernorm_bwd_##isa##_span_skew,  \
                      layernorm_bwd_##isa##_span)                                         \
    NL_BWD_FILLED_OMP(rmsnorm_bwd_##skew, NL_RMSNORM, rmsnorm_bwd_##isa##_span_skew,        \
                      rmsnorm_bwd_##isa##_span)

/* The widest path's threaded rung of the CPU's shape; NULL without SIMD. */
#define FILLED(stream, skew, norm)                                                         \
    (nl_rungs_active() == NL_RUNGS_ROW                                                     \
         ? (norm == NL_LAYERNORM ? nl_layernorm_bwd_##stream : nl_rmsnorm_bwd_##stream)    \
         : (norm == NL_LAYERNORM ? nl_layernorm_bwd_##skew : nl_rmsnorm_bwd_##skew))

#if defined(__x86_64__)
NL_BWD_FILLED_WIDTH(avx512, stream_omp, skew_omp)
NL_BWD_FILLED_WIDTH(avx2, avx2_stream_omp, avx2_skew_omp)
#elif defined(__aarch64__)
NL_BWD_FILLED_WIDTH(neon, neon_stream_omp, neon_skew_omp)
#endif

static nl_backward_fn filled_omp(nl_norm norm)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: return FILLED(stream_omp, skew_omp, norm);
    case NL_ISA_AVX2:   return FILLED(avx2_stream_omp, avx2_skew_omp, norm);
#elif defined(__aarch64__)
    case NL_ISA_NEON:   return FILLED(neon_stream_omp, neon_skew_omp, norm);
#endif
    default:            (void)norm; return NULL;
    }
}
