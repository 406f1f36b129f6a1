#!/usr/bin/env bash
# Exercise 03's kernel layernorm_welford runs in the worker (welford.def's
# @worker-links), where the student's object is linked too.  An answer
# that leaves nl_welford_push wrong and brings its own correct
# nl_layernorm_welford, to answer the judge's kernel calls without a
# correct push, does not link (the worker holds the library's kernel), so
# it scores 0, even without policy.sh.  The honest answer scores full.
. tests/grader/lib.sh
mkdir -p "$T/sub/03-welford"
{
    cat <<'C'
#include <math.h>
#include "normlab.h"
void nl_welford_push(nl_moments *m, double x) { (void)m; (void)x; }
nl_moments nl_chan_merge(nl_moments a, nl_moments b) { (void)b; return a; }
int nl_layernorm_welford(const float *x, const float *gamma, const float *beta, float eps,
                         size_t rows, size_t d, float *y);
int nl_layernorm_welford(const float *x, const float *gamma, const float *beta, float eps,
                         size_t rows, size_t d, float *y)
{
    for (size_t r = 0; r < rows; r++) {
        double s = 0, q = 0;
        for (size_t i = 0; i < d; i++) s += x[r * d + i];
        double mean = s / (double)d;
        for (size_t i = 0; i < d; i++) q += (x[r * d + i] - mean) * (x[r * d + i] - mean);
        double inv = 1.0 / sqrt(q / (double)d + eps);
        for (size_t i = 0; i < d; i++)
            y[r * d + i] = (float)((x[r * d + i] - mean) * inv * gamma[i] + beta[i]);
    }
    return 0;
}
C
} >"$T/sub/03-welford/welford.c"
GRADE_NO_POLICY=1 grade_real "$T/sub" 03
expect '^03-welford .* 0/10 '
expect 'does not link'
real_solution "$T/honest" 03-welford
grade_real "$T/honest" 03
expect '^03-welford .* 10/10 +ok'
