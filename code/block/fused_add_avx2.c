/* fused_add_avx2.c — the fused ladder's AVX2 rung: the residual add in
 * 8-lane vectors, fused by cache block with chapter 5's AVX2 kernels
 * (fused_blocked.c).  Bits: those of rmsnorm_avx2 / layernorm_avx2 on the
 * updated residual (tol 1e-5, |x| ~ 1e20 handled as they handle it). */
#include "block/block.h"
#include "simd/avx2_util.h"
#include "simd/simd.h"

static void add_avx2(float *residual, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(residual + i, _mm256_add_ps(_mm256_loadu_ps(residual + i),
                                                     _mm256_loadu_ps(x + i)));
    if (i < n) {
        __m256i k = nl_tail_mask256(n - i);
        _mm256_maskstore_ps(residual + i, k, _mm256_add_ps(_mm256_maskload_ps(residual + i, k),
                                                           _mm256_maskload_ps(x + i, k)));
    }
}

static const nl_fused_plan rms = {add_avx2, nl_rmsnorm_avx2, NULL};
static const nl_fused_plan ln = {add_avx2, nl_layernorm_avx2, NULL};
NL_FUSED_RUNG(nl_fused_blocked, fused_add_, _avx2, rms, ln)
