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
 *     statistics of the scalar kernel instead: exact, and rare. */
#include "precision/half_step_avx512.h"

/* Narrow 16 full lanes. With `hw` (bf16 on an avx512_bf16 CPU) by
 * vcvtneps2bf16, which reads a subnormal lane as zero: a vector with one
 * (one vfpclassps finds it) takes the exact integer trick instead, before
 * it is stored.  Fixed up here, not by computing the row again: in place
 * (y == x) the row's x is gone by then.  The branch is practically never
 * taken, so it is always predicted. */
static inline __attribute__((always_inline)) __m256i narrow_full(nl_dtype dt, int hw, __m512 v)
{
    if (hw && dt == NL_DT_BF16) {
        if (__builtin_expect(_mm512_fpclass_ps_mask(v, 0x20) != 0, 0)) /* 0x20: denormal */
            return narrow16(dt, v);
        return narrow16_bf16_hw(v);
    }
    return narrow16(dt, v);
}

/* Full vectors of 16 outputs are stored by put16 (half_step_avx512.h):
 * streamed past the caches where `nt` (the output spills L2, so an
 * ordinary store would first read each line it writes, a third stream of
 * traffic) and y + i is on the 32-byte grid. */

/* A line of x 16 KiB past the next row's line under this step, asked for
 * into L2 now: the elementwise pass of one row is arithmetic on a row
 * already in L1, and the first pass of the next would otherwise wait for
 * memory with nothing to do. Asking for the next row itself into L1 (the
 * previous form of this rung) leaves too few lines in flight: measured by
 * `make half-pattern` (chapter 8's lab notebook, "The limit"), the bare
 * pattern reaches the copy only with its reads asked for 4-16 KiB ahead,
 * and Gemma's bf16 rung went from 0.64 to 0.67-0.72 of the copy over
 * three runs. One prefetch per 64-byte line, every other 16-element step;
 * past the end of x it does nothing, as a prefetch never faults (the
 * address is formed as an integer). */
enum { PF_AHEAD = 16384 };
static inline __attribute__((always_inline)) void prefetch_next(const uint16_t *next, size_t i)
{
    if (next && (i & 31) == 0)
        _mm_prefetch((const char *)((uintptr_t)(next + i) + PF_AHEAD), _MM_HINT_T1);
}

/* The elementwise pass of RMSNorm: y = round(x * inv) * w (llama) or
 * round(x * inv * w) (gemma, w = 1 + weight). */
static inline __attribute__((always_inline)) void
rms_pass(nl_dtype dt, int hw, int nt, nl_cast cast, const uint16_t *x, const void *w,
         float inv, size_t d, uint16_t *y, const uint16_t *next)
{
    const __m512 vinv = _mm512_set1_ps(inv);
    size_t i = 0;
    for (; i + 16 <= d; i += 16) {
        prefetch_next(next, i);
        __m512 xr = _mm512_mul_ps(load16(dt, x + i, 0xffff), vinv);
        if (cast == NL_CAST_LLAMA) /* round x*r to the dtype, multiply in the dtype */
            xr = widen16(dt, narrow_full(dt, hw, xr));
        __m512 out = _mm512_mul_ps(xr, weight16(dt, cast != NL_CAST_GEMMA, w, i, 0xffff));
        put16(nt, y + i, narrow_full(dt, hw, out));
    }
    if (i < d) { /* the tail: masked, narrowed by the exact integer trick */
        __mmask16 k = nl_mask16(d - i);
        __m512 xr = _mm512_mul_ps(load16(dt, x + i, k), vinv);
        if (cast == NL_CAST_LLAMA)
            xr = widen16(dt, narrow16(dt, xr));
        __m512 out = _mm512_mul_ps(xr, weight16(dt, cast != NL_CAST_GEMMA, w, i, k));
        _mm256_mask_storeu_epi16(y + i, k, narrow16(dt, out));
    }
}

/* torch's LayerNorm elementwise: ((x * rstd + shift) * g) + b, no FMA. */
static inline __attribute__((always_inline)) void
ln_pass(nl_dtype dt, int hw, int nt, const uint16_t *x, const void *g, const void *b,
        float rstdf, float shiftf, size_t d, uint16_t *y, const uint16_t *next)
{
    const __m512 shift = _mm512_set1_ps(shiftf), rstd = _mm512_set1_ps(rstdf);
    size_t i = 0;
    for (; i + 16 <= d; i += 16) {
        prefetch_next(next, i);
        __m512 t = _mm512_add_ps(_mm512_mul_ps(load16(dt, x + i, 0xffff), rstd), shift);
        t = _mm512_add_ps(_mm512_mul_ps(t, weight16(dt, 1, g, i, 0xffff)),
                          weight16(dt, 1, b, i, 0xffff));
        put16(nt, y + i, narrow_full(dt, hw, t));
    }
    if (i < d) {
        __mmask16 k = nl_mask16(d - i);
        __m512 t = _mm512_add_ps(_mm512_mul_ps(load16(dt, x + i, k), rstd), shift);
        t = _mm512_mul_ps(t, weight16(dt, 1, g, i, k));
        t = _mm512_add_ps(t, weight16(dt, 1, b, i, k));
        _mm256_mask_storeu_epi16(y + i, k, narrow16(dt, t));
    }
}

/* One row from its first fp32 sum `s` (LayerNorm: of x; RMSNorm: of x^2;
 * the caller takes it, by vdpbf16ps where it can), or from the double
 * statistics of the scalar kernel where fp32 cannot hold them. */
static inline __attribute__((always_inline)) void
one_row(nl_dtype dt, int hw, int nt, nl_cast cast, const uint16_t *x, const void *w,
        const void *b, float eps, size_t d, uint16_t *y, double s, const uint16_t *next)
{
    if (cast == NL_CAST_TORCH) {
        float meanf, rstdf;
        ln_stats_of(dt, x, d, eps, s, &meanf, &rstdf);
        ln_pass(dt, hw, nt, x, w, b, rstdf, -rstdf * meanf, d, y, next);
    } else {
        float inv = rms_inv_of(dt, x, d, eps, s);
        rms_pass(dt, hw, nt, cast, x, w, inv, d, y, next);
    }
}

/* The rows of a call, one function per cast order and narrowing so that
 * every inner loop is compiled for constants. */
#define ROWS(cast, tag)                                                                   \
    static void rows_##tag(nl_dtype dt, int nt, const uint16_t *x, const void *w,          \
                           const void *b, float eps, size_t rows, size_t d, uint16_t *y)  \
    {                                                                                     \
        for (size_t r = 0; r < rows; r++) {                                               \
            const uint16_t *xr = x + r * d;                                               \
            if (dt == NL_DT_BF16)                                                         \
                one_row(NL_DT_BF16, 0, nt, cast, xr, w, b, eps, d, y + r * d,                 \
                        first_sum(NL_DT_BF16, cast, xr, d), r + 1 < rows ? xr + d : NULL);  \
            else                                                                          \
                one_row(NL_DT_F16, 0, nt, cast, xr, w, b, eps, d, y + r * d,                  \
                        first_sum(NL_DT_F16, cast, xr, d), r + 1 < rows ? xr + d : NULL);   \
        }                                                                                 \
    }                                                                                     \
    BF16_TARGET static void rows_##tag##_hw(int nt, const uint16_t *x, const void *w,     \
                                            const void *b, float eps, size_t rows,        \
                                            size_t d, uint16_t *y)                        \
    {                                                                                     \
        for (size_t r = 0; r < rows; r++)                                                 \
            one_row(NL_DT_BF16, 1, nt, cast, x + r * d, w, b, eps, d, y + r * d,              \
                    dot_bf16(x + r * d, d, cast != NL_CAST_TORCH),                        \
                    r + 1 < rows ? x + (r + 1) * d : NULL);                               \
    }
HALF_RUNG(ROWS, f32stats, 0)
