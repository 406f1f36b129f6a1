#!/usr/bin/env bash
# make grade-class on a generated class of six (complete, flat upload,
# partial, broken, hostile, handout layout): the gradebook has one row per
# student with the total each must get, and a report per student.
. tests/grader/lib.sh
bash tests/grader/make-class.sh 6 "$T/class"
# run.sh's stage of the course, when there is one: a class graded against
# a stage it did not make (grade-class.sh --stage).
scripts/grading/grade-class.sh --submissions "$T/class" --out "$T/out" --build "${GRADE_BUILD:-build}" \
    ${STAGE_REAL:+--stage "$STAGE_REAL"} >"$T/out.txt" 2>&1 ||
    fail "grade-class failed"
while IFS=$'\t' read -r who want; do
    row=$(grep "^\"$who\"," "$T/out/gradebook.csv") || fail "no gradebook row for $who"
    got=$(awk -F, '{ print $(NF - 2) }' <<<"$row")
    [ "$got" = "$want" ] || fail "$who: total $got, expected $want ($row)"
    [ -s "$T/out/reports/$who.json" ] && [ -s "$T/out/reports/$who.xml" ] || fail "no reports for $who"
done <"$T/class.expected"
head -n1 "$T/out/gradebook.csv" | grep -q '^student,01-layernorm-mean,.*,total,max,protected$' || fail "gradebook header: $(head -n1 "$T/out/gradebook.csv")"
# Its own duration (600.PID of make-class.sh): another test of the pool
# may hold "sleep 600" in a command line of its own at the same moment.
nap=$(grep -ho 'sleep 600\.[0-9]*' "$T"/class/*-hostile/07-thread-rows/partition.c | head -n1)
[ -n "$nap" ] || fail "no sleep in the hostile student's partition.c"
! pgrep -f "$nap" >/dev/null || fail "the hostile student's setsid $nap outlived grading"
