#!/usr/bin/env bash
# A correct exercise scores full in the handout with every other exercise
# its starter (what the handout's own grade must give, kept without any
# answer shipped):
# in a build like the handout's (each exercise's object its untouched
# starter, as a student's build holds while nothing is done), the real
# code of the exercises whose tests once needed another's answer (01-03:
# the mistakes suite; 10: 07's threads and 09's bf16; 11 and 12: 02's
# RMSNorm) and of 06 (the count of its loop) scores full, with the lab's
# own grader run (LAB=...) as make handout LAB=... ships it.
. tests/grader/lib.sh
b=$T/handout-build
handout_build "$b" || fail "cannot build the starters"
for id in 01-layernorm-mean 02-rmsnorm 03-welford 06-simd-sumsq 10-cast-order 11-fused-add 12-norm-placement; do
    real_solution "$T/sub" "$id"
done
LAB=01,02,03,06,10,11,12 scripts/grading/grade.sh --submission "$T/sub" --out "$T/results" --build "$b" >"$T/out.txt" 2>&1
expect '^Score: 70/70$'
echo "in a build of starters, the real 01, 02, 03, 06, 10, 11 and 12 score full: no exercise needs another's answer"
