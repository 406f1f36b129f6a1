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
 * then, the scalar kernel's; the cost is two conversions per block. */
enum { BLOCK = 256 };
static inline __attribute__((always_inline)) double dev_sums(nl_dtype dt, const uint16_t *x,
                                                             size_t d, float c, double *sdev)
{
    __m512d q = _mm512_setzero_pd(), s = q;
    const __m512 cc = _mm512_set1_ps(c);
    size_t i = 0;
    while (i < d) {
        __m512 q0 = _mm512_setzero_ps(), q1 = q0, s0 = q0, s1 = q0;
        size_t end = d - i > BLOCK ? i + BLOCK : d;
        for (; i + 32 <= end; i += 32) {
            __m512 v0 = _mm512_sub_ps(load16(dt, x + i, 0xffff), cc);
            __m512 v1 = _mm512_sub_ps(load16(dt, x + i + 16, 0xffff), cc);
            q0 = _mm512_fmadd_ps(v0, v0, q0), q1 = _mm512_fmadd_ps(v1, v1, q1);
            if (sdev)
                s0 = _mm512_add_ps(s0, v0), s1 = _mm512_add_ps(s1, v1);
        }
        for (; i < end; i += 16) {
            __mmask16 k = lanes16(i, end);
            __m512 v = _mm512_maskz_sub_ps(k, load16(dt, x + i, k), cc);
            q0 = _mm512_fmadd_ps(v, v, q0);
            if (sdev)
                s0 = _mm512_add_ps(s0, v);
        }
        q = add_halves(q, _mm512_add_ps(q0, q1));
        if (sdev)
            s = add_halves(s, _mm512_add_ps(s0, s1));
    }
    if (sdev)
        *sdev = _mm512_reduce_add_pd(s);
    return _mm512_reduce_add_pd(q);
}

/* bf16 with avx512_bf16: sum of x*y over the row by vdpbf16ps, 32 pairs a
 * step; y = x gives the sum of squares, y = 1.0 the sum of x. Blocks of
 * 4 BLOCK elements (8 products a lane) are added in double, as above. */
BF16_TARGET static inline __attribute__((always_inline)) double
dot_bf16(const uint16_t *x, size_t d, int square)
{
    const __m512i one = _mm512_set1_epi16(0x3f80); /* 1.0 in bf16 */
    __m512d acc = _mm512_setzero_pd();
    size_t i = 0;
    while (i < d) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        size_t end = d - i > 4 * BLOCK ? i + 4 * BLOCK : d;
        for (; i + 128 <= end; i += 128) {
            __m512i v0 = _mm512_loadu_si512(x + i), v1 = _mm512_loadu_si512(x + i + 32);
            __m512i v2 = _mm512_loadu_si512(x + i + 64), v3 = _mm512_loadu_si512(x + i + 96);
            a0 = _mm512_dpbf16_ps(a0, (__m512bh)v0, (__m512bh)(square ? v0 : one));
            a1 = _mm512_dpbf16_ps(a1, (__m512bh)v1, (__m512bh)(square ? v1 : one));
            a2 = _mm512_dpbf16_ps(a2, (__m512bh)v2, (__m512bh)(square ? v2 : one));
            a3 = _mm512_dpbf16_ps(a3, (__m512bh)v3, (__m512bh)(square ? v3 : one));
        }
        for (; i < end; i += 32) {
            __m512i v = _mm512_maskz_loadu_epi16(lanes32(i, end), x + i);
            a0 = _mm512_dpbf16_ps(a0, (__m512bh)v, (__m512bh)(square ? v : one));
        }
        acc = add_halves(acc, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
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

/* Narrow 16 full lanes. With `hw` (bf16 on an avx512_bf16 CPU) by
 * vcvtneps2bf16, which reads a subnormal lane as zero: such lanes are
 * noted in *sub (one vfpclassps, no branch in the loop), and a row that
 * had one is computed again with the integer trick (practically never). */
static inline __attribute__((always_inline)) __m256i narrow_full(nl_dtype dt, int hw, __m512 v,
                                                                 __mmask16 *sub)
{
    if (hw && dt == NL_DT_BF16) {
        *sub |= _mm512_fpclass_ps_mask(v, 0x20); /* 0x20: denormal */
        return narrow16_bf16_hw(v);
    }
    return narrow16(dt, v);
}

/* A full vector of 16 outputs: streamed past the caches where `nt` (the
 * output spills L2, so an ordinary store would first read each line it
 * writes, a third stream of traffic) and y + i is on the 32-byte grid. */
static inline __attribute__((always_inline)) void put16(int nt, uint16_t *p, __m256i v)
{
    if (nt && ((uintptr_t)p & 31) == 0)
        _mm256_stream_si256((__m256i *)p, v);
    else
        _mm256_storeu_si256((__m256i *)p, v);
}

/* The next row's line under this step, asked for now: the elementwise
 * pass of one row is arithmetic on a row already in L1, and the first
 * pass of the next would otherwise wait for memory with nothing to do.
 * Asked while this row computes, the loads of the two overlap (one
 * prefetch per 64-byte line, every other 16-element step). */
static inline __attribute__((always_inline)) void prefetch_next(const uint16_t *next, size_t i)
{
    if (next && (i & 31) == 0)
        _mm_prefetch((const char *)(next + i), _MM_HINT_T0);
}

/* The elementwise pass of RMSNorm: y = round(x * inv) * w (llama) or
 * round(x * inv * w) (gemma, w = 1 + weight); `w` widened to fp32.
 * Returns nonzero when a vcvtneps2bf16 lane was subnormal. */
static inline __attribute__((always_inline)) int
rms_pass(nl_dtype dt, int hw, int nt, nl_cast cast, const uint16_t *x, const float *w,
         float inv, size_t d, uint16_t *y, const uint16_t *next)
{
    const __m512 vinv = _mm512_set1_ps(inv);
    __mmask16 sub = 0;
    size_t i = 0;
    for (; i + 16 <= d; i += 16) {
        prefetch_next(next, i);
        __m512 xr = _mm512_mul_ps(load16(dt, x + i, 0xffff), vinv);
        if (cast == NL_CAST_LLAMA) /* round x*r to the dtype, multiply in the dtype */
            xr = widen16(dt, narrow_full(dt, hw, xr, &sub));
        __m512 out = _mm512_mul_ps(xr, _mm512_loadu_ps(w + i));
        put16(nt, y + i, narrow_full(dt, hw, out, &sub));
    }
    if (i < d) { /* the tail: masked, narrowed by the exact integer trick */
        __mmask16 k = nl_mask16(d - i);
        __m512 xr = _mm512_mul_ps(load16(dt, x + i, k), vinv);
        if (cast == NL_CAST_LLAMA)
            xr = widen16(dt, narrow16(dt, xr));
        __m512 out = _mm512_mul_ps(xr, _mm512_maskz_loadu_ps(k, w + i));
        _mm256_mask_storeu_epi16(y + i, k, narrow16(dt, out));
    }
    return sub != 0;
}

/* torch's LayerNorm elementwise: ((x * rstd + shift) * g) + b, no FMA. */
static inline __attribute__((always_inline)) int
ln_pass(nl_dtype dt, int hw, int nt, const uint16_t *x, const float *g, const float *b,
        float rstdf, float shiftf, size_t d, uint16_t *y, const uint16_t *next)
{
    const __m512 shift = _mm512_set1_ps(shiftf), rstd = _mm512_set1_ps(rstdf);
    __mmask16 sub = 0;
    size_t i = 0;
    for (; i + 16 <= d; i += 16) {
        prefetch_next(next, i);
        __m512 t = _mm512_add_ps(_mm512_mul_ps(load16(dt, x + i, 0xffff), rstd), shift);
        t = _mm512_add_ps(_mm512_mul_ps(t, _mm512_loadu_ps(g + i)), _mm512_loadu_ps(b + i));
        put16(nt, y + i, narrow_full(dt, hw, t, &sub));
    }
    if (i < d) {
        __mmask16 k = nl_mask16(d - i);
        __m512 t = _mm512_add_ps(_mm512_mul_ps(load16(dt, x + i, k), rstd), shift);
        t = _mm512_mul_ps(t, _mm512_maskz_loadu_ps(k, g + i));
        t = _mm512_add_ps(t, _mm512_maskz_loadu_ps(k, b + i));
        _mm256_mask_storeu_epi16(y + i, k, narrow16(dt, t));
    }
    return sub != 0;
}

/* One row from its first fp32 sum `s` (LayerNorm: of x; RMSNorm: of x^2;
 * the caller takes it, by vdpbf16ps where it can), or from the double
 * statistics of the scalar kernel where fp32 cannot hold them. */
static inline __attribute__((always_inline)) void
one_row(nl_dtype dt, int hw, int nt, nl_cast cast, const uint16_t *x, const float *w,
        const float *b, float eps, size_t d, uint16_t *y, double s, const uint16_t *next)
{
    if (cast == NL_CAST_TORCH) {
        /* The deviations are taken from c, the first mean rounded to the
         * dtype: then x - c is exact in fp32 for every x within 2^13 of c's
         * scale. From the fp32 mean itself each x - c would round away
         * the same low bits of c, an error of one sign that d terms add up
         * (32 fp32 ulps of the mean on a 4096-wide row). */
        float c = nl_half_to_float(dt, nl_half_from_float(dt, (float)(s / (double)d))), meanf,
              rstdf;
        double sdev = 0.0, s2 = isfinite(s) ? dev_sums(dt, x, d, c, &sdev) : NAN;
        /* the mean is c + sdev/d; the squares about it sum to s2 - sdev^2/d */
        double m2 = s2 - sdev * sdev / (double)d;
        if (trusted(m2))
            nl_half_ln_stats_from((double)c + sdev / (double)d, m2, d, eps, &meanf, &rstdf);
        else
            nl_half_ln_stats(dt, x, d, eps, &meanf, &rstdf);
        if (ln_pass(dt, hw, nt, x, w, b, rstdf, -rstdf * meanf, d, y, next))
            ln_pass(dt, 0, nt, x, w, b, rstdf, -rstdf * meanf, d, y, NULL);
    } else {
        float inv = trusted(s) ? nl_half_rms_inv_from(s, d, eps)
                                : nl_half_rms_inv(dt, x, d, eps);
        if (rms_pass(dt, hw, nt, cast, x, w, inv, d, y, next))
            rms_pass(dt, 0, nt, cast, x, w, inv, d, y, NULL);
    }
}

static inline __attribute__((always_inline)) double first_sum(nl_dtype dt, nl_cast cast,
                                                              const uint16_t *x, size_t d)
{
    return cast == NL_CAST_TORCH ? (double)sum_f32(dt, x, d) : dev_sums(dt, x, d, 0.0f, NULL);
}

/* The rows of a call, one function per cast order and narrowing so that
 * every inner loop is compiled for constants. */
#define ROWS(cast, tag)                                                                   \
    static void rows_##tag(nl_dtype dt, int nt, const uint16_t *x, const float *w,         \
                           const float *b, float eps, size_t rows, size_t d, uint16_t *y) \
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
    BF16_TARGET static void rows_##tag##_hw(int nt, const uint16_t *x, const float *w,    \
                                            const float *b, float eps, size_t rows,       \
                                            size_t d, uint16_t *y)                        \
    {                                                                                     \
        for (size_t r = 0; r < rows; r++)                                                 \
            one_row(NL_DT_BF16, 1, nt, cast, x + r * d, w, b, eps, d, y + r * d,              \
                    dot_bf16(x + r * d, d, cast != NL_CAST_TORCH),                        \
                    r + 1 < rows ? x + (r + 1) * d : NULL);                               \
    }
ROWS(NL_CAST_LLAMA, llama)
ROWS(NL_CAST_GEMMA, gemma)
ROWS(NL_CAST_TORCH, torch)

/* gamma (Gemma: 1 + gamma, in fp32 as GemmaRMSNorm adds it) and beta,
 * widened once for every row of the call. */
static void widen_weights(nl_dtype dt, nl_cast cast, const uint16_t *gamma, const uint16_t *beta,
                          size_t d, float *w, float *b)
{
    for (size_t i = 0; i < d; i++) {
        float g = nl_half_to_float(dt, gamma[i]);
        w[i] = cast == NL_CAST_GEMMA ? 1.0f + g : g;
        if (b)
            b[i] = nl_half_to_float(dt, beta[i]);
    }
}

typedef void rows_fn(nl_dtype, int, const uint16_t *, const float *, const float *, float,
                     size_t, size_t, uint16_t *);
typedef void hw_rows_fn(int, const uint16_t *, const float *, const float *, float, size_t,
                        size_t, uint16_t *);

static int run(nl_cast cast, rows_fn *plain_rows, hw_rows_fn *hw_rows, nl_dtype dt,
               const uint16_t *x, const void *gamma, const void *beta, float eps, size_t rows,
               size_t d, uint16_t *y)
{
    int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, nl_cast_norm(cast));
    if (rc || rows == 0)
        return rc;
    int ln = cast == NL_CAST_TORCH;
    float *w = nl_alloc(d * sizeof(float) * (ln ? 2 : 1));
    if (!w) {
        nl_set_error("no memory for %zu widened weights", d);
        return NL_ENOMEM;
    }
    float *b = ln ? w + d : NULL;
    widen_weights(dt, cast, gamma, beta, d, w, b);
    int nt = nl_output_spills(rows, (d + 1) / 2); /* 16-bit: half the floats */
    if (dt == NL_DT_BF16 && cpu_has_bf16())
        hw_rows(nt, x, w, b, eps, rows, d, y);
    else
        plain_rows(dt, nt, x, w, b, eps, rows, d, y);
    if (nt)
        _mm_sfence(); /* streamed lines are visible before we return */
    nl_free(w);
    return NL_OK;
}

#define F32STATS_KERNEL(name, cast, tag)                                                       \
    int nl_##name(nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta,    \
                  float eps, size_t rows, size_t d, uint16_t *y)                          \
    {                                                                                     \
        return run(cast, rows_##tag, rows_##tag##_hw, dt, x, gamma, beta, eps, rows, d, y); \
    }
F32STATS_KERNEL(rmsnorm_llama_f32stats_avx512, NL_CAST_LLAMA, llama)
F32STATS_KERNEL(rmsnorm_gemma_f32stats_avx512, NL_CAST_GEMMA, gemma)
F32STATS_KERNEL(layernorm_torch_f32stats_avx512, NL_CAST_TORCH, torch)
