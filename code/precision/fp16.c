/* fp16.c — float <-> IEEE binary16 from the bits.
 *
 * fp16 has 5 exponent bits (bias 15) and 10 fraction bits: the largest
 * finite value is 65504, the smallest normal 2^-14 ~ 6.1e-5, and below it
 * subnormals reach down to 2^-24 ~ 6e-8. A float has to be re-biased, and
 * rounded at a position that moves once the result is subnormal. */
#include "normlab.h"

#include <string.h>

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* m >> shift, rounded to nearest with ties to even (1 <= shift <= 31). */
static uint32_t shift_round_even(uint32_t m, unsigned shift)
{
    uint32_t q = m >> shift;
    uint32_t rest = m & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (q & 1u)))
        q++;
    return q;
}

// @snippet fp16-narrow
uint16_t nl_fp16_from_float(float f)
{
    uint32_t u = bits_of(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;

    if (a > 0x7f800000u) /* NaN: quiet, top payload bits kept */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    /* 65520 = 65504 + half an ulp: from there up (Inf included) the
     * nearest even value is Inf. */
    if (a >= 0x477ff000u)
        return (uint16_t)(sign | 0x7c00u);
    if (a >= 0x38800000u) { /* a normal fp16: re-bias 127 -> 15, drop 13 bits */
        uint32_t rebased = a - 0x38000000u; /* (127 - 15) << 23 */
        return (uint16_t)(sign | shift_round_even(rebased, 13));
    }
    if (a < 0x33000000u) /* below 2^-25, half the smallest subnormal: 0 */
        return sign;
    /* Subnormal: the result counts units of 2^-24. The float is
     * m * 2^(e - 150) with the implicit bit in m, so the count is
     * m >> (126 - e), and the rounding position moves with e. A carry into
     * 0x400 is the smallest normal, encoded correctly by the same bits. */
    uint32_t e = a >> 23;
    uint32_t m = (a & 0x7fffffu) | 0x800000u;
    return (uint16_t)(sign | shift_round_even(m, 126u - e));
}
// @end

float nl_fp16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1fu) /* Inf or NaN: the payload moves up unchanged */
        return float_of(sign | 0x7f800000u | (m << 13));
    if (e == 0) { /* zero or subnormal: m units of 2^-24, exact in float */
        float v = (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    return float_of(sign | ((e + 112u) << 23) | (m << 13));
}
