#!/usr/bin/env bash
# Attack: hand in a one-line #include of the real code.  The sandbox holds
# headers, not the code tree's .c files, so each include fails to compile
# and scores 0: beside the file (the way the old grader compiled it), by
# the path of the repository, and for the course's own exercises 03 and 06.
. tests/grader/lib.sh
for inc in '"../fixsum.c"' '"fixsum.c"' "\"$PWD/tests/grader/fixture/code/fixsum.c\""; do
    printf '#include %s\n' "$inc" | fixsum
    grade "$T/sub"
    expect '^98-fix-sum .* 0/10 +compile error'
    expect '^Score: 5/15$'
done
mkdir -p "$T/real/03-welford" "$T/real/06-simd-sumsq"
printf '#include "../welford.c"\n' >"$T/real/03-welford/welford.c"
grade_real "$T/real" 03
expect '^03-welford .* 0/10 +compile error'
printf '#include "simd/sumsq.c"\n' >"$T/real/06-simd-sumsq/sumsq.c"
grade_real "$T/real" 06
expect '^06-simd-sumsq .* 0/10 +compile error'
