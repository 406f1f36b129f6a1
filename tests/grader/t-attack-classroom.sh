#!/usr/bin/env bash
# GitHub Classroom runs the student's own repository:
# a one-line edit of its grade.sh made a starter "pass" there.  The
# Classroom score is advisory; the grade is make grade-class on the
# collected repositories, which reads only the exercise files and flags a
# repository whose protected files differ from the handout's (checksums
# kept beside the tarball).  A class of clones named as Classroom names
# them (lab3-USERNAME), with its roster:
#   lab3-alice   04 done, nothing else touched          10, protected ok
#   lab3-bob     grade.sh edited to pass everything       0, flagged
#   lab3-carol   04 done and a make file added (mk/)     10, flagged
#   dave         on the roster, no repository             0, no repository
. tests/grader/lib.sh
LAB=04 scripts/grading/exercises-handout.sh "$T/h.tar.gz" >"$T/out.txt" 2>&1 || fail "make handout failed"
clone() { mkdir -p "$T/class/$1" && tar -xzf "$T/h.tar.gz" -C "$T/class/$1" --strip-components=1; }
for s in alice bob carol; do clone "lab3-$s"; done
cp code/config/eps.c "$T/class/lab3-alice/exercises/04-eps-key/eps.c"
cp code/config/eps.c "$T/class/lab3-carol/exercises/04-eps-key/eps.c"
printf 'exit 0\n' >>"$T/class/lab3-bob/scripts/grading/grade.sh"
printf 'CFLAGS += -DNOTHING\n' >"$T/class/lab3-carol/mk/zz-more.mk"
printf '"identifier","github_username","github_id","name"\n"Alice A.","alice","1","Alice"\n"Bob B.","Bob","2","Bob"\n"Dave D.","dave","4","Dave"\n' >"$T/roster.csv"
LAB=04 scripts/grading/grade-class.sh --submissions "$T/class" --out "$T/out" --build "${GRADE_BUILD:-build}" \
    --protected "$T/h.protected.sha256" --roster "$T/roster.csv" ${STAGE_REAL:+--stage "$STAGE_REAL"} >"$T/out.txt" 2>&1 ||
    fail "grade-class failed"
row() { grep "^\"$1\"," "$T/out/gradebook.csv" || fail "no gradebook row for $1"; }
head -n1 "$T/out/gradebook.csv" | grep -qx 'student,04-eps-key,total,max,protected' || fail "header: $(head -n1 "$T/out/gradebook.csv")"
[ "$(row 'Alice A.')" = '"Alice A.",10,10,10,"ok"' ] || fail "alice: $(row 'Alice A.')"
[ "$(row 'Bob B.')" = '"Bob B.",0,0,10,"changed 1"' ] || fail "bob: $(row 'Bob B.')"
[ "$(row lab3-carol)" = '"lab3-carol",10,10,10,"changed 1"' ] || fail "carol: $(row lab3-carol)"
[ "$(row 'Dave D.')" = '"Dave D.",0,0,10,"no repository"' ] || fail "dave: $(row 'Dave D.')"
grep -q '^  changed scripts/grading/grade.sh$' "$T/out/protected.txt" || fail "protected.txt does not name bob's grade.sh"
grep -q '^  added mk/zz-more.mk$' "$T/out/protected.txt" || fail "protected.txt does not name carol's make file"
expect 'edited files the handout protects'
# The handout says so too: its README and workflow call the Classroom score advisory.
mkdir -p "$T/h" && tar -xzf "$T/h.tar.gz" -C "$T/h"
grep -q 'That score is advisory' "$T/h/normlab/README.md" || fail "the handout's README does not say the Classroom score is advisory"
grep -q 'This score is advisory' "$T/h/normlab/.github/workflows/classroom.yml" || fail "the workflow does not say its score is advisory"
grep -q 'is advisory' "$T/h/normlab/lab.md" || fail "the lab sheet does not say the Classroom score is advisory"
echo "grade-class: edited repositories flagged, graded on their exercise files; roster names and a missing repository; advisory wording shipped"
