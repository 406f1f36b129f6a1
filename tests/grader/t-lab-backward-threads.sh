#!/usr/bin/env bash
# Exercise 13 may thread: OpenMP's
# schedule(dynamic) is allowed, a backward threaded over rows that keeps
# the sum over rows in row order scores full, and one that adds its
# threads' partial dgamma as they finish (5 bit patterns in 6 runs in the
# issue) loses points, with the determinism test named first.
. tests/grader/lib.sh
real=code/backward/rmsnorm_bwd_fused.c
mk() { mkdir -p "$T/$1/13-rmsnorm-backward"; cat >"$T/$1/13-rmsnorm-backward/rmsnorm_bwd_fused.c"; }
body() {    # the row's dx, then its dgamma into $1
    cat <<C
            const float *xr = x + r * d, *dyr = dy + r * d;
            float *dxr = dx + r * d;
            const float rs = rstd[r];
            float sum_gx = 0.0f;
            for (size_t i = 0; i < d; i++)
                sum_gx += gamma[i] * dyr[i] * xr[i];
            const float coupling = rs * rs * rs * (sum_gx / (float)d);
            for (size_t i = 0; i < d; i++) {
                dxr[i] = rs * gamma[i] * dyr[i] - coupling * xr[i];
                $1[i] += dyr[i] * xr[i] * rs;
            }
C
}
head='#include <stdlib.h>
#include "backward/backward.h"
int nl_rmsnorm_bwd_fused(const float *x, const float *gamma, const float *mean,
                         const float *rstd, const float *dy, size_t rows, size_t d,
                         float *dx, float *dgamma, float *dbeta)
{
    (void)mean;
    (void)dbeta;'
{   # racy: per-thread partials added in the order threads finish.  A
    # static schedule gives every thread its share of the rows, so at 3 or
    # more threads three nonzero partials meet in an order that changes from
    # run to run; with schedule(dynamic) one thread could take all 611 short
    # rows before the others woke, and the race showed only some runs.
    printf '%s\n#pragma omp parallel\n    {\n        float *part = calloc(d, sizeof *part);\n' "$head"
    printf '#pragma omp for schedule(static)\n        for (size_t r = 0; r < rows; r++) {\n'
    body part
    printf '        }\n#pragma omp critical\n        for (size_t i = 0; i < d; i++)\n            dgamma[i] += part[i];\n'
    printf '        free(part);\n    }\n    return 0;\n}\n'
} | mk racy
{   # right: dx threaded (dynamic), dgamma summed over rows in row order after
    printf '%s\n#pragma omp parallel for schedule(dynamic)\n    for (size_t r = 0; r < rows; r++) {\n' "$head"
    body dx_unused | sed '/dx_unused/d'
    printf '    }\n    for (size_t r = 0; r < rows; r++)\n        for (size_t i = 0; i < d; i++)\n'
    printf '            dgamma[i] += dy[r * d + i] * x[r * d + i] * rstd[r];\n    return 0;\n}\n'
} | mk ordered
grade_real "$T/ordered" 13
reject 'not allowed'
expect '^Score: 10/10$'
grade_real "$T/racy" 13
reject 'not allowed'
reject '^Score: 10/10$'
first=$(grep -m1 '^  backward_grad:' "$T/out.txt")
grep -q 'dgamma_same_bits_every_run' <<<"$first" || fail "the first feedback line does not name the determinism test: $first"
echo "exercise 13: schedule(dynamic) allowed; row-order sum full marks; completion-order sum caught"
