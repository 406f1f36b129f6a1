/* backward.h — what the backward kernels share inside the library: their
 * declarations (one per line of registry.def, plus the per-ISA kernels the
 * dispatcher chooses between) and the fixed-order reduction of dgamma and
 * dbeta that makes the threaded kernels deterministic. */
#ifndef NL_BACKWARD_H
#define NL_BACKWARD_H

#include <stddef.h>

#include "normlab.h"

/* A backward kernel's signature under its full name (fn), or nl_<name>. */
#define NL_BWD_FN(fn)                                                        \
    int fn(const float *x, const float *gamma, const float *mean,           \
           const float *rstd, const float *dy, size_t rows, size_t d,        \
           float *dx, float *dgamma, float *dbeta)
#define NL_DECLARE_BWD(name) NL_BWD_FN(nl_##name)

#define NL_BWD_IMPL(name, norm, chapter, req, props, tol, summary) NL_DECLARE_BWD(name);
#include "backward/registry.def"
#undef NL_BWD_IMPL

/* bwd_rungs.h at each width: the stream and skew rungs over a run of
 * whole chunks (for NL_BWD_SPANS), dgamma/dbeta pointing at their
 * partials (one d-vector per NL_BWD_CHUNK_ROWS rows), which they write
 * instead of adding to (a partial needs no clearing); dx stored (span),
 * streamed (span_nt), or streamed by the skewed loop (span_skew). */
#define NL_DECLARE_BWD_SPANS(isa)                                            \
    NL_DECLARE_BWD(layernorm_bwd_##isa##_span);                              \
    NL_DECLARE_BWD(rmsnorm_bwd_##isa##_span);                                \
    NL_DECLARE_BWD(layernorm_bwd_##isa##_span_nt);                           \
    NL_DECLARE_BWD(rmsnorm_bwd_##isa##_span_nt);                             \
    NL_DECLARE_BWD(layernorm_bwd_##isa##_span_skew);                         \
    NL_DECLARE_BWD(rmsnorm_bwd_##isa##_span_skew)
NL_DECLARE_BWD_SPANS(avx2);
NL_DECLARE_BWD_SPANS(avx512);
NL_DECLARE_BWD_SPANS(neon);

/* The widest SIMD path of this CPU (nl_isa_active), single-threaded. */
NL_DECLARE_BWD(layernorm_bwd_best);
NL_DECLARE_BWD(rmsnorm_bwd_best);

/* Rows per chunk of the fixed-order reduction: the threaded kernels sum
 * dgamma (and dbeta) chunk by chunk into partials, then add the partials
 * in chunk order.  The chunks depend on rows only, never on the thread
 * count, so neither does any rounding.  256 rather than 32: a chunk's
 * partial is one d-vector per tensor, written into cold lines at each
 * chunk's start and read back by the adding, and at 32 rows those were
 * 1/32 of x's bytes per tensor (32 MiB for a LayerNorm of 16384 x 8192,
 * as much as this Zen 4's L3); at 256 rows, 4 MiB.  Alternated runs of
 * 32, 64, 128 and 256 (book/data/zen4-chunk-rows-ab-reference.txt,
 * chapter 10's lab notebook) put 256 highest.  The price: rows <= 256 run on one
 * thread, and a thread count beyond rows / 256 has nothing to do. */
enum { NL_BWD_CHUNK_ROWS = 256 };

/* Runs `fn` (a single-threaded kernel) over OpenMP threads, chunk by
 * chunk, and adds the chunk partials into dgamma/dbeta in chunk order.
 * fills: 0, fn adds to a chunk's partial (cleared first); NL_BWD_SPANS,
 * fn is given each thread's whole run of chunks at once and writes their
 * partials (so it can carry work across chunk boundaries: the stream
 * rung's prefetch of the next rows, the skew rung's overlap). */
enum { NL_BWD_SPANS = 2 };
int nl_bwd_chunked(nl_backward_fn fn, int fills, nl_norm norm, const float *x, const float *gamma,
                   const float *mean, const float *rstd, const float *dy, size_t rows,
                   size_t d, float *dx, float *dgamma, float *dbeta);

/* dst[i] += sum over c in 0..nparts-1, in that order, of parts[c * d + i];
 * the sums are taken in the first partial, parts[0..d), which is
 * overwritten. */
void nl_bwd_add_partials(float *dst, float *parts, size_t nparts, size_t d);

#endif
