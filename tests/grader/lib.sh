# lib.sh — shared by the grader's self-tests (sourced, not run).
# Each test builds a submission from the fixture kernels in
# tests/grader/fixture/, breaks it in one way, grades it, and checks what
# the grader printed. Runs from the repository root.
set -u
FIX=tests/grader/fixture
T=$(mktemp -d "${TMPDIR:-/tmp}/normlab-selftest.XXXXXX")
trap 'rm -rf "$T"' EXIT

# A submission with the untouched starters of both fixture exercises.
starters() {
    scripts/grading/exercises.sh generate "$1" "$FIX/code" >/dev/null
}
# A submission holding the real code: the solution.
solutions() {
    mkdir -p "$1/98-fix-sum" "$1/99-fix-max"
    cp "$FIX/code/fixsum.c" "$1/98-fix-sum/"
    cp "$FIX/code/fixmax.c" "$1/99-fix-max/"
}
# grade SUBDIR: runs the grader on it, output in $T/out.txt, status in $rc.
grade() {
    scripts/grading/grade.sh --submission "$1" --exercises "$FIX/exercises" --code "$FIX/code" \
        --suites "$FIX/tests" --out "$T/results" >"$T/out.txt" 2>&1
    rc=$?
}
fail() { echo "FAIL: $*"; echo "--- grader output:"; cat "$T/out.txt"; exit 1; }
expect() { grep -qE -- "$1" "$T/out.txt" || fail "expected a line matching /$1/"; }
