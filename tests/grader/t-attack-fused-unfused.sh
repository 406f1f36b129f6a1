#!/usr/bin/env bash
# Exercise 11 answered without fusing: the fused kernels handed to the
# file's own unfused pair (add, then the norm), or the region calling the
# residual add and 02's RMSNorm row by row.  The worker holds those kernels
# (the file's given code calls them) but wraps each (exercise.conf
# `forbid`, ld --wrap): every test fails, 0 points, and the first line of
# feedback names the call and says the exercise is the fused loop.  With
# policy.sh and without it (GRADE_NO_POLICY=1): policy.sh allows these
# calls (the real file makes them), so the wrap is what holds.
. tests/grader/lib.sh
real=code/block/fused_add_scalar.c
mkdir -p "$T/pair/11-fused-add" "$T/rows/11-fused-add"
# the two fused kernels return the pair's result
awk '/^#include "block\/block.h"$/ { print; print "int nl_add_rmsnorm_unfused(NL_FUSED_ARGS);"; print "int nl_add_rmsnorm_gemma_unfused(NL_FUSED_ARGS);"; next }
     /^int nl_fused_add_rmsnorm\(NL_FUSED_ARGS\)$/ { print; getline; print; print "    return nl_add_rmsnorm_unfused(x, residual, gamma, beta, eps, rows, d, y);"; skip = 1; next }
     /^int nl_fused_add_rmsnorm_gemma\(NL_FUSED_ARGS\)$/ { print; getline; print; print "    return nl_add_rmsnorm_gemma_unfused(x, residual, gamma, beta, eps, rows, d, y);"; skip = 1; next }
     skip && /^}$/ { skip = 0 } skip { next } { print }' "$real" >"$T/pair/11-fused-add/fused_add_scalar.c"
grep -q 'return nl_add_rmsnorm_gemma_unfused' "$T/pair/11-fused-add/fused_add_scalar.c" || fail "could not make the pair variant"
# the loop body: add, then 02's norm of the row
awk '/@exercise 11-fused-add/ { print; print "        nl_residual_add(rr, xr, d);"; print "        nl_rmsnorm_fused(rr, gamma, NULL, eps, 1, d, yr);"; print "        (void)offset;"; skip = 1; next }
     skip && /@stub/ { skip = 0 } skip { next } { print }' "$real" >"$T/rows/11-fused-add/fused_add_scalar.c"
grep -q 'nl_rmsnorm_fused(rr, gamma' "$T/rows/11-fused-add/fused_add_scalar.c" || fail "could not make the row variant"
for v in pair rows; do
    for np in "" 1; do
        GRADE_NO_POLICY=$np grade_real "$T/$v" 11
        expect '^11-fused-add .* 0/10 '
        first=$(grep -m1 '^  fused_props:' "$T/out.txt")
        grep -q 'your code calls nl_[a-z_]*, one of the kernels this exercise replaces: the exercise is the fused loop' <<<"$first" ||
            fail "$v${np:+ (no policy.sh)}: the first feedback line does not name the unfused call: $first"
    done
done
echo "11 through its unfused pair or 02's kernel: 0 with and without policy.sh, the first line naming the call"
