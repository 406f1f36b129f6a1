#!/usr/bin/env bash
# Attack: exercise 02 answered by calling the library's own kernels
# (nl_rmsnorm_best, or another RMSNorm of the registry).  The object may
# call only what the real rmsnorm_fused.c calls: refused, 0 points, and
# the message names the call.
. tests/grader/lib.sh
mkdir -p "$T/sub/02-rmsnorm"
for callee in nl_rmsnorm_best nl_rmsnorm_naive; do
    cat >"$T/sub/02-rmsnorm/rmsnorm_fused.c" <<C
#include "normlab.h"
int $callee(const float *x, const float *gamma, const float *beta, float eps, size_t rows, size_t d, float *y);
int nl_rmsnorm_fused(const float *x, const float *gamma, const float *beta,
                     float eps, size_t rows, size_t d, float *y)
{
    return $callee(x, gamma, beta, eps, rows, d, y);
}
C
    grade_real "$T/sub" 02
    expect '^02-rmsnorm .* 0/10 +not allowed'
    expect "calls $callee from the library"
done
