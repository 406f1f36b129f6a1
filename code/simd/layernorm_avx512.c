/* layernorm_avx512.c — LayerNorm with AVX-512F, corrected two-pass (as in
 * layernorm_avx2.c, twice the lanes), plus a variant whose output pass uses
 * streaming stores.
 *
 * Masks make tails cheap: the last d % 16 elements are one masked trip
 * (maskz loads give 0 in the unused lanes; maskz_sub keeps 0 - mean out of
 * the sums).  Unaligned pointers are fine everywhere.
 *
 * layernorm_avx512_nt writes y with vmovntps, which bypasses the caches:
 * for outputs far larger than the last-level cache it saves reading each
 * destination line before overwriting it; for outputs that fit it usually
 * loses (the next reader misses).  `normlab bench` measures which.  The
 * rows are written head (masked, ordinary) / aligned body (streamed) /
 * tail (masked, ordinary), and an sfence orders the streamed data before
 * the function returns.
 *
 * layernorm_avx512_pf adds, to the streamed output pass, a prefetch of the
 * next row (into L2, one line per store): see rmsnorm_avx512.c for why.
 * There the prefetch belongs in the output pass, not the first statistics
 * sweep, where its requests would compete with the misses of the row
 * being summed (chapter 6's lab notebook has the measurement).  The shift rung, whose
 * one pass of statistics reads a row that is already in L2, asks for the
 * next row in that pass instead, so that memory has reads to serve while
 * the core sums from cache and writes while it streams y out: on the
 * Zen 4 of chapter 6 that took it from 0.64-0.72 of the copy to
 * 0.72-0.80 (three alternated runs each).
 *
 * Numerics (build/tests/check_simd): max |y - ref| below 2e-6 on
 * unit-scale data up to d = 4097; stated tol 1e-5.  |x| ~ 1e20 works:
 * overflowing rows are redone in double (rowstats_wide.c). */
#include <math.h>
#include <stdint.h>

#include "simd/avx512_util.h"
#include "simd/simd.h"

static float row_sum(const float *x, size_t d)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 64 <= d; i += 64) {
        a0 = _mm512_add_ps(a0, _mm512_loadu_ps(x + i));
        a1 = _mm512_add_ps(a1, _mm512_loadu_ps(x + i + 16));
        a2 = _mm512_add_ps(a2, _mm512_loadu_ps(x + i + 32));
        a3 = _mm512_add_ps(a3, _mm512_loadu_ps(x + i + 48));
    }
    for (; i + 16 <= d; i += 16)
        a0 = _mm512_add_ps(a0, _mm512_loadu_ps(x + i));
    if (i < d)
        a1 = _mm512_add_ps(a1, _mm512_maskz_loadu_ps(nl_mask16(d - i), x + i));
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

// @snippet ln-avx512-dev
static void row_dev(const float *x, size_t d, float mf, float *s1, float *s2)
{
    const __m512 m = _mm512_set1_ps(mf);
    __m512 c0 = _mm512_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    __m512 q0 = c0, q1 = c0, q2 = c0, q3 = c0;
    size_t i = 0;
    for (; i + 64 <= d; i += 64) {
        __m512 v0 = _mm512_sub_ps(_mm512_loadu_ps(x + i), m);
        __m512 v1 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16), m);
        __m512 v2 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 32), m);
        __m512 v3 = _mm512_sub_ps(_mm512_loadu_ps(x + i + 48), m);
        c0 = _mm512_add_ps(c0, v0);
        c1 = _mm512_add_ps(c1, v1);
        c2 = _mm512_add_ps(c2, v2);
        c3 = _mm512_add_ps(c3, v3);
        q0 = _mm512_fmadd_ps(v0, v0, q0);
        q1 = _mm512_fmadd_ps(v1, v1, q1);
        q2 = _mm512_fmadd_ps(v2, v2, q2);
        q3 = _mm512_fmadd_ps(v3, v3, q3);
    }
    for (; i < d; i += 16) {
        __mmask16 k = d - i >= 16 ? (__mmask16)0xFFFF : nl_mask16(d - i);
        __m512 v = _mm512_maskz_sub_ps(k, _mm512_maskz_loadu_ps(k, x + i), m);
        c0 = _mm512_add_ps(c0, v);
        q0 = _mm512_fmadd_ps(v, v, q0);
    }
    *s1 = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)));
    *s2 = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(q0, q1), _mm512_add_ps(q2, q3)));
}
// @end

// @snippet ln-avx512-shift
/* One pass for both statistics: sums of x - K and (x - K)^2 with K the
 * mean of the row's first (up to) 16 values.  Then mean = K + s1/d and
 * var = s2/d - (s1/d)^2, which cancels by the factor 1 + (mean - K)^2/var:
 * small when K is near the mean, which row_stats checks.
 * In pieces (begin, 32 columns, tail, end) so that the block rung can
 * take a row's sums inside another loop with the same roundings. */
typedef struct { __m512 k, c0, c1, q0, q1; float kf; } shift_sums;

static inline shift_sums shift_begin(const float *x, size_t d)
{
    size_t n0 = d < 16 ? d : 16;
    __m512 first = _mm512_maskz_loadu_ps(nl_mask16(n0), x);
    const float kf = _mm512_reduce_add_ps(first) / (float)n0;
    const __m512 z = _mm512_setzero_ps();
    return (shift_sums){_mm512_set1_ps(kf), z, z, z, z, kf};
}

static inline void shift_step32(shift_sums *a, const float *x)
{
    __m512 v0 = _mm512_sub_ps(_mm512_loadu_ps(x), a->k);
    __m512 v1 = _mm512_sub_ps(_mm512_loadu_ps(x + 16), a->k);
    a->c0 = _mm512_add_ps(a->c0, v0);
    a->c1 = _mm512_add_ps(a->c1, v1);
    a->q0 = _mm512_fmadd_ps(v0, v0, a->q0);
    a->q1 = _mm512_fmadd_ps(v1, v1, a->q1);
}

/* Columns i.. of the row, fewer than 32 left; then the three sums. */
static inline void shift_end(shift_sums *a, const float *x, size_t i, size_t d,
                             float *k_out, float *s1, float *s2)
{
    for (; i < d; i += 16) {
        __mmask16 m = d - i >= 16 ? (__mmask16)0xFFFF : nl_mask16(d - i);
        __m512 v = _mm512_maskz_sub_ps(m, _mm512_maskz_loadu_ps(m, x + i), a->k);
        a->c0 = _mm512_add_ps(a->c0, v);
        a->q0 = _mm512_fmadd_ps(v, v, a->q0);
    }
    *k_out = a->kf;
    *s1 = _mm512_reduce_add_ps(_mm512_add_ps(a->c0, a->c1));
    *s2 = _mm512_reduce_add_ps(_mm512_add_ps(a->q0, a->q1));
}

/* The shift rung's pass over a row: its sums, and (xn not NULL) the next
 * row asked for into L2 meanwhile, two lines per 32 columns.
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
    for (; i + 32 <= d; i += 32) {
        if (xn) {
            _mm_prefetch((const char *)(xn + i), _MM_HINT_T1);
            _mm_prefetch((const char *)(xn + i + 16), _MM_HINT_T1);
        }
        shift_step32(&a, x + i);
    }
    shift_end(&a, x, i, d, k_out, s1, s2);
}
// @end

typedef struct { __m512 mf, corr, inv; } stats16;

static inline __m512 out16(const float *x, const float *gamma, const float *beta,
                           stats16 st, __mmask16 k)
{
    __m512 t = _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, x), st.mf), st.corr);
    t = _mm512_mul_ps(t, st.inv);
    return _mm512_fmadd_ps(t, _mm512_maskz_loadu_ps(k, gamma), _mm512_maskz_loadu_ps(k, beta));
}

// @snippet ln-avx512-stream
static inline __attribute__((always_inline)) void
row_out(const float *x, const float *gamma, const float *beta, stats16 st,
        size_t d, float *y, int stream, int prefetch, const float *xn)
{
    size_t i = 0;
    if (stream) {
        size_t head = nl_head_to_align64(y, d);
        if (head) {
            __mmask16 k = nl_mask16(head);
            _mm512_mask_storeu_ps(y, k, out16(x, gamma, beta, st, k));
        }
        for (i = head; i + 16 <= d; i += 16) {
            if (prefetch)
                _mm_prefetch((const char *)(xn + i), _MM_HINT_T1);
            _mm512_stream_ps(y + i, out16(x + i, gamma + i, beta + i, st, 0xFFFF));
        }
    } else {
        for (; i + 16 <= d; i += 16) {
            if (prefetch)
                _mm_prefetch((const char *)(xn + i), _MM_HINT_T1);
            _mm512_storeu_ps(y + i, out16(x + i, gamma + i, beta + i, st, 0xFFFF));
        }
    }
    if (i < d) {
        __mmask16 k = nl_mask16(d - i);
        _mm512_mask_storeu_ps(y + i, k, out16(x + i, gamma + i, beta + i, st, k));
    }
}
// @end

/* How much cancellation the shifted pass may leave before the row is
 * redone two-pass (from L1: it was just read): (mean - K)^2 < 15 var keeps
 * the variance's relative error within 16 times its sums' (chapter 6). */
enum { SHIFT_FAR = 15 };

/* A row's stats16 from its sums: shifted ones (K in mf) when the shift was
 * near enough, else the row redone two-pass; overflowed rows in double. */
static inline __attribute__((always_inline)) stats16
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
    return (stats16){_mm512_set1_ps(mf), _mm512_set1_ps(corr), _mm512_set1_ps(inv)};
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
        stats16 st = row_stats(xr, d, eps, shifted, mf, s1, s2);
        row_out(xr, gamma, beta, st, d, y + r * d, stream, prefetch && !ask, xn);
    }
    if (stream)
        _mm_sfence(); /* streamed lines become visible before we return */
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
 * (chapter 6's lab notebook has both measured).  Each row's arithmetic is the shift rung's, piece for
 * piece (shift_begin, shift_step32, shift_end, row_stats, out16), so y
 * has its bits.  Needs d % 16 == 0 and y 64-byte aligned; the caller
 * checks. */
#ifndef NL_LN_BLOCK_ROWS /* a knob for trying other block heights */
#define NL_LN_BLOCK_ROWS 4
#endif
enum { LN_BLOCK = NL_LN_BLOCK_ROWS };

static inline __m512 out16_with(__m512 xv, __m512 g, __m512 b, stats16 st)
{
    __m512 t = _mm512_sub_ps(_mm512_sub_ps(xv, st.mf), st.corr);
    return _mm512_fmadd_ps(_mm512_mul_ps(t, st.inv), g, b);
}

/* Block xb's rows out, from its statistics st, 16 columns from c on. */
static inline __attribute__((always_inline)) void
block_out16(const float *xb, const float *gamma, const float *beta, const stats16 *st,
            size_t c, size_t d, float *yb)
{
    const __m512 g = _mm512_loadu_ps(gamma + c), b = _mm512_loadu_ps(beta + c);
    #pragma GCC unroll 8
    for (int j = 0; j < LN_BLOCK; j++)
        _mm512_stream_ps(yb + (size_t)j * d + c,
                         out16_with(_mm512_loadu_ps(xb + (size_t)j * d + c), g, b, st[j]));
}

static int layernorm_blocked(const float *x, const float *gamma, const float *beta, float eps,
                             size_t rows, size_t d, float *y)
{
    stats16 st[LN_BLOCK];
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
        for (; i + 32 <= d; i += 32) {
            block_out16(xb, gamma, beta, st, i, d, y + r * d);
            block_out16(xb, gamma, beta, st, i + 16, d, y + r * d);
            #pragma GCC unroll 8
            for (int j = 0; j < LN_BLOCK; j++)
                shift_step32(&a[j], xn + (size_t)j * d + i);
        }
        for (size_t c = i; c < d; c += 16)
            block_out16(xb, gamma, beta, st, c, d, y + r * d);
        for (int j = 0; j < LN_BLOCK; j++) {
            float kf, s1, s2;
            shift_end(&a[j], xn + (size_t)j * d, i, d, &kf, &s1, &s2);
            st[j] = row_stats(xn + (size_t)j * d, d, eps, 1, kf, s1, s2);
        }
    }
    for (size_t c = 0; c < d; c += 16) /* the last block: no next one to sum */
        block_out16(x + r * d, gamma, beta, st, c, d, y + r * d);
    r += LN_BLOCK;
    if (r < rows) /* the last rows, fewer than a block: the shift rung's loop */
        layernorm_rows(x + r * d, gamma, beta, eps, rows - r, d, y + r * d, 1, 1, 1);
    _mm_sfence(); /* streamed lines become visible before we return */
    return 0;
}
// @end

int nl_layernorm_avx512(const float *x, const float *gamma, const float *beta,
                        float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 0, 0, 0);
}

int nl_layernorm_avx512_nt(const float *x, const float *gamma, const float *beta,
                           float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 0, 0);
}

int nl_layernorm_avx512_pf(const float *x, const float *gamma, const float *beta,
                           float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 1, 0);
}

/* One pass of statistics instead of two; output streamed with the next row
 * prefetched once the call spills out of L2. */
int nl_layernorm_avx512_shift(const float *x, const float *gamma, const float *beta,
                              float eps, size_t rows, size_t d, float *y)
{
    return nl_output_spills(rows, d) ? layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 1, 1)
                                     : layernorm_rows(x, gamma, beta, eps, rows, d, y, 0, 0, 1);
}

/* The shift rung streamed whatever the call's size: the fused add +
 * LayerNorm hands it one cache block of a call that spills as a whole. */
int nl_layernorm_avx512_shift_pf(const float *x, const float *gamma, const float *beta,
                                 float eps, size_t rows, size_t d, float *y)
{
    return layernorm_rows(x, gamma, beta, eps, rows, d, y, 1, 1, 1);
}

/* The shift rung four rows at a time, once the call spills out of L2 and
 * the rows can be streamed whole; otherwise the shift rung. */
int nl_layernorm_avx512_block(const float *x, const float *gamma, const float *beta,
                             float eps, size_t rows, size_t d, float *y)
{
    if (rows < LN_BLOCK || d < 16 || d % 16 != 0 || ((uintptr_t)y & 63) != 0 ||
        !nl_output_spills(rows, d))
        return nl_layernorm_avx512_shift(x, gamma, beta, eps, rows, d, y);
    return layernorm_blocked(x, gamma, beta, eps, rows, d, y);
}

