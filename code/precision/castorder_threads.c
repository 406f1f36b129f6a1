/* castorder_threads.c — the widest path of this CPU for each cast order
 * (NORMLAB_ISA caps it, as for the fp32 kernels), and the same split over
 * OpenMP threads by contiguous row blocks. Rows are independent and each
 * is computed by the same code whichever thread runs it, so threading
 * changes no bit. */
#include <omp.h>

#include "precision/precision.h"
#include "simd/simd.h"

typedef struct { nl_half_fn scalar, avx2, avx512, neon; } paths;

static paths paths_of(nl_cast cast)
{
    paths p = {0};
    switch (cast) {
    case NL_CAST_GEMMA:
        p.scalar = nl_rmsnorm_gemma_scalar;
#if defined(__x86_64__)
        p.avx2 = nl_rmsnorm_gemma_avx2, p.avx512 = nl_rmsnorm_gemma_avx512;
#elif defined(__aarch64__)
        p.neon = nl_rmsnorm_gemma_neon;
#endif
        break;
    case NL_CAST_T5_F32W:
        p.scalar = nl_rmsnorm_t5_f32w_scalar;
#if defined(__x86_64__)
        p.avx2 = nl_rmsnorm_t5_f32w_avx2, p.avx512 = nl_rmsnorm_t5_f32w_avx512;
#elif defined(__aarch64__)
        p.neon = nl_rmsnorm_t5_f32w_neon;
#endif
        break;
    case NL_CAST_TORCH:
        p.scalar = nl_layernorm_torch_scalar;
#if defined(__x86_64__)
        p.avx2 = nl_layernorm_torch_avx2, p.avx512 = nl_layernorm_torch_avx512;
#elif defined(__aarch64__)
        p.neon = nl_layernorm_torch_neon;
#endif
        break;
    default: /* llama and t5 round at the same points */
        p.scalar = nl_rmsnorm_llama_scalar;
#if defined(__x86_64__)
        p.avx2 = nl_rmsnorm_llama_avx2, p.avx512 = nl_rmsnorm_llama_avx512;
#elif defined(__aarch64__)
        p.neon = nl_rmsnorm_llama_neon;
#endif
    }
    return p;
}

static nl_half_fn best_of(nl_cast cast)
{
    paths p = paths_of(cast);
    switch (nl_isa_active()) {
    case NL_ISA_AVX512: return p.avx512 ? p.avx512 : p.scalar;
    case NL_ISA_AVX2: return p.avx2 ? p.avx2 : p.scalar;
    case NL_ISA_NEON: return p.neon ? p.neon : p.scalar;
    default: return p.scalar;
    }
}

static int run_threads(nl_cast cast, nl_dtype dt, const uint16_t *x, const void *gamma,
                       const void *beta, float eps, size_t rows, size_t d, uint16_t *y)
{
    int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, nl_cast_norm(cast));
    if (rc || rows == 0)
        return rc;
    nl_half_fn fn = best_of(cast);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        size_t begin, end;
        nl_row_block(rows, (size_t)omp_get_num_threads(), (size_t)omp_get_thread_num(), &begin,
                     &end);
        if (end > begin)
            failed |= fn(dt, x + begin * d, gamma, beta, eps, end - begin, d, y + begin * d) != 0;
    }
    return failed ? NL_EARG : NL_OK;
}

#define BEST_AND_OMP(norm, cast, CAST)                                                      \
    int nl_##norm##_##cast##_best(nl_dtype dt, const uint16_t *x, const void *gamma,        \
                                  const void *beta, float eps, size_t rows, size_t d,       \
                                  uint16_t *y)                                              \
    {                                                                                       \
        return best_of(CAST)(dt, x, gamma, beta, eps, rows, d, y);                          \
    }                                                                                       \
    int nl_##norm##_##cast##_omp(nl_dtype dt, const uint16_t *x, const void *gamma,         \
                                 const void *beta, float eps, size_t rows, size_t d,        \
                                 uint16_t *y)                                               \
    {                                                                                       \
        return run_threads(CAST, dt, x, gamma, beta, eps, rows, d, y);                      \
    }
BEST_AND_OMP(rmsnorm, llama, NL_CAST_LLAMA)
BEST_AND_OMP(rmsnorm, gemma, NL_CAST_GEMMA)
BEST_AND_OMP(rmsnorm, t5_f32w, NL_CAST_T5_F32W)
BEST_AND_OMP(layernorm, torch, NL_CAST_TORCH)
