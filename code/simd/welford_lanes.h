/* welford_lanes.h — Welford's update and Chan's merge on whole registers,
 * shared by the AVX2 and AVX-512 Welford kernels.  Include only from
 * *_avx2.c / *_avx512.c files (they are compiled with AVX2 and FMA). */
#ifndef NL_WELFORD_LANES_H
#define NL_WELFORD_LANES_H

#include <immintrin.h>

// @snippet welford-avx2-step
static inline void nl_welford_step256(__m256 v, __m256 rn, __m256 *m, __m256 *q)
{
    __m256 delta = _mm256_sub_ps(v, *m);
    *m = _mm256_fmadd_ps(delta, rn, *m);
    *q = _mm256_fmadd_ps(delta, _mm256_sub_ps(v, *m), *q);
}
// @end

// @snippet welford-avx2-merge
/* Chan's merge when both sides hold n values: the new mean is the
 * midpoint, and M2 gains delta^2 * n*n/(2n) = delta^2 * n/2. */
static inline void nl_chan_equal256(__m256 *m, __m256 *q, __m256 mb, __m256 qb, float n)
{
    __m256 delta = _mm256_sub_ps(mb, *m);
    *m = _mm256_fmadd_ps(delta, _mm256_set1_ps(0.5f), *m);
    *q = _mm256_fmadd_ps(_mm256_mul_ps(delta, delta), _mm256_set1_ps(0.5f * n),
                         _mm256_add_ps(*q, qb));
}

static inline void nl_chan_equal128(__m128 *m, __m128 *q, __m128 mb, __m128 qb, float n)
{
    __m128 delta = _mm_sub_ps(mb, *m);
    *m = _mm_add_ps(*m, _mm_mul_ps(delta, _mm_set1_ps(0.5f)));
    *q = _mm_add_ps(_mm_add_ps(*q, qb),
                    _mm_mul_ps(_mm_mul_ps(delta, delta), _mm_set1_ps(0.5f * n)));
}
// @end

// @snippet welford-lane-fold
/* Folds one register of 8 summaries (each of n values) into one scalar
 * summary of 8n values: 8 lanes -> 4 -> 2 -> 1, Chan's merge at each
 * fold, like the horizontal sum of chapter 5 with a richer "add". */
static inline void nl_chan_fold256(__m256 m, __m256 q, float n, float *mean, float *m2)
{
    __m128 ml = _mm256_castps256_ps128(m), ql = _mm256_castps256_ps128(q);
    nl_chan_equal128(&ml, &ql, _mm256_extractf128_ps(m, 1), _mm256_extractf128_ps(q, 1), n);
    nl_chan_equal128(&ml, &ql, _mm_movehl_ps(ml, ml), _mm_movehl_ps(ql, ql), 2.0f * n);
    nl_chan_equal128(&ml, &ql, _mm_movehdup_ps(ml), _mm_movehdup_ps(ql), 4.0f * n);
    *mean = _mm_cvtss_f32(ml);
    *m2 = _mm_cvtss_f32(ql);
}
// @end

// @snippet welford-shift
/* The point the Welford kernels measure from.  A float mean of 1e4 is
 * rounded to a step of ~1e-3 at every update, so the kernels run Welford
 * on x - shift, whose mean is small, and subtract both again in the output.
 * The mean of the first (up to) 32 elements is near the data, so x - shift
 * is exact or nearly; one outlier among them is diluted 32 times, where
 * shifting by x[0] alone would make every x - shift as coarse as it. */
static inline float nl_welford_shift(const float *x, size_t d)
{
    size_t n = d < 32 ? d : 32;
    float s = 0.0f;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (float)n;
}
// @end

/* Scalar Welford over the last few elements (less `shift`), merged into
 * (n, mean, m2) by Chan's general formula (the sides hold different counts). */
static inline void nl_welford_tail(const float *x, size_t count, float shift,
                                   float *n, float *mean, float *m2)
{
    float tn = 0.0f, tm = 0.0f, tq = 0.0f;
    for (size_t i = 0; i < count; i++) {
        float v = x[i] - shift;
        tn += 1.0f;
        float delta = v - tm;
        tm += delta / tn;
        tq += delta * (v - tm);
    }
    if (tn > 0.0f) {
        float total = *n + tn, delta = tm - *mean;
        *mean += delta * (tn / total);
        *m2 += tq + delta * delta * (*n * tn / total);
        *n = total;
    }
}

#endif
