/* dispatch.c — the widest backward path of this CPU (nl_isa_active:
 * what the CPU supports, capped by NORMLAB_ISA), single-threaded; the
 * threaded kernels run it on each chunk of rows. */
#include "backward/backward.h"
#include "simd/simd.h"

static nl_backward_fn pick(nl_norm norm)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: return norm == NL_LAYERNORM ? nl_layernorm_bwd_avx512 : nl_rmsnorm_bwd_avx512;
    case NL_ISA_AVX2:   return norm == NL_LAYERNORM ? nl_layernorm_bwd_avx2 : nl_rmsnorm_bwd_avx2;
#elif defined(__aarch64__)
    case NL_ISA_NEON:   return norm == NL_LAYERNORM ? nl_layernorm_bwd_neon : nl_rmsnorm_bwd_neon;
#endif
    default:            return norm == NL_LAYERNORM ? nl_layernorm_bwd_fused : nl_rmsnorm_bwd_fused;
    }
}

int nl_layernorm_bwd_best(const float *x, const float *gamma, const float *mean,
                          const float *rstd, const float *dy, size_t rows, size_t d,
                          float *dx, float *dgamma, float *dbeta)
{
    return pick(NL_LAYERNORM)(x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);
}

int nl_rmsnorm_bwd_best(const float *x, const float *gamma, const float *mean,
                        const float *rstd, const float *dy, size_t rows, size_t d,
                        float *dx, float *dgamma, float *dbeta)
{
    return pick(NL_RMSNORM)(x, gamma, mean, rstd, dy, rows, d, dx, dgamma, dbeta);
}
