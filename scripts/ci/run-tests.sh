#!/usr/bin/env bash
# run-tests.sh DIR TEST... — run every Check suite binary, show its output,
# and close with one line adding them up:
#     tests: P passed, F failed, S skipped
# Exit 0 only if every suite exited 0 and ran at least one test. A suite
# whose every test skipped is named in a warning, so it cannot pass unseen.
set -u
shift   # DIR (kept for the Makefile's readability)
total_p=0 total_f=0 total_s=0 bad=()
for t in "$@"; do
    name=$(basename "$t"); name=${name#check_}
    echo "=== suite $name"
    out=$(NL_SUITE_NAME=$name ${NL_TEST_WRAPPER:-} "$t" 2>&1); rc=$?
    echo "$out"
    line=$(grep -E "^suite $name: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" <<<"$out" | tail -n1)
    if [ -z "$line" ]; then
        echo "!!! suite $name printed no summary (exit code $rc): it crashed or did not run"
        bad+=("$name"); total_f=$((total_f + 1)); continue
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
done
echo
echo "=== summary: ${#} suites"
[ ${#bad[@]} -eq 0 ] || echo "failing suites: ${bad[*]}"
echo "tests: $total_p passed, $total_f failed, $total_s skipped"
[ ${#bad[@]} -eq 0 ]
