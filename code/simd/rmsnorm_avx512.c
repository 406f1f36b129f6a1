/* rmsnorm_avx512.c — RMSNorm with AVX-512F: four FMA chains for the sum of
 * squares, a masked tail, then the output; and rmsnorm_avx512_nt, whose
 * output pass streams past the caches (see layernorm_avx512.c for when
 * that helps; `normlab bench` measures it); and rmsnorm_avx512_pf, which
 * also prefetches the next row while writing this one; and
 * rmsnorm_avx512_block, four rows at a time with the next four summed
 * while these are written.
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
#include <stdint.h>

#include "simd/avx512_util.h"
#include "simd/simd.h"

/* The sum of squares in pieces (64 columns, then the tail and the sum), so
 * that the skew rung can take a row's sum inside another loop with the
 * same roundings. */
typedef struct { __m512 a0, a1, a2, a3; } sumsq4;

static inline sumsq4 sumsq_begin(void)
{
    const __m512 z = _mm512_setzero_ps();
    return (sumsq4){z, z, z, z};
}

static inline void sumsq_step64(sumsq4 *s, const float *x)
{
    __m512 v0 = _mm512_loadu_ps(x), v1 = _mm512_loadu_ps(x + 16);
    __m512 v2 = _mm512_loadu_ps(x + 32), v3 = _mm512_loadu_ps(x + 48);
    s->a0 = _mm512_fmadd_ps(v0, v0, s->a0);
    s->a1 = _mm512_fmadd_ps(v1, v1, s->a1);
    s->a2 = _mm512_fmadd_ps(v2, v2, s->a2);
    s->a3 = _mm512_fmadd_ps(v3, v3, s->a3);
}

/* Columns i.. of the row, fewer than 64 left; then the sum. */
static inline float sumsq_end(sumsq4 *s, const float *x, size_t i, size_t d)
{
    for (; i < d; i += 16) {
        __mmask16 k = d - i >= 16 ? (__mmask16)0xFFFF : nl_mask16(d - i);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        s->a1 = _mm512_fmadd_ps(v, v, s->a1);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s->a0, s->a1),
                                              _mm512_add_ps(s->a2, s->a3)));
}

static float row_sumsq(const float *x, size_t d)
{
    sumsq4 s = sumsq_begin();
    size_t i = 0;
    for (; i + 64 <= d; i += 64)
        sumsq_step64(&s, x + i);
    return sumsq_end(&s, x, i, d);
}

/* 1 / rms from the row's sum of squares; an overflowed sum in double. */
static inline float row_inv(const float *xr, size_t d, float eps, float ss)
{
    float inv, zero;
    if (isfinite(ss))
        inv = 1.0f / sqrtf(ss / (float)d + eps);
    else
        nl_row_stats_wide(xr, d, 0, eps, &zero, &inv);
    return inv;
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
        const __m512 s = _mm512_set1_ps(row_inv(xr, d, eps, row_sumsq(xr, d)));
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

// @snippet rms-avx512-block
/* The block rung, as layernorm_avx512_block does it: four rows written in
 * one loop over the columns (gamma loaded once per four rows) while the
 * same loop sums the squares of the next four, so that the next rows'
 * loads go to memory while this block's stores leave, as in a copy.  One
 * row at a time, the same skew was slower than the _pf rung (chapter 6's
 * lab notebook).
 * Each row's arithmetic is rmsnorm_avx512's, piece for piece (sumsq_*,
 * row_inv, x * inv * gamma), so y has its bits.  Needs d % 16 == 0 and y
 * 64-byte aligned; the caller checks. */
enum { RMS_BLOCK = 4 };
static inline __attribute__((always_inline)) void
block_out16(const float *xb, const float *gamma, const float *inv, size_t c, size_t d, float *yb)
{
    const __m512 g = _mm512_loadu_ps(gamma + c);
    #pragma GCC unroll 8
    for (int j = 0; j < RMS_BLOCK; j++)
        _mm512_stream_ps(yb + (size_t)j * d + c,
                         _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(xb + (size_t)j * d + c),
                                                     _mm512_set1_ps(inv[j])), g));
}

static int rmsnorm_blocked(const float *x, const float *gamma, float eps, size_t rows,
                           size_t d, float *y)
{
    float inv[RMS_BLOCK];
    for (int j = 0; j < RMS_BLOCK; j++) /* the first block's sums alone */
        inv[j] = row_inv(x + (size_t)j * d, d, eps, row_sumsq(x + (size_t)j * d, d));
    size_t r = 0;
    for (; r + 2 * RMS_BLOCK <= rows; r += RMS_BLOCK) {
        const float *xb = x + r * d, *xn = xb + RMS_BLOCK * d;
        sumsq4 a[RMS_BLOCK];
        for (int j = 0; j < RMS_BLOCK; j++)
            a[j] = sumsq_begin();
        size_t i = 0;
        for (; i + 64 <= d; i += 64) {
            for (size_t c = i; c < i + 64; c += 16)
                block_out16(xb, gamma, inv, c, d, y + r * d);
            #pragma GCC unroll 8
            for (int j = 0; j < RMS_BLOCK; j++)
                sumsq_step64(&a[j], xn + (size_t)j * d + i);
        }
        for (size_t c = i; c < d; c += 16)
            block_out16(xb, gamma, inv, c, d, y + r * d);
        for (int j = 0; j < RMS_BLOCK; j++)
            inv[j] = row_inv(xn + (size_t)j * d, d, eps, sumsq_end(&a[j], xn + (size_t)j * d, i, d));
    }
    for (size_t c = 0; c < d; c += 16) /* the last block: no next one to sum */
        block_out16(x + r * d, gamma, inv, c, d, y + r * d);
    r += RMS_BLOCK;
    if (r < rows) /* the last rows, fewer than a block: the _pf rung's loop */
        rmsnorm_rows(x + r * d, gamma, eps, rows - r, d, y + r * d, 1, 1);
    _mm_sfence(); /* streamed lines become visible before we return */
    return 0;
}
// @end

/* Four rows at a time once the call spills out of L2 and the rows can be
 * streamed whole; otherwise rmsnorm_avx512 (the same bits either way). */
int nl_rmsnorm_avx512_block(const float *x, const float *gamma, const float *beta,
                            float eps, size_t rows, size_t d, float *y)
{
    (void)beta;
    if (rows < RMS_BLOCK || d % 16 != 0 || ((uintptr_t)y & 63) != 0 ||
        !nl_output_spills(rows, d))
        return rmsnorm_rows(x, gamma, eps, rows, d, y, 0, 0);
    return rmsnorm_blocked(x, gamma, eps, rows, d, y);
}
