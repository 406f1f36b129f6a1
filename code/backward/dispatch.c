/* dispatch.c — the fastest backward path of this CPU (nl_isa_active:
 * what the CPU supports, capped by NORMLAB_ISA), single-threaded.
 *
 * At every width that is the stream rung or its skewed loop (bwd_rungs.h),
 * whichever shape nl_rungs_active names for this CPU: the skew rung where
 * the block rungs were measured faster (the Xeon of
 * book/data/backward-reference.csv, 0.70-0.72 of its roof against 0.42
 * for the AVX-512 first rung), the stream rung on the Zen 4's AVX-512
 * (book/data/zen4-rungs-reference.csv), where the skew lost to it.  The
 * two give the same bits, dx and dgamma alike (test
 * `backward_rung_shapes_give_the_same_bits`); their dgamma and dbeta are
 * the first rung's bits at their width, their dx within the tolerance of
 * it. */
#include "backward/backward.h"
#include "simd/simd.h"

/* One width's stream and skew rungs, as bwd_rungs.h names them. */
#define PICK(isa, norm)                                                                    \
    (nl_rungs_active() == NL_RUNGS_ROW                                                     \
         ? (norm == NL_LAYERNORM ? nl_layernorm_bwd_##isa##_stream                         \
                                 : nl_rmsnorm_bwd_##isa##_stream)                          \
         : (norm == NL_LAYERNORM ? nl_layernorm_bwd_##isa##_skew : nl_rmsnorm_bwd_##isa##_skew))

static nl_backward_fn pick(nl_norm norm)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: return PICK(avx512, norm);
    case NL_ISA_AVX2:   return PICK(avx2, norm);
#elif defined(__aarch64__)
    case NL_ISA_NEON:   return PICK(neon, norm);
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
