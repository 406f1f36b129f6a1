# lib.sh — shared by the grader's self-tests (sourced, not run).
# Each test builds a submission from the fixture kernels in
# tests/grader/fixture/ (or from the course's own exercises), breaks it in
# one way, grades it, and checks what the grader printed and wrote.
# run.sh stages both trees once (STAGE_FIX, STAGE_REAL) and the tests
# share them; run alone, a test stages its own. Runs from the repository root.
set -u
FIX=tests/grader/fixture
T=$(mktemp -d "${TMPDIR:-/tmp}/normlab-selftest.XXXXXX")
chmod 755 "$T"
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
# The real code of course exercise ID, as a submission folder SUB/ID.
real_solution() {
    local f
    mkdir -p "$1/$2"
    for f in $(scripts/grading/exercises.sh list code | awk -v id="$2" '$1 == id { print $2 }'); do cp "$f" "$1/$2/"; done
}
# handout_build DIR: a build like the handout's, DIR/obj: this build's
# objects with every exercise's C file replaced by its untouched starter
# (the handout compiles the student's files in place of the course's).
handout_build() {
    local id f
    mkdir -p "$1" && cp -R "${GRADE_BUILD:-build}/obj" "$1/obj"
    scripts/grading/exercises.sh generate "$T/handout-starters" code >/dev/null
    (. scripts/grading/lib.sh
    scripts/grading/exercises.sh list code | while read -r id f; do
        case $f in *.c) ;; *) continue ;; esac
        # shellcheck disable=SC2086
        $CC $cflags $(isa_flags "$f") -I"$(dirname "$f")" $(case $f in code/mpi/*) pkg-config --cflags ompi-c 2>/dev/null ;; esac) \
            -c "$T/handout-starters/$id/${f##*/}" -o "$1/obj/${f%.c}.o" || exit 1
    done)
}
# grade SUBDIR [grade.sh options]: the fixture exercises; output in
# $T/out.txt, status in $rc, results in $T/results.
grade() {
    local sub=$1; shift
    scripts/grading/grade.sh --submission "$sub" --exercises "$FIX/exercises" --code "$FIX/code" \
        --suites "$FIX/tests" --out "$T/results" ${STAGE_FIX:+--stage "$STAGE_FIX"} "$@" >"$T/out.txt" 2>&1
    rc=$?
}
# grade_real SUBDIR EX: one course exercise.
grade_real() {
    scripts/grading/grade.sh --submission "$1" --ex "$2" --out "$T/results" --build "${GRADE_BUILD:-build}" \
        ${STAGE_REAL:+--stage "$STAGE_REAL"} >"$T/out.txt" 2>&1
    rc=$?
}
fail() { echo "FAIL: $*"; echo "--- grader output:"; cat "$T/out.txt"; exit 1; }
expect() { grep -qE -- "$1" "$T/out.txt" || fail "expected a line matching /$1/"; }
reject() { ! grep -qE -- "$1" "$T/out.txt" || fail "did not expect a line matching /$1/"; }
# fixsum FILE-CONTENT: the 98-fix-sum answer replaced by stdin.
fixsum() { solutions "$T/sub"; cat >"$T/sub/98-fix-sum/fixsum.c"; }
# A half-right 98-fix-sum: it sums positives only, passing "1, 2, 3" but
# not "5, -2".
positives_only() {
    fixsum <<'C'
#include <stddef.h>
int nl_fixture_sum(const int *v, size_t n);
int nl_fixture_sum(const int *v, size_t n)
{
    int s = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0)
            s += v[i];
    return s;
}
C
}
# both_ways CHECK SUBDIR EX: grade a course exercise twice, with policy.sh
# and without it (GRADE_NO_POLICY=1), running the function CHECK after each:
# the static checks are defence in depth, so the judge alone must hold.
both_ways() {
    local check=$1 sub=$2 ex=$3 np
    for np in "" 1; do
        export GRADE_NO_POLICY=$np
        grade_real "$sub" "$ex"
        "$check" "${np:+without policy.sh}"
    done
    unset GRADE_NO_POLICY
}
# zero EX: the exercise's table row says 0 points.
zero() { expect "^$1 .* 0/10 "; }
# attack_zero EX ID PATTERN: grade $T/sub's exercise EX without policy.sh
# (the judge and the sandbox alone must stop an attack): ID scores 0 and
# the feedback matches PATTERN, naming what stopped it.
attack_zero() {
    export GRADE_NO_POLICY=1
    grade_real "$T/sub" "$1"
    unset GRADE_NO_POLICY
    zero "$2"
    expect "$3"
}
