/* norm_bwd_avx2.c — LayerNorm and RMSNorm backward with AVX2+FMA: the
 * AVX-512 kernel's structure (norm_bwd_avx512.c) on 8 lanes, the tail
 * through vmaskmovps (masked lanes read as 0 and are never written). */
#include <immintrin.h>

#include "backward/backward.h"
#include "simd/avx2_util.h"

static inline __attribute__((always_inline)) void
bwd_rows(int center, const float *x, const float *gamma, const float *mean,
         const float *rstd, const float *dy, size_t rows, size_t d, float *dx,
         float *dgamma, float *dbeta)
{
    const size_t body = d - d % 8;
    const __m256i tail = nl_tail_mask256(d % 8);
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d, *dyr = dy + r * d;
        float *dxr = dx + r * d;
        const __m256 mu = _mm256_set1_ps(center ? mean[r] : 0.0f);
        const __m256 rs = _mm256_set1_ps(rstd[r]);
        __m256 sg0 = _mm256_setzero_ps(), sg1 = sg0, sx0 = sg0, sx1 = sg0;
        size_t i = 0;
        for (; i + 16 <= d; i += 16) {
            __m256 g0 = _mm256_mul_ps(_mm256_loadu_ps(gamma + i), _mm256_loadu_ps(dyr + i));
            __m256 g1 = _mm256_mul_ps(_mm256_loadu_ps(gamma + i + 8), _mm256_loadu_ps(dyr + i + 8));
            __m256 h0 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i), mu), rs);
            __m256 h1 = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i + 8), mu), rs);
            if (center) {
                sg0 = _mm256_add_ps(sg0, g0);
                sg1 = _mm256_add_ps(sg1, g1);
            }
            sx0 = _mm256_fmadd_ps(g0, h0, sx0);
            sx1 = _mm256_fmadd_ps(g1, h1, sx1);
        }
        for (; i < body; i += 8) {
            __m256 g = _mm256_mul_ps(_mm256_loadu_ps(gamma + i), _mm256_loadu_ps(dyr + i));
            __m256 h = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i), mu), rs);
            if (center)
                sg0 = _mm256_add_ps(sg0, g);
            sx0 = _mm256_fmadd_ps(g, h, sx0);
        }
        if (body < d) {
            /* masked lanes: g = 0, so they add nothing to either sum */
            __m256 g = _mm256_mul_ps(_mm256_maskload_ps(gamma + i, tail), _mm256_maskload_ps(dyr + i, tail));
            __m256 h = _mm256_mul_ps(_mm256_sub_ps(_mm256_maskload_ps(xr + i, tail), mu), rs);
            if (center)
                sg0 = _mm256_add_ps(sg0, g);
            sx0 = _mm256_fmadd_ps(g, h, sx0);
        }
        const float inv_d = 1.0f / (float)d;
        const __m256 mg = _mm256_set1_ps(center ? nl_hsum256(_mm256_add_ps(sg0, sg1)) * inv_d : 0.0f);
        const __m256 mgx = _mm256_set1_ps(nl_hsum256(_mm256_add_ps(sx0, sx1)) * inv_d);
        for (i = 0; i < d; i += 8) {
            const __m256i k = i < body ? _mm256_set1_epi32(-1) : tail;
            __m256 dyv = _mm256_maskload_ps(dyr + i, k);
            __m256 g = _mm256_mul_ps(_mm256_maskload_ps(gamma + i, k), dyv);
            __m256 h = _mm256_mul_ps(_mm256_sub_ps(_mm256_maskload_ps(xr + i, k), mu), rs);
            __m256 t = _mm256_fnmadd_ps(h, mgx, _mm256_sub_ps(g, mg));
            _mm256_maskstore_ps(dxr + i, k, _mm256_mul_ps(rs, t));
            _mm256_maskstore_ps(dgamma + i, k, _mm256_fmadd_ps(dyv, h, _mm256_maskload_ps(dgamma + i, k)));
            if (center)
                _mm256_maskstore_ps(dbeta + i, k, _mm256_add_ps(dyv, _mm256_maskload_ps(dbeta + i, k)));
        }
    }
}

NL_BWD_BOTH_NORMS(avx2)
