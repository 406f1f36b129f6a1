/* castorder_pipe_avx512.c — the rung after castorder_f32stats_avx512.c:
 * the same statistics, summed in the same order (so the same bits), and
 * the same rounding points, with the two costs that rung left
 * (chapter 8; its lab notebook, "The one-pass rung"):
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
 * the pipelined loop on 16-lane vectors.
 *
 * The split rung, at the end of this file, keeps the second change and
 * undoes the first: each row is summed on its own from memory, then its
 * outputs are computed from L1 while the next row's lines are asked for
 * into L2, the f32stats rung's shape. On the Zen 4 of chapter 8 the
 * pipelined loop and the four-row loop both lost to that shape; the split
 * rung puts the cheaper arithmetic into it, and is the fastest rung there
 * (book/data/zen4-prefetch-split-reference.csv). */
#include "precision/half_step_avx512.h"

/* Where the loop asks for lines ahead of it (`pf`, a byte distance
 * included), one 64-byte line per 32 elements, into L2 (`l2`) or L1. The
 * pipe rung asks into L2 in every order: on the Zen 4 its RMSNorm rows ran
 * at 0.63-0.66 of the copy asking into L1 (bf16) and 0.79-0.99 into L2,
 * fp16 0.62-0.73 against 0.85-1.02 (chapter 8); only the split rung's
 * NL_SPLIT_L2 knob asks into L1.
 * Always inlined, and that is not a matter of speed: a function that only
 * prefetches is, to GCC's analysis, one without side effects (a prefetch
 * changes no memory), so GCC 12 at -O2 removed every call to the earlier,
 * merely `inline` form of this function, and the bf16 rows below ran
 * without asking for anything (chapter 8, "The prefetch that was not
 * there"; scripts/tools/prefetch-kept.sh checks the object code). */
static inline __attribute__((always_inline)) void ask_line(uintptr_t pf, size_t i, int l2)
{
    if (!pf)
        return;
    if (l2)
        _mm_prefetch((const char *)(pf + 2 * i), _MM_HINT_T1);
    else
        _mm_prefetch((const char *)(pf + 2 * i), _MM_HINT_T0);
}

// @snippet pipe-row
/* One row's outputs (`out`), and (`more`) the next row's sums in the same
 * loop, by vdpbf16ps: of x^2 the next row with itself, in exactly
 * dot_bf16's order (half_stats_avx512.h), and for LayerNorm also of x, as
 * the dot product with 1.0. Row 0 is this loop with no outputs. */
BF16_TARGET static inline __attribute__((always_inline)) sums
row_hw(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b, affine t,
       size_t d, uint16_t *y, const uint16_t *next, int more, int out, uintptr_t pf, int l2)
{
    const int ln = cast == NL_CAST_TORCH;
    __m512d acc = _mm512_setzero_pd(), acc1 = acc;
    size_t i = 0;
    while (i < d) {
        dot4 a = dot4_zero(), c = a;
        size_t end = d - i > 4 * BLOCK ? i + 4 * BLOCK : d;
        for (; i + 128 <= end; i += 128) {
            if (out)
                for (size_t k = i; k < i + 128; k += 32) {
                    ask_line(pf, k, l2);
                    out32(cast, nt, x + k, weights32(cast, wat(cast, w, k), wat(cast, b, k)), t,
                          y + k);
                }
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
          uintptr_t pf, int l2)
{
    const int ln = cast == NL_CAST_TORCH;
    __m512d q = _mm512_setzero_pd(), s = q;
    size_t i = 0;
    while (i < d) {
        block_sums a = block_zero();
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 32 <= end; i += 32) {
            ask_line(pf, i, l2);
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

/* The address of the next row's lines, as an integer: a prefetch past the
 * end of x never faults, and an integer may point there (a pointer may not). */
static inline uintptr_t at(const uint16_t *p, size_t ahead)
{
    return p ? (uintptr_t)p + ahead : 0;
}

static inline __attribute__((always_inline)) void
rows_pipe_plain_of(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w,
                   const void *b, float eps, size_t rows, size_t d, uint16_t *y)
{
    const int ln = cast == NL_CAST_TORCH;
    affine t = {_mm512_setzero_ps(), _mm512_setzero_ps()};
    sums s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, x, 1, 0, 0, 0);
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        int more = r + 1 < rows;
        t = affine_of(dt, cast, xr, d, eps, s);
        if (ln) {
            s = more ? row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, xr + d, 1, 1,
                                 at(xr + d, 2048), 1)
                     : row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1, 0, 0);
        } else {
            row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1,
                      at(more ? xr + d : NULL, 0), 1);
            if (more)
                s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, xr + d, 1, 0, 0, 0);
        }
    }
}

BF16_TARGET static inline __attribute__((always_inline)) void
rows_pipe_hw_of(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b, float eps,
           size_t rows, size_t d, uint16_t *y)
{
    const int ln = cast == NL_CAST_TORCH;
    affine t = {_mm512_setzero_ps(), _mm512_setzero_ps()};
    sums s = row_hw(cast, nt, NULL, w, b, t, d, NULL, x, 1, 0, 0, 0);
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        int more = r + 1 < rows;
        t = affine_of(NL_DT_BF16, cast, xr, d, eps, s);
        if (ln)
            s = more ? row_hw(cast, nt, xr, w, b, t, d, y + r * d, xr + d, 1, 1,
                              at(xr + d, 2048), 1)
                     : row_hw(cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1, 0, 0);
        else {
            row_hw(cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1, at(more ? xr + d : NULL, 0),
                   1);
            if (more)
                s = row_hw(cast, nt, NULL, w, b, t, d, NULL, xr + d, 1, 0, 0, 0);
        }
    }
}

/* The rows of a call, one function per cast order and path so that every
 * inner loop is compiled for constants, in a rung's shape: rows_<shape>_plain_of
 * (fp16, and bf16 without avx512_bf16) and rows_<shape>_hw_of. */
#define SHAPE_ROWS(cast, tag, shape)                                                        \
    static void rows_##tag(nl_dtype dt, int nt, const uint16_t *x, const void *w,           \
                           const void *b, float eps, size_t rows, size_t d, uint16_t *y)    \
    {                                                                                       \
        if (dt == NL_DT_BF16)                                                               \
            rows_##shape##_plain_of(NL_DT_BF16, cast, nt, x, w, b, eps, rows, d, y);        \
        else                                                                                \
            rows_##shape##_plain_of(NL_DT_F16, cast, nt, x, w, b, eps, rows, d, y);         \
    }                                                                                       \
    BF16_TARGET static void rows_##tag##_hw(int nt, const uint16_t *x, const void *w,       \
                                            const void *b, float eps, size_t rows,          \
                                            size_t d, uint16_t *y)                          \
    {                                                                                       \
        rows_##shape##_hw_of(cast, nt, x, w, b, eps, rows, d, y);                           \
    }

/* The pipe rung: row 0's sums alone, then each row's outputs with the
 * next row's sums. */
#define PIPE_ROWS(cast, tag) SHAPE_ROWS(cast, tag, pipe)
HALF_RUNG(PIPE_ROWS, pipe, 1)

/* ---- the split rung: the pipe rung's arithmetic, the f32stats rung's shape ---- */

/* How far past the next row's line the output pass asks, and into which
 * cache (1: L2, 0: L1); knobs for trying others (-DNL_SPLIT_AHEAD=...).
 * On the Zen 4, by `make half-pattern` (three runs each, the builds
 * alternated), 0, 4 and 16 KiB into L2 gave 0.87-0.98, 0.83-0.92 and
 * 0.82-0.88 of the copy for Llama, 0.88-1.06, 0.93-1.06 and 0.91-0.98 for
 * Gemma, 0.85-0.89, 0.86-0.99 and 0.81-0.82 for LayerNorm: close, with 0
 * ahead of 16 KiB in every order by the mean of its three runs, so the
 * line of the next row under this step, as the pipe rung's RMSNorm rows
 * ask. 16 KiB into L1 gave 0.58-0.62 in all three orders: no better than
 * no prefetch. (An earlier
 * round of the same knobs changed nothing, as the prefetch was not
 * compiled in: see ask_line.) */
#ifndef NL_SPLIT_AHEAD
#define NL_SPLIT_AHEAD 0
#endif
#ifndef NL_SPLIT_L2
#define NL_SPLIT_L2 1
#endif

static inline __attribute__((always_inline)) void
rows_split_plain_of(nl_dtype dt, nl_cast cast, int nt, const uint16_t *x, const void *w,
                    const void *b, float eps, size_t rows, size_t d, uint16_t *y)
{
    affine t = {_mm512_setzero_ps(), _mm512_setzero_ps()};
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        sums s = row_plain(dt, cast, nt, NULL, w, b, t, d, NULL, xr, 1, 0, 0, 0);
        t = affine_of(dt, cast, xr, d, eps, s);
        row_plain(dt, cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1,
                  at(r + 1 < rows ? xr + d : NULL, NL_SPLIT_AHEAD), NL_SPLIT_L2);
    }
}

BF16_TARGET static inline __attribute__((always_inline)) void
rows_split_hw_of(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
                 float eps, size_t rows, size_t d, uint16_t *y)
{
    affine t = {_mm512_setzero_ps(), _mm512_setzero_ps()};
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *xr = x + r * d;
        sums s = row_hw(cast, nt, NULL, w, b, t, d, NULL, xr, 1, 0, 0, 0);
        t = affine_of(NL_DT_BF16, cast, xr, d, eps, s);
        row_hw(cast, nt, xr, w, b, t, d, y + r * d, NULL, 0, 1,
               at(r + 1 < rows ? xr + d : NULL, NL_SPLIT_AHEAD), NL_SPLIT_L2);
    }
}

/* Every row's sums by the pipe rung's loop alone (no outputs), then its
 * outputs by the same loop with no sums: the same sums in the same order
 * and the same steps, so the pipe rung's bits. */
#define SPLIT_ROWS(cast, tag) SHAPE_ROWS(cast, tag, split)
HALF_RUNG(SPLIT_ROWS, split, 1)
