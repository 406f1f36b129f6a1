#!/usr/bin/env bash
# Exercise 06 is judged by what the loop executes (exercise.conf `count`:
# the judge single-steps the worker and counts, by address, the packed and
# the scalar arithmetic of the student's code; tests/check_ex_sumsq.c).
#   outside   a scalar loop in double, and one packed add outside it that
#             does nothing useful: it loses the vectorisation test (the
#             packed arithmetic does not grow with n), named first
#   inside    the same packed add inside the scalar loop: loses it too
#             (the scalar arithmetic grows with n)
#   doubles   a right answer with packed double lanes (cvtps2pd, mulpd,
#             addpd): full marks, where a pattern of packed-single
#             mnemonics gave it 6.67
# The count does not depend on policy.sh: each is graded without it too.
[ "$(uname -m)" = x86_64 ] || { echo "skipped: the token instructions here are x86-64 assembly"; exit 0; }
. tests/grader/lib.sh
mk() { mkdir -p "$T/$1/06-simd-sumsq"; cat >"$T/$1/06-simd-sumsq/sumsq.c"; }
scalar() {   # scalar OUTSIDE INSIDE: a double loop, with asm lines around it
    cat <<C
#include <stddef.h>
#include "simd/simd.h"
float nl_sumsq(const float *x, size_t n)
{
    double s = 0.0;
    $1
    for (size_t i = 0; i < n; i++) {
        s += (double)x[i] * x[i];
        $2
    }
    return (float)s;
}
C
}
token='__asm__ volatile("addps %%xmm7, %%xmm7" ::: "xmm7");'
scalar "$token" "" | mk outside
scalar "" "$token" | mk inside
mk doubles <<'C'
#include <string.h>
#include "simd/simd.h"
typedef float v4f __attribute__((vector_size(16)));
typedef double v2d __attribute__((vector_size(16)));
float nl_sumsq(const float *x, size_t n)
{
    v2d a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        v4f f, g;
        memcpy(&f, x + i, sizeof f);
        memcpy(&g, x + i + 4, sizeof g);
        v2d d0 = {f[0], f[1]}, d1 = {f[2], f[3]}, d2 = {g[0], g[1]}, d3 = {g[2], g[3]};
        a0 += d0 * d0;
        a1 += d1 * d1;
        a2 += d2 * d2;
        a3 += d3 * d3;
    }
    v2d a = (a0 + a1) + (a2 + a3);
    double s = a[0] + a[1];
    for (; i < n; i++)
        s += (double)x[i] * x[i];
    return (float)s;
}
C
for np in "" 1; do
    for v in outside inside; do
        GRADE_NO_POLICY=$np grade_real "$T/$v" 06
        reject '^06-simd-sumsq .* 10/10 '
        first=$(grep -m1 '^  ex_sumsq:' "$T/out.txt")
        grep -q 'packed_arithmetic_does_the_work' <<<"$first" || fail "$v: the first feedback line is not the vectorisation test: $first"
        case $v in
        outside) grep -q 'no packed (vector) arithmetic runs in your loop' <<<"$first" || fail "$v: $first" ;;
        inside) grep -q 'scalar arithmetic does your loop' <<<"$first" || fail "$v: $first" ;;
        esac
    done
    GRADE_NO_POLICY=$np grade_real "$T/doubles" 06
    expect '^06-simd-sumsq .* 10/10 +ok'
done
echo "06: a scalar loop with a packed token outside or inside it loses the vector points; packed doubles keep them"
