/* castorder_f32stats_avx512.c — the next rung of chapter 8's ladder: the
 * same rounding points as castorder_avx512.c, cheaper statistics and no
 * per-row work on the weights.
 *
 * What castorder_avx512.c spends its cycles on (chapter 8, "Where the
 * cycles go"): every 16 elements of the sum of squares are widened to
 * fp32, split into two 8-lane halves, converted to double and summed in
 * double; the weights are widened again for every row. Here:
 *   - the row's sums are fp32, in several accumulators of 16 lanes.
 *     bf16 on a CPU with avx512_bf16 takes the sum of squares with
 *     vdpbf16ps: 32 products of bf16 pairs, exact in fp32, added to 16
 *     fp32 lanes in one instruction (and the sum of x for LayerNorm as the
 *     dot product with 1.0). The fp32 sum differs from the double one in
 *     its last bits, so an output sitting next to a rounding boundary of
 *     the dtype can round the other way: the contract is within 1 ulp of
 *     the scalar order, and bit-identical on at least 99 % of the outputs
 *     (check_half_cast tests both).
 *   - the weights (and LayerNorm's bias, Gemma's 1 + w) are widened to
 *     fp32 once per call, so the inner loop multiplies by a memory operand.
 *   - where a fp32 sum cannot be trusted (it overflowed, or is so small
 *     that squares fell below fp32's normal range: bf16 has fp32's
 *     exponent, |x| ~ 1e20 squares past FLT_MAX), the row takes the double
 *     statistics of the scalar kernel instead: exact, and rare.
 * The rung itself is half_rungs.h's (f32stats_rows), at every width; this
 * file compiles it at 16 lanes, with the bf16 rows of an avx512_bf16 CPU,
 * whose sums are vdpbf16ps dot products (dot_bf16) and whose outputs are
 * narrowed by vcvtneps2bf16 (vh_narrow_out). */
#include "simd/vec_avx512.h"
#include "precision/half_vec_avx512.h"
#include "precision/half_bf16_avx512.h"

/* The rows of a call, one function per cast order and narrowing so that
 * every inner loop is compiled for constants. */
#define ROWS(cast, tag)                                                                   \
    PLAIN_ROWS(f32stats, cast, tag)                                                       \
    BF16_TARGET static void rows_##tag##_hw(int nt, const uint16_t *x, const void *w,     \
                                            const void *b, float eps, size_t rows,        \
                                            size_t d, uint16_t *y)                        \
    {                                                                                     \
        for (size_t r = 0; r < rows; r++)                                                 \
            f32stats_row(NL_DT_BF16, 1, nt, cast, x + r * d, w, b, eps, d, y + r * d,     \
                         dot_bf16(x + r * d, d, cast != NL_CAST_TORCH),                   \
                         r + 1 < rows ? x + (r + 1) * d : NULL);                          \
    }
HALF_RUNG(ROWS, f32stats, 0)
