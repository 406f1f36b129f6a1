#!/usr/bin/env bash
# ci-stages.sh [STAGE...] — the CI stages after `make test WERROR=1`:
#   san       make test SAN=1            ASan + UBSan, every suite (build-san/)
#   clang     make CC=clang test         the other compiler, warnings as errors (build-clang/)
#   memcheck  make memcheck              every suite under valgrind
#   cross     make cross-test            aarch64 build, every suite under qemu (build-aarch64/)
#   grading   make grade-selftest        the grader on the reference solutions and starters,
#                                        when the book/grading area provides that target
# Default: all of them, in that order. Every stage runs even after one
# fails, so one CI run shows every problem; each is timed, and the closing
# table says which failed. Exit 0 only if none did.
# Run as root on a fresh machine, the stages install what they need through
# scripts/deps.sh (groups clang, memcheck, cross).
set -uo pipefail
cd "$(dirname "$0")/.."

jobs=${NL_CI_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -gt 2 ] && jobs=2   # the CI machine's budget: 2 cores
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(san clang memcheck cross grading)

run_stage() {
    case $1 in
        san)      make -j"$jobs" test SAN=1 WERROR=1 ;;
        clang)    scripts/deps.sh clang &&
                  make -j"$jobs" CC=clang BUILD=build-clang test WERROR=1 ;;
        memcheck) make -j"$jobs" memcheck WERROR=1 ;;
        cross)    make -j"$jobs" cross-test WERROR=1 ;;
        grading)
            if make -n grade-selftest >/dev/null 2>&1; then
                make -j"$jobs" grade-selftest
            else
                echo "SKIPPED: no grade-selftest target in this tree yet"
                return 3
            fi ;;
        *) echo "ci-stages.sh: unknown stage '$1'" >&2; return 2 ;;
    esac
}

declare -a names results times
failed=0
for stage in "${stages[@]}"; do
    echo
    echo "::: stage $stage"
    start=$(date +%s)
    run_stage "$stage"; rc=$?
    secs=$(( $(date +%s) - start ))
    case $rc in
        0) result=passed ;;
        3) result=SKIPPED ;;
        *) result="FAILED (exit $rc)"; failed=1 ;;
    esac
    echo "::: stage $stage: $result in ${secs}s"
    names+=("$stage"); results+=("$result"); times+=("$secs")
done

echo
echo "::: CI stages"
for i in "${!names[@]}"; do
    printf '    %-9s %6ss  %s\n' "${names[$i]}" "${times[$i]}" "${results[$i]}"
done
exit $failed
