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
#include "precision/half_stats_avx512.h"

/* The row's scale and shift: RMSNorm 1/rms and 0, LayerNorm 1/std and
 * -mean/std. */
typedef struct { __m512 a, c; } affine;

/* Weight i: LayerNorm's gamma and beta are the caller's 16-bit values
 * (half_run widens them for no rung: a d = 8192 row and 64 KiB of fp32
 * weights do not fit L1 together), the RMSNorm orders' weights fp32 in
 * the even/odd order. */
static inline const void *wat(nl_cast cast, const void *w, size_t i)
{
    return cast == NL_CAST_TORCH ? (const void *)((const uint16_t *)w + i)
                                 : (const void *)((const float *)w + i);
}

/* Up to 16 elements in memory order, narrowed by the exact rounding: the
 * 16-lane path and every row's last d mod 32 (mod 16). */
static inline __attribute__((always_inline)) __m256i
step16(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *w, const void *b, affine t,
       __mmask16 k)
{
    __m512 v = _mm512_mul_ps(load16(dt, x, k), t.a);
    if (cast == NL_CAST_LLAMA) /* round x*r to the dtype, multiply in the dtype */
        v = widen16(dt, narrow16(dt, v));
    if (cast == NL_CAST_TORCH)
        v = _mm512_add_ps(v, t.c);
    v = _mm512_mul_ps(v, weight16(dt, cast == NL_CAST_TORCH, w, 0, k));
    if (cast == NL_CAST_TORCH)
        v = _mm512_add_ps(v, weight16(dt, 1, b, 0, k));
    return narrow16(dt, v);
}

static inline __attribute__((always_inline)) void
tail16(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *w, const void *b, affine t,
       size_t n, uint16_t *y)
{
    for (size_t k = 0; k < n; k += 16) {
        __mmask16 m = nl_mask16(n - k < 16 ? n - k : 16);
        _mm256_mask_storeu_epi16(y + k, m,
                                 step16(dt, cast, x + k, wat(cast, w, k), wat(cast, b, k), t, m));
    }
}

/* A full 16 (32) of outputs: streamed past the caches where `nt` and the
 * address is on the store's grid (the rows of a width that is not a
 * multiple of 16 (32) start off it every other row). */
static inline void put16(int nt, uint16_t *p, __m256i v)
{
    if (nt && ((uintptr_t)p & 31) == 0)
        _mm256_stream_si256((__m256i *)p, v);
    else
        _mm256_storeu_si256((__m256i *)p, v);
}

static inline void put32(int nt, uint16_t *p, __m512i v)
{
    if (nt && ((uintptr_t)p & 63) == 0)
        _mm512_stream_si512((__m512i *)p, v);
    else
        _mm512_storeu_si512(p, v);
}

/* ---- bf16 on an avx512_bf16 CPU: 32 elements a vector pair ---- */

// @snippet pipe-split
/* 32 bf16 values as fp32: in each 32-bit lane the even element is the low
 * half (shifted up) and the odd one the high half (low half cleared). */
static inline void split32(__m512i u, __m512 *e, __m512 *o)
{
    *e = _mm512_castsi512_ps(_mm512_slli_epi32(u, 16));
    *o = _mm512_castsi512_ps(_mm512_and_si512(u, _mm512_set1_epi32((int)0xffff0000u)));
}

/* The pair rounded to bf16, back in memory order: vcvtne2ps2bf16 puts the
 * even elements in the low 16 words and the odd in the high 16, and one
 * vpermw interleaves them. */
BF16_TARGET static inline __m512i join32_hw(__m512 e, __m512 o)
{
    const __m512i inter = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9,
                                           24, 8, 23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17,
                                           1, 16, 0);
    return _mm512_permutexvar_epi16(inter, (__m512i)_mm512_cvtne2ps_pbh(o, e));
}
// @end

/* The words of v that are +0 or -0 in bf16. */
static inline __mmask32 zero_words(__m512i v)
{
    return _mm512_testn_epi16_mask(v, _mm512_set1_epi16(0x7fff));
}

/* The same pair by the exact integer rounding (the rare slow path). */
static inline __m512i join32_exact(__m512 e, __m512 o)
{
    return _mm512_or_si512(bf16_round_lanes(e), _mm512_slli_epi32(bf16_round_lanes(o), 16));
}

/* The elementwise step of each cast order on 32 inputs u, w and b in the
 * even/odd order: llama round(x * inv) * w; gemma x * inv * (1 + w);
 * torch ((x * rstd + shift) * g) + b, no FMA. */
BF16_TARGET static inline __attribute__((always_inline)) __m512i
step32(nl_cast cast, int hw, __m512i u, const void *w, const void *b, affine t)
{
    __m512 e, o;
    split32(u, &e, &o);
    e = _mm512_mul_ps(e, t.a), o = _mm512_mul_ps(o, t.a);
    if (cast == NL_CAST_LLAMA) /* the inner rounding: a round trip through 32 bf16 */
        split32(hw ? join32_hw(e, o) : join32_exact(e, o), &e, &o);
    if (cast == NL_CAST_TORCH)
        e = _mm512_add_ps(e, t.c), o = _mm512_add_ps(o, t.c);
    __m512 we, wo;
    if (cast == NL_CAST_TORCH) /* the caller's bf16 gamma and beta, split as x is */
        split32(_mm512_loadu_si512(w), &we, &wo);
    else
        we = _mm512_loadu_ps(w), wo = _mm512_loadu_ps((const float *)w + 16);
    e = _mm512_mul_ps(e, we), o = _mm512_mul_ps(o, wo);
    if (cast == NL_CAST_TORCH) {
        split32(_mm512_loadu_si512(b), &we, &wo);
        e = _mm512_add_ps(e, we), o = _mm512_add_ps(o, wo);
    }
    return hw ? join32_hw(e, o) : join32_exact(e, o);
}

// @snippet pipe-subnormal
/* Outputs [i, i + 32) of the row. vcvtne2ps2bf16 reads a subnormal lane
 * as zero, so a subnormal value comes out of it as a bf16 zero, and so
 * does Llama's product after a subnormal x*r (0 times a finite w: half_run()
 * takes the exact path for a weight that is not finite). One vptestnmw
 * over the 32 outputs finds any zero; such a 32 (a true zero included,
 * rare in activations) is computed again with the exact rounding, before
 * the store, since x may be y. */
BF16_TARGET static inline __attribute__((always_inline)) void
out32(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b, affine t,
      size_t i, uint16_t *y)
{
    __m512i u = _mm512_loadu_si512(x + i);
    __m512i q = step32(cast, 1, u, wat(cast, w, i), wat(cast, b, i), t);
    if (__builtin_expect(zero_words(q) != 0, 0))
        q = step32(cast, 0, u, wat(cast, w, i), wat(cast, b, i), t);
    put32(nt, y + i, q);
}
// @end

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

/* The first sums of a row: of x (LayerNorm) and of x^2. */
typedef struct { double s1, s2; } sums;

#define DP(acc, v, w) acc = _mm512_dpbf16_ps(acc, (__m512bh)(v), (__m512bh)(w))

// @snippet pipe-row
/* One row's outputs (`out`), and (`more`) the next row's sums in the same
 * loop, by vdpbf16ps: of x^2 the next row with itself, in exactly
 * dot_bf16's order (half_stats_avx512.h), and for LayerNorm also of x, as
 * the dot product with 1.0. Row 0 is this loop with no outputs. */
BF16_TARGET static inline __attribute__((always_inline)) sums
row_hw(nl_cast cast, int nt, const uint16_t *x, const void *w, const void *b, affine t,
       size_t d, uint16_t *y, const uint16_t *next, int more, int out, const char *pf)
{
    const __m512i one = _mm512_set1_epi16(0x3f80); /* 1.0 in bf16 */
    const int ln = cast == NL_CAST_TORCH;
    __m512d acc = _mm512_setzero_pd(), acc1 = acc;
    size_t i = 0;
    while (i < d) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, c0 = a0, c1 = a0, c2 = a0,
               c3 = a0;
        size_t end = d - i > 4 * BLOCK ? i + 4 * BLOCK : d;
        for (; i + 128 <= end; i += 128) {
            if (out) {
                out32(cast, nt, x, w, b, t, i, y);
                out32(cast, nt, x, w, b, t, i + 32, y);
                out32(cast, nt, x, w, b, t, i + 64, y);
                out32(cast, nt, x, w, b, t, i + 96, y);
            }
            if (pf)
                prefetch4(pf + 2 * i, ln);
            if (more) {
                __m512i v0 = _mm512_loadu_si512(next + i), v1 = _mm512_loadu_si512(next + i + 32);
                __m512i v2 = _mm512_loadu_si512(next + i + 64);
                __m512i v3 = _mm512_loadu_si512(next + i + 96);
                DP(a0, v0, v0), DP(a1, v1, v1), DP(a2, v2, v2), DP(a3, v3, v3);
                if (ln)
                    DP(c0, v0, one), DP(c1, v1, one), DP(c2, v2, one), DP(c3, v3, one);
            }
        }
        for (; i < end; i += 32) {
            if (out && i + 32 <= d)
                out32(cast, nt, x, w, b, t, i, y);
            else if (out)
                tail16(NL_DT_BF16, cast, x + i, wat(cast, w, i), wat(cast, b, i), t, d - i,
                       y + i);
            if (more) {
                __m512i v = _mm512_maskz_loadu_epi16(lanes32(i, end), next + i);
                DP(a0, v, v);
                if (ln)
                    DP(c0, v, one);
            }
        }
        acc = add_halves(acc, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
        if (ln)
            acc1 = add_halves(acc1, _mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)));
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

// @snippet pipe-ln-stats
/* The row's affine from its sums. LayerNorm takes its variance from the
 * sums of x and x^2 in one pass (sum of squares minus sum^2/d, in double)
 * where that loses at most two bits to cancellation (the squares sum to
 * at most 4 times the squared deviations: mean^2 <= 3 var); a row whose
 * mean is far from zero against its spread is summed again from L1 by
 * castorder_f32stats_avx512.c's two-pass statistics (ln_stats_of). */
static inline __attribute__((always_inline)) affine affine_of(nl_dtype dt, nl_cast cast,
                                                              const uint16_t *x, size_t d,
                                                              float eps, sums s)
{
    if (cast != NL_CAST_TORCH)
        return (affine){_mm512_set1_ps(rms_inv_of(dt, x, d, eps, s.s2)), _mm512_setzero_ps()};
    float meanf, rstdf;
    double m2 = s.s2 - s.s1 * s.s1 / (double)d;
    if (trusted(m2) && s.s2 <= 4.0 * m2)
        nl_half_ln_stats_from(s.s1 / (double)d, m2, d, eps, &meanf, &rstdf);
    else
        ln_stats_of(dt, x, d, eps, s.s1, &meanf, &rstdf);
    return (affine){_mm512_set1_ps(rstdf), _mm512_set1_ps(-rstdf * meanf)};
}
// @end

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
