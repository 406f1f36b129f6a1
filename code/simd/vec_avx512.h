/* vec_avx512.h — the vector layer (vec.h) at 16 lanes, AVX-512F: a mask
 * register per tail, vmovntps for streaming.  Include only from
 * *_avx512.c. */
#ifndef NL_VEC_AVX512_H
#define NL_VEC_AVX512_H

#include "simd/avx512_util.h"
#include "simd/vec.h"

#define NL_VISA avx512
enum { VW = 16 };
typedef __m512 vf;
typedef __mmask16 vmask;
enum { VF_MASKS_FREE = 1 };

NL_VINLINE vf vf_zero(void) { return _mm512_setzero_ps(); }
NL_VINLINE vf vf_set1(float a) { return _mm512_set1_ps(a); }
NL_VINLINE vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
NL_VINLINE vf vf_load_al(const float *p) { return _mm512_load_ps(p); }
NL_VINLINE void vf_store(float *p, vf v) { _mm512_storeu_ps(p, v); }
NL_VINLINE void vf_stream(float *p, vf v) { _mm512_stream_ps(p, v); }

NL_VINLINE vmask vm_all(void) { return (vmask)0xFFFF; }
NL_VINLINE vmask vm_first(size_t n) { return nl_mask16(n); }
NL_VINLINE vf vf_load_first(vmask k, const float *p) { return _mm512_maskz_loadu_ps(k, p); }
NL_VINLINE void vf_store_first(vmask k, float *p, vf v) { _mm512_mask_storeu_ps(p, k, v); }
NL_VINLINE vf vf_sub_first(vmask k, vf a, vf b) { return _mm512_maskz_sub_ps(k, a, b); }

NL_VINLINE vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
NL_VINLINE vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
NL_VINLINE vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
NL_VINLINE vf vf_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
NL_VINLINE vf vf_fnma(vf a, vf b, vf c) { return _mm512_fnmadd_ps(a, b, c); }
NL_VINLINE vf vf_fms(vf a, vf b, vf c) { return _mm512_fmsub_ps(a, b, c); }
NL_VINLINE float vf_sum(vf v) { return _mm512_reduce_add_ps(v); }

NL_VINLINE void vf_ask_l2(const void *p) { _mm_prefetch((const char *)p, _MM_HINT_T1); }
NL_VINLINE void vf_streams_done(void) { _mm_sfence(); }

#endif
