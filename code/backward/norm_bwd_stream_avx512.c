/* norm_bwd_stream_avx512.c — the backward at the memory roof: each byte of
 * x and dy read once from memory, dx written once, nothing else of size.
 *
 * norm_bwd_avx512.c reads x and dy twice (the row sums, then dx: the second
 * time from L2), and in its dx pass loads and stores dgamma and dbeta for
 * every row: per 16 elements 5 loads and 3 stores, dx stored as an
 * ordinary line that memory first reads (16 bytes moved for its 12).
 * This rung changes three things, each for a count chapter 10 gives:
 *
 *  - dgamma and dbeta move into the first pass.  They need only the saved
 *    mean and rstd, not the row sums, so the pass that reads x and dy from
 *    memory computes them, and the dx pass is left with x, dy and gamma.
 *  - Rows go four at a time through that first pass: a column's dgamma and
 *    dbeta are loaded and stored once per four rows, not once per row.
 *    Within a column the rows are still added one after another in row
 *    order, each with the same fma as norm_bwd_avx512.c, so dgamma and
 *    dbeta have that rung's bits exactly (tests/check_backward_grad.c).
 *  - Once the call's rows outgrow the core's L2 (nl_output_spills), dx is
 *    streamed (vmovntps: no read of the line it replaces) and the next
 *    block is asked for into L2 while this one is worked on from cache:
 *    its x during the first pass, its dy during the dx pass, so that
 *    memory has work in both passes (the dx pass also writes dx).  Asking
 *    for all of it in the dx pass left memory idle in the first pass:
 *    on a Zen 4 that schedule was the slowest of the bare patterns of
 *    `make bwd-pattern`, and splitting the asks gained the rung about a
 *    tenth of the copy (chapter 10's lab notebook, "Both passes ask").
 *
 * The skew rung (rows_skewed) goes one step further for one thread: the
 * dx pass of a block and the first pass of the next share one loop over
 * the columns, so reads from memory never pause while dx is computed.
 *
 * The span variants write dgamma/dbeta instead of adding to them (the
 * first row's fma adds to 0, the same bits as a cleared partial): the
 * threaded rungs' chunk partials need no memset. */
#include <immintrin.h>

#include "backward/backward.h"
#include "simd/avx512_util.h"
#include "simd/simd.h"

/* Compile-time knobs for trying other choices (e.g. -DNL_BWD_BLOCK_ROWS=2,
 * -DNL_BWD_PREFETCH=0): rows per block; the prefetch of the next block,
 * its hint, and whether its x is asked for in the first pass
 * (NL_BWD_PF_SPLIT=1) or with its dy in the dx pass (0, the earlier
 * schedule).  On the Xeon, with the earlier schedule, none of 2, 4 or 8
 * rows, T0 or T1, or no prefetch, stood out beyond the noise of the
 * shared VM; 8 rows looked slower. */
#ifndef NL_BWD_BLOCK_ROWS
#define NL_BWD_BLOCK_ROWS 4
#endif
enum { BLOCK = NL_BWD_BLOCK_ROWS };
/* The loops over a block's rows are unrolled (`#pragma GCC unroll`) so
 * that each row's sums stay in registers, not in a stack array. */
#ifndef NL_BWD_PREFETCH
#define NL_BWD_PREFETCH 1
#endif
#ifndef NL_BWD_PF_SPLIT
#define NL_BWD_PF_SPLIT 1
#endif
#ifndef NL_BWD_PF_HINT
#define NL_BWD_PF_HINT _MM_HINT_T1
#endif

/* Span mode (the threaded skew rung): the rows are a run of whole
 * NL_BWD_CHUNK_ROWS chunks, and dgamma/dbeta point at their partials, one
 * d-vector per chunk, each filled by its chunk's first block. */
_Static_assert(NL_BWD_CHUNK_ROWS % NL_BWD_BLOCK_ROWS == 0, "a block never straddles two chunks");
static inline float *part_of(float *base, int span, size_t r, size_t d)
{
    return span && base ? base + r / NL_BWD_CHUNK_ROWS * d : base;
}
static inline int fills_at(int span, int fill, size_t r)
{
    return span ? r % NL_BWD_CHUNK_ROWS == 0 : fill;
}

// @snippet bwd-stream-params
/* 16 columns of nr rows: the row sums' terms, and dgamma/dbeta. */
static inline __attribute__((always_inline)) void
params16(int center, int nr, int fill, const float *x, const float *gamma, const float *dy,
         size_t d, float *dgamma, float *dbeta, __mmask16 k, const __m512 *mu,
         const __m512 *rs, __m512 *sg, __m512 *sx, const float *nx, int npf)
{
    __m512 gm = _mm512_maskz_loadu_ps(k, gamma);
    __m512 dg = fill ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(k, dgamma);
    __m512 db = fill || !center ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(k, dbeta);
    #pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        if (nx && j < npf)
            _mm_prefetch((const char *)(nx + (size_t)j * d), NL_BWD_PF_HINT);
        __m512 dyv = _mm512_maskz_loadu_ps(k, dy + (size_t)j * d);
        __m512 h = _mm512_mul_ps(
            _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + (size_t)j * d), mu[j]), rs[j]);
        __m512 g = _mm512_mul_ps(gm, dyv);
        if (center) {
            sg[j] = _mm512_add_ps(sg[j], g);
            db = _mm512_add_ps(dyv, db);
        }
        sx[j] = _mm512_fmadd_ps(g, h, sx[j]);
        dg = _mm512_fmadd_ps(dyv, h, dg);
    }
    _mm512_mask_storeu_ps(dgamma, k, dg);
    if (center)
        _mm512_mask_storeu_ps(dbeta, k, db);
}

// @end

/* The first pass over nr (1..BLOCK) rows: their two row sums, and their
 * share of dgamma/dbeta (fill: the block's share is the whole value).
 * nx: the next block's x, npf of its rows to ask for meanwhile (NULL:
 * none). */
static inline __attribute__((always_inline)) void
sums_and_params(int center, int nr, int fill, const float *x, const float *gamma,
                const float *mean, const float *rstd, const float *dy, size_t d,
                float *dgamma, float *dbeta, float *mg, float *mgx, const float *nx, int npf)
{
    __m512 mu[BLOCK], rs[BLOCK], sg[BLOCK], sx[BLOCK];
    #pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        mu[j] = _mm512_set1_ps(center ? mean[j] : 0.0f);
        rs[j] = _mm512_set1_ps(rstd[j]);
        sg[j] = sx[j] = _mm512_setzero_ps();
    }
    /* The full vectors with a constant mask (the compiler drops it), the
     * tail as one masked trip. */
    size_t i = 0;
    for (; i + 16 <= d; i += 16)
        params16(center, nr, fill, x + i, gamma + i, dy + i, d, dgamma + i,
                 center ? dbeta + i : NULL, (__mmask16)0xFFFF, mu, rs, sg, sx,
                 nx ? nx + i : NULL, npf);
    if (i < d)
        params16(center, nr, fill, x + i, gamma + i, dy + i, d, dgamma + i,
                 center ? dbeta + i : NULL, nl_mask16(d - i), mu, rs, sg, sx, NULL, 0);
    const float inv_d = 1.0f / (float)d;
    #pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        mg[j] = center ? _mm512_reduce_add_ps(sg[j]) * inv_d : 0.0f;
        mgx[j] = _mm512_reduce_add_ps(sx[j]) * inv_d;
    }
}

/* dx of one row, dx = rstd (gamma dy - mean_g - (x - mean) rstd mean_gh):
 * four vector operations per 16 elements.  nx, ndy: a row of x and one of
 * dy to pull into L2 meanwhile (NULL: none). */
static inline __attribute__((always_inline)) void
row_dx(int center, int stream, const float *x, const float *gamma, float mean, float rstd,
       const float *dy, size_t d, float mgv, float mgxv, float *dx, const float *nx,
       const float *ndy)
{
    const __m512 mu = _mm512_set1_ps(center ? mean : 0.0f), rs = _mm512_set1_ps(rstd);
    const __m512 mg = _mm512_set1_ps(mgv), kx = _mm512_set1_ps(rstd * mgxv);
    size_t i = 0, head = stream ? nl_head_to_align64(dx, d) : 0;
#define DX16(k, at)                                                                     \
    _mm512_mul_ps(rs, _mm512_fnmadd_ps(                                                 \
                          _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + (at)), mu), kx, \
                          _mm512_fmsub_ps(_mm512_maskz_loadu_ps(k, gamma + (at)),        \
                                          _mm512_maskz_loadu_ps(k, dy + (at)), mg)))
    if (head)
        _mm512_mask_storeu_ps(dx, nl_mask16(head), DX16(nl_mask16(head), 0));
    for (i = head; i + 16 <= d; i += 16) {
        if (nx)
            _mm_prefetch((const char *)(nx + i), NL_BWD_PF_HINT);
        if (ndy)
            _mm_prefetch((const char *)(ndy + i), NL_BWD_PF_HINT);
        if (stream)
            _mm512_stream_ps(dx + i, DX16(0xFFFF, i));
        else
            _mm512_storeu_ps(dx + i, DX16(0xFFFF, i));
    }
    if (i < d)
        _mm512_mask_storeu_ps(dx + i, nl_mask16(d - i), DX16(nl_mask16(d - i), i));
#undef DX16
}

static inline __attribute__((always_inline)) void
block(int center, int nr, int fill, int stream, const float *x, const float *gamma,
      const float *mean, const float *rstd, const float *dy, size_t rows_left, size_t d,
      float *dx, float *dgamma, float *dbeta)
{
    float mg[BLOCK], mgx[BLOCK];
    /* The next block's rows that this block asks for: nr, or those left. */
    const int npf = rows_left <= (size_t)nr ? 0
                  : rows_left - nr < (size_t)nr ? (int)(rows_left - nr) : nr;
    const int split = NL_BWD_PREFETCH && NL_BWD_PF_SPLIT && stream && npf;
    sums_and_params(center, nr, fill, x, gamma, mean, rstd, dy, d, dgamma, dbeta, mg, mgx,
                    split ? x + (size_t)nr * d : NULL, npf);
    /* The next block starts nr rows on; the dx pass of row j < npf asks
     * for its row j: its dy, and its x too unless the first pass asked
     * for that. */
    #pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        size_t ahead = (size_t)nr + (size_t)j;
        const int pf = NL_BWD_PREFETCH && stream && j < npf;
        row_dx(center, stream, x + (size_t)j * d, gamma, center ? mean[j] : 0.0f, rstd[j],
               dy + (size_t)j * d, d, mg[j], mgx[j], dx + (size_t)j * d,
               pf && !split ? x + ahead * d : NULL, pf ? dy + ahead * d : NULL);
    }
}

/* dx of 16 columns of one row, for the skewed loop (aligned, streamed). */
static inline __attribute__((always_inline)) __m512
dx16(const float *x, const float *gamma, const float *dy, __m512 mu, __m512 rs, __m512 mg,
     __m512 kx)
{
    return _mm512_mul_ps(rs, _mm512_fnmadd_ps(_mm512_sub_ps(_mm512_load_ps(x), mu), kx,
                                              _mm512_fmsub_ps(_mm512_loadu_ps(gamma),
                                                              _mm512_load_ps(dy), mg)));
}

/* The columns of one skewed step: block r0's first pass, block p0's dx. */
static inline __attribute__((always_inline)) void
skew_trips(int center, int fill, const float *x, const float *gamma, const float *dy, size_t d,
           float *dx, float *dgamma, float *dbeta, size_t p0, size_t r0, const __m512 *mu,
           const __m512 *rs, __m512 *sg, __m512 *sx, const __m512 *pmu, const __m512 *prs,
           const __m512 *pmg, const __m512 *pkx)
{
    for (size_t i = 0; i < d; i += 16) {
        params16(center, BLOCK, fill, x + r0 * d + i, gamma + i, dy + r0 * d + i, d,
                 dgamma + i, center ? dbeta + i : NULL, (__mmask16)0xFFFF, mu, rs, sg, sx, NULL, 0);
        #pragma GCC unroll 4
        for (int j = 0; j < BLOCK; j++)
            _mm512_stream_ps(dx + (p0 + j) * d + i,
                             dx16(x + (p0 + j) * d + i, gamma + i, dy + (p0 + j) * d + i,
                                  pmu[j], prs[j], pmg[j], pkx[j]));
    }
}

// @snippet bwd-skew
/* The skew rung: the dx pass of block b-1 (from L2) and the first pass of
 * block b (from memory) in one loop over the columns, so that every trip
 * asks memory for new lines while it writes old ones: one thread's two
 * passes overlap instead of taking turns.  Needs every row 64-byte
 * aligned (d % 16 == 0, dx aligned); rows past the last full block go
 * through block(). */
static inline __attribute__((always_inline)) size_t
rows_skewed(int center, int fill, int span, const float *x, const float *gamma,
            const float *mean, const float *rstd, const float *dy, size_t rows, size_t d,
            float *dx, float *dgamma, float *dbeta)
{
    const size_t nb = rows / BLOCK;
    __m512 pmu[BLOCK], prs[BLOCK], pmg[BLOCK], pkx[BLOCK];
    float mg[BLOCK], mgx[BLOCK];
    sums_and_params(center, BLOCK, fills_at(span, fill, 0), x, gamma, mean, rstd, dy, d,
                    dgamma, dbeta, mg, mgx, NULL, 0);
    for (size_t b = 1; b <= nb; b++) {
        const size_t p0 = (b - 1) * BLOCK, r0 = b * BLOCK;
        #pragma GCC unroll 4
        for (int j = 0; j < BLOCK; j++) {
            pmu[j] = _mm512_set1_ps(center ? mean[p0 + j] : 0.0f);
            prs[j] = _mm512_set1_ps(rstd[p0 + j]);
            pmg[j] = _mm512_set1_ps(mg[j]);
            pkx[j] = _mm512_set1_ps(rstd[p0 + j] * mgx[j]);
        }
        if (b == nb) { /* the last block's dx alone */
            for (size_t i = 0; i < d; i += 16)
                #pragma GCC unroll 4
                for (int j = 0; j < BLOCK; j++)
                    _mm512_stream_ps(dx + (p0 + j) * d + i,
                                     dx16(x + (p0 + j) * d + i, gamma + i, dy + (p0 + j) * d + i,
                                          pmu[j], prs[j], pmg[j], pkx[j]));
            break;
        }
        __m512 mu[BLOCK], rs[BLOCK], sg[BLOCK], sx[BLOCK];
        #pragma GCC unroll 4
        for (int j = 0; j < BLOCK; j++) {
            mu[j] = _mm512_set1_ps(center ? mean[r0 + j] : 0.0f);
            rs[j] = _mm512_set1_ps(rstd[r0 + j]);
            sg[j] = sx[j] = _mm512_setzero_ps();
        }
        float *pg = part_of(dgamma, span, r0, d), *pb = part_of(dbeta, span, r0, d);
        if (fills_at(span, 0, r0))
            skew_trips(center, 1, x, gamma, dy, d, dx, pg, pb, p0, r0, mu, rs, sg, sx, pmu, prs,
                       pmg, pkx);
        else
            skew_trips(center, 0, x, gamma, dy, d, dx, pg, pb, p0, r0, mu, rs, sg, sx, pmu, prs,
                       pmg, pkx);
        const float inv_d = 1.0f / (float)d;
        #pragma GCC unroll 4
        for (int j = 0; j < BLOCK; j++) {
            mg[j] = center ? _mm512_reduce_add_ps(sg[j]) * inv_d : 0.0f;
            mgx[j] = _mm512_reduce_add_ps(sx[j]) * inv_d;
        }
    }
    return nb * BLOCK;
}
// @end

/* stream: 0 ordinary stores; 1 streamed, next block prefetched; 2 the
 * skewed loop where it applies, else as 1. */
static inline __attribute__((always_inline)) void
rows_all(int center, int fill, int stream, int span, const float *x, const float *gamma,
         const float *mean, const float *rstd, const float *dy, size_t rows, size_t d,
         float *dx, float *dgamma, float *dbeta)
{
    size_t r = 0;
    if (stream == 2 && d % 16 == 0 && ((uintptr_t)dx & 63) == 0 && ((uintptr_t)x & 63) == 0 &&
        ((uintptr_t)dy & 63) == 0 && rows >= BLOCK) {
        r = rows_skewed(center, fill, span, x, gamma, mean, rstd, dy, rows, d, dx, dgamma,
                        dbeta);
        fill = 0;
    }
    for (; r + BLOCK <= rows; r += BLOCK, fill = 0)
        block(center, BLOCK, fills_at(span, fill, r), stream != 0, x + r * d, gamma,
              center ? mean + r : NULL, rstd + r, dy + r * d, rows - r, d, dx + r * d,
              part_of(dgamma, span, r, d), part_of(dbeta, span, r, d));
    for (; r < rows; r++, fill = 0)
        block(center, 1, fills_at(span, fill, r), stream != 0, x + r * d, gamma,
              center ? mean + r : NULL, rstd + r, dy + r * d, rows - r, d, dx + r * d,
              part_of(dgamma, span, r, d), part_of(dbeta, span, r, d));
    if (stream)
        _mm_sfence(); /* streamed lines are visible before we return */
}

/* One entry point per norm, fill (write dgamma/dbeta, do not add), stream
 * and span (a run of whole chunks, dgamma/dbeta their partials: the
 * threaded rungs, whose next-block prefetch and skew then carry across
 * chunk boundaries). */
#define NL_BWD_SPAN_ENTRY(name, center, fill, stream, span)                            \
    NL_DECLARE_BWD(name)                                                               \
    {                                                                                  \
        rows_all(center, fill, stream, span, x, gamma, center ? mean : NULL, rstd, dy,   \
                 rows, d, dx, dgamma, center ? dbeta : NULL);                          \
        return 0;                                                                      \
    }
#define NL_BWD_STREAM_ENTRY(name, center, fill, stream) \
    NL_BWD_SPAN_ENTRY(name, center, fill, stream, 0)
static NL_BWD_STREAM_ENTRY(layernorm_bwd_avx512_add, 1, 0, 0)
static NL_BWD_STREAM_ENTRY(rmsnorm_bwd_avx512_add, 0, 0, 0)
static NL_BWD_STREAM_ENTRY(layernorm_bwd_avx512_add_nt, 1, 0, 1)
static NL_BWD_STREAM_ENTRY(rmsnorm_bwd_avx512_add_nt, 0, 0, 1)
static NL_BWD_STREAM_ENTRY(layernorm_bwd_avx512_add_skew, 1, 0, 2)
static NL_BWD_STREAM_ENTRY(rmsnorm_bwd_avx512_add_skew, 0, 0, 2)
NL_BWD_SPAN_ENTRY(layernorm_bwd_avx512_span, 1, 1, 0, 1)
NL_BWD_SPAN_ENTRY(rmsnorm_bwd_avx512_span, 0, 1, 0, 1)
NL_BWD_SPAN_ENTRY(layernorm_bwd_avx512_span_nt, 1, 1, 1, 1)
NL_BWD_SPAN_ENTRY(rmsnorm_bwd_avx512_span_nt, 0, 1, 1, 1)
NL_BWD_SPAN_ENTRY(layernorm_bwd_avx512_span_skew, 1, 1, 2, 1)
NL_BWD_SPAN_ENTRY(rmsnorm_bwd_avx512_span_skew, 0, 1, 2, 1)

/* Streaming pays once x and dx outgrow the core's L2 (chapter 6's rule). */
#define NL_BWD_BY_SIZE(name, spilled, cached)                                           \
    NL_DECLARE_BWD(name)                                                                \
    {                                                                                   \
        return (nl_output_spills(rows, d) ? nl_##spilled : nl_##cached)(              \
            x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);                      \
    }
NL_BWD_BY_SIZE(layernorm_bwd_avx512_stream, layernorm_bwd_avx512_add_nt, layernorm_bwd_avx512_add)
NL_BWD_BY_SIZE(rmsnorm_bwd_avx512_stream, rmsnorm_bwd_avx512_add_nt, rmsnorm_bwd_avx512_add)

NL_BWD_BY_SIZE(layernorm_bwd_avx512_skew, layernorm_bwd_avx512_add_skew, layernorm_bwd_avx512_add)
NL_BWD_BY_SIZE(rmsnorm_bwd_avx512_skew, rmsnorm_bwd_avx512_add_skew, rmsnorm_bwd_avx512_add)
