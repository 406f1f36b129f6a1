#!/usr/bin/env bash
# driver.sh — inside the sandbox: build one exercise of one submission and
# run its suites.  grade.sh runs it through sandbox.sh; it is trusted code
# working on files that are not.
#
# Everything that decides points is written to descriptor 3 (the verdict
# stream, a file of the grader outside the sandbox), before the student's
# code first runs or by processes that never run it (runner.c):
#   STATUS WORD TEXT   the exercise stops here (no file, compile error, ...)
#   SUITE NAME, then the runner's lines (T P|F|E TCASE:TEST:ITER MESSAGE, one
#   per test, END N), RC NAME STATUS, and DONE at the end
# For an exercise of C code (JUDGE=1 in conf.sh) the student's object is
# linked only into $SCRATCH/worker (judge/worker.c); the suites are linked
# with the judge's proxies instead and start that worker per test
# (NL_WORKER), so no suite process ever runs the student's code.
# What the student's code or the compiler prints goes to stdout: the log,
# shown as feedback, capped by the grader, never parsed for points.
#
# Environment (grade.sh sets it): COMMON (shared stage: headers, harness,
# suite and CLI objects, fixtures, kernels), EXDIR (this exercise: lib.a
# without the graded files, files.txt, suites.txt, allowed-*.txt, conf.sh),
# SUB (the student's folder for this exercise), SCRATCH (writable),
# CC, CFLAGS, LDFLAGS, LDLIBS, CHECK_LIBS, ASAN (1: build with ASan),
# COMPILE_TIMEOUT, RUN_TIMEOUT, MEM_MB, NL_WORKER_TIMEOUT (seconds per
# call), GRADE_NO_POLICY (the self-tests: skip policy.sh).  The run's
# random inputs come from a seed on descriptor 4 (a pipe grade.sh fills):
# read here into a variable nothing exports, and handed to each suite's
# runner on a pipe of its own (NL_SEED_FD, tests/harness), so that no
# environment, command line or file of the sandbox holds it, where the
# student's code could look for it in /proc.
set -u
seed=""
read -r seed <&4 2>/dev/null
exec 4<&-
verdict() { printf '%s\n' "$*" >&3; }
stop() { verdict "STATUS $1|$2"; exit 0; }   # stop KIND TEXT
. "$EXDIR/conf.sh"     # IMPLS, ASAN, and what stage.sh says of the exercise

isa_flags() {
    case $1 in
    *_avx2.c) echo "-mavx2 -mfma" ;;
    *_avx512.c) echo "-mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma" ;;
    esac
}
# AddressSanitizer makes an out-of-bounds read fail its test; only for
# exercises with C files (a kernel of OpenCL C runs in the device's runtime).
san=()
[ "${ASAN:-1}" = 1 ] && grep -q '\.c$' "$EXDIR/files.txt" && san=(-fsanitize=address -fno-omit-frame-pointer)

[ -n "${WORKER_MISSING:-}" ] && stop "unsupported" "$WORKER_MISSING"
mkdir -p "$SCRATCH/obj" "$SCRATCH/tests" "$SCRATCH/cl"
objs=() cl=""
while read -r src; do
    [ -n "$src" ] || continue
    base=${src##*/}
    [ -f "$SUB/$base" ] || stop "no file" "the submission has no $base (or it is not a plain file under 1 MB)"
    case $base in
    *.c)
        dir=.; case $src in */*) dir=${src%/*} ;; esac
        inc=(-I"$COMMON/inc/include" -I"$COMMON/inc" -I"$COMMON/inc/$dir")
        # The compiler reads what the student wrote (an #include of a FIFO,
        # a file of gigabytes): bounded in time and memory, and kept away
        # from the verdict.  Where the judge runs the code in a worker
        # (JUDGE=1) it is built once, plainly: the worker's guard pages
        # catch reads past an array, and the judge holds no student code.
        kinds=(plain); [ "${JUDGE:-0}" = 1 ] || [ -n "${WORKER:-}" ] || kinds=(plain run)
        for kind in "${kinds[@]}"; do
            extra=(); [ $kind = run ] && extra=("${san[@]}")
            if ! ( ulimit -v $(( ${MEM_MB:-2048} * 1024 )); exec timeout -k 2 "${COMPILE_TIMEOUT:-30}" \
                   $CC $CFLAGS $(isa_flags "$base") "${extra[@]}" "${inc[@]}" -c "$SUB/$base" \
                   -o "$SCRATCH/obj/$kind-${base%.c}.o" ) 3>&- 2>&1; then
                stop "compile error" "$base does not compile (or took more than ${COMPILE_TIMEOUT:-30} s): the compiler's message is below"
            fi
            [ $kind = plain ] && [ -z "${GRADE_NO_POLICY:-}" ] && { "$COMMON/policy.sh" "$SCRATCH/obj/plain-${base%.c}.o" "$EXDIR" 3>&- ||
                stop "not allowed" "$(cat "$SCRATCH/policy.txt" 2>/dev/null)"; }
        done
        { [ "${JUDGE:-0}" = 1 ] || [ -n "${WORKER:-}" ]; } && cp "$SCRATCH/obj/plain-${base%.c}.o" "$SCRATCH/obj/run-${base%.c}.o"
        objs+=("$SCRATCH/obj/run-${base%.c}.o") ;;
    *.cl)
        cp "$COMMON"/cl/*.cl "$SCRATCH/cl/" 2>/dev/null
        cp "$SUB/$base" "$SCRATCH/cl/$base"; cl=$SCRATCH/cl ;;
    *) stop "unsupported" "only .c and .cl files can be graded ($src)" ;;
    esac
done <"$EXDIR/files.txt"

ld_run() { timeout -k 2 "${COMPILE_TIMEOUT:-30}" $CC $LDFLAGS "$@" 3>&- 2>&1; }
judged=() worker_env=() judge_check=()
if [ "${JUDGE:-0}" = 1 ]; then
    # The worker: the student's object, the servers of its functions, libc,
    # and only what the file itself calls from the library (never the
    # registry, never the exercise's answer).  The judge: the suites with
    # the proxies and the shell of the file in place of the student's code.
    # worker-lib.a holds what the exercise's real code may call (stage.sh),
    # so a call of another kernel does not link, with policy.sh or without;
    # each `forbid` function is wrapped to name itself when called.
    wraps=()
    for f in ${FORBID:-}; do wraps+=("-Wl,--wrap=$f"); done
    [ ${#wraps[@]} -eq 0 ] || wraps+=("$EXDIR/forbid.o")
    # `count = yes`: the judge counts the arithmetic the answer executes
    # (judge/count.c), by address, so the worker is linked at fixed
    # addresses and the linker's map says where the answer's code is.
    [ "${COUNT:-0}" = 1 ] && wraps+=(-no-pie "-Wl,-Map=$SCRATCH/worker.map")
    if ! ld_run -o "$SCRATCH/worker" "$EXDIR/worker.o" "$COMMON/obj/judge/wire.o" "${objs[@]}" "${wraps[@]}" \
            "$EXDIR/worker-lib.a" -Wl,--as-needed $LDLIBS -lseccomp >"$SCRATCH/link.log"; then
        cat "$SCRATCH/link.log"
        if undef=$(grep -o "undefined reference to \`[A-Za-z_0-9]*'" "$SCRATCH/link.log" | head -n 1 | sed "s/.*\`//; s/'$//") && [ -n "$undef" ]; then
            stop "link error" "your file calls $undef, which is not among what this exercise's code may call (another kernel, or a function that does not exist): write that part yourself"
        fi
        stop "link error" "your file does not link into the program that runs it (it calls something that is not there): the linker's message is below"
    fi
    cat "$SCRATCH/link.log"
    judged=("$EXDIR/proxy.o" "$COMMON/obj/judge/wire.o" "$EXDIR/shell.o")
    worker_env=(NL_WORKER="$SCRATCH/worker" ${FORBID:+NL_FORBIDDEN="$FORBID"} ${FORBID_WHY:+NL_FORBIDDEN_WHY="$FORBID_WHY"})
    if [ "${COUNT:-0}" = 1 ]; then
        "$COMMON/insn-map.sh" "$SCRATCH/worker" "$SCRATCH/worker.map" "${objs[@]}" >"$SCRATCH/insn.map" ||
            stop "grader error" "the map of your file's instructions could not be made"
        judged+=("$COMMON/obj/judge/count.o")
        worker_env+=(NL_INSN_MAP="$SCRATCH/insn.map")
    fi
elif [ "${WORKER:-}" = mpi ]; then
    # An MPI operation (14): the student's object only in the ranks'
    # program (judge/mpi_worker.c), which the suite runs under mpirun;
    # the suite links none of it.
    if ! ld_run -o "$SCRATCH/mpi-worker" "$EXDIR/mpi_worker.o" "${objs[@]}" "$EXDIR/worker-lib.a" $LDLIBS -lseccomp; then
        stop "link error" "your file does not link into the MPI program that runs it (it calls something that is not there): the linker's message is below"
    fi
    worker_env=(NL_MPI_WORKER="$SCRATCH/mpi-worker")
elif [ "${WORKER:-}" = opencl ]; then
    # An OpenCL kernel (08): PoCL compiles and runs it in the worker
    # (judge/cl_worker.c and the library's OpenCL host code, no registry);
    # the suite calls the judge's proxies of the two OpenCL functions.
    if ! ld_run -o "$SCRATCH/worker" "$EXDIR/cl_worker.o" "$COMMON/obj/judge/wire.o" "$EXDIR/worker-lib.a" \
            -Wl,--as-needed $LDLIBS -lseccomp; then
        stop "link error" "the OpenCL worker does not link (the grader's setup): the linker's message is below"
    fi
    judged=("$EXDIR/proxy.o" "$EXDIR/cl_judge.o" "$COMMON/obj/judge/wire.o")
    judge_check=("$COMMON/obj/judge/judge_check.o")
    worker_env=(NL_WORKER="$SCRATCH/worker")
else
    # OpenCL C without a worker (a course's own .cl exercise with no
    # worker = opencl) runs in the runtime of the suite's own process.
    judged=("${objs[@]}")
    LDFLAGS="$LDFLAGS ${san[*]}"
fi
# The normlab program beside the suites, for tests that run it.
if ls "$COMMON"/obj/cli/*.o >/dev/null 2>&1; then
    ld_run -o "$SCRATCH/normlab" "$COMMON"/obj/cli/*.o "${judged[@]}" "$EXDIR/lib.a" $LDLIBS -lseccomp >"$SCRATCH/normlab-link.log" || { head -n 5 "$SCRATCH/normlab-link.log";
        echo "grade: the normlab program does not link; tests that run it will fail"; }
fi
mkdir -p "$SCRATCH/tests" && ln -s "$COMMON/fixtures" "$SCRATCH/tests/fixtures"
cd "$SCRATCH" || exit 2
# Each suite runs in a PID namespace of its own, nested in the sandbox's
# (sandbox.sh --nested): this shell also holds the verdict descriptor, and
# from in there neither it nor its /proc entries can be seen (the runner
# itself is not dumpable).
export ASAN_OPTIONS="detect_leaks=0:hard_rss_limit_mb=${MEM_MB:-2048}:allocator_may_return_null=1:abort_on_error=0"
# The scratch is read-only while a suite runs (sandbox.sh --nested): its
# own OpenCL cache goes to its own /tmp.
export POCL_CACHE_DIR=${TMPDIR:-/tmp}/normlab-pocl CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-20}
while read -r suite; do
    [ -n "$suite" ] || continue
    verdict "SUITE $suite"
    if ! ld_run -o "$SCRATCH/tests/check_$suite" "$COMMON/obj/suites/check_$suite.o" "$COMMON"/obj/harness/*.o \
            "${judged[@]}" ${JUDGE:+"$COMMON/obj/judge/judge_check.o"} "${judge_check[@]}" "$EXDIR/lib.a" $CHECK_LIBS $LDLIBS -lseccomp; then
        stop "link error" "the suite $suite does not link with the submission: the linker's message is below"
    fi
    env "${worker_env[@]}" NL_WORKER_TIMEOUT="${NL_WORKER_TIMEOUT:-10}" NL_VERDICT_FD=3 NL_SUITE_NAME="$suite" NL_IMPLS="${IMPLS:-}" ${cl:+NORMLAB_CL_KERNELS="$cl"} \
        ${seed:+NL_SEED_FD=5} timeout -k 2 "${RUN_TIMEOUT:-120}" "$COMMON/sandbox.sh" --nested -- "$SCRATCH/tests/check_$suite" \
        </dev/null 5< <(printf '%s\n' "$seed") 2>&1
    verdict "RC $suite $?"
done <"$EXDIR/suites.txt"
verdict "DONE"
