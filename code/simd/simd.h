/* simd.h — what the SIMD and threaded kernels share inside the library.
 *
 * Not part of the public header: the ISA paths, the dispatcher's choice and
 * the row partition are details the registry hides behind one signature.
 * (If the CLI wants to print the active path, nl_isa_active/nl_isa_name are
 * the candidates to move into normlab.h.) */
#ifndef NL_SIMD_H
#define NL_SIMD_H

#include <stddef.h>

#include "normlab.h"

/* Instruction-set paths, ordered by width on each architecture. */
typedef enum { NL_ISA_SCALAR = 0, NL_ISA_AVX2, NL_ISA_AVX512, NL_ISA_NEON } nl_isa;

/* isa.c: the widest path this CPU runs, capped by NORMLAB_ISA when it is
 * set; why a kernel needing `requires` (NL_REQ_* bits) cannot run on this
 * CPU under that cap, or NULL. */
nl_isa nl_isa_active(void);
nl_isa nl_isa_cpu(void); /* the widest path this CPU runs, NORMLAB_ISA aside */
const char *nl_isa_name(nl_isa isa);
const char *nl_isa_unavailable(unsigned requires);
/* The SIMD paths this binary carries, narrowest first: the widths the
 * schedules (rmsnorm_rungs.h, ...) are compiled at, avx2 and avx512 on
 * x86-64, neon on aarch64; their count. */
size_t nl_isa_widths(const nl_isa **widths);

/* rung_shape.c: the shape of fast rung the dispatchers take out of cache,
 * four rows a loop (block) or one row at a time (row), by CPU family as
 * measured (book/data/zen4-rungs-reference.csv), NORMLAB_RUNGS=block|row
 * overriding it. Both shapes give the same bits. */
typedef enum { NL_RUNGS_BLOCK = 0, NL_RUNGS_ROW } nl_rungs;
nl_rungs nl_rungs_active(void);
const char *nl_rungs_name(nl_rungs r);

/* Rows [*begin, *end) of `rows` that thread `t` of `nthreads` owns:
 * contiguous blocks, sizes differing by at most one, in thread order. */
void nl_row_block(size_t rows, size_t nthreads, size_t t, size_t *begin,
                  size_t *end);
/* threads.c: fn over OpenMP threads, nl_row_block's rows to each; the
 * bits of fn for every thread count (chapter 9's QK-norm kernel uses it). */
int nl_forward_omp_rows(nl_forward_fn fn, const float *x, const float *gamma,
                        const float *beta, float eps, size_t rows, size_t d, float *y);

/* sum of x[i]^2 over n floats, with several vector accumulators
 * (exercise 06); 0 for n == 0. */
float nl_sumsq(const float *x, size_t n);

/* Statistics of one row in double, for the rare row whose float sums
 * overflowed (|x| beyond ~1e19): the fast kernels fall back to this.
 * center != 0: LayerNorm (mean and variance), else RMSNorm (mean 0). */
void nl_row_stats_wide(const float *x, size_t d, int center, float eps,
                       float *mean, float *inv);
void nl_ln_row_scale(const float *x, size_t d, float eps, float s1, float s2, float *mf,
                     float *corr, float *inv);

/* Whether rows x d of input and output together exceed this core's cache:
 * then the _best kernels stream their output and prefetch the next row. */
int nl_output_spills(size_t rows, size_t d);

/* The kernels the dispatcher chooses between (signature nl_forward_fn). */
#define NL_DECLARE_KERNEL(name)                                              \
    int nl_##name(const float *x, const float *gamma, const float *beta,    \
                  float eps, size_t rows, size_t d, float *y)
NL_DECLARE_KERNEL(layernorm_vec);
NL_DECLARE_KERNEL(rmsnorm_vec);
/* The rungs of layernorm_rungs.h and rmsnorm_rungs.h at one width. */
#define NL_DECLARE_RUNGS(isa)                                                 \
    NL_DECLARE_KERNEL(layernorm_##isa);                                      \
    NL_DECLARE_KERNEL(layernorm_##isa##_nt);                                 \
    NL_DECLARE_KERNEL(layernorm_##isa##_pf);                                 \
    NL_DECLARE_KERNEL(layernorm_##isa##_shift);                              \
    NL_DECLARE_KERNEL(layernorm_##isa##_shift_pf);                           \
    NL_DECLARE_KERNEL(layernorm_##isa##_block);                              \
    NL_DECLARE_KERNEL(rmsnorm_##isa);                                        \
    NL_DECLARE_KERNEL(rmsnorm_##isa##_nt);                                   \
    NL_DECLARE_KERNEL(rmsnorm_##isa##_pf);                                   \
    NL_DECLARE_KERNEL(rmsnorm_##isa##_block)
NL_DECLARE_RUNGS(avx2);
NL_DECLARE_RUNGS(avx512);
NL_DECLARE_RUNGS(neon);
NL_DECLARE_KERNEL(layernorm_best);
NL_DECLARE_KERNEL(rmsnorm_best);

#endif
