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
 * the pipelined loop on 16-lane vectors in memory order (row_plain).
 *
 * The split rung, at the end of this file, keeps the second change and
 * undoes the first: each row is summed on its own from memory, then its
 * outputs are computed from L1 while the next row's lines are asked for
 * into L2, the f32stats rung's shape. On the Zen 4 of chapter 8 the
 * pipelined loop and the four-row loop both lost to that shape; the split
 * rung puts the cheaper arithmetic into it, and is the fastest rung there
 * (book/data/zen4-prefetch-split-reference.csv).
 *
 * Both rungs are half_rungs.h's (pipe_rows, split_rows) at every width;
 * this file compiles them at 16 lanes, with the 32-lane bf16 rows of an
 * avx512_bf16 CPU (the first and second changes above). */
#include "simd/vec_avx512.h"
#include "precision/half_vec_avx512.h"
#include "precision/half_bf16_avx512.h"

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
    vd acc = vd_zero(), acc1 = acc;
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
                tail(NL_DT_BF16, cast, x + i, wat(cast, w, i), wat(cast, b, i), t, d - i,
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
    return (sums){vd_sum(acc1), vd_sum(acc)};
}
// @end

BF16_TARGET static inline __attribute__((always_inline)) void
rows_pipe_hw_of(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b, float eps,
           size_t rows, size_t d, uint16_t *y)
{
    const int ln = cast == NL_CAST_TORCH;
    affine t = {vf_zero(), vf_zero(), 0};
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
 * inner loop is compiled for constants: <shape>_rows (half_rungs.h) for
 * fp16 and bf16 without avx512_bf16, rows_<shape>_hw_of for bf16 with it. */
#define SHAPE_ROWS(cast, tag, shape)                                                        \
    PLAIN_ROWS(shape, cast, tag)                                                            \
    BF16_TARGET static void rows_##tag##_hw(int nt, const uint16_t *x, const void *w,       \
                                            const void *b, float eps, size_t rows,          \
                                            size_t d, uint16_t *y)                          \
    {                                                                                       \
        rows_##shape##_hw_of(cast, nt, x, w, b, eps, rows, d, y);                           \
    }

/* The pipe rung: row 0's sums alone, then each row's outputs with the
 * next row's sums. */
#define PIPE_AND_HW_ROWS(cast, tag) SHAPE_ROWS(cast, tag, pipe)
HALF_RUNG(PIPE_AND_HW_ROWS, pipe, 1)

/* ---- the split rung: the pipe rung's arithmetic, the f32stats rung's shape ---- */

BF16_TARGET static inline __attribute__((always_inline)) void
rows_split_hw_of(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b,
                 float eps, size_t rows, size_t d, uint16_t *y)
{
    affine t = {vf_zero(), vf_zero(), 0};
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
#define SPLIT_AND_HW_ROWS(cast, tag) SHAPE_ROWS(cast, tag, split)
HALF_RUNG(SPLIT_AND_HW_ROWS, split, 1)
