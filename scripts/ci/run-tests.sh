#!/usr/bin/env bash
# run-tests.sh DIR TEST... — run every Check suite binary, show its output,
# and close with one line adding them up:
#     tests: P passed, F failed, S skipped
# (after the five slowest suites, timed). Exit 0 only if every suite
# exited 0 and ran at least one test. A suite whose every test skipped is
# named in a warning, so it cannot pass unseen.
#
# NL_TEST_JOBS suites run at once (default: the number of cores, at most
# 4): each suite is one process that mostly uses one core, so on a 2-core
# machine two at a time halve the wall time. A suite's output is printed
# whole when it ends, in the order the suites end; NL_TEST_JOBS=1 gives
# the order of the command line.
set -u
shift   # DIR (kept for the Makefile's readability)
jobs=${NL_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) echo "run-tests.sh: NL_TEST_JOBS='$jobs' is not a count" >&2; exit 2 ;; esac
[ -n "${NL_TEST_JOBS:-}" ] || [ "$jobs" -le 4 ] || jobs=4
work=$(mktemp -d "${TMPDIR:-/tmp}/normlab-tests-XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

total_p=0 total_f=0 total_s=0 bad=() times=()

# One suite, in the background: its output, exit code and seconds go to
# files named after its position.
start_suite() {
    local i=$1 t=$2 name start rc
    name=$(basename "$t"); name=${name#check_}
    start=$SECONDS
    NL_SUITE_NAME=$name ${NL_TEST_WRAPPER:-} "$t" >"$work/$i.out" 2>&1; rc=$?
    echo "$((SECONDS - start))" >"$work/$i.secs"
    echo "$rc" >"$work/$i.rc"   # written last: its presence means "done"
}

# Print a finished suite and add it to the totals.
report() {
    local i=$1 t=$2 name out rc secs line p f s
    name=$(basename "$t"); name=${name#check_}
    out=$(cat "$work/$i.out"); rc=$(cat "$work/$i.rc"); secs=$(cat "$work/$i.secs")
    echo "=== suite $name"
    echo "$out"
    echo "=== suite $name took ${secs}s"
    times+=("$secs $name")
    line=$(grep -E "^suite $name: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" <<<"$out" | tail -n1)
    if [ -z "$line" ]; then
        echo "!!! suite $name printed no summary (exit code $rc): it crashed or did not run"
        bad+=("$name"); total_f=$((total_f + 1)); return
    fi
    read -r p f s < <(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped/\1 \2 \3/' <<<"$line")
    total_p=$((total_p + p)); total_f=$((total_f + f)); total_s=$((total_s + s))
    [ "$rc" -eq 0 ] || bad+=("$name")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # All tests passed, yet the suite failed: a valgrind or sanitizer
        # report at exit. Count it, so the totals agree with the exit code.
        echo "!!! suite $name exited $rc with no failing test: see the memory or sanitizer report above"
        total_f=$((total_f + 1))
    fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -gt 0 ]; then
        echo "!!! WARNING: every test of suite $name was skipped; see the reasons above"
    fi
}

suites=("$@")
declare -A pending=()   # position -> test binary, started and not yet reported
report_finished() {
    local i
    for i in "${!pending[@]}"; do
        if [ -e "$work/$i.rc" ]; then
            report "$i" "${pending[$i]}"
            unset "pending[$i]"
        fi
    done
}
for i in "${!suites[@]}"; do
    while [ "${#pending[@]}" -ge "$jobs" ]; do
        wait -n 2>/dev/null
        if [ $? -eq 127 ]; then   # no child left, yet some never wrote an exit code
            for k in "${!pending[@]}"; do [ -e "$work/$k.rc" ] || echo 1 >"$work/$k.rc"; done
        fi
        report_finished
    done
    start_suite "$i" "${suites[$i]}" &
    pending[$i]=${suites[$i]}
done
wait
report_finished

echo
echo "=== summary: ${#suites[@]} suites in ${SECONDS}s, $jobs at a time; the slowest:"
printf '%s\n' "${times[@]}" | sort -rn | head -n 5 | sed 's/^/    /'
[ ${#bad[@]} -eq 0 ] || echo "failing suites: ${bad[*]}"
echo "tests: $total_p passed, $total_f failed, $total_s skipped"
[ ${#bad[@]} -eq 0 ]
