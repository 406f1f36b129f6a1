/* dispatch.c — one entry point per norm that runs the widest path this CPU
 * supports (nl_isa_active: __builtin_cpu_supports, capped by NORMLAB_ISA).
 * The choice is made per call, not per row, and costs a getenv and a few
 * loads: nothing next to a row of LLM width.
 *
 * With AVX-512 the fast rung's shape is the CPU's too (rung_shape.c): the
 * block rungs, or where they were measured slower (AMD family 19h) the row
 * rungs they are built from, which give the same bits.
 *
 * Numerics: those of the kernel chosen (for LayerNorm corrected two-pass,
 * or with AVX-512 the block rung, whose bits are the shift rung's: one-pass
 * shifted statistics with a two-pass redo when the shift is far; all
 * within tol 1e-5 on unit-scale data, |x| ~ 1e20 handled); different
 * paths round differently, so results may differ in the last bits from
 * one ISA to another, never between runs on one machine. */
#include "simd/simd.h"

// @snippet simd-dispatch
int nl_layernorm_best(const float *x, const float *gamma, const float *beta,
                      float eps, size_t rows, size_t d, float *y)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512:
        return nl_rungs_active() == NL_RUNGS_ROW
                   ? nl_layernorm_avx512_shift(x, gamma, beta, eps, rows, d, y)
                   : nl_layernorm_avx512_block(x, gamma, beta, eps, rows, d, y);
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
    case NL_ISA_AVX512:
        if (nl_rungs_active() == NL_RUNGS_BLOCK)
            return nl_rmsnorm_avx512_block(x, gamma, beta, eps, rows, d, y);
        /* the row rung streams only what spills, as the block rung does */
        return nl_output_spills(rows, d) ? nl_rmsnorm_avx512_pf(x, gamma, beta, eps, rows, d, y)
                                         : nl_rmsnorm_avx512(x, gamma, beta, eps, rows, d, y);
    case NL_ISA_AVX2:   return nl_rmsnorm_avx2(x, gamma, beta, eps, rows, d, y);
#elif defined(__aarch64__)
    case NL_ISA_NEON:   return nl_rmsnorm_neon(x, gamma, beta, eps, rows, d, y);
#endif
    default:            return nl_rmsnorm_vec(x, gamma, beta, eps, rows, d, y);
    }
}
