/* half_stats_avx512.h — what chapter 8's fast rungs share
 * (castorder_f32stats_avx512.c, castorder_pipe_avx512.c,
 * castorder_block_avx512.c): the fp32 row statistics, which all take in
 * exactly this order, so that the rungs agree bit for bit; the weights
 * widened once a call; and one call's frame around each rung's row
 * functions. Include only from *_avx512.c. */
#ifndef NL_HALF_STATS_AVX512_H
#define NL_HALF_STATS_AVX512_H

#include <math.h>

#include "precision/half_avx512.h"
#include "precision/precision.h"
#include "simd/avx512_util.h"
#include "simd/simd.h"

/* A sum of squares (or of squared deviations) inside this range kept
 * every term of the row inside fp32's normal range with room to spare. */
static inline int trusted(double s)
{
    return s >= 0x1p-96 && s <= 0x1p100;
}

static inline __mmask32 lanes32(size_t i, size_t d)
{
    return d - i >= 32 ? (__mmask32)0xffffffffu : (__mmask32)((1ull << (d - i)) - 1u);
}

static inline __mmask16 lanes16(size_t i, size_t d)
{
    return d - i >= 16 ? (__mmask16)0xffff : nl_mask16(d - i);
}

/* The 16 fp32 lanes of v added to 8 double lanes. */
static inline __m512d add_halves(__m512d acc, __m512 v)
{
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
    return _mm512_add_pd(acc, _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)),
                                            _mm512_cvtps_pd(hi)));
}

// @snippet f32stats-sumsq
/* Sum of (x - c)^2 over the row (RMSNorm: c = 0), and of x - c in *sdev:
 * fp32 accumulators over blocks of BLOCK elements (4 terms a lane), each
 * block's sums then added in double. The fp32 error stays that of a few
 * additions, so the row's fp32 statistic is, but for a last bit now and
 * then, the scalar kernel's; the cost is two conversions per block. The
 * steps are functions of their own: castorder_pipe_avx512.c takes the
 * same sums, in the same order, inside its output loop. */
enum { BLOCK = 256 };
typedef struct { __m512 q0, q1, s0, s1; } block_sums;

static inline block_sums block_zero(void)
{
    __m512 z = _mm512_setzero_ps();
    return (block_sums){z, z, z, z};
}

/* 32 terms, v0 and v1; `sum` also adds them to the plain sums */
static inline __attribute__((always_inline)) void block_add2(block_sums *a, __m512 v0, __m512 v1,
                                                             int sum)
{
    a->q0 = _mm512_fmadd_ps(v0, v0, a->q0), a->q1 = _mm512_fmadd_ps(v1, v1, a->q1);
    if (sum)
        a->s0 = _mm512_add_ps(a->s0, v0), a->s1 = _mm512_add_ps(a->s1, v1);
}

/* up to 16 terms, the rest of a block (zero lanes add nothing) */
static inline __attribute__((always_inline)) void block_add1(block_sums *a, __m512 v, int sum)
{
    a->q0 = _mm512_fmadd_ps(v, v, a->q0);
    if (sum)
        a->s0 = _mm512_add_ps(a->s0, v);
}

/* a finished block's sums added to the row's double lanes */
static inline __attribute__((always_inline)) void block_fold(__m512d *q, __m512d *s, block_sums a,
                                                             int sum)
{
    *q = add_halves(*q, _mm512_add_ps(a.q0, a.q1));
    if (sum)
        *s = add_halves(*s, _mm512_add_ps(a.s0, a.s1));
}

static inline __attribute__((always_inline)) double dev_sums(nl_dtype dt, const uint16_t *x,
                                                             size_t d, float c, double *sdev)
{
    __m512d q = _mm512_setzero_pd(), s = q;
    const __m512 cc = _mm512_set1_ps(c);
    size_t i = 0;
    while (i < d) {
        block_sums a = block_zero();
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 32 <= end; i += 32)
            block_add2(&a, _mm512_sub_ps(load16(dt, x + i, 0xffff), cc),
                       _mm512_sub_ps(load16(dt, x + i + 16, 0xffff), cc), sdev != NULL);
        for (; i < end; i += 16) {
            __mmask16 k = lanes16(i, end);
            block_add1(&a, _mm512_maskz_sub_ps(k, load16(dt, x + i, k), cc), sdev != NULL);
        }
        block_fold(&q, &s, a, sdev != NULL);
    }
    if (sdev)
        *sdev = _mm512_reduce_add_pd(s);
    return _mm512_reduce_add_pd(q);
}

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
static inline __attribute__((always_inline)) __m512d dot4_fold(__m512d acc, dot4 a)
{
    return add_halves(acc, _mm512_add_ps(_mm512_add_ps(a.a0, a.a1), _mm512_add_ps(a.a2, a.a3)));
}

BF16_TARGET static inline __attribute__((always_inline)) double
dot_bf16(const uint16_t *x, size_t d, int square)
{
    __m512d acc = _mm512_setzero_pd();
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
    return _mm512_reduce_add_pd(acc);
}
// @end

static inline __attribute__((always_inline)) float sum_f32(nl_dtype dt, const uint16_t *x,
                                                           size_t d)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 64 <= d; i += 64) {
        a0 = _mm512_add_ps(a0, load16(dt, x + i, 0xffff));
        a1 = _mm512_add_ps(a1, load16(dt, x + i + 16, 0xffff));
        a2 = _mm512_add_ps(a2, load16(dt, x + i + 32, 0xffff));
        a3 = _mm512_add_ps(a3, load16(dt, x + i + 48, 0xffff));
    }
    for (; i < d; i += 16)
        a0 = _mm512_add_ps(a0, load16(dt, x + i, lanes16(i, d)));
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

/* RMSNorm's 1/rms from the row's fp32-summed squares `s`, or from the
 * scalar kernel's double sum where fp32 could not hold them. */
static inline float rms_inv_of(nl_dtype dt, const uint16_t *x, size_t d, float eps, double s)
{
    return trusted(s) ? nl_half_rms_inv_from(s, d, eps) : nl_half_rms_inv(dt, x, d, eps);
}

/* LayerNorm's mean and 1/std from the row's first fp32 sum `s` (of x). The
 * deviations are taken from c, the first mean rounded to the dtype: then
 * x - c is exact in fp32 for every x within 2^13 of c's scale. From the
 * fp32 mean itself each x - c would round away the same low bits of c, an
 * error of one sign that d terms add up (32 fp32 ulps of the mean on a
 * 4096-wide row). */
static inline __attribute__((always_inline)) void
ln_stats_of(nl_dtype dt, const uint16_t *x, size_t d, float eps, double s, float *meanf,
            float *rstdf)
{
    float c = nl_half_to_float(dt, nl_half_from_float(dt, (float)(s / (double)d)));
    double sdev = 0.0, s2 = isfinite(s) ? dev_sums(dt, x, d, c, &sdev) : NAN;
    /* the mean is c + sdev/d; the squares about it sum to s2 - sdev^2/d */
    double m2 = s2 - sdev * sdev / (double)d;
    if (trusted(m2))
        nl_half_ln_stats_from((double)c + sdev / (double)d, m2, d, eps, meanf, rstdf);
    else
        nl_half_ln_stats(dt, x, d, eps, meanf, rstdf);
}

static inline __attribute__((always_inline)) double first_sum(nl_dtype dt, nl_cast cast,
                                                              const uint16_t *x, size_t d)
{
    return cast == NL_CAST_TORCH ? (double)sum_f32(dt, x, d) : dev_sums(dt, x, d, 0.0f, NULL);
}

/* gamma (Gemma: 1 + gamma, in fp32 as GemmaRMSNorm adds it) and beta,
 * widened once for every row of the call. With `split`, each full 32 of
 * the row is stored as its 16 even elements, then its 16 odd ones: the
 * lanes in which the one-pass rungs (half_step_avx512.h) hold a
 * 32-element load of bf16 (the rest of the row stays in order). */
static inline void widen_weights(nl_dtype dt, nl_cast cast, const uint16_t *gamma,
                                 const uint16_t *beta, size_t d, float *w, float *b, int split)
{
    for (size_t i = 0; i < d; i++) {
        size_t at = i;
        if (split && (i | 31) < d) /* i's 32 is full */
            at = (i & ~(size_t)31) + (i & 1) * 16 + (i & 31) / 2;
        float g = nl_half_to_float(dt, gamma[i]);
        w[at] = cast == NL_CAST_GEMMA ? 1.0f + g : g;
        if (b)
            b[at] = nl_half_to_float(dt, beta[i]);
    }
}

/* Up to 16 weights from i on (lanes k), as fp32: with `w16` the caller's
 * 16-bit values, widened here, else fp32 widened once a call by half_run.
 * Gemma's 1 + w must be fp32; Llama's weight and LayerNorm's gamma and
 * beta are exact in the dtype. A row of d = 8192 and its fp32 weights
 * (32 KiB, LayerNorm's two 64 KiB) do not fit the 48 KiB L1 together, and
 * out of cache the weights' lines then compete with the stream from
 * memory; 16-bit weights take half the room for a widening per 16
 * (chapter 8's lab notebook, "The limit"). */
static inline __attribute__((always_inline)) __m512 weight16(nl_dtype dt, int w16, const void *w,
                                                             size_t i, __mmask16 k)
{
    if (!w16)
        return _mm512_maskz_loadu_ps(k, (const float *)w + i);
    return load16(dt, (const uint16_t *)w + i, k);
}

/* The rows of a call: `plain` for fp16, and for bf16 on a CPU without
 * avx512_bf16; `hw` for bf16 with it. */
typedef void half_rows_fn(nl_dtype, int, const uint16_t *, const void *, const void *, float,
                          size_t, size_t, uint16_t *);
typedef void half_hw_rows_fn(int, const uint16_t *, const void *, const void *, float, size_t,
                             size_t, uint16_t *);

/* One call of a fast rung: the arguments checked, the weights widened to
 * fp32 once (with `split`, the one-pass rungs': the hw rows read them in
 * the even/odd order of a 32-bf16 load, and Llama's need them finite:
 * out32's zero test (half_step_avx512.h) sees a subnormal x*r only through
 * a finite weight, since 0 * inf is NaN, not 0), then the rows, streamed
 * where the output spills L2. Gemma's 1 + w is widened for every rung,
 * since fp32 is where GemmaRMSNorm adds it, and Llama's for the one-pass
 * rungs (pipe, block);
 * LayerNorm's gamma and beta, and Llama's weight in the f32stats rung, are
 * read as the caller's 16-bit values (weight16). */
static inline int half_run(nl_cast cast, int split, half_rows_fn *plain, half_hw_rows_fn *hw_rows,
                           nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta,
                           float eps, size_t rows, size_t d, uint16_t *y)
{
    int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, nl_cast_norm(cast));
    if (rc || rows == 0)
        return rc;
    int ln = cast == NL_CAST_TORCH, hw = dt == NL_DT_BF16 && cpu_has_bf16();
    const void *wv = gamma, *bv = beta;
    float *w = NULL;
    if (cast == NL_CAST_GEMMA || (split && cast == NL_CAST_LLAMA)) {
        w = nl_alloc(d * sizeof(float) * (ln ? 2 : 1));
        if (!w) {
            nl_set_error("no memory for %zu widened weights", d);
            return NL_ENOMEM;
        }
        float *b = ln ? w + d : NULL;
        widen_weights(dt, cast, gamma, beta, d, w, b, hw && split);
        if (hw && split && cast == NL_CAST_LLAMA) {
            for (size_t i = 0; hw && i < d; i++)
                hw = isfinite(w[i]);
            if (!hw) /* back to memory order, for the plain rows */
                widen_weights(dt, cast, gamma, beta, d, w, b, 0);
        }
        wv = w, bv = b;
    }
    int nt = nl_output_spills(rows, (d + 1) / 2); /* 16-bit: half the floats */
    if (hw)
        hw_rows(nt, x, wv, bv, eps, rows, d, y);
    else
        plain(dt, nt, x, wv, bv, eps, rows, d, y);
    if (nt)
        _mm_sfence(); /* streamed lines are visible before we return */
    nl_free(w);
    return NL_OK;
}

/* nl_<name>, with nl_half_fn's signature, from rows_<tag> and rows_<tag>_hw */
#define HALF_KERNEL(name, cast, tag, split)                                                 \
    int nl_##name(nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta,      \
                  float eps, size_t rows, size_t d, uint16_t *y)                            \
    {                                                                                       \
        return half_run(cast, split, rows_##tag, rows_##tag##_hw, dt, x, gamma, beta, eps,   \
                        rows, d, y);                                                        \
    }

/* A rung's three cast orders: ROWS(cast, tag) defines rows_<rung>_<order> and
 * rows_<rung>_<order>_hw; the kernels are nl_rmsnorm_llama_<rung>_avx512 and so on. */
#define HALF_RUNG(ROWS, rung, split)                                                        \
    ROWS(NL_CAST_LLAMA, rung##_llama)                                                       \
    ROWS(NL_CAST_GEMMA, rung##_gemma)                                                       \
    ROWS(NL_CAST_TORCH, rung##_torch)                                                       \
    HALF_KERNEL(rmsnorm_llama_##rung##_avx512, NL_CAST_LLAMA, rung##_llama, split)          \
    HALF_KERNEL(rmsnorm_gemma_##rung##_avx512, NL_CAST_GEMMA, rung##_gemma, split)          \
    HALF_KERNEL(layernorm_torch_##rung##_avx512, NL_CAST_TORCH, rung##_torch, split)

#endif
