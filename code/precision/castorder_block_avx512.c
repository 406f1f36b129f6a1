/* castorder_block_avx512.c — the fourth rung of chapter 8's ladder: the
 * f32 block rung's trick (code/simd/rmsnorm_rungs.h, layernorm_rungs.h,
 * `*_block`) on 16-bit rows.
 *
 * The pipe rung (castorder_pipe_avx512.c) writes one row while it sums the
 * next, and for RMSNorm that was slower than the two passes of f32stats.
 * Here one loop over the columns writes four rows, with each 32 columns'
 * weights loaded (and, for LayerNorm's bf16, split) once for the four, and
 * in the same loop sums the next four rows, which come from memory while
 * this block's stores leave, as in a copy. The rows of a block were
 * summed by the previous block's loop: only the first block of a call is
 * read on its own, and a last block of fewer than four rows is the same
 * loop on fewer rows.
 *
 * Every row's statistics are the pipe rung's, summed in the same order
 * (dot4_* for bf16 on an avx512_bf16 CPU, block_sums otherwise), and its
 * steps are the pipe rung's (half_rungs.h, half_bf16_avx512.h), so each output has the
 * pipe rung's bits; for RMSNorm those are the f32stats rung's too.
 * LayerNorm's are not: f32stats sums the deviations from a first mean in
 * a second pass over the row, which would read each row again; as the
 * pipe rung does, this one takes the sums of x and x^2 together and
 * checks that the variance kept its bits (affine_of).
 *
 * The rung is half_rungs.h's (block_plain, blocks_of) at every width; this
 * file compiles it at 16 lanes, with the 32-lane bf16 loop of an
 * avx512_bf16 CPU (block_hw). */
#include "simd/vec_avx512.h"
#include "precision/half_vec_avx512.h"
#include "precision/half_bf16_avx512.h"

// @snippet block-loop
/* One loop over the columns for bf16 on an avx512_bf16 CPU: the nb rows
 * of xb written to yb from their affines t, and the nn rows of xn summed
 * into s (x^2, and for LayerNorm x) in dot_bf16's order. */
BF16_TARGET static inline __attribute__((always_inline)) void
block_hw(nl_cast cast, int nt, const uint16_t *xb, size_t nb, const affine *t, const void *w,
         const void *b, size_t d, uint16_t *yb, const uint16_t *xn, size_t nn, sums *s)
{
    const int ln = cast == NL_CAST_TORCH;
    row_lanes l = row_lanes_zero();
    size_t i = 0;
    while (i < d) {
        size_t end = d - i > 4 * BLOCK ? i + 4 * BLOCK : d;
        dot4 a[NB], c[NB];
#pragma GCC unroll 8
        for (size_t j = 0; j < NB; j++)
            a[j] = c[j] = dot4_zero();
        for (; i + 128 <= end; i += 128) {
            ask_ahead(xn, nn, d, i);
            for (size_t k = i; k < i + 128; k += 32) {
                w32 wv = weights32(cast, wat(cast, w, k), wat(cast, b, k));
#pragma GCC unroll 8
                for (size_t j = 0; j < nb; j++)
                    out32(cast, nt, xb + j * d + k, wv, t[j], yb + j * d + k);
            }
#pragma GCC unroll 8
            for (size_t j = 0; j < nn; j++) {
                const uint16_t *v = xn + j * d + i;
                __m512i v0 = _mm512_loadu_si512(v), v1 = _mm512_loadu_si512(v + 32);
                __m512i v2 = _mm512_loadu_si512(v + 64), v3 = _mm512_loadu_si512(v + 96);
                dot4_add4(&a[j], v0, v1, v2, v3, 1);
                if (ln)
                    dot4_add4(&c[j], v0, v1, v2, v3, 0);
            }
        }
        for (; i < end; i += 32) {
            if (i + 32 <= d) {
                w32 wv = weights32(cast, wat(cast, w, i), wat(cast, b, i));
#pragma GCC unroll 8
                for (size_t j = 0; j < nb; j++)
                    out32(cast, nt, xb + j * d + i, wv, t[j], yb + j * d + i);
            } else {
#pragma GCC unroll 8
                for (size_t j = 0; j < nb; j++)
                    tail(NL_DT_BF16, cast, xb + j * d + i, wat(cast, w, i), wat(cast, b, i),
                           t[j], d - i, yb + j * d + i);
            }
#pragma GCC unroll 8
            for (size_t j = 0; j < nn; j++) {
                __m512i v = _mm512_maskz_loadu_epi16(lanes32(i, end), xn + j * d + i);
                dot4_add1(&a[j], v, 1);
                if (ln)
                    dot4_add1(&c[j], v, 0);
            }
        }
#pragma GCC unroll 8
        for (size_t j = 0; j < nn; j++) {
            l.q[j] = dot4_fold(l.q[j], a[j]);
            if (ln)
                l.p[j] = dot4_fold(l.p[j], c[j]);
        }
    }
    row_lanes_out(&l, nn, s);
}
// @end

/* block_plain (half_rungs.h) and block_hw compiled for one cast order, the
 * counts constant in a full block beside a full next one, and the rows
 * of a call by each. */
#define BLOCK_ROWS(cast, tag)                                                               \
    BLOCK_PLAIN(cast, tag)                                                                  \
    BF16_TARGET static void block_##tag##_hw(nl_dtype dt, int nt, const uint16_t *xb,      \
                                             size_t nb, const affine *t, const void *w,    \
                                             const void *b, size_t d, uint16_t *yb,        \
                                             const uint16_t *xn, size_t nn, sums *s)       \
    {                                                                                       \
        (void)dt;                                                                           \
        if (nb == NB && nn == NB)                                                           \
            block_hw(cast, nt, xb, NB, t, w, b, d, yb, xn, NB, s);                          \
        else                                                                                \
            block_hw(cast, nt, xb, nb, t, w, b, d, yb, xn, nn, s);                          \
    }                                                                                       \
    static void rows_##tag##_hw(int nt, const uint16_t *x, const void *w, const void *b,    \
                                float eps, size_t rows, size_t d, uint16_t *y)             \
    {                                                                                       \
        blocks_of(block_##tag##_hw, NL_DT_BF16, cast, nt, x, w, b, eps, rows, d, y);        \
    }
HALF_RUNG(BLOCK_ROWS, block, 1)
