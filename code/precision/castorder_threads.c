/* castorder_threads.c — the widest path of this CPU for each cast order
 * (NORMLAB_ISA caps it, as for the fp32 kernels), and the same split over
 * OpenMP threads by contiguous row blocks. Rows are independent and each
 * is computed by the same code whichever thread runs it, so threading
 * changes no bit. */
#include <omp.h>

#include "precision/precision.h"
#include "simd/simd.h"

typedef struct { nl_half_fn scalar, avx2, avx512, neon; } paths;

/* Every path of a cast order, those of other architectures left NULL;
 * llama and t5 round at the same points and share theirs. */
#if defined(__x86_64__)
#define PATHS(name) {nl_##name##_scalar, nl_##name##_avx2, nl_##name##_avx512, NULL}
#elif defined(__aarch64__)
#define PATHS(name) {nl_##name##_scalar, NULL, NULL, nl_##name##_neon}
#else
#define PATHS(name) {nl_##name##_scalar, NULL, NULL, NULL}
#endif
static const paths by_cast[NL_CAST_COUNT] = {
    [NL_CAST_LLAMA] = PATHS(rmsnorm_llama),     [NL_CAST_T5] = PATHS(rmsnorm_llama),
    [NL_CAST_GEMMA] = PATHS(rmsnorm_gemma),     [NL_CAST_T5_F32W] = PATHS(rmsnorm_t5_f32w),
    [NL_CAST_TORCH] = PATHS(layernorm_torch),
};

/* The fast rungs of half_rungs.h at one width, by cast order. */
typedef struct { nl_half_fn block, split, f32stats; } rungs;
#define RUNGS(order, isa)                                                                   \
    {nl_##order##_block_##isa, nl_##order##_split_##isa, nl_##order##_f32stats_##isa}
#define WIDTH_RUNGS(isa)                                                                    \
    {[NL_CAST_LLAMA] = RUNGS(rmsnorm_llama, isa), [NL_CAST_GEMMA] = RUNGS(rmsnorm_gemma, isa), \
     [NL_CAST_TORCH] = RUNGS(layernorm_torch, isa)}

/* The fastest rung of each order and dtype at the active width (chapter
 * 8, "Four rows a loop"; its lab notebook, "The four-row rung"): the block rung, out of cache and in it (make
 * half-pattern and normlab bench on the Xeon's AVX-512, 16384x8192,
 * 4096x4096 and 256x1024), but for Llama's fp16 with AVX-512, where it
 * ties with f32stats out of cache (0.69-0.73 of copy for both) and
 * f32stats is the simpler. Where the block rungs were measured slower
 * (nl_rungs_active, AMD family 19h:
 * book/data/zen4-rungs-reference.csv), the rows go one at a time, by the
 * split rung (the pipe rung's arithmetic in the f32stats rung's two
 * passes), the fastest there, or within 0.01 of it, in every order and
 * dtype once its prefetch was really compiled in
 * (book/data/zen4-prefetch-split-reference.csv). Every width has the
 * same rungs, so the same choice. The bits are the ones _best had before,
 * whichever is taken: the f32stats rung's for RMSNorm (the pipe rung's are
 * the same), the pipe rung's for LayerNorm. NULL: no fast rung (T5 with
 * an fp32 weight, or no SIMD). */
static nl_half_fn fast_of(nl_cast cast, nl_dtype dt)
{
    const rungs *r = NULL;
    switch (nl_isa_active()) {
#if defined(__x86_64__)
    case NL_ISA_AVX512: {
        static const rungs w[NL_CAST_COUNT] = WIDTH_RUNGS(avx512);
        r = &w[cast];
        if (cast == NL_CAST_LLAMA && dt == NL_DT_F16 && nl_rungs_active() == NL_RUNGS_BLOCK)
            return r->f32stats;
        break;
    }
    case NL_ISA_AVX2: {
        static const rungs w[NL_CAST_COUNT] = WIDTH_RUNGS(avx2);
        r = &w[cast];
        break;
    }
#elif defined(__aarch64__)
    case NL_ISA_NEON: {
        static const rungs w[NL_CAST_COUNT] = WIDTH_RUNGS(neon);
        r = &w[cast];
        break;
    }
#endif
    default:
        break;
    }
    (void)dt;
    if (!r || !r->block)
        return NULL;
    return nl_rungs_active() == NL_RUNGS_ROW ? r->split : r->block;
}

static nl_half_fn best_of(nl_cast cast, nl_dtype dt)
{
    nl_half_fn fast = fast_of(cast, dt);
    if (fast)
        return fast;
    paths p = by_cast[cast];
    switch (nl_isa_active()) {
    case NL_ISA_AVX512: return p.avx512 ? p.avx512 : p.scalar;
    case NL_ISA_AVX2: return p.avx2 ? p.avx2 : p.scalar;
    case NL_ISA_NEON: return p.neon ? p.neon : p.scalar;
    default: return p.scalar;
    }
}

static int threads_of(nl_half_fn fn, nl_cast cast, nl_dtype dt, const uint16_t *x,
                      const void *gamma, const void *beta, float eps, size_t rows, size_t d,
                      uint16_t *y)
{
    int rc = nl_half_check_args(dt, x, gamma, beta, rows, d, y, nl_cast_norm(cast));
    if (rc || rows == 0)
        return rc;
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
        return best_of(CAST, dt)(dt, x, gamma, beta, eps, rows, d, y);                          \
    }                                                                                       \
    int nl_##norm##_##cast##_omp(nl_dtype dt, const uint16_t *x, const void *gamma,         \
                                 const void *beta, float eps, size_t rows, size_t d,        \
                                 uint16_t *y)                                               \
    {                                                                                       \
        return threads_of(best_of(CAST, dt), CAST, dt, x, gamma, beta, eps, rows, d, y);                      \
    }
BEST_AND_OMP(rmsnorm, llama, NL_CAST_LLAMA)
BEST_AND_OMP(rmsnorm, gemma, NL_CAST_GEMMA)
BEST_AND_OMP(rmsnorm, t5_f32w, NL_CAST_T5_F32W)
BEST_AND_OMP(layernorm, torch, NL_CAST_TORCH)

#if defined(__x86_64__)
/* The fp32-statistics rung (castorder_f32stats_avx512.c), the pipelined
 * one (castorder_pipe_avx512.c) and the block rung
 * (castorder_block_avx512.c) on threads, so that the bench can time every
 * fast rung at every thread count. */
#define RUNG_OMP(norm, cast, CAST, rung)                                                    \
    int nl_##norm##_##cast##_##rung##_omp(nl_dtype dt, const uint16_t *x, const void *gamma, \
                                          const void *beta, float eps, size_t rows,         \
                                          size_t d, uint16_t *y)                            \
    {                                                                                       \
        return threads_of(nl_##norm##_##cast##_##rung##_avx512, CAST, dt, x, gamma, beta,   \
                          eps, rows, d, y);                                                 \
    }
RUNG_OMP(rmsnorm, llama, NL_CAST_LLAMA, f32stats)
RUNG_OMP(rmsnorm, gemma, NL_CAST_GEMMA, f32stats)
RUNG_OMP(layernorm, torch, NL_CAST_TORCH, f32stats)
RUNG_OMP(rmsnorm, llama, NL_CAST_LLAMA, pipe)
RUNG_OMP(rmsnorm, gemma, NL_CAST_GEMMA, pipe)
RUNG_OMP(layernorm, torch, NL_CAST_TORCH, pipe)
RUNG_OMP(rmsnorm, llama, NL_CAST_LLAMA, block)
RUNG_OMP(rmsnorm, gemma, NL_CAST_GEMMA, block)
RUNG_OMP(layernorm, torch, NL_CAST_TORCH, block)
#endif
