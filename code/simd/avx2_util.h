/* avx2_util.h — the two AVX2 idioms every AVX2 kernel here needs: adding
 * the 8 lanes of a register, and a mask for the last d % 8 elements.
 * Include only from *_avx2.c files (they are compiled with -mavx2 -mfma). */
#ifndef NL_AVX2_UTIL_H
#define NL_AVX2_UTIL_H

#include <immintrin.h>
#include <stddef.h>

// @snippet avx2-hsum
/* Fold the register in halves: 8 lanes -> 4 -> 2 -> 1.  Three adds, each
 * pairing lanes that hold partial sums of similar size. */
static inline float nl_hsum256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));   /* lanes 0+2, 1+3 */
    s = _mm_add_ss(s, _mm_movehdup_ps(s));    /* lane 0+1 */
    return _mm_cvtss_f32(s);
}
// @end

// @snippet avx2-tail-mask
/* Lanes 0..n-1 all ones, the rest zero (0 < n < 8).  vmaskmovps reads
 * and writes only those lanes and never faults on the others, so the tail
 * needs no scalar loop and never touches memory past the row. */
static inline __m256i nl_tail_mask256(size_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
// @end

#endif
