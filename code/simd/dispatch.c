/* dispatch.c — one entry point per norm that runs the widest path this CPU
 * supports (nl_isa_active: __builtin_cpu_supports, capped by NORMLAB_ISA).
 * The choice is made per call, not per row, and costs a getenv and a few
 * loads: nothing next to a row of LLM width.
 *
 * Numerics: those of the kernel chosen (corrected two-pass for LayerNorm,
 * all within tol 1e-5 on unit-scale data, |x| ~ 1e20 handled); different
 * paths round differently, so results may differ in the last bits from
 * one ISA to another, never between runs on one machine. */
#include <unistd.h>

#include "simd/simd.h"

/* Streaming stores and the next-row prefetch (the *_pf kernels) win once a
 * call's rows no longer fit in the core's own cache, and lose while they
 * do (the next reader misses).  The test is therefore the bytes one call
 * touches, input and output, against the per-core L2, not the last-level
 * cache, which a virtual machine may report at any size; a thread of the
 * _omp kernels asks it for its own block of rows.  Chapter 6 shows the
 * measurements behind the rule. */
int nl_output_spills(size_t rows, size_t d)
{
    static long l2; /* 0: not asked yet; the same answer for every thread */
    long c = __atomic_load_n(&l2, __ATOMIC_RELAXED);
    if (c == 0) {
        c = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (c <= 0)
            c = 1L << 20; /* unknown: assume a small L2 */
        __atomic_store_n(&l2, c, __ATOMIC_RELAXED);
    }
    return rows * d * 2 * sizeof(float) > (size_t)c;
}

// @snippet simd-dispatch
int nl_layernorm_best(const float *x, const float *gamma, const float *beta,
                      float eps, size_t rows, size_t d, float *y)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: return (nl_output_spills(rows, d) ? nl_layernorm_avx512_pf
                                : nl_layernorm_avx512)(x, gamma, beta, eps, rows, d, y);
    case NL_ISA_AVX2:   return nl_layernorm_avx2(x, gamma, beta, eps, rows, d, y);
#elif defined(__aarch64__)
    case NL_ISA_NEON:   return nl_layernorm_neon(x, gamma, beta, eps, rows, d, y);
#endif
    default:            return nl_layernorm_vec(x, gamma, beta, eps, rows, d, y);
    }
}
// @end

int nl_rmsnorm_best(const float *x, const float *gamma, const float *beta,
                    float eps, size_t rows, size_t d, float *y)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: return (nl_output_spills(rows, d) ? nl_rmsnorm_avx512_pf
                                : nl_rmsnorm_avx512)(x, gamma, beta, eps, rows, d, y);
    case NL_ISA_AVX2:   return nl_rmsnorm_avx2(x, gamma, beta, eps, rows, d, y);
#elif defined(__aarch64__)
    case NL_ISA_NEON:   return nl_rmsnorm_neon(x, gamma, beta, eps, rows, d, y);
#endif
    default:            return nl_rmsnorm_vec(x, gamma, beta, eps, rows, d, y);
    }
}
