#!/usr/bin/env bash
# run.sh — the grader's self-tests (make grade-selftest). Each t-*.sh grades
# a deliberately broken or hostile submission and checks the report; this
# prints one line per test and fails if any test fails.  The two staged
# trees (the fixture exercises and the course's own) are built once here
# and shared, as a class's grading shares one.
cd "$(dirname "$0")/../.." || exit 2
export GRADE_BUILD=${GRADE_BUILD:-build}
stages=$(mktemp -d "${TMPDIR:-/tmp}/normlab-selftest-stages.XXXXXX") || exit 2
trap 'rm -rf "$stages"' EXIT
chmod 755 "$stages"
export STAGE_FIX=$stages/fix STAGE_REAL=$stages/real
EXDIR=tests/grader/fixture/exercises CODE=tests/grader/fixture/code SUITES=tests/grader/fixture/tests \
    BUILD=$GRADE_BUILD EX_FILTER="" scripts/grading/stage.sh "$STAGE_FIX" || exit 2
EXDIR=exercises CODE=code SUITES=tests BUILD=$GRADE_BUILD EX_FILTER="" \
    scripts/grading/stage.sh "$STAGE_REAL" || exit 2
pass=0 failed=()
for t in tests/grader/t-*.sh; do
    if out=$(bash "$t" 2>&1); then
        echo "ok   ${t##*/}"; pass=$((pass + 1))
    else
        echo "FAIL ${t##*/}"; echo "$out" | sed 's/^/     /'; failed+=("${t##*/}")
    fi
done
echo "grader self-tests: $pass passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
