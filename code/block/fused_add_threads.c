/* fused_add_threads.c — the fused kernels over OpenMP threads, and the
 * unfused pair they are measured against.
 *
 * _best runs the widest fused rung this CPU has (NORMLAB_ISA caps it, as
 * for chapter 5's _best kernels); _omp gives each thread one contiguous
 * block of rows (nl_row_block) and runs _best on it.  Rows are
 * independent, so the bits are _best's for any thread count, and _best's
 * are rmsnorm_best's / layernorm_best's, which rmsnorm_omp reproduces. */
#include <omp.h>

#include "block/block.h"
#include "simd/simd.h"

NL_DECLARE_FUSED(fused_add_rmsnorm_avx2);
NL_DECLARE_FUSED(fused_add_rmsnorm_gemma_avx2);
NL_DECLARE_FUSED(fused_add_layernorm_avx2);
NL_DECLARE_FUSED(fused_add_rmsnorm_avx512);
NL_DECLARE_FUSED(fused_add_rmsnorm_gemma_avx512);
NL_DECLARE_FUSED(fused_add_layernorm_avx512);
NL_DECLARE_FUSED(fused_add_rmsnorm_neon);
NL_DECLARE_FUSED(fused_add_rmsnorm_gemma_neon);
NL_DECLARE_FUSED(fused_add_layernorm_neon);

/* The portable rung: chapter 5's vector-extension kernels. */
static const nl_fused_plan vec_rms = {nl_residual_add, nl_rmsnorm_vec, NULL};
static const nl_fused_plan vec_ln = {nl_residual_add, nl_layernorm_vec, NULL};

/* One rung per ISA; `which` picks the norm (0 RMSNorm, 1 Gemma, 2 LayerNorm). */
static nl_fused_fn widest(nl_fused_norm which)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: {
        static const nl_fused_fn f[3] = {nl_fused_add_rmsnorm_avx512,
                                         nl_fused_add_rmsnorm_gemma_avx512,
                                         nl_fused_add_layernorm_avx512};
        return f[which];
    }
    case NL_ISA_AVX2: {
        static const nl_fused_fn f[3] = {nl_fused_add_rmsnorm_avx2,
                                         nl_fused_add_rmsnorm_gemma_avx2,
                                         nl_fused_add_layernorm_avx2};
        return f[which];
    }
#elif defined(__aarch64__)
    case NL_ISA_NEON: {
        static const nl_fused_fn f[3] = {nl_fused_add_rmsnorm_neon,
                                         nl_fused_add_rmsnorm_gemma_neon,
                                         nl_fused_add_layernorm_neon};
        return f[which];
    }
#endif
    default:
        return NULL;
    }
}

static int best(const nl_fused_plan *vec, nl_fused_norm norm, NL_FUSED_ARGS)
{
    nl_fused_fn fn = widest(norm);
    if (fn)
        return fn(x, residual, gamma, beta, eps, rows, d, y);
    return nl_fused_blocked(vec, norm, x, residual, gamma, beta, eps, rows, d, y);
}
NL_FUSED_RUNG(best, fused_add_, _best, vec_rms, vec_ln)

// @snippet fused-omp-rows
static int omp_rows(const nl_fused_plan *vec, nl_fused_norm norm, NL_FUSED_ARGS)
{
    int rc = 0;
#pragma omp parallel if (rows > 1) reduction(min : rc)
    {
        size_t begin, end;
        nl_row_block(rows, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(),
                     &begin, &end);
        if (end > begin)
            rc = best(vec, norm, x + begin * d, residual + begin * d, gamma, beta, eps,
                      end - begin, d, y + begin * d);
    }
    return rc;
}
// @end
NL_FUSED_RUNG(omp_rows, fused_add_, _omp, vec_rms, vec_ln)

/* The unfused pair at full speed: the add pass over all threads, then
 * chapter 5's threaded norm over the whole array. */
static void add_omp(float *residual, const float *x, size_t n)
{
#pragma omp parallel for schedule(static) if (n > 4096)
    for (size_t i = 0; i < n; i++)
        residual[i] += x[i];
}
static const nl_fused_plan unfused_rms = {add_omp, nl_rmsnorm_omp, NULL};
static const nl_fused_plan unfused_ln = {add_omp, nl_layernorm_omp, NULL};
NL_FUSED_RUNG(nl_add_then_norm, add_, _unfused_omp, unfused_rms, unfused_ln)
