/* vec_avx2.h — the vector layer (vec.h) at 8 lanes, AVX2 + FMA: a tail's
 * mask is a register of all-ones lanes (vmaskmovps reads and writes only
 * those), streaming by vmovntps on 32-byte addresses.  Include only from
 * *_avx2.c. */
#ifndef NL_VEC_AVX2_H
#define NL_VEC_AVX2_H

#include "simd/avx2_util.h"
#include "simd/vec.h"

// @snippet vec-avx2
#define NL_VISA avx2
enum { VW = 8 };
typedef __m256 vf;
typedef __m256i vmask;
enum { VF_MASKS_FREE = 0 };

NL_VINLINE vf vf_zero(void) { return _mm256_setzero_ps(); }
NL_VINLINE vf vf_set1(float a) { return _mm256_set1_ps(a); }
NL_VINLINE vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
NL_VINLINE vf vf_load_al(const float *p) { return _mm256_load_ps(p); }
NL_VINLINE void vf_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
NL_VINLINE void vf_stream(float *p, vf v) { _mm256_stream_ps(p, v); }

NL_VINLINE vmask vm_all(void) { return _mm256_set1_epi32(-1); }
NL_VINLINE vmask vm_first(size_t n) { return nl_tail_mask256(n); }
NL_VINLINE vf vf_load_first(vmask k, const float *p) { return _mm256_maskload_ps(p, k); }
NL_VINLINE void vf_store_first(vmask k, float *p, vf v) { _mm256_maskstore_ps(p, k, v); }
NL_VINLINE vf vf_sub_first(vmask k, vf a, vf b)
{
    return _mm256_and_ps(_mm256_sub_ps(a, b), _mm256_castsi256_ps(k));
}

NL_VINLINE vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
NL_VINLINE vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
NL_VINLINE vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
NL_VINLINE vf vf_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
NL_VINLINE vf vf_fnma(vf a, vf b, vf c) { return _mm256_fnmadd_ps(a, b, c); }
NL_VINLINE vf vf_fms(vf a, vf b, vf c) { return _mm256_fmsub_ps(a, b, c); }
NL_VINLINE float vf_sum(vf v) { return nl_hsum256(v); }

NL_VINLINE void vf_ask_l2(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T1); }
NL_VINLINE void vf_streams_done(void) { _mm_sfence(); }
// @end

#endif
