/* bf16.c — float <-> bfloat16 from the bits (exercise 09).
 *
 * bf16 is the top half of a float: same sign, same 8-bit exponent, 7 of
 * the 23 fraction bits. Widening appends 16 zero bits and is exact;
 * narrowing must drop 16 bits and round, and that is where every
 * framework agrees on round-to-nearest, ties to even. */
#include "normlab.h"

#include <string.h>

// @snippet bf16-widen
float nl_bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
// @end

// @snippet bf16-narrow
// @exercise 09-bf16-round
uint16_t nl_bf16_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    /* A NaN must not round: adding to its payload could carry it into an
     * Inf. Keep the sign and top payload bits, and set the quiet bit so a
     * signalling NaN cannot come out with an all-zero (Inf) fraction. */
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x0040u);
    /* Round to nearest even on the 16 bits we drop: add just under half
     * (0x7fff), plus one more when the kept part is odd, so an exact half
     * goes up only from an odd value. A carry out of the fraction bumps
     * the exponent, which is right, and past the largest finite value it
     * lands on Inf (0x7f80), which is right too. */
    uint32_t odd = (u >> 16) & 1u;
    u += 0x7fffu + odd;
    return (uint16_t)(u >> 16);
}
// @stub uint16_t nl_bf16_from_float(float f)
// @stub {
// @stub     (void)f;
// @stub     return 0; /* TODO: round f to bf16, ties to even; NaN stays NaN */
// @stub }
// @end
// @end
