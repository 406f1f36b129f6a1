/* fused_add_avx512.c — the fused ladder's AVX-512 rung: the residual add
 * in 16-lane vectors with a masked tail, fused by cache block with
 * chapter 5's AVX-512 kernels; when the call's rows spill out of the
 * core's cache, the _pf kernels (streaming stores of y, next row
 * prefetched) take over, with the same bits.  Bits: those of
 * rmsnorm_avx512 / layernorm_avx512_shift on the updated residual. */
#include "block/block.h"
#include "simd/avx512_util.h"
#include "simd/simd.h"

// @snippet fused-add-avx512
static void add_avx512(float *residual, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(residual + i, _mm512_add_ps(_mm512_loadu_ps(residual + i),
                                                     _mm512_loadu_ps(x + i)));
    if (i < n) {
        __mmask16 k = nl_mask16(n - i);
        _mm512_mask_storeu_ps(residual + i, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, residual + i),
                                                             _mm512_maskz_loadu_ps(k, x + i)));
    }
}

static const nl_fused_plan rms = {add_avx512, nl_rmsnorm_avx512, nl_rmsnorm_avx512_pf};
/* LayerNorm's pair is the shift rung, the arithmetic of layernorm_best on
 * this ISA (its block rung has the shift rung's bits): layernorm_omp and
 * the fused kernels then share one row kernel and round alike. */
static const nl_fused_plan ln = {add_avx512, nl_layernorm_avx512_shift, nl_layernorm_avx512_shift_pf};
NL_FUSED_RUNG(nl_fused_blocked, fused_add_, _avx512, rms, ln)
// @end
