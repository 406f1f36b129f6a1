/* half_bf16_avx512.h — the 32-lane bf16 path of AVX-512's fast rungs
 * (castorder_f32stats_avx512.c, castorder_pipe_avx512.c,
 * castorder_block_avx512.c) on a CPU with avx512_bf16: the sums of a row
 * by vdpbf16ps, 32 bf16 a load split into even and odd lanes, narrowed two
 * vectors at a time by vcvtne2ps2bf16, with the exact path for a 32 whose
 * fast narrowing flushed a subnormal.  The rest of those rungs (fp16, bf16
 * without avx512_bf16, every row's tail, the statistics' frame) is the
 * width-generic half_rungs.h at 16 lanes.  Include only from *_avx512.c,
 * after simd/vec_avx512.h and precision/half_vec_avx512.h. */
#ifndef NL_HALF_BF16_AVX512_H
#define NL_HALF_BF16_AVX512_H

#include "precision/half_rungs.h"

static inline __mmask32 lanes32(size_t i, size_t d)
{
    return d - i >= 32 ? (__mmask32)0xffffffffu : (__mmask32)((1ull << (d - i)) - 1u);
}

// @snippet f32stats-dot-bf16
/* bf16 with avx512_bf16: sum of x*y over the row by vdpbf16ps, 32 pairs a
 * step; y = x gives the sum of squares, y = 1.0 the sum of x. Blocks of
 * 4 BLOCK elements (8 products a lane) are added in double, as above. The
 * steps are functions of their own, as block_sums' are: the one-pass
 * rungs take the same sums inside their output loops. */
typedef struct { __m512 a0, a1, a2, a3; } dot4;

static inline dot4 dot4_zero(void)
{
    __m512 z = _mm512_setzero_ps();
    return (dot4){z, z, z, z};
}

#define DOT_ONE _mm512_set1_epi16(0x3f80) /* 1.0 in bf16 */

/* 128 elements, v0..v3: with `square` their squares, else the elements */
BF16_TARGET static inline __attribute__((always_inline)) void
dot4_add4(dot4 *a, __m512i v0, __m512i v1, __m512i v2, __m512i v3, int square)
{
    a->a0 = _mm512_dpbf16_ps(a->a0, (__m512bh)v0, (__m512bh)(square ? v0 : DOT_ONE));
    a->a1 = _mm512_dpbf16_ps(a->a1, (__m512bh)v1, (__m512bh)(square ? v1 : DOT_ONE));
    a->a2 = _mm512_dpbf16_ps(a->a2, (__m512bh)v2, (__m512bh)(square ? v2 : DOT_ONE));
    a->a3 = _mm512_dpbf16_ps(a->a3, (__m512bh)v3, (__m512bh)(square ? v3 : DOT_ONE));
}

/* up to 32 elements of a block's rest (zero words add nothing) */
BF16_TARGET static inline __attribute__((always_inline)) void dot4_add1(dot4 *a, __m512i v,
                                                                         int square)
{
    a->a0 = _mm512_dpbf16_ps(a->a0, (__m512bh)v, (__m512bh)(square ? v : DOT_ONE));
}

/* a finished block added to the row's double lanes */
static inline __attribute__((always_inline)) vd dot4_fold(vd acc, dot4 a)
{
    return vd_add_halves(acc, _mm512_add_ps(_mm512_add_ps(a.a0, a.a1), _mm512_add_ps(a.a2, a.a3)));
}

BF16_TARGET static inline __attribute__((always_inline)) double
dot_bf16(const uint16_t *x, size_t d, int square)
{
    vd acc = vd_zero();
    size_t i = 0;
    while (i < d) {
        dot4 a = dot4_zero();
        size_t end = d - i > 4 * BLOCK ? i + 4 * BLOCK : d;
        for (; i + 128 <= end; i += 128)
            dot4_add4(&a, _mm512_loadu_si512(x + i), _mm512_loadu_si512(x + i + 32),
                      _mm512_loadu_si512(x + i + 64), _mm512_loadu_si512(x + i + 96), square);
        for (; i < end; i += 32)
            dot4_add1(&a, _mm512_maskz_loadu_epi16(lanes32(i, end), x + i), square);
        acc = dot4_fold(acc, a);
    }
    return vd_sum(acc);
}
// @end

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

#endif
