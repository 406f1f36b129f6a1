/* castorder_avx512.c — the cast orders with AVX-512, 16 elements a step.
 *
 * Each kernel does what the scalar kernel of its cast order does, in the
 * same order, on 16 lanes: the row's sums in double (two 8-lane halves),
 * the same fp32 multiplies and adds (no FMA where the scalar code has a
 * multiply and an add), and the same rounding to bf16 or fp16.
 *   widen bf16   zero-extend 16 -> 32 bits and shift left 16 (exact)
 *   narrow bf16  the scalar trick on 16 lanes: + 0x7fff + odd bit, >> 16,
 *                NaN lanes blended to (bits >> 16) | 0x40
 *   fp16         vcvtph2ps / vcvtps2ph (round to nearest even), which
 *                round as nl_fp16_from_float does (check_half_convert).
 * Where the CPU has avx512_bf16, vcvtneps2bf16 narrows in one instruction:
 * it rounds to nearest even and quiets NaNs as our definition does, but
 * reads subnormal inputs as zero, so a vector with a subnormal lane (in a
 * norm's output, practically never) takes the integer trick instead. */
#include <immintrin.h>

#include "precision/half_avx512.h"
#include "precision/precision.h"
#include "simd/avx512_util.h"
#include "simd/simd.h"

/* A full vector is stored unmasked: a masked store of the narrowed lanes
 * is fused by the compiler into a masked vpmovdw to memory, which runs
 * many times slower than a plain store. */
/* A row's mode: the dtype, plus HW (bf16 narrowed by vcvtneps2bf16: only
 * in BF16_TARGET functions, only on CPUs that have it), plus NT (aligned
 * full vectors stored past the caches, for outputs larger than L2: an
 * ordinary store first reads the line it writes, a third stream of
 * traffic that a copy with streaming stores does not pay). */
enum { HW = 16, NT = 32 };

static inline __attribute__((always_inline)) __m256i narrow_any(int mode, __m512 v)
{
    if ((mode & ~NT) == NL_DT_BF16 + HW)
        return narrow16_hw(v);
    return narrow16((nl_dtype)(mode & 15), v);
}

static inline __attribute__((always_inline)) void store16(int mode, uint16_t *p, __m512 v, __mmask16 k)
{
    if (k != 0xffff)
        _mm256_mask_storeu_epi16(p, k, narrow_any(mode, v));
    else if ((mode & NT) && ((uintptr_t)p & 31) == 0)
        _mm256_stream_si256((__m256i *)p, narrow_any(mode, v));
    else
        _mm256_storeu_si256((__m256i *)p, narrow_any(mode, v));
}

static inline __mmask16 lanes(size_t i, size_t d)
{
    return d - i >= 16 ? (__mmask16)0xffff : nl_mask16(d - i);
}

/* The 16 lanes of v as two 8-lane doubles, minus c. */
static inline void halves(__m512 v, __m512d c, __m512d *lo, __m512d *hi)
{
    *lo = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), c);
    *hi = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), c);
}

/* sum of (x - c)^2 over the row in double (c = 0: of x^2); square = 0:
 * the sum of x. Four accumulators, so that the adds do not wait on each
 * other; masked-off tail lanes load as 0 and are kept out by the mask. */
static inline double row_sum(nl_dtype dt, const uint16_t *x, size_t d, double c, int square)
{
    __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, cc = _mm512_set1_pd(c);
    size_t i = 0;
    for (; i + 32 <= d; i += 32) {
        __m512d l0, h0, l1, h1;
        halves(load16(dt, x + i, 0xffff), cc, &l0, &h0);
        halves(load16(dt, x + i + 16, 0xffff), cc, &l1, &h1);
        if (square) {
            a0 = _mm512_fmadd_pd(l0, l0, a0), a1 = _mm512_fmadd_pd(h0, h0, a1);
            a2 = _mm512_fmadd_pd(l1, l1, a2), a3 = _mm512_fmadd_pd(h1, h1, a3);
        } else {
            a0 = _mm512_add_pd(a0, l0), a1 = _mm512_add_pd(a1, h0);
            a2 = _mm512_add_pd(a2, l1), a3 = _mm512_add_pd(a3, h1);
        }
    }
    for (; i < d; i += 16) {
        __mmask16 k = lanes(i, d);
        __m512d lo, hi;
        halves(load16(dt, x + i, k), cc, &lo, &hi);
        lo = _mm512_maskz_mov_pd((__mmask8)k, lo);
        hi = _mm512_maskz_mov_pd((__mmask8)(k >> 8), hi);
        if (square)
            a0 = _mm512_fmadd_pd(lo, lo, a0), a1 = _mm512_fmadd_pd(hi, hi, a1);
        else
            a0 = _mm512_add_pd(a0, lo), a1 = _mm512_add_pd(a1, hi);
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(a0, a1), _mm512_add_pd(a2, a3)));
}

/* One row of RMSNorm with the rounding points of `cast`. */
static inline __attribute__((always_inline)) void
rms_row_mode(int mode, nl_cast cast, const uint16_t *x, const void *gamma, float eps, size_t d,
             uint16_t *y)
{
    const nl_dtype dt = (nl_dtype)(mode & 15);
    const __m512 inv = _mm512_set1_ps(nl_half_rms_inv_from(row_sum(dt, x, d, 0.0, 1), d, eps));
    const __m512 one = _mm512_set1_ps(1.0f);
    for (size_t i = 0; i < d; i += 16) {
        __mmask16 k = lanes(i, d);
        __m512 xr = _mm512_mul_ps(load16(dt, x + i, k), inv), out;
        if (cast == NL_CAST_T5_F32W) {
            out = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, (const float *)gamma + i), xr);
        } else {
            __m512 w = load16(dt, (const uint16_t *)gamma + i, k);
            if (cast == NL_CAST_GEMMA)
                out = _mm512_mul_ps(xr, _mm512_add_ps(one, w));
            else /* llama, t5: round x*r to the dtype, multiply in the dtype */
                out = _mm512_mul_ps(widen16(dt, narrow_any(mode, xr)), w);
        }
        store16(mode, y + i, out, k);
    }
}

static inline __attribute__((always_inline)) void
ln_row_mode(int mode, const uint16_t *x, const void *gamma, const void *beta, float eps,
            size_t d, uint16_t *y)
{
    const nl_dtype dt = (nl_dtype)(mode & 15);
    const uint16_t *g = gamma, *b = beta;
    double mean = row_sum(dt, x, d, 0.0, 0) / (double)d;
    float meanf, rstdf;
    nl_half_ln_stats_from(mean, row_sum(dt, x, d, mean, 1), d, eps, &meanf, &rstdf);
    const __m512 shift = _mm512_set1_ps(-rstdf * meanf), rstd = _mm512_set1_ps(rstdf);
    for (size_t i = 0; i < d; i += 16) {
        __mmask16 k = lanes(i, d);
        __m512 t = _mm512_add_ps(_mm512_mul_ps(load16(dt, x + i, k), rstd), shift);
        t = _mm512_mul_ps(t, load16(dt, g + i, k));
        store16(mode, y + i, _mm512_add_ps(t, load16(dt, b + i, k)), k);
    }
}

/* A kernel per cast order; the dtype branch is taken once per call, so
 * each inner loop is compiled for one dtype. */
/* The rows for the row-kernel macro, one per mode: integer or
 * vcvtneps2bf16 narrowing (HW, compiled for avx512_bf16), ordinary or
 * streaming stores (NT). */
#define ROWS(suffix, attr, flags)                                                         \
    attr static inline __attribute__((always_inline)) void                                \
    rms_row##suffix(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma,      \
                    const void *beta, float eps, size_t d, uint16_t *y)                   \
    {                                                                                     \
        (void)beta;                                                                       \
        rms_row_mode((int)dt | ((flags) & (dt == NL_DT_BF16 ? HW | NT : NT)), cast, x,    \
                     gamma, eps, d, y);                                                   \
    }                                                                                     \
    attr static inline __attribute__((always_inline)) void                                \
    ln_row##suffix(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma,       \
                   const void *beta, float eps, size_t d, uint16_t *y)                    \
    {                                                                                     \
        (void)cast;                                                                       \
        ln_row_mode((int)dt | ((flags) & (dt == NL_DT_BF16 ? HW | NT : NT)), x, gamma,    \
                    beta, eps, d, y);                                                     \
    }
ROWS(, , 0)
ROWS(_nt, , NT)
ROWS(_hw, BF16_TARGET, HW)
ROWS(_hw_nt, BF16_TARGET, HW | NT)

#define AVX512_KERNEL(name, cast, ROW)                                                    \
    NL_HALF_ROW_KERNEL_ATTR(static, nl_##name##_int, cast, ROW)                           \
    NL_HALF_ROW_KERNEL_ATTR(static, nl_##name##_nt, cast, ROW##_nt)                       \
    NL_HALF_ROW_KERNEL_ATTR(static BF16_TARGET, nl_##name##_hw, cast, ROW##_hw)           \
    NL_HALF_ROW_KERNEL_ATTR(static BF16_TARGET, nl_##name##_hw_nt, cast, ROW##_hw_nt)     \
    int nl_##name(nl_dtype dt, const uint16_t *x, const void *gamma, const void *beta,    \
                  float eps, size_t rows, size_t d, uint16_t *y)                          \
    {                                                                                     \
        int nt = nl_output_spills(rows, (d + 1) / 2); /* 16-bit: half the floats */       \
        nl_half_fn fn = cpu_has_bf16() ? (nt ? nl_##name##_hw_nt : nl_##name##_hw)        \
                                       : (nt ? nl_##name##_nt : nl_##name##_int);         \
        int rc = fn(dt, x, gamma, beta, eps, rows, d, y);                                 \
        if (nt)                                                                           \
            _mm_sfence(); /* streamed lines are visible before we return */               \
        return rc;                                                                        \
    }
AVX512_KERNEL(rmsnorm_llama_avx512, NL_CAST_LLAMA, rms_row)
AVX512_KERNEL(rmsnorm_gemma_avx512, NL_CAST_GEMMA, rms_row)
AVX512_KERNEL(rmsnorm_t5_f32w_avx512, NL_CAST_T5_F32W, rms_row)
AVX512_KERNEL(layernorm_torch_avx512, NL_CAST_TORCH, ln_row)
