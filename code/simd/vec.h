/* vec.h — the vector layer: the handful of operations the memory-wall
 * schedules (forward_rungs.h, backward/bwd_rungs.h, ...) are written in,
 * so that one schedule compiles at every width.
 *
 * An instance file includes one layer, vec_avx2.h (8 lanes), vec_avx512.h
 * (16) or vec_neon.h (4), then a schedule.  Each layer defines, as static
 * inline functions over its own register type:
 *
 *   vf, vmask, VW        a vector of VW floats; the lanes a tail keeps
 *   VF_MASKS_FREE        1 where a masked load with every lane kept costs
 *                        what a plain one does (AVX-512's mask registers),
 *                        so that a schedule may keep one code path for
 *                        whole vectors and tails
 *   NL_VISA              the width's name in kernel names (avx2, ...)
 *   vf_zero, vf_set1     constants
 *   vf_load, vf_load_al  VW floats, from any address / a VW-aligned one
 *   vf_store, vf_stream  ordinary store; store past the caches (aligned)
 *   vm_all, vm_first(n)  every lane; the first n (0 < n <= VW)
 *   vf_load_first        masked load: lanes past the mask read as 0 and
 *   vf_store_first       are never touched in memory (no fault past a row)
 *   vf_sub_first         a - b in the mask's lanes, 0 in the others
 *   vf_add, vf_sub, vf_mul
 *   vf_fma(a, b, c)      a * b + c, one rounding
 *   vf_fnma(a, b, c)     c - a * b, one rounding
 *   vf_fms(a, b, c)      a * b - c, one rounding
 *   vf_sum               the lanes added (each layer's fixed order)
 *   vf_ask_l2(p)         prefetch the line of p into L2
 *   vf_streams_done      order streamed stores before a call returns
 *
 * Every operation is one instruction (or a fixed short sequence) of its
 * ISA, and the schedules pass lane counts and masks that are constants
 * where the hand-written kernels had constants: the AVX-512 instance
 * compiles to the loops the AVX-512 kernels had before there was a
 * layer.  Why not the compiler's vector extensions: streaming stores,
 * prefetches and masked tails would need intrinsics anyway, and a layer
 * of named operations reads the same at every width. */
#ifndef NL_VEC_H
#define NL_VEC_H

#include <stddef.h>
#include <stdint.h>

/* A cache line, in bytes and in floats: the unit of a prefetch and of
 * the write-combining that streaming stores rely on. */
enum { NL_LINE = 64, NL_LINE_FLOATS = 16 };

/* Elements before y + head is 64-byte aligned, capped at d.  Streaming
 * stores fault on (or, on Arm, lose their point at) addresses off their
 * grid, so a row is written as ordinary stores for the head and the
 * tail, streamed in between. */
static inline size_t nl_head_to_align64(const float *y, size_t d)
{
    size_t head = ((64u - ((uintptr_t)y & 63u)) & 63u) / sizeof(float);
    return head < d ? head : d;
}

/* Every operation of a layer is forced inline: it is one instruction in
 * a loop, and a call to a function that only prefetches is, to GCC's
 * analysis, a call without effects, which GCC 12 at -O2 deletes (chapter
 * 8, "The prefetch that was not there"). */
#define NL_VINLINE static inline __attribute__((always_inline))

/* Kernel names from the instance's width: NL_VNAME(rmsnorm_, _pf) is
 * nl_rmsnorm_avx2_pf in the AVX2 instance. */
#define NL_VNAME(pre, post) NL_VNAME_(pre, NL_VISA, post)
#define NL_VNAME_(pre, isa, post) NL_VNAME__(pre, isa, post)
#define NL_VNAME__(pre, isa, post) nl_##pre##isa##post

#endif
