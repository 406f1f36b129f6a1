/* dispatch.c — the fastest backward path of this CPU (nl_isa_active:
 * what the CPU supports, capped by NORMLAB_ISA), single-threaded; the
 * plain threaded kernels run it on each chunk of rows.
 *
 * With AVX-512 that is the stream rung or its skewed loop
 * (norm_bwd_stream_avx512.c), whichever shape nl_rungs_active names for
 * this CPU: the skew rung where the block rungs were measured faster (the
 * Xeon of book/data/backward-reference.csv, 0.70-0.72 of its roof against
 * 0.42 for the AVX-512 rung), the stream rung on the Zen 4
 * (book/data/zen4-rungs-reference.csv), where the skew lost to it.  The
 * two give the same bits, dx and dgamma alike (test
 * `backward_rung_shapes_give_the_same_bits`); their dgamma and dbeta are
 * the AVX-512 rung's bits, their dx within the tolerance of it. */
#include "backward/backward.h"
#include "simd/simd.h"

static nl_backward_fn pick(nl_norm norm)
{
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512:
        if (nl_rungs_active() == NL_RUNGS_ROW)
            return norm == NL_LAYERNORM ? nl_layernorm_bwd_avx512_stream : nl_rmsnorm_bwd_avx512_stream;
        return norm == NL_LAYERNORM ? nl_layernorm_bwd_avx512_skew : nl_rmsnorm_bwd_avx512_skew;
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
