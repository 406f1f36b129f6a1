#!/usr/bin/env bash
# make handout LAB=09,10: the lab's handout holds lab.txt (its grader,
# gradebook and Classroom workflow grade those two) and its sheet; the
# answer-shipping audit (handout-audit.sh) has already passed on it.
. tests/grader/lib.sh
LAB=09,10 scripts/grading/exercises-handout.sh "$T/h.tar.gz" >"$T/out.txt" 2>&1 || fail "exercises-handout.sh failed"
mkdir -p "$T/x" && tar -xzf "$T/h.tar.gz" -C "$T/x"
h=$T/x/normlab
[ "$(cat "$h/lab.txt")" = 09,10 ] || fail "lab.txt: $(cat "$h/lab.txt" 2>&1)"
grep -q '^## 10-cast-order' "$h/lab.md" || fail "no sheet in the lab's handout"
[ "$(grep -c 'classroom-result.sh build/' "$h/.github/workflows/classroom.yml")" -eq 2 ] || fail "the workflow does not grade exactly 2 exercises"
[ -z "$(find "$h" -name '*.o' -o -name '*.a')" ] || fail "the lab's handout holds objects or archives"
! grep -q 'float scale = 1.0f + nl_half_to_float' "$h/code/precision/cast_points.c" || fail "exercise 10's answer is in the handout"
echo "the lab's handout: lab.txt, its sheet, a 2-step workflow, no objects"
