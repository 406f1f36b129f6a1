#!/usr/bin/env bash
# A submission folder named with spaces, an apostrophe, a double quote,
# backticks, ; and $(...) is just a name: neither make grade nor grade.sh
# runs a command from it, and the results go to files named after it
# (unsafe characters replaced).  EX=NN writes NAME-exNN.*, so a student's
# full results stay.  (make itself expands $(...) in a variable's value, so
# the make case leaves that one to grade.sh.)
. tests/grader/lib.sh
dir="$T/Anne O'Neil \"x\"; \`touch $T/pwned1\`"
real_solution "$dir" 07-thread-rows
make --no-print-directory -s grade-only EX=07 SUBMISSION="$dir" GRADE_OUT="$T/results" >"$T/out.txt" 2>&1 ||
    fail "make grade failed on a full answer"
[ ! -e "$T/pwned1" ] || fail "a command in the folder's name was run"
expect '^07-thread-rows .* 10/10 +ok'
ls "$T/results/"*-ex07.json >/dev/null 2>&1 || fail "no NAME-ex07.json in $T/results: $(ls "$T/results")"
dir2="$T/\$(touch $T/pwned2) ok"
mkdir -p "$dir2" && cp -R "$dir/." "$dir2/"
grade_real "$dir2" 07
[ ! -e "$T/pwned2" ] || fail "a command in the folder's name was run"
expect '^07-thread-rows .* 10/10 +ok'
