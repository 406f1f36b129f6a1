#!/usr/bin/env bash
# Class grading: a handout uploaded inside its normlab/
# folder is found (its code/ holds stubs of the same names: each file was
# found twice and neither taken, a silent 0); names that clean up to the
# same file name ("alice bob" and "alice_bob", "José" and "Jos__") get
# reports of their own; handout students graded one by one are named
# after their folder, not "normlab", so no report overwrites another.
. tests/grader/lib.sh
c=$T/class
solutions "$c/alice bob"; starters "$c/alice_bob"
solutions "$c/José"; starters "$c/Jos__"
solutions "$T/h"; starters "$T/hs"
mkdir -p "$c/carol/normlab/exercises" "$c/carol/normlab/code"
cp -R "$T/h/." "$c/carol/normlab/exercises/"
cp "$T/hs/98-fix-sum/fixsum.c" "$T/hs/99-fix-max/fixmax.c" "$c/carol/normlab/code/"
scripts/grading/grade-class.sh --submissions "$c" --out "$T/out" --exercises "$FIX/exercises" --code "$FIX/code" \
    --suites "$FIX/tests" --build "${GRADE_BUILD:-build}" >"$T/out.txt" 2>&1 || fail "grade-class failed"
max=$(awk -F, 'NR == 2 { print $(NF - 1) }' "$T/out/gradebook.csv")
total() { grep "^\"$1\"," "$T/out/gradebook.csv" | awk -F, '{ print $(NF - 2) }'; }
for who in "alice bob" José carol; do
    [ "$(total "$who")" = "$max" ] || fail "$who (a full solution) has $(total "$who")/$max"
done
for who in alice_bob Jos__; do
    [ "$(total "$who")" = 0 ] || fail "$who (the starters) has $(total "$who")/$max"
done
n=$(ls "$T/out/reports"/*.txt | wc -l)
[ "$n" -eq 5 ] || fail "$n reports for 5 students: $(ls "$T/out/reports")"
# One by one, as `make grade SUBMISSION=dave/normlab` does.
for who in dave erin; do
    mkdir -p "$T/$who/normlab/exercises"
    [ $who = dave ] && cp -R "$T/h/." "$T/$who/normlab/exercises/" || cp -R "$T/hs/." "$T/$who/normlab/exercises/"
    grade "$T/$who/normlab"
done
[ -f "$T/results/dave.txt" ] && [ -f "$T/results/erin.txt" ] || fail "one by one: reports $(ls "$T/results")"
grep -q "^Score: $max/$max" "$T/results/dave.txt" || fail "dave: $(tail -n1 "$T/results/dave.txt")"
grep -q "^Score: 0/$max" "$T/results/erin.txt" || fail "erin: $(tail -n1 "$T/results/erin.txt")"
echo "class: normlab/ uploads found, look-alike names kept apart, one-by-one handouts named after their folder"
