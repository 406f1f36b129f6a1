/* layernorm_rungs.h — LayerNorm's rungs at the memory wall (chapters 5 and
 * 6), written once over the vector layer (vec.h) and compiled at each
 * width by an instance file: layernorm_rungs_avx2.c, _avx512.c, _neon.c.
 * W below is the instance's width (NL_VISA):
 *
 *   layernorm_W        corrected two-pass, masked tail (AVX2's is chapter
 *                      5's layernorm_avx2.c, written out by hand, with these
 *                      bits)
 *   layernorm_W_nt     its output pass streamed past the caches
 *   layernorm_W_pf     streamed, the next row asked for meanwhile
 *   layernorm_W_shift  both statistics in one pass, shifted by the mean of
 *                      the row's first vector (two-pass redo when far),
 *                      streamed with the next row asked for once it spills
 *   layernorm_W_block  the shift rung four rows at a time, the next four
 *                      summed while these are streamed out
 *
 * Masks make tails cheap: the last d % VW elements are one masked trip
 * (masked loads give 0 in the unused lanes; vf_sub_first keeps 0 - mean
 * out of the sums).  Unaligned pointers are fine everywhere.
 *
 * The _nt rung writes y with streaming stores, which bypass the caches:
 * for outputs far larger than the last-level cache they save reading each
 * destination line before overwriting it; for outputs that fit they
 * usually lose (the next reader misses).  `normlab bench` measures which.
 * The rows are written head (masked, ordinary) / aligned body (streamed)
 * / tail (masked, ordinary), and a fence orders the streamed data before
 * the function returns.
 *
 * The _pf rung adds, to the streamed output pass, a prefetch of the next
 * row (into L2, one line per line stored): see rmsnorm_rungs.h for why.
 * There the prefetch belongs in the output pass, not the first statistics
 * sweep, where its requests would compete with the misses of the row
 * being summed (chapter 6 has the measurement).  The shift rung, whose
 * one pass of statistics reads a row that is already in L2, asks for the
 * next row in that pass instead, so that memory has reads to serve while
 * the core sums from cache and writes while it streams y out: on the
 * Zen 4 of chapter 6 that took the AVX-512 rung from 0.64-0.72 of the
 * copy to 0.72-0.80 (three alternated runs each).
 *
 * Numerics (build/tests/check_simd): max |y - ref| below 2e-6 on
 * unit-scale data up to d = 4097; stated tol 1e-5.  |x| ~ 1e20 works:
 * overflowing rows are redone in double (rowstats_wide.c). */
#ifndef NL_LAYERNORM_RUNGS_H
#define NL_LAYERNORM_RUNGS_H

#include <math.h>

#include "simd/rows_out.h"

static float row_sum(const float *x, size_t d)
{
    vf a0 = vf_zero(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 4 * VW <= d; i += 4 * VW) {
        a0 = vf_add(a0, vf_load(x + i));
        a1 = vf_add(a1, vf_load(x + i + VW));
        a2 = vf_add(a2, vf_load(x + i + 2 * VW));
        a3 = vf_add(a3, vf_load(x + i + 3 * VW));
    }
    for (; i + VW <= d; i += VW)
        a0 = vf_add(a0, vf_load(x + i));
    if (i < d)
        a1 = vf_add(a1, vf_load_first(vm_first(d - i), x + i));
    return vf_sum(vf_add(vf_add(a0, a1), vf_add(a2, a3)));
}

/* The sums of x - mf and of its squares, four chains each. */
static void row_dev(const float *x, size_t d, float mf, float *s1, float *s2)
{
    const vf m = vf_set1(mf);
    vf c0 = vf_zero(), c1 = c0, c2 = c0, c3 = c0;
    vf q0 = c0, q1 = c0, q2 = c0, q3 = c0;
    size_t i = 0;
    for (; i + 4 * VW <= d; i += 4 * VW) {
        vf v0 = vf_sub(vf_load(x + i), m);
        vf v1 = vf_sub(vf_load(x + i + VW), m);
        vf v2 = vf_sub(vf_load(x + i + 2 * VW), m);
        vf v3 = vf_sub(vf_load(x + i + 3 * VW), m);
        c0 = vf_add(c0, v0);
        c1 = vf_add(c1, v1);
        c2 = vf_add(c2, v2);
        c3 = vf_add(c3, v3);
        q0 = vf_fma(v0, v0, q0);
        q1 = vf_fma(v1, v1, q1);
        q2 = vf_fma(v2, v2, q2);
        q3 = vf_fma(v3, v3, q3);
    }
    for (; i < d; i += VW) {
        vmask k = d - i >= VW ? vm_all() : vm_first(d - i);
        vf v = vf_sub_first(k, vf_load_first(k, x + i), m);
        c0 = vf_add(c0, v);
        q0 = vf_fma(v, v, q0);
    }
    *s1 = vf_sum(vf_add(vf_add(c0, c1), vf_add(c2, c3)));
    *s2 = vf_sum(vf_add(vf_add(q0, q1), vf_add(q2, q3)));
}

/* The lines of the next row that columns [i, i + n) of this one cover,
 * asked for into L2: one prefetch per line (n a multiple of VW). */
static inline __attribute__((always_inline)) void ask_lines(const float *xn, size_t i, size_t n)
{
    if (n >= NL_LINE_FLOATS) {
        for (size_t c = 0; c < n; c += NL_LINE_FLOATS)
            vf_ask_l2(xn + i + c);
    } else if (i % NL_LINE_FLOATS == 0) {
        vf_ask_l2(xn + i);
    }
}

// @snippet ln-avx512-shift
/* One pass for both statistics: sums of x - K and (x - K)^2 with K the
 * mean of the row's first vector of values.  Then mean = K + s1/d and
 * var = s2/d - (s1/d)^2, which cancels by the factor 1 + (mean - K)^2/var:
 * small when K is near the mean, which row_stats checks.
 * In pieces (begin, two vectors of columns, tail, end) so that the block
 * rung can take a row's sums inside another loop with the same roundings. */
typedef struct { vf k, c0, c1, q0, q1; float kf; } shift_sums;
enum { SHIFT_STEP = 2 * VW };

static inline shift_sums shift_begin(const float *x, size_t d)
{
    size_t n0 = d < VW ? d : VW;
    vf first = vf_load_first(vm_first(n0), x);
    const float kf = vf_sum(first) / (float)n0;
    const vf z = vf_zero();
    return (shift_sums){vf_set1(kf), z, z, z, z, kf};
}

static inline void shift_step(shift_sums *a, const float *x)
{
    vf v0 = vf_sub(vf_load(x), a->k);
    vf v1 = vf_sub(vf_load(x + VW), a->k);
    a->c0 = vf_add(a->c0, v0);
    a->c1 = vf_add(a->c1, v1);
    a->q0 = vf_fma(v0, v0, a->q0);
    a->q1 = vf_fma(v1, v1, a->q1);
}

/* Columns i.. of the row, fewer than SHIFT_STEP left; then the sums. */
static inline void shift_end(shift_sums *a, const float *x, size_t i, size_t d,
                             float *k_out, float *s1, float *s2)
{
    for (; i < d; i += VW) {
        vmask m = d - i >= VW ? vm_all() : vm_first(d - i);
        vf v = vf_sub_first(m, vf_load_first(m, x + i), a->k);
        a->c0 = vf_add(a->c0, v);
        a->q0 = vf_fma(v, v, a->q0);
    }
    *k_out = a->kf;
    *s1 = vf_sum(vf_add(a->c0, a->c1));
    *s2 = vf_sum(vf_add(a->q0, a->q1));
}

/* The shift rung's pass over a row: its sums, and (xn not NULL) the next
 * row asked for into L2 meanwhile, a prefetch per line.
 * -DNL_LN_SHIFT_ASK=0 builds the earlier schedule, the next row asked for
 * in the output pass, for timing one against the other. */
#ifndef NL_LN_SHIFT_ASK
#define NL_LN_SHIFT_ASK 1
#endif
static inline __attribute__((always_inline)) void
row_shifted(const float *x, size_t d, const float *xn, float *k_out, float *s1, float *s2)
{
    shift_sums a = shift_begin(x, d);
    size_t i = 0;
    for (; i + SHIFT_STEP <= d; i += SHIFT_STEP) {
        if (xn)
            ask_lines(xn, i, SHIFT_STEP);
        shift_step(&a, x + i);
    }
    shift_end(&a, x, i, d, k_out, s1, s2);
}
// @end

/* How much cancellation the shifted pass may leave before the row is
 * redone two-pass (from L1: it was just read): (mean - K)^2 < 15 var keeps
 * the variance's relative error within 16 times its sums' (chapter 6). */
enum { SHIFT_FAR = 15 };

/* A row's scale from its sums: shifted ones (K in mf) when the shift was
 * near enough, else the row redone two-pass; overflowed rows in double. */
static inline __attribute__((always_inline)) row_scale
row_stats(const float *xr, size_t d, float eps, int shifted, float mf, float s1, float s2)
{
    float corr, inv;
    int redo = 1;
    if (shifted) {
        float c = s1 / (float)d, v = s2 / (float)d - c * c;
        redo = !(c * c < SHIFT_FAR * v); /* NaN/inf: redo too */
    }
    if (redo) {
        mf = row_sum(xr, d) / (float)d;
        row_dev(xr, d, mf, &s1, &s2);
    }
    nl_ln_row_scale(xr, d, eps, s1, s2, &mf, &corr, &inv);
    return (row_scale){vf_set1(mf), vf_set1(corr), vf_set1(inv)};
}

static inline __attribute__((always_inline)) int
layernorm_rows(const float *x, const float *gamma, const float *beta, float eps,
               size_t rows, size_t d, float *y, int stream, int prefetch, int shifted)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float mf = 0.0f, s1 = 0.0f, s2 = 0.0f;
        /* The last row prefetches itself, not a line past the end of x. */
        const float *xn = r + 1 < rows ? xr + d : xr;
        /* The shift rung asks for the next row in its one pass of
         * statistics, so its output pass only writes (see the top). */
        const int ask = prefetch && shifted && NL_LN_SHIFT_ASK;
        if (shifted)
            row_shifted(xr, d, ask ? xn : NULL, &mf, &s1, &s2);
        row_scale st = row_stats(xr, d, eps, shifted, mf, s1, s2);
        row_out(1, xr, gamma, beta, st, d, y + r * d, stream, prefetch && !ask, xn);
    }
    if (stream)
        vf_streams_done(); /* streamed lines become visible before we return */
    return 0;
}

// @snippet ln-avx512-block
/* The block rung: four rows at a time, so that gamma and beta are loaded
 * once per four rows of output, and skewed, so that the loop that writes
 * block b also takes the shifted sums of block b + 1.  At d = 8192 gamma
 * and beta are 64 KiB, more than L1: the shift rung's output pass fetched
 * three lines from L2 for each line it streamed out (x's row, gamma,
 * beta), RMSNorm's two.  Taking a block's sums in a loop of their own left
 * memory idle while they ran from L2; in the output loop, the next
 * block's lines are asked of memory while y's lines go out, as in a copy
 * (chapter 6 has both measured).  Each row's arithmetic is the shift
 * rung's, piece for piece (shift_begin, shift_step, shift_end, row_stats,
 * out_with), so y has its bits.  Needs whole lines per row (d % 16 == 0)
 * and y 64-byte aligned; the caller checks. */
#ifndef NL_LN_BLOCK_ROWS /* a knob for trying other block heights */
#define NL_LN_BLOCK_ROWS 4
#endif
enum { LN_BLOCK = NL_LN_BLOCK_ROWS };

static int layernorm_blocked(const float *x, const float *gamma, const float *beta, float eps,
                             size_t rows, size_t d, float *y)
{
    row_scale st[LN_BLOCK];
    for (int j = 0; j < LN_BLOCK; j++) { /* the first block's sums alone */
        float kf, s1, s2;
        row_shifted(x + (size_t)j * d, d, NULL, &kf, &s1, &s2);
        st[j] = row_stats(x + (size_t)j * d, d, eps, 1, kf, s1, s2);
    }
    size_t r = 0;
    for (; r + 2 * LN_BLOCK <= rows; r += LN_BLOCK) {
        const float *xb = x + r * d, *xn = xb + LN_BLOCK * d;
        shift_sums a[LN_BLOCK];
        for (int j = 0; j < LN_BLOCK; j++)
            a[j] = shift_begin(xn + (size_t)j * d, d);
        size_t i = 0;
        for (; i + SHIFT_STEP <= d; i += SHIFT_STEP) {
            block_out(1, LN_BLOCK, xb, gamma, beta, st, i, d, y + r * d);
            block_out(1, LN_BLOCK, xb, gamma, beta, st, i + VW, d, y + r * d);
            #pragma GCC unroll 8
            for (int j = 0; j < LN_BLOCK; j++)
                shift_step(&a[j], xn + (size_t)j * d + i);
        }
        for (size_t c = i; c < d; c += VW)
            block_out(1, LN_BLOCK, xb, gamma, beta, st, c, d, y + r * d);
        for (int j = 0; j < LN_BLOCK; j++) {
            float kf, s1, s2;
            shift_end(&a[j], xn + (size_t)j * d, i, d, &kf, &s1, &s2);
            st[j] = row_stats(xn + (size_t)j * d, d, eps, 1, kf, s1, s2);
        }
    }
    for (size_t c = 0; c < d; c += VW) /* the last block: no next one to sum */
        block_out(1, LN_BLOCK, x + r * d, gamma, beta, st, c, d, y + r * d);
    r += LN_BLOCK;
    if (r < rows) /* the last rows, fewer than a block: the shift rung's loop */
        layernorm_rows(x + r * d, gamma, beta, eps, rows - r, d, y + r * d, 1, 1, 1);
    vf_streams_done(); /* streamed lines become visible before we return */
    return 0;
}
// @end

#ifndef NL_FIRST_RUNG_BY_HAND
int NL_VNAME(layernorm_, )(const float *x, const float *gamma, const float *beta,
                           float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 0, 0, 0);
}
#endif

int NL_VNAME(layernorm_, _nt)(const float *x, const float *gamma, const float *beta,
                              float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 0, 0);
}

int NL_VNAME(layernorm_, _pf)(const float *x, const float *gamma, const float *beta,
                              float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 1, 0);
}

/* One pass of statistics instead of two; output streamed once the call
 * spills out of L2, and the next row not asked for: on the Zen 4, the CPU
 * whose dispatchers take this rung (rung_shape.c), it was the faster
 * without, at both widths, with the builds alternated
 * (book/data/zen4-simd-prefetch-ab-reference.csv).  _shift_pf asks. */
int NL_VNAME(layernorm_, _shift)(const float *x, const float *gamma, const float *beta,
                                 float eps, size_t rows, size_t d, float *y)
{
    return nl_output_spills(rows, d) ? layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 0, 1)
                                     : layernorm_rows(x, gamma, beta, eps, rows, d, y, 0, 0, 1);
}

/* The shift rung streamed whatever the call's size: the fused add +
 * LayerNorm hands it one cache block of a call that spills as a whole. */
int NL_VNAME(layernorm_, _shift_pf)(const float *x, const float *gamma, const float *beta,
                                    float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 1, 1);
}

/* The shift rung four rows at a time, once the call spills out of L2 and
 * the rows can be streamed whole; otherwise the shift rung. */
int NL_VNAME(layernorm_, _block)(const float *x, const float *gamma, const float *beta,
                                 float eps, size_t rows, size_t d, float *y)
{
    if (rows < LN_BLOCK || d < NL_LINE_FLOATS || d % NL_LINE_FLOATS != 0 ||
        ((uintptr_t)y & 63) != 0 || !nl_output_spills(rows, d))
        return NL_VNAME(layernorm_, _shift)(x, gamma, beta, eps, rows, d, y);
    return layernorm_blocked(x, gamma, beta, eps, rows, d, y);
}

#endif
