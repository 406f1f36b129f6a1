/* castorder_pipe_avx512.c — the rung after castorder_f32stats_avx512.c:
 * the same statistics, summed in the same order (so the same bits), and
 * the same rounding points, with the two costs that rung left
 * (chapter 8, "The third rung"):
 *
 *   - one pass over memory. The output pass of row r and the statistics
 *     pass of row r + 1 are one loop over the columns: row r is in L1
 *     (its statistics were summed in the previous loop), row r + 1 comes
 *     from memory, so loads from memory never pause while the output is
 *     computed. Only the first row of a call is read on its own.
 *   - fewer conversions. bf16 on an avx512_bf16 CPU is read 32 elements a
 *     load and split into its even and odd elements by one shift and one
 *     and (no widening shuffle); the two vectors are narrowed together by
 *     one vcvtne2ps2bf16 and put back in memory order by one vpermw. The
 *     weights are widened once a call into that even/odd order.
 *
 * vcvtne2ps2bf16 reads a subnormal lane as zero: each 32 whose rounded
 * values had one (a vfpclassps per vector) is computed again, at once, with
 * the exact integer rounding, so a call in place (y == x) never reads an
 * output back as input. fp16, and bf16 on a CPU without avx512_bf16, take
 * the pipelined loop on 16-lane vectors. */
#include "precision/half_step_avx512.h"

/* Where the loop asks for lines ahead of it (`pf`, a byte distance
 * included): RMSNorm's output pass asks for the whole next row into L1
 * (its sums pass then reads it from there), LayerNorm's fused loop for the
 * lines 2 KiB ahead of its reads of the next row into L2. Measured both
 * ways for both (chapter 8): each is the faster for its order. */
static inline void prefetch4(const char *p, int l2)
{
    for (int k = 0; k < 256; k += 64) {
        if (l2)
            _mm_prefetch(p + k, _MM_HINT_T1);
        else
            _mm_prefetch(p + k, _MM_HINT_T0);
    }
}

// @snippet pipe-row
/* One row's outputs (`out`), and (`more`) the next row's sums in the same
 * loop, by vdpbf16ps: of x^2 the next row with itself, in exactly
 * dot_bf16's order (half_stats_avx512.h), and for LayerNorm also of x, as
 * the dot product with 1.0. Row 0 is this loop with no outputs. */
BF16_TARGET static inline __attribute__((always_inline)) sums
row_hw(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b, affine t,
       size_t d, uint16_t *y, const uint16_t *next, int more, int out, const char *pf)
{
    const int ln = cast == NL_CAST_TORCH;
    __m512d acc = _mm512_setzero_pd(), acc1 = acc;
    size_t i = 0;
    while (i < d) {
        dot4 a = dot4_zero(), c = a;
        size_t end = d - i > 4 * BLOCK ? i + 4 * BLOCK : d;
        for (; i + 128 <= end; i += 128) {
            if (out)
                for (size_t k = i; k < i + 128; k += 32)
                    out32(cast, nt, x + k, weights32(cast, wat(cast, w, k), wat(cast, b, k)), t,
                          y + k);
            if (pf)
                prefetch4(pf + 2 * i, ln);
            if (more) {
                __m512i v0 = _mm512_loadu_si512(next + i), v1 = _mm512_loadu_si512(next + i + 32);
                __m512i v2 = _mm512_loadu_si512(next + i + 64);
                __m512i v3 = _mm512_loadu_si512(next + i + 96);
                dot4_add4(&a, v0, v1, v2, v3, 1);
                if (ln)
                    dot4_add4(&c, v0, v1, v2, v3, 0);
            }
        }
        for (; i < end; i += 32) {
            if (out && i + 32 <= d)
                out32(cast, nt, x + i, weights32(cast, wat(cast, w, i), wat(cast, b, i)), t,
                      y + i);
            else if (out)
                tail16(NL_DT_BF16, cast, x + i, wat(cast, w, i), wat(cast, b, i), t, d - i,
                       y + i);
            if (more) {
                __m512i v = _mm512_maskz_loadu_epi16(lanes32(i, end), next + i);
                dot4_add1(&a, v, 1);
                if (ln)
                    dot4_add1(&c, v, 0);
            }
        }
        acc = dot4_fold(acc, a);
        if (ln)
            acc1 = dot4_fold(acc1, c);
    }
    return (sums){_mm512_reduce_add_pd(acc1), _mm512_reduce_add_pd(acc)};
}
// @end

/* ---- fp16, and bf16 without avx512_bf16: 16 lanes, memory order ---- */

static inline __attribute__((always_inline)) void
out16(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
      affine t, size_t i, uint16_t *y)
{
    put16(nt, y + i, step16(dt, cast, x + i, wat(cast, w, i), wat(cast, b, i), t, 0xffff));
}

/* One row's outputs (`out`) and (`more`) the next row's sums: of x^2 in
 * dev_sums' order (half_stats_avx512.h), and for LayerNorm of x, in the
 * same blocks. */
static inline __attribute__((always_inline)) sums
row_plain(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
          affine t, size_t d, uint16_t *y, const uint16_t *next, int more, int out,
          const char *pf)
{
    const int ln = cast == NL_CAST_TORCH;
    __m512d q = _mm512_setzero_pd(), s = q;
    size_t i = 0;
    while (i < d) {
        block_sums a = block_zero();
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 32 <= end; i += 32) {
            if (pf && ln)
                _mm_prefetch(pf + 2 * i, _MM_HINT_T1);
            else if (pf)
                _mm_prefetch(pf + 2 * i, _MM_HINT_T0);
            if (out) {
                out16(dt, cast, nt, x, w, b, t, i, y);
                out16(dt, cast, nt, x, w, b, t, i + 16, y);
            }
            if (more)
                block_add2(&a, load16(dt, next + i, 0xffff), load16(dt, next + i + 16, 0xffff),
                           ln);
        }
        for (; i < end; i += 16) {
            if (out && i + 16 <= d)
                out16(dt, cast, nt, x, w, b, t, i, y);
            else if (out)
                tail16(dt, cast, x + i, wat(cast, w, i), wat(cast, b, i), t, d - i, y + i);
            if (more)
                block_add1(&a, load16(dt, next + i, lanes16(i, end)), ln);
        }
        block_fold(&q, &s, a, ln);
    }
    return (sums){_mm512_reduce_add_pd(s), _mm512_reduce_add_pd(q)};
}

static inline __attribute__((always_inline)) void
rows_plain_of(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w,
              const void *b, float eps, size_t rows, size_t d, uint16_t *y, affine t)
{
    sums s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, x, 1, 0, NULL);
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        int more = r + 1 < rows;
        t = affine_of(dt, cast, xr, d, eps, s);
        if (cast == NL_CAST_TORCH) {
            s = more ? row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, xr + d, 1, 1,
                                 (const char *)(xr + d) + 2048)
                     : row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1, NULL);
        } else {
            row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1,
                      more ? (const char *)(xr + d) : NULL);
            if (more)
                s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, xr + d, 1, 0, NULL);
        }
    }
}

/* The rows of a call, one function per cast order and path so that every
 * inner loop is compiled for constants: row 0's sums alone, then each
 * row's outputs with the next row's sums. */
#define PIPE_ROWS(cast, tag)                                                                \
    static void rows_##tag(nl_dtype dt, int nt, const uint16_t *x, const void *wv,          \
                           const void *bv, float eps, size_t rows, size_t d, uint16_t *y)   \
    {                                                                                       \
        const void *w = wv, *b = bv;                                                        \
        affine t0 = {_mm512_setzero_ps(), _mm512_setzero_ps()};                             \
        if (dt == NL_DT_BF16)                                                               \
            rows_plain_of(NL_DT_BF16, cast, nt, x, w, b, eps, rows, d, y, t0);              \
        else                                                                                \
            rows_plain_of(NL_DT_F16, cast, nt, x, w, b, eps, rows, d, y, t0);               \
    }                                                                                       \
    BF16_TARGET static void rows_##tag##_hw(int nt, const uint16_t *x, const void *wv,      \
                                            const void *bv, float eps, size_t rows,         \
                                            size_t d, uint16_t *y)                          \
    {                                                                                       \
        const void *w = wv, *b = bv;                                                        \
        affine t = {_mm512_setzero_ps(), _mm512_setzero_ps()};                              \
        sums s = row_hw(cast, nt, NULL, w, b, t, d, NULL, x, 1, 0, NULL);                   \
        for (size_t r = 0; r < rows; r++) {                                                 \
            const uint16_t *xr = x + r * d;                                                 \
            int more = r + 1 < rows;                                                        \
            t = affine_of(NL_DT_BF16, cast, xr, d, eps, s);                                 \
            if (cast == NL_CAST_TORCH)                                                      \
                s = more ? row_hw(cast, nt, xr, w, b, t, d, y + r * d, xr + d, 1, 1,        \
                                  (const char *)(xr + d) + 2048)                            \
                         : row_hw(cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1, NULL);   \
            else {                                                                          \
                row_hw(cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1,                     \
                       more ? (const char *)(xr + d) : NULL);                               \
                if (more)                                                                   \
                    s = row_hw(cast, nt, NULL, w, b, t, d, NULL, xr + d, 1, 0, NULL);       \
            }                                                                               \
        }                                                                                   \
    }
HALF_RUNG(PIPE_ROWS, pipe, 1)
