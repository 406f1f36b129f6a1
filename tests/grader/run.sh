#!/usr/bin/env bash
# run.sh [--grade-check] — the grader's self-tests (make grade-selftest).
# Each t-*.sh grades a deliberately broken or hostile submission and checks
# the report; this prints one line per test and fails if any test fails.
# The two staged trees (the fixture exercises and the course's own) are
# built once here and shared, as a class's grading shares one.
# --grade-check (make grade-ci, which CI runs) also runs
# scripts/grading/grade-check.sh on the course's shared stage, as the
# first job of the same pool: it is mostly compiling while many of the
# self-tests are mostly waiting (on time limits, on mpirun), and its
# starters' results are then there for the t-lab tests to reuse.
cd "$(dirname "$0")/../.." || exit 2
with_check=""
case ${1:-} in
    --grade-check) with_check=1 ;;
    "") ;;
    *) echo "run.sh: unknown option '$1' (known: --grade-check)" >&2; exit 2 ;;
esac
export GRADE_BUILD=${GRADE_BUILD:-build}
stages=$(mktemp -d "${TMPDIR:-/tmp}/normlab-selftest-stages.XXXXXX") || exit 2
trap 'rm -rf "$stages"' EXIT
chmod 755 "$stages"
export STAGE_FIX=$stages/fix STAGE_REAL=$stages/real
EXDIR=tests/grader/fixture/exercises CODE=tests/grader/fixture/code SUITES=tests/grader/fixture/tests \
    BUILD=$GRADE_BUILD EX_FILTER="" scripts/grading/stage.sh "$STAGE_FIX" || exit 2
EXDIR=exercises CODE=code SUITES=tests BUILD=$GRADE_BUILD EX_FILTER="" \
    scripts/grading/stage.sh "$STAGE_REAL" || exit 2
# Two tests at a time (the machine CI gives has 2 cores): each writes its
# report and its seconds to files, printed in order once all are done.
mkdir -p "$stages/reports"
jobs=(tests/grader/t-*.sh)
[ -z "$with_check" ] || jobs=(scripts/grading/grade-check.sh "${jobs[@]}")
printf '%s\n' "${jobs[@]}" | xargs -P "${GRADE_SELFTEST_JOBS:-2}" -I{} sh -c \
    'n=$(basename "$1"); s=$(date +%s)
     case $n in grade-check.sh) set -- "$1" "$2" --build "$GRADE_BUILD" --stage "$STAGE_REAL" ;; *) set -- "$1" "$2" ;; esac
     t=$1 d=$2; shift 2
     if bash "$t" "$@" >"$d/reports/$n.out" 2>&1; then r=ok; else r=FAIL; fi
     echo $(( $(date +%s) - s )) >"$d/reports/$n.s"; echo $r >"$d/reports/$n.rc"' _ {} "$stages"
pass=0 failed=()
for t in "${jobs[@]}"; do
    n=${t##*/}
    secs="($(cat "$stages/reports/$n.s" 2>/dev/null || echo ?) s)"
    if [ "$(cat "$stages/reports/$n.rc" 2>/dev/null)" = ok ]; then
        echo "ok   $n $secs"; pass=$((pass + 1))
    else
        echo "FAIL $n $secs"; sed 's/^/     /' "$stages/reports/$n.out" | head -n 60; failed+=("$n")
    fi
done
echo "grader self-tests: $pass passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
