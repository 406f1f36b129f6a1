#!/usr/bin/env bash
# In the handout an exercise is graded on its own code alone (issue 21,
# item 1): the handout's build holds the student's unfinished starters of
# the other exercises, and a correct 11 scored 0 there (it calls 02's
# RMSNorm, a stub).  Here a build like the handout's (this build's objects
# with every exercise file replaced by its starter's) grades a correct 11:
# with the reference objects handout-reference.sh ships it scores full,
# without them it does not.
. tests/grader/lib.sh
b=$T/handout-build
handout_build "$b" || fail "cannot build the starters"
real_solution "$T/sub" 11-fused-add
REFERENCE=$T/none scripts/grading/grade.sh --submission "$T/sub" --ex 11 --out "$T/results" --build "$b" >"$T/out.txt" 2>&1
reject '^Score: 10/10$'     # the test has teeth: the starters' objects do cost points
scripts/grading/handout-reference.sh "$T/ref" || fail "handout-reference.sh failed"
[ -z "$(find "$T/ref" -name '*.c' -o -name '*.cl')" ] || fail "the reference holds source"
find "$T/ref/obj" -name '*.o' | grep -q . || fail "no reference objects"
REFERENCE=$T/ref scripts/grading/grade.sh --submission "$T/sub" --ex 11 --out "$T/results" --build "$b" >"$T/out.txt" 2>&1
expect '^Score: 10/10$'
grep -qx 08-cl-reduction\ code/opencl/kernels/reduce.cl "$T/ref/not-shipped.txt" || fail "not-shipped.txt does not name 08's reduce.cl"
echo "a correct 11 among starters: full with the reference objects, not without"
