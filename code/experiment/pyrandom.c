/* pyrandom.c — Python's `random` module in C, bit for bit.
 *
 * The seed article's figures were printed by Python. To reproduce them to
 * the last printed digit the C program must draw the very same numbers, so
 * this is a port of what CPython does: Matsumoto and Nishimura's MT19937,
 * seeded the way random.seed(int) seeds it (init_by_array over the
 * integer's 32-bit words), random() built from two 32-bit draws, and
 * gauss() with its Box-Muller pair of which the second half is kept for the
 * next call. Every step below keeps CPython's order of operations; a
 * reordered multiply or a fused multiply-add would change the last bit. */
#include "normlab.h"

#include <math.h>

enum { MT_N = 624, MT_M = 397 };

#define MT_MATRIX_A   0x9908b0dfu
#define MT_UPPER_MASK 0x80000000u
#define MT_LOWER_MASK 0x7fffffffu

static void init_genrand(nl_pyrandom *r, uint32_t s)
{
    r->mt[0] = s;
    for (uint32_t i = 1; i < MT_N; i++) {
        uint32_t prev = r->mt[i - 1];
        r->mt[i] = 1812433253u * (prev ^ (prev >> 30)) + i;
    }
    r->index = MT_N;
}

void nl_pyrandom_seed_words(nl_pyrandom *r, const uint32_t *key, size_t nwords)
{
    /* The reference init_by_array: start from a fixed state, then mix the
     * key in twice round the table so every word of it reaches every word
     * of the state. All arithmetic wraps modulo 2^32, as in the original. */
    static const uint32_t zero_key[1] = {0u};
    if (nwords == 0) { /* no words at all means the value 0, as seed(0) */
        key = zero_key;
        nwords = 1;
    }
    init_genrand(r, 19650218u);
    uint32_t *mt = r->mt;
    size_t i = 1, j = 0;
    for (size_t k = MT_N > nwords ? MT_N : nwords; k; k--) {
        uint32_t prev = mt[i - 1];
        mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
        if (j >= nwords)
            j = 0;
    }
    for (size_t k = MT_N - 1; k; k--) {
        uint32_t prev = mt[i - 1];
        mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000u; /* a non-zero state, whatever the key */
    r->index = MT_N;
    r->have_gauss = 0;
    r->gauss_next = 0.0;
}

void nl_pyrandom_seed(nl_pyrandom *r, uint64_t n)
{
    /* CPython splits |n| into 32-bit words, least significant first, and
     * passes as many as n needs, but at least one: seed(0) is key {0}. */
    uint32_t key[2] = {(uint32_t)n, (uint32_t)(n >> 32)};
    nl_pyrandom_seed_words(r, key, key[1] ? 2 : 1);
}

static void regenerate(uint32_t *mt)
{
    static const uint32_t mag01[2] = {0u, MT_MATRIX_A};
    size_t kk = 0;
    for (; kk < MT_N - MT_M; kk++) {
        uint32_t y = (mt[kk] & MT_UPPER_MASK) | (mt[kk + 1] & MT_LOWER_MASK);
        mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
    }
    for (; kk < MT_N - 1; kk++) {
        uint32_t y = (mt[kk] & MT_UPPER_MASK) | (mt[kk + 1] & MT_LOWER_MASK);
        mt[kk] = mt[kk + MT_M - MT_N] ^ (y >> 1) ^ mag01[y & 1u];
    }
    uint32_t y = (mt[MT_N - 1] & MT_UPPER_MASK) | (mt[0] & MT_LOWER_MASK);
    mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
}

uint32_t nl_pyrandom_u32(nl_pyrandom *r)
{
    if (r->index >= MT_N) {
        regenerate(r->mt);
        r->index = 0;
    }
    uint32_t y = r->mt[r->index++];
    /* Tempering: the raw state words are linear in the seed; these shifts
     * and masks spread their bits so consecutive outputs look independent. */
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

double nl_pyrandom_random(nl_pyrandom *r)
{
    /* 27 bits from one draw and 26 from the next make the 53 bits of a
     * double's mantissa, so every multiple of 2^-53 in [0, 1) can occur. */
    uint32_t a = nl_pyrandom_u32(r) >> 5;
    uint32_t b = nl_pyrandom_u32(r) >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

// @snippet pyrandom-gauss
double nl_pyrandom_gauss(nl_pyrandom *r, double mu, double sigma)
{
    /* Box-Muller makes two independent normals from two uniforms; Python
     * returns the cosine one and keeps the sine one for the next call, so
     * a sequence of gauss() calls uses one pair of random() draws per two
     * values. 1 - random() lies in (0, 1], which keeps log away from 0. */
    double z;
    if (r->have_gauss) {
        z = r->gauss_next;
        r->have_gauss = 0;
    } else {
        const double two_pi = 2.0 * 3.141592653589793;
        double x2pi = nl_pyrandom_random(r) * two_pi;
        double g2rad = sqrt(-2.0 * log(1.0 - nl_pyrandom_random(r)));
        z = cos(x2pi) * g2rad;
        r->gauss_next = sin(x2pi) * g2rad;
        r->have_gauss = 1;
    }
    return mu + z * sigma;
}
// @end
