#!/usr/bin/env bash
# grade-check.sh [grade.sh options] — the course's tests have teeth:
#   1. every untouched starter (generated fresh from code/) fails its suite,
#      so no exercise gives points for doing nothing;
#   2. the real code in code/, handed in as if it were a student's files,
#      scores full marks (exercises this machine cannot run are skipped).
# Exit 1, naming the exercise, when either does not hold. CI runs it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
exdir=exercises code=code
args=("$@")
while [ $# -gt 0 ]; do
    case $1 in --exercises) exdir=$2; shift ;; --code) code=$2; shift ;; esac; shift
done
ls "$exdir"/*/exercise.conf >/dev/null 2>&1 || { echo "grade-check: no exercises in $exdir/ yet"; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/normlab-grade-check.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
status=0

"$here/exercises.sh" generate "$tmp/starters" "$code" >/dev/null || exit 1
mkdir -p "$tmp/solutions"
"$here/exercises.sh" list "$code" | while read -r id file; do
    mkdir -p "$tmp/solutions/$id" && cp "$file" "$tmp/solutions/$id/"
done

# The two gradings are independent: run them at once (the machine CI gives
# has 2 cores, and each grading compiles one exercise at a time).
"$here/grade.sh" "${args[@]}" --submission "$tmp/starters" --out "$tmp/out" >"$tmp/starters.txt" 2>&1 &
"$here/grade.sh" "${args[@]}" --submission "$tmp/solutions" --out "$tmp/out" >"$tmp/solutions.txt" 2>&1
wait
echo "=== untouched starters (each must fail its suite and score 0)"
sed -n '/^exercise /,$p' "$tmp/starters.txt"
# Table rows: ID  PASSED/RAN  GOT/MAX  STATUS
bad=$(awk '$1 ~ /^[0-9][0-9]-/ && ($3 !~ /^0\// || /no test fails the starter/) { print $1 }' "$tmp/starters.txt")
[ -z "$bad" ] || { echo "!!! these starters pass their suite untouched (the tests have no teeth): $bad"; status=1; }

echo "=== the real code as a submission (must score full)"
sed -n '/^exercise /,$p' "$tmp/solutions.txt"
short=$(awk '$1 ~ /^[0-9][0-9]-/ && $NF != "ok" && $NF != "skipped" { print $1 }' "$tmp/solutions.txt")
[ -z "$short" ] || { echo "!!! the real code does not score full on: $short"; status=1; }
score=$(sed -n 's/^Score: //p' "$tmp/solutions.txt")
[ -n "$score" ] && [ "${score%/*}" = "${score#*/}" ] || { echo "!!! solutions score $score, not full"; status=1; }

[ $status -eq 0 ] && echo "grade-check: starters fail, solutions pass"
exit $status
