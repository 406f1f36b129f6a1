/* vec_neon.h — the vector layer (vec.h) at 4 lanes, Advanced SIMD
 * (aarch64).  NEON has no masked loads or stores, so a tail's "mask" is
 * its length, and the tail goes through a zeroed register-sized buffer:
 * still never a byte read or written past the row.  Streaming is STNP, the
 * non-temporal store pair (two 64-bit halves of one register), which
 * ACLE gives no intrinsic for in GCC.  Include only from *_neon.c. */
#ifndef NL_VEC_NEON_H
#define NL_VEC_NEON_H

#include <arm_neon.h>
#include <string.h>

#include "simd/vec.h"

#define NL_VISA neon
enum { VW = 4 };
typedef float32x4_t vf;
typedef size_t vmask; /* the number of lanes kept */
enum { VF_MASKS_FREE = 0 };

NL_VINLINE vf vf_zero(void) { return vdupq_n_f32(0.0f); }
NL_VINLINE vf vf_set1(float a) { return vdupq_n_f32(a); }
NL_VINLINE vf vf_load(const float *p) { return vld1q_f32(p); }
NL_VINLINE vf vf_load_al(const float *p) { return vld1q_f32(p); }
NL_VINLINE void vf_store(float *p, vf v) { vst1q_f32(p, v); }
NL_VINLINE void vf_stream(float *p, vf v)
{
    __asm__("stnp %d1, %d2, %0" : "=Q"(*(float(*)[4])p) : "w"(vget_low_f32(v)),
            "w"(vget_high_f32(v)));
}

NL_VINLINE vmask vm_all(void) { return VW; }
NL_VINLINE vmask vm_first(size_t n) { return n; }
NL_VINLINE vf vf_load_first(vmask n, const float *p)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(t, p, n * sizeof(float));
    return vld1q_f32(t);
}
NL_VINLINE void vf_store_first(vmask n, float *p, vf v)
{
    float t[4];
    vst1q_f32(t, v);
    memcpy(p, t, n * sizeof(float));
}
NL_VINLINE vf vf_sub_first(vmask n, vf a, vf b)
{
    const uint32_t lane[4] = {0, 1, 2, 3};
    uint32x4_t keep = vcltq_u32(vld1q_u32(lane), vdupq_n_u32((uint32_t)n));
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(vsubq_f32(a, b)), keep));
}

NL_VINLINE vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
NL_VINLINE vf vf_sub(vf a, vf b) { return vsubq_f32(a, b); }
NL_VINLINE vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
NL_VINLINE vf vf_fma(vf a, vf b, vf c) { return vfmaq_f32(c, a, b); }
NL_VINLINE vf vf_fnma(vf a, vf b, vf c) { return vfmsq_f32(c, a, b); }
NL_VINLINE vf vf_fms(vf a, vf b, vf c) { return vnegq_f32(vfmsq_f32(c, a, b)); }
NL_VINLINE float vf_sum(vf v) { return vaddvq_f32(v); }

NL_VINLINE void vf_ask_l2(const void *p) { __builtin_prefetch(p, 0, 2); }
/* STNP's stores are ordered like any other on Arm's weak memory model:
 * the barrier a thread hand-off already holds covers them; this one keeps
 * the call's contract the same as on x86 (its stores visible on return). */
NL_VINLINE void vf_streams_done(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#endif
