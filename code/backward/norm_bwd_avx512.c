/* norm_bwd_avx512.c — LayerNorm and RMSNorm backward with AVX-512F.
 *
 * One body for both norms: RMSNorm is LayerNorm with mean 0, without the
 * mean(g) term and without dbeta; `center` is a constant at each call, so
 * the compiler makes two loops with nothing of the other norm in them.
 * Both written in x-hat form, dx = rstd * (g - mean(g) - x-hat * mean(g *
 * x-hat)); for RMSNorm x-hat * mean(g * x-hat) = rstd^2 * x * mean(g * x),
 * the same coupling term as rmsnorm_bwd_fused's.
 * Pass 1: the row sums, two FMA chains each; pass 2: dx, and the row's
 * share of dgamma/dbeta, with masked loads and stores for the tail. */
#include <immintrin.h>

#include "backward/backward.h"
#include "simd/avx512_util.h"

static inline __attribute__((always_inline)) void
bwd_rows(int center, const float *x, const float *gamma, const float *mean,
         const float *rstd, const float *dy, size_t rows, size_t d, float *dx,
         float *dgamma, float *dbeta)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        float *dxr = dx + r * d;
        const __m512 mu = _mm512_set1_ps(center ? mean[r] : 0.0f);
        const __m512 rs = _mm512_set1_ps(rstd[r]);
        __m512 sg0 = _mm512_setzero_ps(), sg1 = sg0, sx0 = sg0, sx1 = sg0;
        size_t i = 0;
        for (; i + 32 <= d; i += 32) {
            __m512 g0 = _mm512_mul_ps(_mm512_loadu_ps(gamma + i), _mm512_loadu_ps(dyr + i));
            __m512 g1 = _mm512_mul_ps(_mm512_loadu_ps(gamma + i + 16), _mm512_loadu_ps(dyr + i + 16));
            __m512 h0 = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xr + i), mu), rs);
            __m512 h1 = _mm512_mul_ps(_mm512_sub_ps(_mm512_loadu_ps(xr + i + 16), mu), rs);
            if (center) {
                sg0 = _mm512_add_ps(sg0, g0);
                sg1 = _mm512_add_ps(sg1, g1);
            }
            sx0 = _mm512_fmadd_ps(g0, h0, sx0);
            sx1 = _mm512_fmadd_ps(g1, h1, sx1);
        }
        for (; i < d; i += 16) {
            __mmask16 k = d - i >= 16 ? (__mmask16)0xFFFF : nl_mask16(d - i);
            __m512 g = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, gamma + i), _mm512_maskz_loadu_ps(k, dyr + i));
            __m512 h = _mm512_maskz_mul_ps(k, _mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + i), mu), rs);
            if (center)
                sg0 = _mm512_add_ps(sg0, g);
            sx0 = _mm512_fmadd_ps(g, h, sx0);
        }
        const float inv_d = 1.0f / (float)d;
        const __m512 mg = _mm512_set1_ps(center ? _mm512_reduce_add_ps(_mm512_add_ps(sg0, sg1)) * inv_d : 0.0f);
        const __m512 mgx = _mm512_set1_ps(_mm512_reduce_add_ps(_mm512_add_ps(sx0, sx1)) * inv_d);
        for (i = 0; i < d; i += 16) {
            __mmask16 k = d - i >= 16 ? (__mmask16)0xFFFF : nl_mask16(d - i);
            __m512 dyv = _mm512_maskz_loadu_ps(k, dyr + i);
            __m512 g = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, gamma + i), dyv);
            __m512 h = _mm512_mul_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, xr + i), mu), rs);
            /* rstd * (g - mean_g - h * mean_gh) */
            __m512 t = _mm512_fnmadd_ps(h, mgx, _mm512_sub_ps(g, mg));
            _mm512_mask_storeu_ps(dxr + i, k, _mm512_mul_ps(rs, t));
            _mm512_mask_storeu_ps(dgamma + i, k,
                                  _mm512_fmadd_ps(dyv, h, _mm512_maskz_loadu_ps(k, dgamma + i)));
            if (center)
                _mm512_mask_storeu_ps(dbeta + i, k,
                                      _mm512_add_ps(dyv, _mm512_maskz_loadu_ps(k, dbeta + i)));
        }
    }
}

NL_BWD_BOTH_NORMS(avx512)
