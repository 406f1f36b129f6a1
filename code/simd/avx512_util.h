/* avx512_util.h — AVX-512 idioms shared by the *_avx512.c kernels: the
 * tail mask and the split of a row into an unaligned head, 64-byte aligned
 * body and tail for streaming stores.  Include only from *_avx512.c. */
#ifndef NL_AVX512_UTIL_H
#define NL_AVX512_UTIL_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

// @snippet avx512-tail-mask
/* One bit per lane: the first n lanes (0 < n <= 16).  A masked load reads
 * only those lanes (the others become 0 and cannot fault), a masked store
 * writes only those: the tail is one more trip of the vector loop. */
static inline __mmask16 nl_mask16(size_t n)
{
    return (__mmask16)((1u << n) - 1u);
}
// @end

/* Elements before y + head is 64-byte aligned, capped at d.  Streaming
 * stores (vmovntps) fault on unaligned addresses, so a row is written as
 * masked ordinary stores for the head and the tail, streamed in between. */
static inline size_t nl_head_to_align64(const float *y, size_t d)
{
    size_t head = ((64u - ((uintptr_t)y & 63u)) & 63u) / sizeof(float);
    return head < d ? head : d;
}

#endif
