#!/usr/bin/env bash
# GitHub Classroom gives the same partial credit as make grade (not
# all-or-nothing per exercise, as an exit status would give): the
# handout's workflow runs classroom-result.sh on the grader's JSON, whose
# tests, as the reporter adds them up, total the grader's score.  And the
# workflow's steps are the exercises the grader grades, from exercise.conf.
. tests/grader/lib.sh
positives_only
grade "$T/sub"
score=$(sed -n 's/^Score: //p' "$T/out.txt")
[ "${score%/*}" != 0 ] && [ "${score%/*}" != "${score#*/}" ] || fail "the fixture is not partial: $score"
json=$(ls "$T/results"/*.json | head -n1)
line=$(scripts/grading/classroom-result.sh "$json") || fail "classroom-result.sh failed"
sum=$(sed 's/^result=//' <<<"$line" | base64 -d | python3 -c '
import json, sys
r = json.load(sys.stdin)
print("%g/%g" % (round(sum(t["score"] for t in r["tests"]), 2), r["max_score"]))')
[ "$sum" = "$score" ] || fail "Classroom would show $sum, make grade says $score"
bad=$(scripts/grading/classroom-result.sh "$T/nothing.json" | sed 's/^result=//' | base64 -d)
grep -q '"status": "error"' <<<"$bad" || fail "no results file is not an error: $bad"
# The workflow, as a handout has it.
mkdir -p "$T/tree" && cp -R Makefile README.md mk scripts exercises code "$T/tree/"
scripts/grading/handout-tree.sh "$T/tree" || fail "handout-tree.sh failed"
y=$T/tree/.github/workflows/classroom.yml
! grep -q 'autograding-command-grader' "$y" || fail "classroom.yml still scores by exit status"
. scripts/grading/lib.sh
want=$(EXDIR=exercises EX_FILTER="" exercise_confs | wc -l)
got=$(grep -c 'classroom-result.sh build/' "$y")
[ "$got" -eq "$want" ] || fail "classroom.yml has $got exercise steps, the grader grades $want"
grep -q "runners: $(for c in $(EXDIR=exercises EX_FILTER="" exercise_confs); do n=$(basename "$(dirname "$c")"); printf 'ex%s,' "${n%%-*}"; done | sed 's/,$//')\$" "$y" ||
    fail "the reporter's runners are not the graded exercises"
echo "Classroom: $sum, the grader's $score; one step per graded exercise"
