/* half_step_avx512.h — the elementwise step of each cast order as chapter
 * 8's one-pass rungs take it (castorder_pipe_avx512.c one row a loop,
 * castorder_block_avx512.c four): 32 bf16 a load split into even and odd
 * lanes, narrowed two vectors at a time, with the exact path for a 32
 * whose fast narrowing flushed a subnormal; 16 lanes in memory order for
 * fp16, bf16 without avx512_bf16 and every row's tail; the stores; and a
 * row's scale and shift from its sums. The weights of a step are loaded
 * apart from the step (w32, weights32), so that a loop writing several
 * rows loads them once for all. Include only from *_avx512.c. */
#ifndef NL_HALF_STEP_AVX512_H
#define NL_HALF_STEP_AVX512_H

#include "precision/half_stats_avx512.h"

/* The row's scale and shift: RMSNorm 1/rms and 0, LayerNorm 1/std and
 * -mean/std. */
typedef struct { __m512 a, c; } affine;

/* Weight i: LayerNorm's gamma and beta are the caller's 16-bit values
 * (half_run widens them for no rung: a d = 8192 row and 64 KiB of fp32
 * weights do not fit L1 together), the RMSNorm orders' weights fp32 (in
 * the even/odd order where the rows are read 32 bf16 a load). */
static inline const void *wat(nl_cast cast, const void *w, size_t i)
{
    return cast == NL_CAST_TORCH ? (const void *)((const uint16_t *)w + i)
                                 : (const void *)((const float *)w + i);
}

/* 16 inputs xv (fp32, memory order) to outputs, narrowed by the exact
 * rounding, with the weights wv and bv of their columns. */
static inline __attribute__((always_inline)) __m256i
step16_with(nl_dtype dt, nl_cast cast, __m512 xv, __m512 wv, __m512 bv, affine t)
{
    __m512 v = _mm512_mul_ps(xv, t.a);
    if (cast == NL_CAST_LLAMA) /* round x*r to the dtype, multiply in the dtype */
        v = widen16(dt, narrow16(dt, v));
    if (cast == NL_CAST_TORCH)
        v = _mm512_add_ps(v, t.c);
    v = _mm512_mul_ps(v, wv);
    if (cast == NL_CAST_TORCH)
        v = _mm512_add_ps(v, bv);
    return narrow16(dt, v);
}

/* The weights of up to 16 columns (lanes k) as fp32; beta only for
 * LayerNorm. */
static inline __attribute__((always_inline)) void
weights16(nl_dtype dt, nl_cast cast, const void *w, const void *b, __mmask16 k, __m512 *wv,
          __m512 *bv)
{
    *wv = weight16(dt, cast == NL_CAST_TORCH, w, 0, k);
    *bv = cast == NL_CAST_TORCH ? weight16(dt, 1, b, 0, k) : _mm512_setzero_ps();
}

/* Up to 16 elements in memory order: the 16-lane path and every row's
 * last d mod 32 (mod 16). */
static inline __attribute__((always_inline)) __m256i
step16(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *w, const void *b, affine t,
       __mmask16 k)
{
    __m512 wv, bv;
    weights16(dt, cast, w, b, k, &wv, &bv);
    return step16_with(dt, cast, load16(dt, x, k), wv, bv, t);
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
static inline __attribute__((always_inline)) void put16(int nt, uint16_t *p, __m256i v)
{
    if (nt && ((uintptr_t)p & 31) == 0)
        _mm256_stream_si256((__m256i *)p, v);
    else
        _mm256_storeu_si256((__m256i *)p, v);
}

static inline __attribute__((always_inline)) void put32(int nt, uint16_t *p, __m512i v)
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

/* The weights of 32 columns in the even/odd order: the RMSNorm orders'
 * fp32, widened so once a call by half_run; LayerNorm's the caller's bf16
 * gamma and beta, split per load as x is. */
typedef struct { __m512 we, wo, be, bo; } w32;

static inline __attribute__((always_inline)) w32 weights32(nl_cast cast, const void *w,
                                                           const void *b)
{
    w32 v;
    if (cast == NL_CAST_TORCH) {
        split32(_mm512_loadu_si512(w), &v.we, &v.wo);
        split32(_mm512_loadu_si512(b), &v.be, &v.bo);
    } else {
        v.we = _mm512_loadu_ps(w), v.wo = _mm512_loadu_ps((const float *)w + 16);
        v.be = v.bo = _mm512_setzero_ps();
    }
    return v;
}

/* The elementwise step of each cast order on 32 inputs u, weights in the
 * even/odd order: llama round(x * inv) * w; gemma x * inv * (1 + w);
 * torch ((x * rstd + shift) * g) + b, no FMA. */
BF16_TARGET static inline __attribute__((always_inline)) __m512i
step32(nl_cast cast, int hw, __m512i u, w32 wv, affine t)
{
    __m512 e, o;
    split32(u, &e, &o);
    e = _mm512_mul_ps(e, t.a), o = _mm512_mul_ps(o, t.a);
    if (cast == NL_CAST_LLAMA) /* the inner rounding: a round trip through 32 bf16 */
        split32(hw ? join32_hw(e, o) : join32_exact(e, o), &e, &o);
    if (cast == NL_CAST_TORCH)
        e = _mm512_add_ps(e, t.c), o = _mm512_add_ps(o, t.c);
    e = _mm512_mul_ps(e, wv.we), o = _mm512_mul_ps(o, wv.wo);
    if (cast == NL_CAST_TORCH)
        e = _mm512_add_ps(e, wv.be), o = _mm512_add_ps(o, wv.bo);
    return hw ? join32_hw(e, o) : join32_exact(e, o);
}

// @snippet pipe-subnormal
/* The 32 outputs of inputs x[0, 32) to y. vcvtne2ps2bf16 reads a
 * subnormal lane as zero, so a subnormal value comes out of it as a bf16
 * zero, and so does Llama's product after a subnormal x*r (0 times a
 * finite w: half_run() takes the exact path for a weight that is not
 * finite). One vptestnmw over the 32 outputs finds any zero; such a 32
 * (a true zero included, rare in activations) is computed again with the
 * exact rounding, before the store, since x may be y. */
BF16_TARGET static inline __attribute__((always_inline)) void
out32(nl_cast cast, int nt, const uint16_t *x, w32 wv, affine t, uint16_t *y)
{
    __m512i u = _mm512_loadu_si512(x);
    __m512i q = step32(cast, 1, u, wv, t);
    if (__builtin_expect(zero_words(q) != 0, 0))
        q = step32(cast, 0, u, wv, t);
    put32(nt, y, q);
}
// @end

/* The first sums of a row: of x (LayerNorm) and of x^2. */
typedef struct { double s1, s2; } sums;

// @snippet pipe-ln-stats
/* The row's affine from its sums. LayerNorm takes its variance from the
 * sums of x and x^2 in one pass (sum of squares minus sum^2/d, in double)
 * where that loses at most two bits to cancellation (the squares sum to
 * at most 4 times the squared deviations: mean^2 <= 3 var); a row whose
 * mean is far from zero against its spread is summed again from cache by
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

#endif
