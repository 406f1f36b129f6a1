#!/usr/bin/env bash
# The exercises' READMEs have one shape: "# Exercise NN — title", the
# chapter, the expected time by the lab sheet's rule (expected-time.sh, so
# a README and a sheet never give two numbers for one exercise), and the
# sections Goal, What to do, How to check, in that order.
. tests/grader/lib.sh
status=0
while read -r id minutes lines; do
    r=exercises/$id/README.md
    [ -f "$r" ] || { echo "$r: missing"; status=1; continue; }
    head -n1 "$r" | grep -q "^# Exercise ${id%%-*} — [a-zA-Z]" || { echo "$r: the title is not '# Exercise ${id%%-*} — ...'"; status=1; }
    sed -n 3p "$r" | grep -q '^Chapter [0-9]' || { echo "$r: line 3 does not name the chapter"; status=1; }
    tr '\n' ' ' <"$r" | grep -q "Expected time: about $minutes minutes: .* each of the $lines lines" ||
        { echo "$r: its expected time is not $minutes minutes ($lines lines of answer: expected-time.sh)"; status=1; }
    got=$(grep -E '^## (Goal|What to do|How to check)$' "$r" | tr '\n' '|')
    [ "$got" = '## Goal|## What to do|## How to check|' ] || { echo "$r: sections '$got', not Goal, What to do, How to check"; status=1; }
done < <(scripts/grading/expected-time.sh)
[ $status -eq 0 ] || exit 1
echo "every exercise README: its title, chapter, expected time (the lab sheet's rule) and three sections"
