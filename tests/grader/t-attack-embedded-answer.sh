#!/usr/bin/env bash
# Attack: read an answer out of the library the sandbox links.  The
# library embeds the OpenCL kernel sources as C strings (mk/opencl.mk),
# 08's reduce.cl among them; a C answer to any exercise could print
# nl_cl_embedded's reduce.cl into its feedback.  The stage's library
# embeds the kernels no exercise grades and the starters of those graded,
# so not one line of 08's answer is anywhere in what the sandbox sees.
. tests/grader/lib.sh
stage=${STAGE_REAL:-}
if [ -z "$stage" ]; then
    stage=$T/stage
    EXDIR=exercises CODE=code SUITES=tests BUILD=${GRADE_BUILD:-build} EX_FILTER="" \
        scripts/grading/stage.sh "$stage" >"$T/out.txt" 2>&1 || fail "stage.sh failed"
fi
# The answer's lines: those of the real reduce.cl that the starter lacks,
# long enough to mean something, and with nothing the embedding escapes.
grep -vxF -f exercises/08-cl-reduction/reduce.cl code/opencl/kernels/reduce.cl |
    grep -v '[\\"?]' | sed 's/^[[:space:]]*//' | awk 'length >= 24' >"$T/answer.txt"
[ -s "$T/answer.txt" ] || fail "no line of 08's answer to look for"
: >"$T/out.txt"
grep -rlaF -f "$T/answer.txt" "$stage" >"$T/out.txt" && fail "08's answer is in the stage: $(cat "$T/out.txt")"
# The course's own library does embed it: the test can see an answer.
grep -qaF -f "$T/answer.txt" "${GRADE_BUILD:-build}/libnormlab.a" || fail "the check finds no answer even in the course's own library"
echo "no line of 08's reduce.cl answer in the stage's libraries ($(grep -c . "$T/answer.txt") lines looked for)"
