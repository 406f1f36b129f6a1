#!/usr/bin/env bash
# ci-stages.sh [STAGE...] — the CI stages after `make test WERROR=1`:
#   cycles    make cycles-check prefetch-check
#                                        no two files under code/ call or include each
#                                        other in a loop (the normal build's objects), and
#                                        the fast bf16 rungs' prefetches are in the object code
#   census    make census-check          the census table (code/config/census.def) parses,
#                                        names its sources, and the reader reproduces its
#                                        counts on the census's small configs and real ones
#   san       make test SAN=1            ASan + UBSan, every suite (build-san/)
#   clang     make CC=clang test         the other compiler, warnings as errors (build-clang/)
#   memcheck  make memcheck              every suite under valgrind, OpenCL hidden
#                                        (PoCL under valgrind costs minutes; our host
#                                        code is under ASan in san)
#   cross     make cross-test            aarch64 build, every suite under qemu (build-aarch64/)
#   grading   make grade-ci              every starter fails, every solution scores full
#                                        (grade-check), and the sandboxed grader stops every
#                                        attack and wrong answer of its self-tests
#                                        (grade-selftest), in one pool on one stage
#                                        (installs bubblewrap, zip, python3)
#   book      make book SOLUTIONS=1      the PDF with its answer key, from the tested
#                                        code (installs pandoc and TeX as root)
#   fuzz      make fuzz FUZZ_SECONDS=10  the config, .npy and .safetensors readers under
#                                        libFuzzer, ASan and UBSan, 10 s each, so that the
#                                        fuzz targets keep linking and the readers keep
#                                        surviving them
#   web       make web-test              the web edition built and opened in headless
#                                        Chromium at 1100 and 400 px (installs chromium;
#                                        a missing browser fails here, not skips)
# The san and clang stages require OpenCL (NORMLAB_REQUIRE_OPENCL=1, as .ci/run's
# make test): PoCL is installed in CI, so a skipped OpenCL test would hide
# a fault. The aarch64 stage cannot have it (no arm64 PoCL under qemu): its
# OpenCL tests skip, and say so. NL_CI_REQUIRE_OPENCL=0 lifts this.
# Default: all of them, in that order. Every stage runs even after one
# fails, so one CI run shows every problem; each is timed, and the closing
# table says which failed. Exit 0 only if none did.
# Run as root on a fresh machine, the stages install what they need through
# scripts/setup/deps.sh (groups clang, memcheck, cross).
set -uo pipefail
cd "$(dirname "$0")/../.."

jobs=${NL_CI_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -gt 2 ] && jobs=2   # the CI machine's budget: 2 cores
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(cycles census san clang memcheck cross grading book fuzz web)

ocl=${NL_CI_REQUIRE_OPENCL:-1}
run_stage() {
    case $1 in
        cycles)   make -j"$jobs" cycles-check prefetch-check ;;
        census)   make -j"$jobs" census-check ;;
        san)      NORMLAB_REQUIRE_OPENCL=$ocl make -j"$jobs" test SAN=1 WERROR=1 ;;
        clang)    scripts/setup/deps.sh clang &&
                  NORMLAB_REQUIRE_OPENCL=$ocl make -j"$jobs" CC=clang BUILD=build-clang test WERROR=1 ;;
        memcheck) make -j"$jobs" memcheck WERROR=1 ;;
        cross)    make -j"$jobs" cross-test WERROR=1 ;;
        grading)
            if make -n grade-ci >/dev/null 2>&1; then
                scripts/setup/deps.sh base grading && make -j"$jobs" grade-ci
            else
                echo "SKIPPED: no grade-ci target in this tree"
                return 3
            fi ;;
        book)     make book SOLUTIONS=1 && make book ;;
        fuzz)     make fuzz FUZZ_SECONDS="${NL_CI_FUZZ_SECONDS:-10}" ;;
        web)      scripts/setup/deps.sh web webtest &&
                  NL_REQUIRE_CHROMIUM=1 make web-test &&
                  NL_REQUIRE_CHROMIUM=1 make web-test SOLUTIONS=1 ;;
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
