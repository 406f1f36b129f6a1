#!/usr/bin/env bash
# grade.sh — grade a student's exercise files with the course's own tests.
#
#   grade.sh [--ex NN] [--submission DIR] [--out DIR] [--name NAME]
#            [--exercises DIR] [--code DIR] [--suites DIR] [--build DIR]
#
# For each exercise (exercises/NN-slug/exercise.conf) it builds the library
# with the student's file in place of the code/ file that holds the marked
# region, builds the exercise's Check suite(s) against it, runs them with
# NL_IMPLS set, and prints a table and a last line `Score: X/Y`.
#
#   --submission DIR  a copy of a student's exercises/ folder (default:
#                     exercises/). It is copied first and never written to.
#   --out DIR         where results go (default build/grade): NAME.json and
#                     NAME.xml (JUnit), NAME = --name or the folder's name.
#   --ex NN           one exercise (NN or NN-slug).
#   --exercises, --code, --suites: where exercise.conf files, the marked
#                     sources and check_*.c live (the self-tests use fixtures).
#   --build DIR       the normal build folder whose library objects are reused.
#
# Scoring: points x (tests passed) / (tests counted). A test counts when
# the untouched starter fails it: tests a starter passes already (an empty
# input, an error path) need no code and earn nothing, so a starter scores
# 0 and a complete answer full marks. Skipped tests (a CPU feature or
# device this machine lacks) pass for both and so count
# neither way; an exercise whose every test skipped is shown as `skipped`
# and left out of both X and Y, so the score is what this machine can grade.
# A file that does not compile or link, a suite that crashes before its
# summary, or one that runs past the time limit scores 0 for that exercise;
# the others are still graded.
#
# Environment: CC, GRADE_CFLAGS, GRADE_LDFLAGS, GRADE_LDLIBS, GRADE_CHECK_LIBS (mk/grade.mk
# passes the Makefile's), GRADE_TIMEOUT (seconds per suite, default 120),
# CK_DEFAULT_TIMEOUT (Check's per-test limit, default 20).
set -u

here=$(cd "$(dirname "$0")" && pwd)
ex_filter="" sub="" out="build/grade" name="" exdir="exercises" code="code"
suites="tests" build="build"
while [ $# -gt 0 ]; do
    case $1 in
    --ex) ex_filter=$2; shift 2 ;;
    --submission) sub=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --exercises) exdir=$2; shift 2 ;;
    --code) code=$2; shift 2 ;;
    --suites) suites=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
[ -n "$sub" ] || sub=$exdir
[ -d "$sub" ] || { echo "grade: no submission folder $sub" >&2; exit 2; }
if [ -z "$name" ]; then
    # Students hand in folders all called exercises/: name the result after
    # the folder that holds it (alice/exercises -> alice).
    abs=$(cd "$sub" && pwd); name=$(basename "$abs")
    [ "$name" = exercises ] && [ "$abs" != "$(pwd)/exercises" ] && name=$(basename "$(dirname "$abs")")
fi
ex_filter=${ex_filter#exercises/}; ex_filter=${ex_filter%/}

CC=${CC:-cc}
# Defaults mirror the Makefile for a run outside make; make passes its own.
: "${GRADE_CFLAGS:=-std=c17 -O2 -g -fopenmp -ffp-contract=off -D_DEFAULT_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -Icode/include -Icode $(pkg-config --cflags check libcjson OpenCL 2>/dev/null)}"
: "${GRADE_LDLIBS:=$(pkg-config --libs libcjson OpenCL 2>/dev/null) -fopenmp -lm}"
: "${GRADE_CHECK_LIBS:=$(pkg-config --libs check 2>/dev/null)}"
# A student's warnings are shown, not punished: -Werror (CI) is dropped.
cflags=$(printf '%s\n' "$GRADE_CFLAGS" | sed 's/ -Werror\b//g; s/^-Werror\b//')
timeout_s=${GRADE_TIMEOUT:-120}
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-20} CK_FORK=${CK_FORK:-yes}

work=$(mktemp -d "${TMPDIR:-/tmp}/normlab-grade.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
# Work on a copy: nothing the grader does can write into the submission.
mkdir -p "$work/sub" && cp -R "$sub"/. "$work/sub"/ 2>/dev/null
# The untouched starters, fresh from the marked regions: the baseline.
"$here/exercises.sh" generate "$work/starter" "$code" >/dev/null || exit 2
mkdir -p "$out" || exit 2

# The library objects of the normal build, one per library source.
lib_objs=()
while read -r src; do
    [ -f "$build/obj/${src%.c}.o" ] && lib_objs+=("$build/obj/${src%.c}.o")
done < <(find code -name '*.c' ! -path 'code/cli/*' | LC_ALL=C sort)
# Objects generated into the library from elsewhere (the OpenCL kernels
# embedded as C strings, in $(BUILD)/obj/gen/): every object of the build
# that is neither a code/ source's, the CLI's, a test's nor a script's.
while read -r o; do
    lib_objs+=("$o")
done < <(find "$build/obj" -name '*.o' ! -path "$build/obj/code/*" ! -path "$build/obj/tests/*" \
             ! -path "$build/obj/scripts/*" 2>/dev/null | LC_ALL=C sort)
[ ${#lib_objs[@]} -gt 0 ] || { echo "grade: no library objects in $build/obj; run make build first" >&2; exit 2; }

isa_flags() {   # the Makefile's per-ISA flags, by file name
    case $1 in
    *_avx2.c) echo "-mavx2 -mfma" ;;
    *_avx512.c) echo "-mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma" ;;
    esac
}

conf() {        # conf FILE KEY: the value, comments and blanks trimmed
    awk -v k="$2" -F= '{ sub(/#.*/, "") } { key = $1; gsub(/[ \t]/, "", key) }
        key == k { v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); print v; exit }' "$1"
}

json_str() {   # a JSON string: quotes, backslashes, tabs and newlines escaped
    printf '"%s"' "$(printf '%s' "$1" | tr -d '\000-\010\013-\037' |
        awk 'BEGIN { ORS = "" } { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); if (NR > 1) print "\\n"; print }')"
}
num() { awk -v x="$1" 'BEGIN { if (x == int(x)) printf "%d", x; else printf "%.1f", x }'; }
xml_str() { printf '%s' "$1" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g'; }

mkdir -p "$work/obj"
# The test harness: main() and the shared test helpers, every file of it.
harness_objs=()
for h in tests/harness/*.c; do
    o=$work/obj/harness-$(basename "${h%.c}").o
    "$CC" $cflags -Itests/harness -c "$h" -o "$o" 2>"$work/harness.log" ||
        { cat "$work/harness.log" >&2; exit 2; }
    harness_objs+=("$o")
done

rows=() json_rows=() xml_rows=() details=()
total=0 max=0 graded=0

# grade_one ID CONF ROOT TAG: build exercise ID with ROOT/ID/<files> and run
# its suites; sets r_passed r_failed r_skipped r_status r_log, and writes
# one line per test run, "SUITE:TEST:ITERATION P|F|E", to
# $work/ex/ID/TAG/results.txt.
grade_one() {
    local id=$1 cfile=$2 root=$3 dir=$work/ex/$1/$4
    mkdir -p "$dir" "$dir/obj"; : >"$dir/results.txt"
    r_passed=0 r_failed=0 r_skipped=0 r_status="" r_log=""
    local objs=("${lib_objs[@]}") cl_dir="" src base student
    local files
    files=$("$here/exercises.sh" list "$code" | awk -v id="$id" '$1 == id { print $2 }')
    [ -n "$files" ] || { r_status="no region"; r_log="no @exercise $id region under $code/"; return; }
    for src in $files; do
        base=$(basename "$src"); student=$root/$id/$base
        if [ ! -f "$student" ]; then
            r_status="no file"; r_log="the submission has no $id/$base"; return
        fi
        case $src in
        *.c)
            local o=$build/obj/${src%.c}.o keep=()
            case $src in code/*) [ -f "$o" ] || { r_status="skipped"; r_log="$src is not built on this machine"; return; } ;; esac
            for x in "${objs[@]}"; do [ "$x" = "$o" ] || keep+=("$x"); done
            # The student's file compiles as if it sat where the original
            # does, so its own includes resolve the same way.
            if ! "$CC" $cflags $(isa_flags "$base") -I"$(dirname "$src")" \
                    -c "$student" -o "$dir/obj/${base%.c}.o" >"$dir/cc.log" 2>&1; then
                r_status="compile error"; r_log=$(sed "s|$root/||g" "$dir/cc.log"); return
            fi
            [ -s "$dir/cc.log" ] && r_log=$(sed "s|$root/||g" "$dir/cc.log")
            objs=("${keep[@]}" "$dir/obj/${base%.c}.o") ;;
        *.cl)
            # The OpenCL host reads kernels from NORMLAB_CL_KERNELS: give it
            # the course's kernels with the student's one put over its own.
            cl_dir=$dir/cl; mkdir -p "$cl_dir"
            cp "$(dirname "$src")"/*.cl "$cl_dir"/ 2>/dev/null
            cp "$student" "$cl_dir/$base" ;;
        *)
            r_status="unsupported"; r_log="$src: only .c and .cl files can be graded"; return ;;
        esac
    done
    ar rcs "$dir/libnormlab.a" "${objs[@]}" 2>"$dir/ar.log" ||
        { r_status="build error"; r_log=$(cat "$dir/ar.log"); return; }

    # The same layout as the build folder: suites in tests/, and beside it a
    # normlab program linked with this library, for tests that run it.
    mkdir -p "$dir/tests"
    # One object per current CLI source, as for the library: an object left
    # in the build folder by a source that has since moved would clash.
    local cli_objs=() cli_src
    for cli_src in code/cli/*.c; do
        [ -f "$build/obj/${cli_src%.c}.o" ] && cli_objs+=("$build/obj/${cli_src%.c}.o")
    done
    if [ ${#cli_objs[@]} -gt 0 ] &&
        ! "$CC" ${GRADE_LDFLAGS:-} -o "$dir/normlab" "${cli_objs[@]}" "$dir/libnormlab.a" $GRADE_LDLIBS >"$dir/normlab-link.log" 2>&1; then
        echo "grade: could not link the normlab program for $id; tests that run it will fail:" >&2
        head -n 5 "$dir/normlab-link.log" >&2
    fi
    local suite srcfile log rc line p f s impls
    impls=$(conf "$cfile" impls)
    for suite in $(conf "$cfile" suite | tr ',' ' '); do
        srcfile=$suites/check_$suite.c
        [ -f "$srcfile" ] || { r_status="no suite"; r_log="$srcfile does not exist (exercise.conf: suite = $suite)"; return; }
        if [ ! -f "$work/obj/check_$suite.o" ] &&
           ! "$CC" $cflags -Itests/harness -c "$srcfile" -o "$work/obj/check_$suite.o" >"$dir/suite.log" 2>&1; then
            r_status="suite error"; r_log=$(cat "$dir/suite.log"); return
        fi
        if ! "$CC" ${GRADE_LDFLAGS:-} -o "$dir/tests/check_$suite" "$work/obj/check_$suite.o" "${harness_objs[@]}" \
                "$dir/libnormlab.a" $GRADE_CHECK_LIBS $GRADE_LDLIBS >"$dir/ld.log" 2>&1; then
            r_status="link error"; r_log=$(sed "s|$work/||g" "$dir/ld.log"); return
        fi
        log=$dir/run-$suite.log
        env CK_VERBOSITY=verbose NL_SUITE_NAME="$suite" NL_IMPLS="$impls" ${cl_dir:+NORMLAB_CL_KERNELS="$cl_dir"} \
            timeout -k 5 "$timeout_s" "$dir/tests/check_$suite" 2>&1 </dev/null | head -c 8000000 >"$log"
        # A test that prints without end is cut off at 8 MB (it then dies of
        # SIGPIPE, reported as a crash) instead of filling the disk.
        rc=${PIPESTATUS[0]}
        line=$(grep -E "^suite $suite: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" "$log" | tail -n1)
        if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
            r_status="timeout"; r_log="suite $suite ran past ${timeout_s} s and was stopped: an endless loop?"; r_passed=0; return
        fi
        if [ "$(wc -c <"$log")" -ge 8000000 ]; then
            r_status="output limit"; r_passed=0
            r_log="suite $suite printed more than 8 MB and was stopped: a print in an endless loop?"
            r_log+=$'\n'$(head -n 5 "$log"); return
        fi
        if [ -z "$line" ]; then
            r_status="crash"
            [ $rc -gt 128 ] && r_log="suite $suite died of signal $((rc - 128)) before its summary" ||
                r_log="suite $suite stopped (exit $rc) before its summary"
            r_log+=$'\n'$(tail -n 15 "$log"); r_passed=0; return
        fi
        read -r p f s < <(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped/\1 \2 \3/' <<<"$line")
        r_passed=$((r_passed + p)) r_failed=$((r_failed + f)) r_skipped=$((r_skipped + s))
        grep -E "^[^:]+:[0-9]+:[PFE]:" "$log" | awk -F: -v s="$suite" '{ print s ":" $5 ":" $6, $3 }' >>"$dir/results.txt"
        # Check catches a crash or an endless loop inside one test (each runs
        # in its own process) and reports it as an error; say which.
        grep -q 'Test timeout expired' "$log" && r_status="timeout in a test"
        grep -q 'Received signal' "$log" && r_status="crash in a test"
        if [ "$f" -gt 0 ]; then
            r_log+=$(grep -E ':[EF]:' "$log" | head -n 8 | sed -E 's/^[^:]*:[0-9]+:[EF]:[^:]*:([^:]*):[0-9]+: /  \1: /')
            r_log+=$'\n'
        fi
    done
}

found=0
for cfile in $(ls "$exdir"/*/exercise.conf 2>/dev/null | LC_ALL=C sort); do
    id=$(basename "$(dirname "$cfile")")
    # EX=03, EX=3 and EX=03-welford all name exercise 03-welford.
    if [ -n "$ex_filter" ] && [ "$id" != "$ex_filter" ] && [ "${id%%-*}" != "$ex_filter" ] &&
       ! { [ "$ex_filter" -eq "$((10#${id%%-*}))" ] 2>/dev/null; }; then continue; fi
    found=1
    pts=$(conf "$cfile" points); pts=${pts:-0}
    title=$(conf "$cfile" title)
    grade_one "$id" "$cfile" "$work/sub" student
    # The same suites on the untouched starter: a test it already passes
    # (an empty input, an error path) needs no code, so it earns nothing.
    # Points go by the tests the starter fails: the ones with teeth.
    s_passed=$r_passed s_failed=$r_failed s_skipped=$r_skipped s_status=$r_status s_log=$r_log
    grade_one "$id" "$cfile" "$work/starter" starter >/dev/null 2>&1
    r_passed=$s_passed r_failed=$s_failed r_skipped=$s_skipped r_status=$s_status r_log=$s_log
    read -r teeth bit < <(awk 'FNR == NR { if ($2 != "P") teeth[$1] = 1; next }
        ($1 in teeth) { t++; if ($2 == "P") b++ } END { print t + 0, b + 0 }' \
        "$work/ex/$id/starter/results.txt" "$work/ex/$id/student/results.txt")
    ran=$((r_passed + r_failed))
    case $r_status in
    "compile error"|"link error"|"build error"|"timeout"|"crash"|"output limit"|"no file"|"no region"|"no suite"|"suite error"|"unsupported")
        got=0; counted=1; r_passed=0 r_failed=0 ;;
    *)
        if [ $ran -eq 0 ]; then
            got=0; counted=0; r_status="skipped"
            [ -n "$r_log" ] || r_log="every test was skipped on this machine (see the suite's skip reasons)"
        elif [ "$teeth" -eq 0 ]; then
            # No test fails the starter here: fall back to plain pass rate,
            # and say so (grade-check fails on this).
            got=$(awk -v p="$pts" -v a="$r_passed" -v n="$ran" 'BEGIN { printf "%.1f", p * a / n }')
            counted=1; r_status="no test fails the starter"
        else
            got=$(awk -v p="$pts" -v a="$bit" -v n="$teeth" 'BEGIN { printf "%.1f", p * a / n }')
            counted=1
            [ -n "$r_status" ] || { [ "$r_failed" -eq 0 ] && r_status="ok" || r_status="failing tests"; }
        fi ;;
    esac
    if [ $counted -eq 1 ]; then
        total=$(awk -v a="$total" -v b="$got" 'BEGIN { printf "%.1f", a + b }')
        max=$((max + pts)); graded=$((graded + 1))
    fi
    rows+=("$(printf '%-22s %7s %12s   %s' "$id" "$r_passed/$ran" "$(num "$got")/$pts" "$r_status")")
    [ -n "${r_log//[$'\n ']/}" ] && details+=("--- $id ($r_status)"$'\n'"$r_log")
    json_rows+=("    {\"id\": $(json_str "$id"), \"title\": $(json_str "$title"), \"passed\": $r_passed, \"failed\": $r_failed, \"skipped\": $r_skipped, \"scored_tests\": $teeth, \"scored_passed\": $bit, \"points\": $(num "$got"), \"max\": $pts, \"graded\": $([ $counted -eq 1 ] && echo true || echo false), \"status\": $(json_str "$r_status"), \"log\": $(json_str "$r_log")}")
    case $r_status in
    ok) xml_rows+=("  <testcase classname=\"normlab\" name=\"$(xml_str "$id")\"/>") ;;
    skipped) xml_rows+=("  <testcase classname=\"normlab\" name=\"$(xml_str "$id")\"><skipped message=\"$(xml_str "$r_log")\"/></testcase>") ;;
    *) xml_rows+=("  <testcase classname=\"normlab\" name=\"$(xml_str "$id")\"><failure message=\"$(xml_str "$r_status: $(num "$got")/$pts points, $r_passed/$ran tests")\">$(xml_str "$r_log")</failure></testcase>") ;;
    esac
done
[ $found -eq 1 ] || { echo "grade: no exercise${ex_filter:+ $ex_filter} in $exdir/" >&2; exit 2; }

total_fmt=$(num "$total")
{
    printf '{\n  "submission": %s,\n  "score": %s,\n  "max": %d,\n  "exercises": [\n' "$(json_str "$name")" "$total_fmt" "$max"
    for i in "${!json_rows[@]}"; do
        printf '%s%s\n' "${json_rows[$i]}" "$([ "$i" -lt $((${#json_rows[@]} - 1)) ] && echo ,)"
    done
    printf '  ]\n}\n'
} >"$out/$name.json"
{
    printf '<?xml version="1.0" encoding="UTF-8"?>\n'
    printf '<testsuite name="%s" tests="%d" failures="%d">\n' "$(xml_str "$name")" "${#xml_rows[@]}" \
        "$(printf '%s\n' "${xml_rows[@]}" | grep -c '<failure')"
    printf '%s\n' "${xml_rows[@]}"
    printf '</testsuite>\n'
} >"$out/$name.xml"

for d in "${details[@]}"; do printf '%s\n' "$d"; done
[ ${#details[@]} -gt 0 ] && echo
printf '%-22s %7s %12s   %s\n' exercise tests points status
printf '%s\n' "${rows[@]}"
echo "points count the tests an untouched starter fails; results: $out/$name.json, $out/$name.xml"
echo "Score: $total_fmt/$max"
