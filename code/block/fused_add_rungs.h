/* fused_add_rungs.h — the fused ladder's SIMD rung, written once over the
 * vector layer (code/simd/vec.h) and compiled at each width by
 * fused_add_avx2.c, fused_add_avx512.c and fused_add_neon.c: the residual
 * add in vectors with a masked tail, fused by cache block (fused_blocked.c)
 * with the width's forward rungs (rmsnorm_rungs.h, layernorm_rungs.h);
 * when the call's rows spill out of the core's cache, the _pf rungs
 * (streaming stores of y, next row prefetched) take over, with the same
 * bits.  Bits: those of rmsnorm_W / layernorm_W_shift on the updated
 * residual (tol 1e-5, |x| ~ 1e20 handled as they handle it), the rungs
 * layernorm_best and rmsnorm_best run at this width, so that
 * layernorm_omp and the fused kernels share one row kernel and round
 * alike. */
#ifndef NL_FUSED_ADD_RUNGS_H
#define NL_FUSED_ADD_RUNGS_H

#include "block/block.h"
#include "simd/simd.h"

// @snippet fused-add-avx512
static void add_vec(float *residual, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + VW <= n; i += VW)
        vf_store(residual + i, vf_add(vf_load(residual + i), vf_load(x + i)));
    if (i < n) {
        vmask k = vm_first(n - i);
        vf_store_first(k, residual + i,
                       vf_add(vf_load_first(k, residual + i), vf_load_first(k, x + i)));
    }
}

static const nl_fused_plan rms = {add_vec, NL_VNAME(rmsnorm_, ), NL_VNAME(rmsnorm_, _pf)};
static const nl_fused_plan ln = {add_vec, NL_VNAME(layernorm_, _shift),
                                 NL_VNAME(layernorm_, _shift_pf)};
/* The instance names the rung: NL_FUSED_RUNG(nl_fused_blocked, fused_add_,
 * _avx512, rms, ln) gives nl_fused_add_rmsnorm_avx512 and its two
 * siblings. */
// @end

#endif
