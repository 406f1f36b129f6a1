/* sumsq.c — sum of squares with portable vectors (exercise 06).
 *
 * GCC and Clang's vector extension gives an 8-lane float type that
 * compiles on every architecture: to AVX (when enabled), to two SSE or two
 * NEON registers, or to scalar code.  The same file therefore builds and is
 * graded on any machine, while showing exactly what the intrinsic kernels
 * do: several accumulators, a horizontal reduction, a tail.
 *
 * Numerics: 32 partial sums instead of one, so each partial sum stays ~32
 * times smaller and rounding errors grow far more slowly than in a single
 * running sum: at n = 65536 the relative error is ~5e-8 where one float
 * accumulator reaches 2.6e-6 (tests/check_ex_sumsq.c asserts < 1e-6). */
#include <string.h>

#include "simd/simd.h"

typedef float v8f __attribute__((vector_size(8 * sizeof(float))));

/* memcpy is how C spells "unaligned load": the compiler turns it into
 * vector loads, and x may sit at any float boundary.  (Vectors travel by
 * pointer: passing a 32-byte vector by value would make GCC warn that the
 * ABI differs with and without AVX.)  `unused`: the exercise's starter file
 * does not call it yet, and Clang would warn. */
__attribute__((unused)) static inline v8f *load8(v8f *v, const float *p)
{
    memcpy(v, p, sizeof *v);
    return v;
}

// @snippet simd-sumsq
// @exercise 06-simd-sumsq
/* Adds the 8 lanes by folding the register in halves (8 -> 4 -> 2 -> 1),
 * the same tree as the AVX2 horizontal reduction. */
static inline float hsum8(const v8f *v)
{
    float s4[4];
    for (int k = 0; k < 4; k++)
        s4[k] = (*v)[k] + (*v)[k + 4];
    return (s4[0] + s4[2]) + (s4[1] + s4[3]);
}

float nl_sumsq(const float *x, size_t n)
{
    /* Four accumulators: an add must wait ~4 cycles for the previous add
     * into the same register, so four independent chains keep the adder
     * busy every cycle. */
    v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        v8f v0, v1, v2, v3;
        load8(&v0, x + i);
        load8(&v1, x + i + 8);
        load8(&v2, x + i + 16);
        load8(&v3, x + i + 24);
        a0 += v0 * v0;
        a1 += v1 * v1;
        a2 += v2 * v2;
        a3 += v3 * v3;
    }
    for (; i + 8 <= n; i += 8) {
        v8f v;
        load8(&v, x + i);
        a0 += v * v;
    }
    v8f acc = (a0 + a1) + (a2 + a3);
    float tail = 0.0f; /* the last n % 8 elements, one at a time */
    for (; i < n; i++)
        tail += x[i] * x[i];
    return hsum8(&acc) + tail;
}
// @stub float nl_sumsq(const float *x, size_t n)
// @stub {
// @stub     (void)x;
// @stub     (void)n;
// @stub     return 0.0f;
// @stub }
// @end
// @end
