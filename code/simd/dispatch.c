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
 * them; rms_spill is the row rung for RMSNorm rows that spill: _pf, but
 * at 8 lanes _nt.  On the Zen 4 (book/data/zen4-simd-prefetch-ab-reference.csv)
 * the next row's prefetch took RMSNorm from 0.77-0.81 of copy to
 * 0.85-0.92 at 16 lanes, and from 0.85-0.90 down to 0.72-0.79 at 8, on
 * one thread (on two, rows of 4096 values still gained from it: the lab
 * notebook of chapter 6 has both). */
typedef struct {
    nl_forward_fn ln_shift, ln_block, rms, rms_spill, rms_block;
} width_rungs;

#define WIDTH_RUNGS(isa, spill)                                                            \
    {nl_layernorm_##isa##_shift, nl_layernorm_##isa##_block, nl_rmsnorm_##isa,              \
     nl_rmsnorm_##isa##_##spill, nl_rmsnorm_##isa##_block}

/* The rungs of the widest path this CPU runs (NORMLAB_ISA caps it); NULL:
 * only the portable kernels. */
static const width_rungs *widest(void)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: {
        static const width_rungs r = WIDTH_RUNGS(avx512, pf);
        return &r;
    }
    case NL_ISA_AVX2: {
        static const width_rungs r = WIDTH_RUNGS(avx2, nt);
        return &r;
    }
#elif defined(__aarch64__)
    case NL_ISA_NEON: {
        static const width_rungs r = WIDTH_RUNGS(neon, pf);
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
    return (nl_output_spills(rows, d) ? w->rms_spill : w->rms)(x, gamma, beta, eps, rows, d, y);
}
