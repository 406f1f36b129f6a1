#!/usr/bin/env bash
# handout-status.sh [BUILD] — in the students' handout: which exercises are
# done, which are in progress, which are not started, from the student's
# own files (the handout builds code/ with exercises/NN-slug/<file> in
# place of each exercise's file: mk/zz-handout.mk).
#
# An exercise is "not started" while its file still holds the starter's
# TODO(NN-slug) line, "done" when every suite that exercises it passes
# (run as the grader runs them, NL_IMPLS set), and "in progress" otherwise,
# with the first failure.  Always exits 0: this is a list, not a verdict
# (make test and make grade give those).  The suites run in the grader's
# sandbox where one can be made (HANDOUT_STATUS_UNSANDBOXED=1: as you,
# which is what happens, and is said, where none can).
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
EXDIR=exercises
done_n=0 total=0 left=()
# The suites run the student's code: in the grader's sandbox (sandbox.sh:
# the handout read-only, no network, no home folder, an unprivileged uid
# when run as root), where one can be made; plainly, and said, where not.
root=$(pwd)
if "$here/sandbox.sh" --probe >/dev/null 2>&1 && [ -z "${HANDOUT_STATUS_UNSANDBOXED:-}" ]; then
    run_suite() {
        "$here/sandbox.sh" --time 300 --ro "$root" /handout -- /bin/sh -c 'cd /handout && exec "$@"' sh \
            /usr/bin/env NL_SUITE_NAME="$2" NL_IMPLS="$3" CK_VERBOSITY=normal POCL_CACHE_DIR=/tmp/pocl \
            ${NL_TEST_SEED:+NL_TEST_SEED=$NL_TEST_SEED} "/handout/${1#"$root"/}"
    }
else
    echo "(no sandbox can be made here: your suites run as you, unconfined)"
    run_suite() { NL_SUITE_NAME=$2 NL_IMPLS=$3 CK_VERBOSITY=normal "$1"; }
fi
printf '%-22s %-12s %s\n' exercise state "what next"
for cfile in $(exercise_confs); do
    id=$(basename "$(dirname "$cfile")") total=$((total + 1))
    files=$("$here/exercises.sh" list code | awk -v id="$id" '$1 == id { print $2 }')
    state=done next=""
    for f in $files; do
        s=exercises/$id/${f##*/}
        if [ ! -f "$s" ]; then state="not started" next="$s is missing (make exercises writes it)"
        elif grep -q "TODO($id)" "$s"; then state="not started" next="edit $s (see exercises/$id/README.md)"; fi
    done
    if [ "$state" = done ]; then
        for suite in $(conf "$cfile" suite | tr ',' ' '); do
            bin=$build/tests/check_$suite
            [ -x "$bin" ] || { state="not built" next="run make first"; break; }
            out=$(run_suite "$bin" "$suite" "$(conf "$cfile" impls)" 2>&1) && continue
            state="in progress"
            next=$(grep -m1 -E ':[EF]:' <<<"$out" | sed -E 's/^[^:]*:[0-9]+:[EF]:[^:]*:([^:]*):[0-9]+: /\1: /' | cut -c1-150)
            [ -n "$next" ] || next="suite $suite fails (run $bin)"
            break
        done
    fi
    [ "$state" = done ] && done_n=$((done_n + 1)) || left+=("$id")
    printf '%-22s %-12s %s\n' "$id" "$state" "$next"
done
echo
if [ ${#left[@]} -eq 0 ]; then
    echo "all $total exercises done: make test runs every suite on your code; make grade scores it"
else
    echo "$done_n of $total exercises done; not done yet: ${left[*]}"
    echo "(make grade EX=NN scores one exercise, with the grader's feedback)"
fi
exit 0
