/* rmsnorm_avx512.c — RMSNorm with AVX-512F: four FMA chains for the sum of
 * squares, a masked tail, then the output; and rmsnorm_avx512_nt, whose
 * output pass streams past the caches (see layernorm_avx512.c for when
 * that helps; `normlab bench` measures it); and rmsnorm_avx512_pf, which
 * also prefetches the next row while writing this one.
 *
 * Why the prefetch: a row is read from DRAM by the sum of squares, then the
 * output pass reads it again from L1/L2 while the memory bus carries only
 * the writes.  Asking for row r+1 during that pass (one line per 64-byte
 * store, into L2: this row and the next may not both fit in L1) keeps
 * reads and writes in flight together, as a copy does (chapter 6 shows
 * what it gains).
 *
 * Numerics (build/tests/check_simd): max |y - ref| below 1e-6 on
 * unit-scale data; stated tol 1e-5.  |x| ~ 1e20 works: overflowing rows
 * are redone in double (rowstats_wide.c). */
#include <math.h>

#include "simd/avx512_util.h"
#include "simd/simd.h"

static float row_sumsq(const float *x, size_t d)
{
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 64 <= d; i += 64) {
        __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
        __m512 v2 = _mm512_loadu_ps(x + i + 32), v3 = _mm512_loadu_ps(x + i + 48);
        a0 = _mm512_fmadd_ps(v0, v0, a0);
        a1 = _mm512_fmadd_ps(v1, v1, a1);
        a2 = _mm512_fmadd_ps(v2, v2, a2);
        a3 = _mm512_fmadd_ps(v3, v3, a3);
    }
    for (; i < d; i += 16) {
        __mmask16 k = d - i >= 16 ? (__mmask16)0xFFFF : nl_mask16(d - i);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        a1 = _mm512_fmadd_ps(v, v, a1);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

static inline __m512 out16(const float *x, const float *gamma, __m512 inv, __mmask16 k)
{
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_maskz_loadu_ps(k, x), inv),
                         _mm512_maskz_loadu_ps(k, gamma));
}

static inline __attribute__((always_inline)) int
rmsnorm_rows(const float *x, const float *gamma, float eps, size_t rows,
             size_t d, float *y, int stream, int prefetch)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        /* The last row has no successor: it prefetches itself (harmless,
         * it is in cache) rather than a line past the end of x. */
        const float *xn = r + 1 < rows ? xr + d : xr;
        float *yr = y + r * d;
        float ss = row_sumsq(xr, d), inv, zero;
        if (isfinite(ss))
            inv = 1.0f / sqrtf(ss / (float)d + eps);
        else
            nl_row_stats_wide(xr, d, 0, eps, &zero, &inv);
        const __m512 s = _mm512_set1_ps(inv);
        size_t i = 0;
        if (stream) {
            size_t head = nl_head_to_align64(yr, d);
            if (head)
                _mm512_mask_storeu_ps(yr, nl_mask16(head), out16(xr, gamma, s, nl_mask16(head)));
            for (i = head; i + 16 <= d; i += 16) {
                if (prefetch)
                    _mm_prefetch((const char *)(xn + i), _MM_HINT_T1);
                _mm512_stream_ps(yr + i, out16(xr + i, gamma + i, s, 0xFFFF));
            }
        } else {
            for (; i + 16 <= d; i += 16) {
                if (prefetch)
                    _mm_prefetch((const char *)(xn + i), _MM_HINT_T1);
                _mm512_storeu_ps(yr + i, out16(xr + i, gamma + i, s, 0xFFFF));
            }
        }
        if (i < d)
            _mm512_mask_storeu_ps(yr + i, nl_mask16(d - i), out16(xr + i, gamma + i, s, nl_mask16(d - i)));
    }
    if (stream)
        _mm_sfence();
    return 0;
}

int nl_rmsnorm_avx512(const float *x, const float *gamma, const float *beta,
                      float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    return rmsnorm_rows(x, gamma, eps, rows, d, y, 0, 0);
}

int nl_rmsnorm_avx512_nt(const float *x, const float *gamma, const float *beta,
                         float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    return rmsnorm_rows(x, gamma, eps, rows, d, y, 1, 0);
}

int nl_rmsnorm_avx512_pf(const float *x, const float *gamma, const float *beta,
                         float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    return rmsnorm_rows(x, gamma, eps, rows, d, y, 1, 1);
}
