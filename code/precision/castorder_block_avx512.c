/* castorder_block_avx512.c — the block rung of chapter 8's ladder: the
 * f32 block rung's trick (code/simd/rmsnorm_avx512.c, layernorm_avx512.c,
 * `*_avx512_block`) on 16-bit rows.
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
 * steps are the pipe rung's (half_step_avx512.h), so each output has the
 * pipe rung's bits; for RMSNorm those are the f32stats rung's too.
 * LayerNorm's are not: f32stats sums the deviations from a first mean in
 * a second pass over the row, which would read each row again; as the
 * pipe rung does, this one takes the sums of x and x^2 together and
 * checks that the variance kept its bits (affine_of). */
#include "precision/half_step_avx512.h"

#ifndef NL_HALF_BLOCK_ROWS /* knobs for trying other block heights */
#define NL_HALF_BLOCK_ROWS 4
#endif
#ifndef NL_HALF_BLOCK_PF /* and prefetch distances (bytes; 0: none) */
#define NL_HALF_BLOCK_PF 0
#endif
enum { NB = NL_HALF_BLOCK_ROWS }; /* rows a block */

/* The line PF bytes past the reads of each of the next rows, asked for
 * into L2, where NL_HALF_BLOCK_PF sets a distance. */
static inline __attribute__((always_inline)) void ask_ahead(const uint16_t *xn, size_t nn,
                                                            size_t d, size_t i)
{
    for (size_t j = 0; NL_HALF_BLOCK_PF && j < nn; j++)
        for (size_t k = 0; k < 256; k += 64)
            _mm_prefetch((const char *)((uintptr_t)(xn + j * d + i) + NL_HALF_BLOCK_PF + k),
                         _MM_HINT_T1);
}

/* The next rows' sums in double lanes, a row each: of x^2 (q) and of x
 * (p, LayerNorm), added to once per block of columns. */
typedef struct { __m512d q[NB], p[NB]; } row_lanes;

static inline row_lanes row_lanes_zero(void)
{
    row_lanes l;
#pragma GCC unroll 8
    for (size_t j = 0; j < NB; j++)
        l.q[j] = l.p[j] = _mm512_setzero_pd();
    return l;
}

static inline void row_lanes_out(const row_lanes *l, size_t nn, sums *s)
{
#pragma GCC unroll 8
    for (size_t j = 0; j < nn; j++)
        s[j] = (sums){_mm512_reduce_add_pd(l->p[j]), _mm512_reduce_add_pd(l->q[j])};
}

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
                    tail16(NL_DT_BF16, cast, xb + j * d + i, wat(cast, w, i), wat(cast, b, i),
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

/* The same loop on 16 lanes in memory order (fp16, and bf16 without
 * avx512_bf16), the sums in dev_sums' order. */
static inline __attribute__((always_inline)) void
block_plain(nl_dtype dt, nl_cast cast, int nt, const uint16_t *xb, size_t nb, const affine *t,
            const void *w, const void *b, size_t d, uint16_t *yb, const uint16_t *xn, size_t nn,
            sums *s)
{
    const int ln = cast == NL_CAST_TORCH;
    row_lanes l = row_lanes_zero();
    size_t i = 0;
    while (i < d) {
        block_sums a[NB];
#pragma GCC unroll 8
        for (size_t j = 0; j < NB; j++)
            a[j] = block_zero();
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 32 <= end; i += 32) {
            if ((i & 127) == 0)
                ask_ahead(xn, nn, d, i);
            for (size_t k = i; k < i + 32; k += 16) {
                __m512 wv, bv;
                weights16(dt, cast, wat(cast, w, k), wat(cast, b, k), 0xffff, &wv, &bv);
#pragma GCC unroll 8
                for (size_t j = 0; j < nb; j++)
                    put16(nt, yb + j * d + k,
                          step16_with(dt, cast, load16(dt, xb + j * d + k, 0xffff), wv, bv, t[j]));
            }
#pragma GCC unroll 8
            for (size_t j = 0; j < nn; j++)
                block_add2(&a[j], load16(dt, xn + j * d + i, 0xffff),
                           load16(dt, xn + j * d + i + 16, 0xffff), ln);
        }
        for (; i < end; i += 16) {
#pragma GCC unroll 8
            for (size_t j = 0; j < nb; j++)
                tail16(dt, cast, xb + j * d + i, wat(cast, w, i), wat(cast, b, i), t[j],
                       end - i < 16 ? end - i : 16, yb + j * d + i);
#pragma GCC unroll 8
            for (size_t j = 0; j < nn; j++)
                block_add1(&a[j], load16(dt, xn + j * d + i, lanes16(i, end)), ln);
        }
#pragma GCC unroll 8
        for (size_t j = 0; j < nn; j++)
            block_fold(&l.q[j], &l.p[j], a[j], ln);
    }
    row_lanes_out(&l, nn, s);
}

/* One block's loop, as block_hw or block_plain compiled for one cast
 * order: a full block beside a full next one with the counts constant,
 * the edges of a call with them as they come. */
typedef void block_fn(nl_dtype dt, int nt, const uint16_t *xb, size_t nb, const affine *t,
                      const void *w, const void *b, size_t d, uint16_t *yb, const uint16_t *xn,
                      size_t nn, sums *s);

/* The rows of a call, a block at a time: each block's affines from the
 * sums the previous block's loop took, then its loop. */
static void blocks_of(block_fn *one, nl_dtype dt, nl_cast cast, int nt, const uint16_t *x,
                      const void *w, const void *b, float eps, size_t rows, size_t d, uint16_t *y)
{
    affine t[NB] = {{_mm512_setzero_ps(), _mm512_setzero_ps()}};
    sums s[NB];
    size_t nb = rows < NB ? rows : NB;
    one(dt, nt, NULL, 0, t, w, b, d, NULL, x, nb, s); /* the first block's sums alone */
    for (size_t r = 0; r < rows; r += nb) {
        nb = rows - r < NB ? rows - r : NB;
#pragma GCC unroll 8
        for (size_t j = 0; j < nb; j++)
            t[j] = affine_of(dt, cast, x + (r + j) * d, d, eps, s[j]);
        size_t after = rows - r - nb;
        one(dt, nt, x + r * d, nb, t, w, b, d, y + r * d, x + (r + nb) * d,
            after < NB ? after : NB, s);
    }
}

#define BLOCK_ROWS(cast, tag)                                                               \
    static void block_##tag(nl_dtype dt, int nt, const uint16_t *xb, size_t nb,            \
                            const affine *t, const void *w, const void *b, size_t d,       \
                            uint16_t *yb, const uint16_t *xn, size_t nn, sums *s)          \
    {                                                                                       \
        if (nb == NB && nn == NB && dt == NL_DT_BF16)                                       \
            block_plain(NL_DT_BF16, cast, nt, xb, NB, t, w, b, d, yb, xn, NB, s);           \
        else if (nb == NB && nn == NB)                                                      \
            block_plain(NL_DT_F16, cast, nt, xb, NB, t, w, b, d, yb, xn, NB, s);            \
        else if (dt == NL_DT_BF16)                                                          \
            block_plain(NL_DT_BF16, cast, nt, xb, nb, t, w, b, d, yb, xn, nn, s);           \
        else                                                                                \
            block_plain(NL_DT_F16, cast, nt, xb, nb, t, w, b, d, yb, xn, nn, s);            \
    }                                                                                       \
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
    static void rows_##tag(nl_dtype dt, int nt, const uint16_t *x, const void *w,           \
                           const void *b, float eps, size_t rows, size_t d, uint16_t *y)   \
    {                                                                                       \
        blocks_of(block_##tag, dt, cast, nt, x, w, b, eps, rows, d, y);                     \
    }                                                                                       \
    static void rows_##tag##_hw(int nt, const uint16_t *x, const void *w, const void *b,    \
                                float eps, size_t rows, size_t d, uint16_t *y)             \
    {                                                                                       \
        blocks_of(block_##tag##_hw, NL_DT_BF16, cast, nt, x, w, b, eps, rows, d, y);        \
    }
HALF_RUNG(BLOCK_ROWS, block, 1)
