/* dispatch.c — one entry point per norm that runs the widest path this CPU
 * supports (nl_isa_active: __builtin_cpu_supports, capped by NORMLAB_ISA).
 * The choice is made per call, not per row, and costs a getenv and a few
 * loads: nothing next to a row of LLM width.
 *
 * Every width runs the same schedules (rmsnorm_rungs.h, layernorm_rungs.h),
 * and the fast rung's shape is the CPU's too (rung_shape.c): the block
 * rungs, or where they were measured slower (AMD family 19h)
 * the row rungs they are built from, which give the same bits.
 *
 * Numerics: those of the kernel chosen (for LayerNorm the shift rung's
 * bits, whichever shape: one-pass shifted statistics with a two-pass redo
 * when the shift is far; without SIMD the corrected two-pass; all within
 * tol 1e-5 on unit-scale data, |x| ~ 1e20 handled); different widths sum
 * in different lanes, so results may differ in the last bits from one
 * ISA to another, never between runs on one machine. */
#include "simd/simd.h"

// @snippet simd-dispatch
/* One width's fast rungs, as rmsnorm_rungs.h and layernorm_rungs.h name
 * them. */
typedef struct {
    nl_forward_fn ln_shift, ln_block, rms, rms_pf, rms_block;
} width_rungs;

#define WIDTH_RUNGS(isa)                                                                   \
    {nl_layernorm_##isa##_shift, nl_layernorm_##isa##_block, nl_rmsnorm_##isa,              \
     nl_rmsnorm_##isa##_pf, nl_rmsnorm_##isa##_block}

/* The rungs of the widest path this CPU runs (NORMLAB_ISA caps it); NULL:
 * only the portable kernels. */
static const width_rungs *widest(void)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: {
        static const width_rungs r = WIDTH_RUNGS(avx512);
        return &r;
    }
    case NL_ISA_AVX2: {
        static const width_rungs r = WIDTH_RUNGS(avx2);
        return &r;
    }
#elif defined(__aarch64__)
    case NL_ISA_NEON: {
        static const width_rungs r = WIDTH_RUNGS(neon);
        return &r;
    }
#endif
    default:
        return NULL;
    }
}

int nl_layernorm_best(const float *x, const float *gamma, const float *beta,
                      float eps, size_t rows, size_t d, float *y)
{
    const width_rungs *w = widest();
    if (!w)
        return nl_layernorm_vec(x, gamma, beta, eps, rows, d, y);
    return (nl_rungs_active() == NL_RUNGS_ROW ? w->ln_shift : w->ln_block)(x, gamma, beta, eps,
                                                                          rows, d, y);
}
// @end

int nl_rmsnorm_best(const float *x, const float *gamma, const float *beta,
                    float eps, size_t rows, size_t d, float *y)
{
    const width_rungs *w = widest();
    if (!w)
        return nl_rmsnorm_vec(x, gamma, beta, eps, rows, d, y);
    if (nl_rungs_active() == NL_RUNGS_BLOCK)
        return w->rms_block(x, gamma, beta, eps, rows, d, y);
    /* the row rung streams only what spills, as the block rung does */
    return (nl_output_spills(rows, d) ? w->rms_pf : w->rms)(x, gamma, beta, eps, rows, d, y);
}
