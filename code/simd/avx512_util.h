/* avx512_util.h — AVX-512 idioms shared by the *_avx512.c kernels: the
 * tail mask (and, through vec.h, the split of a row into an unaligned
 * head, 64-byte aligned body and tail for streaming stores).  Include only
 * from *_avx512.c. */
#ifndef NL_AVX512_UTIL_H
#define NL_AVX512_UTIL_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "simd/vec.h"

// @snippet avx512-tail-mask
/* One bit per lane: the first n lanes (0 < n <= 16).  A masked load reads
 * only those lanes (the others become 0 and cannot fault), a masked store
 * writes only those: the tail is one more trip of the vector loop. */
static inline __mmask16 nl_mask16(size_t n)
{
    return (__mmask16)((1u << n) - 1u);
}
// @end

#endif
