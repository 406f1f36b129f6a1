/* rmsnorm_rungs.h — RMSNorm's rungs at the memory wall (chapters 5 and 6),
 * written once over the vector layer (vec.h) and compiled at each width by
 * an instance file: rmsnorm_rungs_avx2.c, rmsnorm_rungs_avx512.c,
 * rmsnorm_rungs_neon.c.  W below is the instance's width (NL_VISA):
 *
 *   rmsnorm_W        four FMA chains for the sum of squares, a masked tail,
 *                    then the output (AVX2's is chapter 5's rmsnorm_avx2.c,
 *                    written out by hand, with these bits)
 *   rmsnorm_W_nt     the output pass streamed past the caches
 *   rmsnorm_W_pf     streamed, and the next row asked for meanwhile
 *   rmsnorm_W_block  four rows at a time, the next four summed while these
 *                    are streamed out, once the call spills out of L2
 *
 * Why the prefetch: a row is read from DRAM by the sum of squares, then the
 * output pass reads it again from L1/L2 while the memory bus carries only
 * the writes.  Asking for row r+1 during that pass (one line per line
 * stored, into L2: this row and the next may not both fit in L1) keeps
 * reads and writes in flight together, as a copy does (chapter 6 shows
 * what it gains).
 *
 * Every rung of one width gives the same bits: they differ in when memory
 * is asked, never in the arithmetic of a row.  Different widths sum in
 * different lanes, so their bits differ, within tol.
 *
 * Numerics (build/tests/check_simd): max |y - ref| below 1e-6 on
 * unit-scale data; stated tol 1e-5.  |x| ~ 1e20 works: overflowing rows
 * are redone in double (rowstats_wide.c). */
#ifndef NL_RMSNORM_RUNGS_H
#define NL_RMSNORM_RUNGS_H

#include <math.h>

#include "simd/rows_out.h"

/* The sum of squares in pieces (4 VW columns, then the tail and the sum),
 * so that the block rung can take a row's sum inside another loop with
 * the same roundings. */
typedef struct { vf a0, a1, a2, a3; } sumsq4;
enum { SUMSQ_STEP = 4 * VW };

static inline sumsq4 sumsq_begin(void)
{
    const vf z = vf_zero();
    return (sumsq4){z, z, z, z};
}

static inline void sumsq_step(sumsq4 *s, const float *x)
{
    vf v0 = vf_load(x), v1 = vf_load(x + VW);
    vf v2 = vf_load(x + 2 * VW), v3 = vf_load(x + 3 * VW);
    s->a0 = vf_fma(v0, v0, s->a0);
    s->a1 = vf_fma(v1, v1, s->a1);
    s->a2 = vf_fma(v2, v2, s->a2);
    s->a3 = vf_fma(v3, v3, s->a3);
}

/* Columns i.. of the row, fewer than SUMSQ_STEP left; then the sum. */
static inline float sumsq_end(sumsq4 *s, const float *x, size_t i, size_t d)
{
    for (; i < d; i += VW) {
        vmask k = d - i >= VW ? vm_all() : vm_first(d - i);
        vf v = vf_load_first(k, x + i);
        s->a1 = vf_fma(v, v, s->a1);
    }
    return vf_sum(vf_add(vf_add(s->a0, s->a1), vf_add(s->a2, s->a3)));
}

static float row_sumsq(const float *x, size_t d)
{
    sumsq4 s = sumsq_begin();
    size_t i = 0;
    for (; i + SUMSQ_STEP <= d; i += SUMSQ_STEP)
        sumsq_step(&s, x + i);
    return sumsq_end(&s, x, i, d);
}

/* 1 / rms from the row's sum of squares; an overflowed sum in double. */
static inline float row_inv(const float *xr, size_t d, float eps, float ss)
{
    float inv, zero;
    if (isfinite(ss))
        inv = 1.0f / sqrtf(ss / (float)d + eps);
    else
        nl_row_stats_wide(xr, d, 0, eps, &zero, &inv);
    return inv;
}

/* RMSNorm's scale: inv alone (row_out and block_out read nothing else). */
static inline row_scale scale_of(float inv)
{
    const vf v = vf_set1(inv);
    return (row_scale){v, v, v};
}

static inline __attribute__((always_inline)) int
rmsnorm_rows(const float *x, const float *gamma, float eps, size_t rows,
             size_t d, float *y, int stream, int prefetch)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        /* The last row has no successor: it prefetches itself (harmless,
         * it is in cache) rather than a line past the end of x. */
        const float *xn = r + 1 < rows ? xr + d : xr;
        row_out(0, xr, gamma, NULL, scale_of(row_inv(xr, d, eps, row_sumsq(xr, d))), d,
                y + r * d, stream, prefetch, xn);
    }
    if (stream)
        vf_streams_done();
    return 0;
}

#ifndef NL_FIRST_RUNG_BY_HAND
int NL_VNAME(rmsnorm_, )(const float *x, const float *gamma, const float *beta,
                         float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    return rmsnorm_rows(x, gamma, eps, rows, d, y, 0, 0);
}
#endif

int NL_VNAME(rmsnorm_, _nt)(const float *x, const float *gamma, const float *beta,
                            float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    return rmsnorm_rows(x, gamma, eps, rows, d, y, 1, 0);
}

int NL_VNAME(rmsnorm_, _pf)(const float *x, const float *gamma, const float *beta,
                            float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    return rmsnorm_rows(x, gamma, eps, rows, d, y, 1, 1);
}

// @snippet rms-avx512-block
/* The block rung, as layernorm_W_block does it: four rows written in one
 * loop over the columns (gamma loaded once per four rows) while the same
 * loop sums the squares of the next four, so that the next rows' loads go
 * to memory while this block's stores leave, as in a copy.  One row at a
 * time, the same skew was slower than the _pf rung (chapter 6).  Each
 * row's arithmetic is the first rung's, piece for piece (sumsq_*,
 * row_inv, x * inv * gamma), so y has its bits.  Needs whole lines per
 * row (d % 16 == 0) and y 64-byte aligned; the caller checks. */
enum { RMS_BLOCK = 4 };

static int rmsnorm_blocked(const float *x, const float *gamma, float eps, size_t rows,
                           size_t d, float *y)
{
    row_scale inv[RMS_BLOCK];
    for (int j = 0; j < RMS_BLOCK; j++) /* the first block's sums alone */
        inv[j] = scale_of(row_inv(x + (size_t)j * d, d, eps, row_sumsq(x + (size_t)j * d, d)));
    size_t r = 0;
    for (; r + 2 * RMS_BLOCK <= rows; r += RMS_BLOCK) {
        const float *xb = x + r * d, *xn = xb + RMS_BLOCK * d;
        sumsq4 a[RMS_BLOCK];
        for (int j = 0; j < RMS_BLOCK; j++)
            a[j] = sumsq_begin();
        size_t i = 0;
        for (; i + SUMSQ_STEP <= d; i += SUMSQ_STEP) {
            for (size_t c = i; c < i + SUMSQ_STEP; c += VW)
                block_out(0, RMS_BLOCK, xb, gamma, NULL, inv, c, d, y + r * d);
            #pragma GCC unroll 8
            for (int j = 0; j < RMS_BLOCK; j++)
                sumsq_step(&a[j], xn + (size_t)j * d + i);
        }
        for (size_t c = i; c < d; c += VW)
            block_out(0, RMS_BLOCK, xb, gamma, NULL, inv, c, d, y + r * d);
        for (int j = 0; j < RMS_BLOCK; j++)
            inv[j] = scale_of(row_inv(xn + (size_t)j * d, d, eps,
                                      sumsq_end(&a[j], xn + (size_t)j * d, i, d)));
    }
    for (size_t c = 0; c < d; c += VW) /* the last block: no next one to sum */
        block_out(0, RMS_BLOCK, x + r * d, gamma, NULL, inv, c, d, y + r * d);
    r += RMS_BLOCK;
    if (r < rows) /* the last rows, fewer than a block: the _pf rung's loop */
        rmsnorm_rows(x + r * d, gamma, eps, rows - r, d, y + r * d, 1, 1);
    vf_streams_done(); /* streamed lines become visible before we return */
    return 0;
}
// @end

/* Four rows at a time once the call spills out of L2 and the rows can be
 * streamed whole; otherwise the first rung (the same bits either way). */
int NL_VNAME(rmsnorm_, _block)(const float *x, const float *gamma, const float *beta,
                               float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    if (rows < RMS_BLOCK || d % NL_LINE_FLOATS != 0 || ((uintptr_t)y & 63) != 0 ||
        !nl_output_spills(rows, d))
        return rmsnorm_rows(x, gamma, eps, rows, d, y, 0, 0);
    return rmsnorm_blocked(x, gamma, eps, rows, d, y);
}

#endif
