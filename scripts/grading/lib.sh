# lib.sh — what grade.sh, stage.sh and grade-class.sh share (sourced).

CC=${CC:-cc}
# Defaults mirror the Makefile for a run outside make; make passes its own.
: "${GRADE_CFLAGS:=-std=c17 -O2 -g -fopenmp -ffp-contract=off -D_DEFAULT_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -Icode/include -Icode $(pkg-config --cflags check libcjson OpenCL 2>/dev/null) $(pkg-config --cflags ompi-c 2>/dev/null)}"
: "${GRADE_LDLIBS:=$(pkg-config --libs libcjson OpenCL 2>/dev/null) $([ -f /usr/include/dnnl.h ] && echo -ldnnl) -fopenmp -lm $(pkg-config --libs ompi-c 2>/dev/null)}"
: "${GRADE_CHECK_LIBS:=$(pkg-config --libs check 2>/dev/null)}"
# A student's warnings are shown, not punished: -Werror (CI) is dropped,
# and so are the sanitizers of a SAN=1 build (the grader adds ASan itself).
cflags=$(printf '%s\n' "$GRADE_CFLAGS" | sed -E 's/(^| )-Werror\b//g; s/(^| )-fsanitize[^ ]*//g; s/(^| )-fno-sanitize[^ ]*//g')
ldflags=$(printf '%s\n' "${GRADE_LDFLAGS:-}" | sed -E 's/(^| )-fsanitize[^ ]*//g; s/(^| )-fno-sanitize[^ ]*//g')

# Plain libc an answer may call besides what the real code calls
# (policy.sh): arithmetic, memory, strings, and printing to stdout/stderr
# for debugging.  Nothing that opens, writes to a descriptor, signals,
# forks or exits.
SAFE_CALLS="sqrt sqrtf sqrtl fabs fabsf fma fmaf fmax fmaxf fmin fminf exp expf log logf pow powf
floor floorf ceil ceilf round roundf lround trunc truncf isnan isinf __isnan __isinf __isnanf __isinff
__fpclassify __fpclassifyf frexp ldexp hypot hypotf
memcpy memmove memset memcmp __memcpy_chk __memmove_chk __memset_chk strlen strnlen strcmp strncmp
strchr strrchr strstr strcpy strncpy __strcpy_chk __strncpy_chk strtod strtol strtoul
snprintf __snprintf_chk sprintf __sprintf_chk vsnprintf __vsnprintf_chk printf __printf_chk
fprintf __fprintf_chk puts putchar fputs fputc putc fwrite fflush stdout stderr
malloc calloc realloc free aligned_alloc posix_memalign abort __assert_fail
omp_get_thread_num omp_get_num_threads omp_get_max_threads GOMP_parallel GOMP_barrier
GOMP_critical_start GOMP_critical_end GOMP_atomic_start GOMP_atomic_end"

# The OpenMP runtime a compiled `#pragma omp` calls: libgomp's (gcc) and
# libomp's (clang) entry points for parallel regions, every loop schedule,
# reductions, critical sections, single and barriers.  exercise.conf's
# `allow = @openmp` grants them where the exercise is about threads; the
# suites' determinism tests, not this list, judge how the threads are used.
omp_runtime_calls() {
    local s k
    printf '%s\n' GOMP_parallel GOMP_parallel_start GOMP_parallel_end GOMP_barrier GOMP_critical_start \
        GOMP_critical_end GOMP_critical_name_start GOMP_critical_name_end GOMP_atomic_start GOMP_atomic_end \
        GOMP_loop_end GOMP_loop_end_nowait GOMP_loop_start GOMP_loop_ull_start GOMP_single_start \
        GOMP_single_copy_start GOMP_single_copy_end GOMP_ordered_start GOMP_ordered_end \
        omp_get_thread_num omp_get_num_threads omp_get_max_threads omp_in_parallel omp_get_wtime \
        __kmpc_fork_call __kmpc_barrier __kmpc_critical __kmpc_end_critical __kmpc_global_thread_num \
        __kmpc_for_static_fini __kmpc_reduce __kmpc_reduce_nowait __kmpc_end_reduce __kmpc_end_reduce_nowait \
        __kmpc_single __kmpc_end_single __kmpc_master __kmpc_end_master __kmpc_push_num_threads
    for s in static dynamic guided runtime nonmonotonic_dynamic nonmonotonic_guided nonmonotonic_runtime \
             maybe_nonmonotonic_runtime; do
        printf 'GOMP_loop_%s_start\nGOMP_loop_%s_next\nGOMP_loop_ull_%s_start\nGOMP_loop_ull_%s_next\nGOMP_parallel_loop_%s\n' \
            "$s" "$s" "$s" "$s" "$s"
    done
    for k in 4 4u 8 8u; do
        printf '__kmpc_for_static_init_%s\n__kmpc_dispatch_init_%s\n__kmpc_dispatch_next_%s\n__kmpc_dispatch_fini_%s\n' \
            "$k" "$k" "$k" "$k"
    done
}

conf() {        # conf FILE KEY: the value, comments and blanks trimmed
    awk -v k="$2" -F= '{ sub(/#.*/, "") } { key = $1; gsub(/[ \t]/, "", key) }
        key == k { v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); print v; exit }' "$1" |
        if [ "$2" = allow ]; then sed "s/@openmp/$(omp_runtime_calls | tr '\n' ' ')/"; else cat; fi
}

isa_flags() {   # the Makefile's per-ISA flags, by file name
    case $1 in
    *_avx2.c) echo "-mavx2 -mfma" ;;
    *_avx512.c) echo "-mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma" ;;
    esac
}

# A lab is a chosen set of exercises: LAB=09,10,12 (numbers or ids,
# commas or spaces), or a handout's lab.txt (make handout LAB=...). Without
# either, every exercise is in it.
in_lab() {
    local want=${LAB:-} w
    [ -n "$want" ] || { [ -f lab.txt ] && want=$(cat lab.txt); }
    [ -n "$want" ] || return 0
    for w in $(printf '%s' "$want" | tr ',' ' '); do
        [ "$w" = "$1" ] || [ "$w" = "${1%%-*}" ] || { [ "$w" -eq "$((10#${1%%-*}))" ] 2>/dev/null; } && return 0
    done
    return 1
}

# The exercise.conf files to grade: EXDIR/*/exercise.conf, EX_FILTER
# (EX=03, EX=3 and EX=03-welford all name exercise 03-welford).
exercise_confs() {
    local f id
    for f in "$EXDIR"/*/exercise.conf; do
        [ -f "$f" ] || continue
        id=$(basename "$(dirname "$f")")
        if [ -n "${EX_FILTER:-}" ] && [ "$id" != "$EX_FILTER" ] && [ "${id%%-*}" != "$EX_FILTER" ] &&
           ! { [ "$EX_FILTER" -eq "$((10#${id%%-*}))" ] 2>/dev/null; }; then continue; fi
        # `sandbox = no`: an exercise the sandbox cannot host (MPI's mpirun);
        # its README names the target that checks it instead.
        grep -Eq '^[[:space:]]*sandbox[[:space:]]*=[[:space:]]*no\b' "$f" && continue
        in_lab "$id" || continue
        printf '%s\n' "$f"
    done | LC_ALL=C sort
}

# A JSON string: valid UTF-8 only (a compiler quoting a stray byte
# writes invalid UTF-8), control characters escaped or dropped.
json_str() {
    printf '"%s"' "$(printf '%s' "$1" | iconv -c -f UTF-8 -t UTF-8 | tr -d '\000-\010\013\014\016-\037\177' |
        sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' -e 's/\r/\\r/g' |
        awk 'BEGIN { ORS = "" } { if (NR > 1) print "\\n"; print }')"
}
xml_str() {
    printf '%s' "$1" | iconv -c -f UTF-8 -t UTF-8 | tr -d '\000-\010\013\014\016-\037\177' |
        sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g'
}
# safe_file_name NAME: NAME as a file name (a safe alphabet); a name that
# had to change gets 8 hex digits of its SHA-1, so that "alice bob" and
# "alice_bob", or "José" and "Jos__", never share a report.
safe_file_name() {
    local s
    s=$(printf '%s' "$1" | tr -c 'A-Za-z0-9._@+-' '_')
    [ "$s" = "$1" ] || s=$s-$(printf '%s' "$1" | sha1sum | cut -c1-8)
    printf '%s' "$s"
}
num() { awk -v x="$1" 'BEGIN { if (x == int(x)) printf "%d", x; else printf "%.2f", x }'; }
