/* fused_add_scalar.c — the first rungs of the fused ladder (chapter 9):
 * the unfused reference pairs, made of chapter 1-3 kernels, and the fused
 * scalar kernels.
 *
 * fused_add_rmsnorm does the whole job in two sweeps of a row: the first
 * adds x into the residual, stores the sum and squares it into a double
 * accumulator; the second scales.  It rounds where the pair (the add,
 * then rmsnorm_fused) rounds, no more and no less, so its bits are the
 * pair's: the sum s = r + x is rounded to float and stored, and the norm
 * squares that stored float, not the exact r + x.  An engine that squared
 * the unrounded sum would be more accurate and differ in the last bits.
 *
 * Range: any finite float, as rmsnorm_fused (NL_PROP_HUGE_OK). */
#include <math.h>

#include "block/block.h"

// @snippet fused-add-rmsnorm
/* offset = 1 scales by (1 + w) (Gemma), formed in float like gamma'. */
static void fused_add_rms_rows(const float *x, float *residual, const float *gamma,
                               float eps, size_t rows, size_t d, float *y, int offset)
{
    for (size_t r = 0; r < rows; r++) {
        const float *xr = x + r * d;
        float *rr = residual + r * d;
        float *yr = y + r * d;
        // @exercise 11-fused-add
        double sq = 0.0;
        for (size_t i = 0; i < d; i++) {
            float s = rr[i] + xr[i]; /* rounded to float, as the unfused add stores it */
            rr[i] = s;
            sq += (double)s * s;
        }
        double inv_rms = 1.0 / sqrt(sq / (double)d + eps);
        /* y may be x: every x of the row has been read by now */
        for (size_t i = 0; i < d; i++) {
            float g = offset ? 1.0f + gamma[i] : gamma[i];
            yr[i] = (float)(rr[i] * inv_rms * g);
        }
        // @stub (void)xr; (void)rr; (void)yr; (void)gamma; (void)eps; (void)offset; /* TODO: residual += x, then y = RMSNorm(residual) */
        // @end
    }
}
// @end

int nl_fused_add_rmsnorm(NL_FUSED_ARGS)
{
    (void)beta;
    fused_add_rms_rows(x, residual, gamma, eps, rows, d, y, 0);
    return NL_OK;
}

int nl_fused_add_rmsnorm_gemma(NL_FUSED_ARGS)
{
    (void)beta;
    fused_add_rms_rows(x, residual, gamma, eps, rows, d, y, 1);
    return NL_OK;
}

/* LayerNorm's two-pass kernel keeps its sweeps to itself (it re-centres
 * into y first), so the scalar rung fuses it by cache block. */
static const nl_fused_plan twopass = {nl_residual_add, nl_layernorm_twopass, NULL};

int nl_fused_add_layernorm(NL_FUSED_ARGS)
{
    return nl_fused_blocked(&twopass, NL_FUSED_LAYERNORM, x, residual, gamma, beta,
                            eps, rows, d, y);
}

// @snippet unfused-pair
/* The reference pairs: what a framework runs when nothing is fused. */
static const nl_fused_plan unfused_rms = {nl_residual_add, nl_rmsnorm_fused, NULL};
NL_FUSED_RUNG(nl_add_then_norm, add_, _unfused, unfused_rms, twopass)
// @end
