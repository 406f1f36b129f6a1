/* fused_bench.h — `normlab bench` for the fused kernels (chapter 9): the
 * pieces the bench command strings together, on chapter 6's measuring
 * (bench/bench.h). */
#ifndef NL_FUSED_BENCH_H
#define NL_FUSED_BENCH_H

#include "bench/bench.h"

/* Runs impl once on b with `residual` and compares residual and y with
 * its unfused pair started from the same residual: 0 when bit-identical.
 * NaN or > 0 otherwise; *rc gets the first non-zero return code. */
double nl_fused_bench_validate(const nl_fused_impl *impl, const nl_bench_data *b,
                               float *residual, int *rc);
/* nl_bench_time for a fused kernel; gbps and the fractions of copy are
 * stated for the bytes impl must move (nl_fused_values floats per
 * element, against the copy's 2).  Returns the kernel's first error. */
int nl_fused_bench_time(const nl_fused_impl *impl, const nl_bench_data *b, float *residual,
                        size_t samples, nl_bench_row *row);

#endif
