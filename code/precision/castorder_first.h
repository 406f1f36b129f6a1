/* castorder_first.h — the first SIMD rung of each cast order (chapter 8),
 * written once over the vector layer and its 16-bit side (half_vec.h),
 * compiled at 8 lanes by castorder_avx2.c and at 4 by castorder_neon.c.
 *
 * Each kernel does what the scalar kernel of its cast order does, in the
 * same order, VW elements a step: the row's sums in double (two halves of
 * VW / 2 lanes), the same fp32 multiplies and adds (no FMA where the
 * scalar code has a multiply and an add), and the same rounding to bf16
 * or fp16 (half_vec.h).  The last d % VW elements go through the scalar
 * element code (cast_points.c), which rounds identically.  Sums in double
 * give the scalar kernel's float statistics but for a double rounding in
 * ~1e-9 of rows: within 1 ulp, practically always bit for bit.  The fast
 * rungs (half_rungs.h) are the next step. */
#ifndef NL_CASTORDER_FIRST_H
#define NL_CASTORDER_FIRST_H

#include "precision/precision.h"

/* sum of (x - c)^2 over the row in double (c = 0: of x^2) */
static inline double sum_dev2(nl_dtype dt, const uint16_t *x, size_t d, double c)
{
    vd a0 = vd_zero(), a1 = a0;
    const vd cc = vd_set1(c);
    size_t i = 0;
    for (; i + VW <= d; i += VW) {
        vf v = vh_widen(dt, vh_load(x + i));
        vd lo = vd_sub(vd_lo(v), cc), hi = vd_sub(vd_hi(v), cc);
        a0 = vd_fma(lo, lo, a0);
        a1 = vd_fma(hi, hi, a1);
    }
    double s = vd_sum(vd_add(a0, a1));
    for (; i < d; i++) {
        double v = (double)nl_half_to_float(dt, x[i]) - c;
        s += v * v;
    }
    return s;
}

/* sum of x over the row in double */
static inline double sum_x(nl_dtype dt, const uint16_t *x, size_t d)
{
    vd a0 = vd_zero(), a1 = a0;
    size_t i = 0;
    for (; i + VW <= d; i += VW) {
        vf v = vh_widen(dt, vh_load(x + i));
        a0 = vd_add(a0, vd_lo(v));
        a1 = vd_add(a1, vd_hi(v));
    }
    double s = vd_sum(vd_add(a0, a1));
    for (; i < d; i++)
        s += nl_half_to_float(dt, x[i]);
    return s;
}

static inline __attribute__((always_inline)) void
rms_row(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma, const void *beta,
        float eps, size_t d, uint16_t *y)
{
    (void)beta;
    float invf = nl_half_rms_inv_from(sum_dev2(dt, x, d, 0.0), d, eps);
    const vf inv = vf_set1(invf), one = vf_set1(1.0f);
    const uint16_t *w = gamma;
    const float *wf = gamma;
    size_t i = 0;
    for (; i + VW <= d; i += VW) {
        vf xr = vf_mul(vh_widen(dt, vh_load(x + i)), inv), out;
        if (cast == NL_CAST_T5_F32W)
            out = vf_mul(vf_load(wf + i), xr);
        else if (cast == NL_CAST_GEMMA)
            out = vf_mul(xr, vf_add(one, vh_widen(dt, vh_load(w + i))));
        else /* llama, t5: round x*r to the dtype, multiply in the dtype */
            out = vf_mul(vh_round(dt, 0, xr), vh_widen(dt, vh_load(w + i)));
        vh_store(y + i, vh_narrow(dt, out));
    }
    for (; i < d; i++)
        y[i] = nl_rms_point(dt, cast, nl_half_to_float(dt, x[i]) * invf, gamma, i);
}

static inline __attribute__((always_inline)) void
ln_row(nl_dtype dt, nl_cast cast, const uint16_t *x, const void *gamma, const void *beta,
       float eps, size_t d, uint16_t *y)
{
    (void)cast;
    const uint16_t *g = gamma, *b = beta;
    double mean = sum_x(dt, x, d) / (double)d;
    float meanf, rstdf;
    nl_half_ln_stats_from(mean, sum_dev2(dt, x, d, mean), d, eps, &meanf, &rstdf);
    const float shiftf = -rstdf * meanf;
    const vf shift = vf_set1(shiftf), rstd = vf_set1(rstdf);
    size_t i = 0;
    for (; i + VW <= d; i += VW) {
        vf t = vf_add(vf_mul(vh_widen(dt, vh_load(x + i)), rstd), shift);
        t = vf_mul(t, vh_widen(dt, vh_load(g + i)));
        vh_store(y + i, vh_narrow(dt, vf_add(t, vh_widen(dt, vh_load(b + i)))));
    }
    for (; i < d; i++)
        y[i] = nl_torch_point(dt, nl_half_to_float(dt, x[i]), rstdf, shiftf, g[i], b[i]);
}

NL_HALF_ROW_KERNEL_ATTR(, NL_VNAME(rmsnorm_llama_, ), NL_CAST_LLAMA, rms_row)
NL_HALF_ROW_KERNEL_ATTR(, NL_VNAME(rmsnorm_gemma_, ), NL_CAST_GEMMA, rms_row)
NL_HALF_ROW_KERNEL_ATTR(, NL_VNAME(rmsnorm_t5_f32w_, ), NL_CAST_T5_F32W, rms_row)
NL_HALF_ROW_KERNEL_ATTR(, NL_VNAME(layernorm_torch_, ), NL_CAST_TORCH, ln_row)

#endif
