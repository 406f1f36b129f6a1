/* bwd_rungs.h — the backward's SIMD rungs (chapter 10), written once over
 * the vector layer (code/simd/vec.h) and compiled at each width by
 * norm_bwd_avx2.c, norm_bwd_avx512.c and norm_bwd_neon.c.  W below is the
 * instance's width (NL_VISA):
 *
 *   <norm>_bwd_W         two passes a row: the row sums, then dx and the
 *                        row's share of dgamma/dbeta, masked tails
 *   <norm>_bwd_W_stream  the backward at the memory roof (below)
 *   <norm>_bwd_W_skew    the stream rung with the dx pass of one block
 *                        and the first pass of the next in one loop
 * and the span entries the threaded rungs (threads.c) run over a
 * thread's run of chunks.
 *
 * One body for both norms: RMSNorm is LayerNorm with mean 0, without the
 * mean(g) term and without dbeta; `center` is a constant at each call, so
 * the compiler makes two loops with nothing of the other norm in them.
 * Both written in x-hat form, dx = rstd * (g - mean(g) - x-hat * mean(g *
 * x-hat)); for RMSNorm x-hat * mean(g * x-hat) = rstd^2 * x * mean(g * x),
 * the same coupling term as rmsnorm_bwd_fused's.
 *
 * The stream rung: the first rung reads x and dy twice (the row sums, then
 * dx: the second time from L2), and in its dx pass loads and stores dgamma
 * and dbeta for every row: per vector 5 loads and 3 stores, dx stored as
 * an ordinary line that memory first reads (16 bytes moved for its 12).
 * The stream rung changes three things, each for a count chapter 10 gives:
 *
 *  - dgamma and dbeta move into the first pass.  They need only the saved
 *    mean and rstd, not the row sums, so the pass that reads x and dy from
 *    memory computes them, and the dx pass is left with x, dy and gamma.
 *  - Rows go four at a time through that first pass: a column's dgamma and
 *    dbeta are loaded and stored once per four rows, not once per row.
 *    Within a column the rows are still added one after another in row
 *    order, each with the same fma as the first rung, so dgamma and dbeta
 *    have that rung's bits exactly (tests/check_backward_grad.c).
 *  - Once the call's rows outgrow the core's L2 (nl_output_spills), dx is
 *    streamed (no read of the line it replaces) and the next block is
 *    asked for into L2 while this one is worked on from cache: its x
 *    during the first pass, its dy during the dx pass, so that memory has
 *    work in both passes (the dx pass also writes dx).  Asking for all of
 *    it in the dx pass left memory idle in the first pass: on a Zen 4 that
 *    schedule was the slowest of the bare patterns of `make bwd-pattern`,
 *    and splitting the asks gained the AVX-512 rung about a tenth of the
 *    copy (chapter 10, "Both passes ask").
 *
 * The skew rung (rows_skewed) goes one step further for one thread: the
 * dx pass of a block and the first pass of the next share one loop over
 * the columns, so reads from memory never pause while dx is computed.
 *
 * The span variants write dgamma/dbeta instead of adding to them (the
 * first row's fma adds to 0, the same bits as a cleared partial): the
 * threaded rungs' chunk partials need no memset. */
#ifndef NL_BWD_RUNGS_H
#define NL_BWD_RUNGS_H

#include "backward/backward.h"
#include "simd/simd.h"

/* ---- the first rung: two passes a row ---- */

static inline __attribute__((always_inline)) void
bwd_rows(int center, const float *x, const float *gamma, const float *mean,
         const float *rstd, const float *dy, size_t rows, size_t d, float *dx,
         float *dgamma, float *dbeta)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        float *dxr = dx + r * d;
        const vf mu = vf_set1(center ? mean[r] : 0.0f);
        const vf rs = vf_set1(rstd[r]);
        vf sg0 = vf_zero(), sg1 = sg0, sx0 = sg0, sx1 = sg0;
        size_t i = 0;
        for (; i + 2 * VW <= d; i += 2 * VW) {
            vf g0 = vf_mul(vf_load(gamma + i), vf_load(dyr + i));
            vf g1 = vf_mul(vf_load(gamma + i + VW), vf_load(dyr + i + VW));
            vf h0 = vf_mul(vf_sub(vf_load(xr + i), mu), rs);
            vf h1 = vf_mul(vf_sub(vf_load(xr + i + VW), mu), rs);
            if (center) {
                sg0 = vf_add(sg0, g0);
                sg1 = vf_add(sg1, g1);
            }
            sx0 = vf_fma(g0, h0, sx0);
            sx1 = vf_fma(g1, h1, sx1);
        }
        for (; i < d; i += VW) { /* masked lanes: g = h = 0, adding nothing */
            vmask k = d - i >= VW ? vm_all() : vm_first(d - i);
            vf g = vf_mul(vf_load_first(k, gamma + i), vf_load_first(k, dyr + i));
            vf h = vf_mul(vf_sub_first(k, vf_load_first(k, xr + i), mu), rs);
            if (center)
                sg0 = vf_add(sg0, g);
            sx0 = vf_fma(g, h, sx0);
        }
        const float inv_d = 1.0f / (float)d;
        const vf mg = vf_set1(center ? vf_sum(vf_add(sg0, sg1)) * inv_d : 0.0f);
        const vf mgx = vf_set1(vf_sum(vf_add(sx0, sx1)) * inv_d);
        for (i = 0; i < d; i += VW) {
            vmask k = d - i >= VW ? vm_all() : vm_first(d - i);
            vf dyv = vf_load_first(k, dyr + i);
            vf g = vf_mul(vf_load_first(k, gamma + i), dyv);
            vf h = vf_mul(vf_sub(vf_load_first(k, xr + i), mu), rs);
            /* rstd * (g - mean_g - h * mean_gh) */
            vf t = vf_fnma(h, mgx, vf_sub(g, mg));
            vf_store_first(k, dxr + i, vf_mul(rs, t));
            vf_store_first(k, dgamma + i, vf_fma(dyv, h, vf_load_first(k, dgamma + i)));
            if (center)
                vf_store_first(k, dbeta + i, vf_add(dyv, vf_load_first(k, dbeta + i)));
        }
    }
}

NL_BWD_FN(NL_VNAME(layernorm_bwd_, ))
{
    bwd_rows(1, x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);
    return 0;
}

NL_BWD_FN(NL_VNAME(rmsnorm_bwd_, ))
{
    (void)mean;
    (void)dbeta;
    bwd_rows(0, x, gamma, NULL, rstd, dy, rows, d, dx, dgamma, NULL);
    return 0;
}

/* ---- the stream and skew rungs ---- */

/* Compile-time knobs for trying other choices (e.g. -DNL_BWD_BLOCK_ROWS=2,
 * -DNL_BWD_PREFETCH=0): rows per block; the prefetch of the next block,
 * and whether its x is asked for in the first pass (NL_BWD_PF_SPLIT=1) or
 * with its dy in the dx pass (0, the earlier schedule).  On the Xeon,
 * with the earlier schedule, none of 2, 4 or 8 rows, prefetching into L1
 * or L2, or no prefetch, stood out beyond the run-to-run noise; 8
 * rows looked slower. */
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

/* Span mode (the threaded rungs): the rows are a run of whole
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
/* One vector of columns of nr rows (`full`: all VW lanes, else the lanes
 * of k; where masks are free, the masked path with k all lanes, which
 * keeps the AVX-512 rung's register use): the row sums' terms, and
 * dgamma/dbeta.  nx: the next block's x,
 * whose rows j < npf are asked for meanwhile (NULL: none). */
static inline __attribute__((always_inline)) void
params(int center, int nr, int fill, int full, const float *x, const float *gamma,
       const float *dy, size_t d, float *dgamma, float *dbeta, vmask k, const vf *mu,
       const vf *rs, vf *sg, vf *sx, const float *nx, int npf)
{
    full = full && !VF_MASKS_FREE;
    vf gm = full ? vf_load(gamma) : vf_load_first(k, gamma);
    vf dg = fill ? vf_zero() : full ? vf_load(dgamma) : vf_load_first(k, dgamma);
    vf db = fill || !center ? vf_zero() : full ? vf_load(dbeta) : vf_load_first(k, dbeta);
    #pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        if (nx && j < npf)
            vf_ask_l2(nx + (size_t)j * d);
        const float *xj = x + (size_t)j * d, *dyj = dy + (size_t)j * d;
        vf dyv = full ? vf_load(dyj) : vf_load_first(k, dyj);
        vf h = vf_mul(full ? vf_sub(vf_load(xj), mu[j]) : vf_sub_first(k, vf_load_first(k, xj), mu[j]),
                      rs[j]);
        vf g = vf_mul(gm, dyv);
        if (center) {
            sg[j] = vf_add(sg[j], g);
            db = vf_add(dyv, db);
        }
        sx[j] = vf_fma(g, h, sx[j]);
        dg = vf_fma(dyv, h, dg);
    }
    if (full) {
        vf_store(dgamma, dg);
        if (center)
            vf_store(dbeta, db);
    } else {
        vf_store_first(k, dgamma, dg);
        if (center)
            vf_store_first(k, dbeta, db);
    }
}

// @end

/* The first pass over nr (1..BLOCK) rows: their two row sums, and their
 * share of dgamma/dbeta (fill: the block's share is the whole value).
 * nx: the next block's x, npf of its rows to ask for meanwhile, a line
 * of each per line of columns (NULL: none). */
static inline __attribute__((always_inline)) void
sums_and_params(int center, int nr, int fill, const float *x, const float *gamma,
                const float *mean, const float *rstd, const float *dy, size_t d,
                float *dgamma, float *dbeta, float *mg, float *mgx, const float *nx, int npf)
{
    vf mu[BLOCK], rs[BLOCK], sg[BLOCK], sx[BLOCK];
    #pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        mu[j] = vf_set1(center ? mean[j] : 0.0f);
        rs[j] = vf_set1(rstd[j]);
        sg[j] = sx[j] = vf_zero();
    }
    /* Whole lines first, each asking for the next block's line under it;
     * then whole vectors, then the tail as one masked trip. */
    const vmask all = vm_all();
    size_t i = 0;
    for (; i + NL_LINE_FLOATS <= d; i += NL_LINE_FLOATS)
        for (size_t o = 0; o < NL_LINE_FLOATS; o += VW)
            params(center, nr, fill, 1, x + i + o, gamma + i + o, dy + i + o, d, dgamma + i + o,
                   center ? dbeta + i + o : NULL, all, mu, rs, sg, sx,
                   nx && o == 0 ? nx + i : NULL, npf);
    for (; i + VW <= d; i += VW)
        params(center, nr, fill, 1, x + i, gamma + i, dy + i, d, dgamma + i,
               center ? dbeta + i : NULL, all, mu, rs, sg, sx, NULL, 0);
    if (i < d)
        params(center, nr, fill, 0, x + i, gamma + i, dy + i, d, dgamma + i,
               center ? dbeta + i : NULL, vm_first(d - i), mu, rs, sg, sx, NULL, 0);
    const float inv_d = 1.0f / (float)d;
    #pragma GCC unroll 4
    for (int j = 0; j < nr; j++) {
        mg[j] = center ? vf_sum(sg[j]) * inv_d : 0.0f;
        mgx[j] = vf_sum(sx[j]) * inv_d;
    }
}

/* dx of one vector of a row, rstd (gamma dy - mean_g - (x - mean) kx) with
 * kx = rstd mean_gh: four vector operations. */
static inline vf dx_full(const float *x, const float *gamma, const float *dy, vf mu, vf rs,
                         vf mg, vf kx)
{
    return vf_mul(rs, vf_fnma(vf_sub(vf_load(x), mu), kx, vf_fms(vf_load(gamma), vf_load(dy), mg)));
}

static inline vf dx_first(vmask k, const float *x, const float *gamma, const float *dy, vf mu,
                          vf rs, vf mg, vf kx)
{
    return vf_mul(rs, vf_fnma(vf_sub_first(k, vf_load_first(k, x), mu), kx,
                              vf_fms(vf_load_first(k, gamma), vf_load_first(k, dy), mg)));
}

/* dx of one row; nx, ndy: a row of x and one of dy to pull into L2
 * meanwhile, a line of each per line written (NULL: none). */
static inline __attribute__((always_inline)) void
row_dx(int center, int stream, const float *x, const float *gamma, float mean, float rstd,
       const float *dy, size_t d, float mgv, float mgxv, float *dx, const float *nx,
       const float *ndy)
{
    const vf mu = vf_set1(center ? mean : 0.0f), rs = vf_set1(rstd);
    const vf mg = vf_set1(mgv), kx = vf_set1(rstd * mgxv);
    size_t i = 0, head = stream ? nl_head_to_align64(dx, d) : 0;
    for (; i < head; i += VW) {
        vmask k = head - i >= VW ? vm_all() : vm_first(head - i);
        vf_store_first(k, dx + i, dx_first(k, x + i, gamma + i, dy + i, mu, rs, mg, kx));
    }
    for (i = head; i + NL_LINE_FLOATS <= d; i += NL_LINE_FLOATS) {
        if (nx)
            vf_ask_l2(nx + i);
        if (ndy)
            vf_ask_l2(ndy + i);
        #pragma GCC unroll 4
        for (size_t o = 0; o < NL_LINE_FLOATS; o += VW) {
            vf v = dx_full(x + i + o, gamma + i + o, dy + i + o, mu, rs, mg, kx);
            if (stream)
                vf_stream(dx + i + o, v);
            else
                vf_store(dx + i + o, v);
        }
    }
    for (; i + VW <= d; i += VW) /* less than a line left */
        vf_store(dx + i, dx_full(x + i, gamma + i, dy + i, mu, rs, mg, kx));
    if (i < d) {
        vmask k = vm_first(d - i);
        vf_store_first(k, dx + i, dx_first(k, x + i, gamma + i, dy + i, mu, rs, mg, kx));
    }
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

/* dx of one vector of one row, for the skewed loop (aligned, streamed). */
static inline __attribute__((always_inline)) vf
dx_aligned(const float *x, const float *gamma, const float *dy, vf mu, vf rs, vf mg, vf kx)
{
    return vf_mul(rs, vf_fnma(vf_sub(vf_load_al(x), mu), kx,
                              vf_fms(vf_load(gamma), vf_load_al(dy), mg)));
}

/* The columns of one skewed step: block r0's first pass, block p0's dx. */
static inline __attribute__((always_inline)) void
skew_trips(int center, int fill, const float *x, const float *gamma, const float *dy, size_t d,
           float *dx, float *dgamma, float *dbeta, size_t p0, size_t r0, const vf *mu,
           const vf *rs, vf *sg, vf *sx, const vf *pmu, const vf *prs, const vf *pmg,
           const vf *pkx)
{
    for (size_t i = 0; i < d; i += VW) {
        params(center, BLOCK, fill, 1, x + r0 * d + i, gamma + i, dy + r0 * d + i, d,
               dgamma + i, center ? dbeta + i : NULL, vm_all(), mu, rs, sg, sx, NULL, 0);
        #pragma GCC unroll 4
        for (int j = 0; j < BLOCK; j++)
            vf_stream(dx + (p0 + j) * d + i,
                      dx_aligned(x + (p0 + j) * d + i, gamma + i, dy + (p0 + j) * d + i,
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
    vf pmu[BLOCK], prs[BLOCK], pmg[BLOCK], pkx[BLOCK];
    float mg[BLOCK], mgx[BLOCK];
    sums_and_params(center, BLOCK, fills_at(span, fill, 0), x, gamma, mean, rstd, dy, d,
                    dgamma, dbeta, mg, mgx, NULL, 0);
    for (size_t b = 1; b <= nb; b++) {
        const size_t p0 = (b - 1) * BLOCK, r0 = b * BLOCK;
        #pragma GCC unroll 4
        for (int j = 0; j < BLOCK; j++) {
            pmu[j] = vf_set1(center ? mean[p0 + j] : 0.0f);
            prs[j] = vf_set1(rstd[p0 + j]);
            pmg[j] = vf_set1(mg[j]);
            pkx[j] = vf_set1(rstd[p0 + j] * mgx[j]);
        }
        if (b == nb) { /* the last block's dx alone */
            for (size_t i = 0; i < d; i += VW)
                #pragma GCC unroll 4
                for (int j = 0; j < BLOCK; j++)
                    vf_stream(dx + (p0 + j) * d + i,
                              dx_aligned(x + (p0 + j) * d + i, gamma + i, dy + (p0 + j) * d + i,
                                         pmu[j], prs[j], pmg[j], pkx[j]));
            break;
        }
        vf mu[BLOCK], rs[BLOCK], sg[BLOCK], sx[BLOCK];
        #pragma GCC unroll 4
        for (int j = 0; j < BLOCK; j++) {
            mu[j] = vf_set1(center ? mean[r0 + j] : 0.0f);
            rs[j] = vf_set1(rstd[r0 + j]);
            sg[j] = sx[j] = vf_zero();
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
            mg[j] = center ? vf_sum(sg[j]) * inv_d : 0.0f;
            mgx[j] = vf_sum(sx[j]) * inv_d;
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
    if (stream == 2 && d % NL_LINE_FLOATS == 0 && ((uintptr_t)dx & 63) == 0 &&
        ((uintptr_t)x & 63) == 0 && ((uintptr_t)dy & 63) == 0 && rows >= BLOCK) {
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
        vf_streams_done(); /* streamed lines are visible before we return */
}

/* One entry point per norm, fill (write dgamma/dbeta, do not add), stream
 * and span (a run of whole chunks, dgamma/dbeta their partials: the
 * threaded rungs, whose next-block prefetch and skew then carry across
 * chunk boundaries). */
#define NL_BWD_SPAN_ENTRY(fn, center, fill, stream, span)                              \
    NL_BWD_FN(fn)                                                                      \
    {                                                                                  \
        rows_all(center, fill, stream, span, x, gamma, center ? mean : NULL, rstd, dy,   \
                 rows, d, dx, dgamma, center ? dbeta : NULL);                          \
        return 0;                                                                      \
    }
#define NL_BWD_STREAM_ENTRY(fn, center, fill, stream) \
    NL_BWD_SPAN_ENTRY(fn, center, fill, stream, 0)
static NL_BWD_STREAM_ENTRY(layernorm_bwd_add, 1, 0, 0)
static NL_BWD_STREAM_ENTRY(rmsnorm_bwd_add, 0, 0, 0)
static NL_BWD_STREAM_ENTRY(layernorm_bwd_add_nt, 1, 0, 1)
static NL_BWD_STREAM_ENTRY(rmsnorm_bwd_add_nt, 0, 0, 1)
static NL_BWD_STREAM_ENTRY(layernorm_bwd_add_skew, 1, 0, 2)
static NL_BWD_STREAM_ENTRY(rmsnorm_bwd_add_skew, 0, 0, 2)
NL_BWD_SPAN_ENTRY(NL_VNAME(layernorm_bwd_, _span), 1, 1, 0, 1)
NL_BWD_SPAN_ENTRY(NL_VNAME(rmsnorm_bwd_, _span), 0, 1, 0, 1)
NL_BWD_SPAN_ENTRY(NL_VNAME(layernorm_bwd_, _span_nt), 1, 1, 1, 1)
NL_BWD_SPAN_ENTRY(NL_VNAME(rmsnorm_bwd_, _span_nt), 0, 1, 1, 1)
NL_BWD_SPAN_ENTRY(NL_VNAME(layernorm_bwd_, _span_skew), 1, 1, 2, 1)
NL_BWD_SPAN_ENTRY(NL_VNAME(rmsnorm_bwd_, _span_skew), 0, 1, 2, 1)

/* Streaming pays once x and dx outgrow the core's L2 (chapter 6's rule). */
#define NL_BWD_BY_SIZE(fn, spilled, cached)                                             \
    NL_BWD_FN(fn)                                                                       \
    {                                                                                   \
        return (nl_output_spills(rows, d) ? spilled : cached)(                        \
            x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);                      \
    }
NL_BWD_BY_SIZE(NL_VNAME(layernorm_bwd_, _stream), layernorm_bwd_add_nt, layernorm_bwd_add)
NL_BWD_BY_SIZE(NL_VNAME(rmsnorm_bwd_, _stream), rmsnorm_bwd_add_nt, rmsnorm_bwd_add)
NL_BWD_BY_SIZE(NL_VNAME(layernorm_bwd_, _skew), layernorm_bwd_add_skew, layernorm_bwd_add)
NL_BWD_BY_SIZE(NL_VNAME(rmsnorm_bwd_, _skew), rmsnorm_bwd_add_skew, rmsnorm_bwd_add)

#endif
