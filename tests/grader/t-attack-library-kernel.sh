#!/usr/bin/env bash
# Attack: exercise 02 answered by calling the library's own kernels
# (nl_rmsnorm_best, or another RMSNorm of the registry).  policy.sh
# refuses the object before it is linked; without policy.sh
# (GRADE_NO_POLICY=1) the worker is linked with only what the real
# rmsnorm_fused.c calls (stage.sh's worker-lib.a), so the call does not
# link: 0 points either way, each message naming the call.  (Before the
# worker's library was cut to that, the answer scored 9/10 without
# policy.sh: no score may depend on it.)
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
    attack_zero 02 02-rmsnorm "link error: your file calls $callee, which is not among what this exercise's code may call"
done
echo "02 through a library kernel: 0 with policy.sh (refused) and without it (does not link)"
