#!/usr/bin/env bash
# run.sh — the grader's self-tests (make grade-selftest). Each t-*.sh grades
# a deliberately broken submission of the fixture exercises and checks the
# report; this prints one line per test and fails if any test fails.
cd "$(dirname "$0")/../.." || exit 2
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
