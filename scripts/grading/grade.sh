#!/usr/bin/env bash
# grade.sh — grade one student's exercise files, in a sandbox, with the
# course's own suites.
#
#   grade.sh [--ex NN] [--submission DIR] [--out DIR] [--name NAME]
#            [--exercises DIR] [--code DIR] [--suites DIR] [--build DIR]
#            [--stage DIR] [--quiet]
#
#   --submission DIR  the student's exercises/ folder (default exercises/);
#                     only its plain files are read, never written.
#   --out DIR         results (default build/grade): NAME.json (Gradescope's
#                     results.json format), NAME.xml (JUnit, one testcase
#                     per test with its points), NAME.txt (the report),
#                     NAME.tsv (a line per exercise: id, points, max,
#                     status, the first line of its feedback).
#   --name NAME       default: the folder's name (alice/exercises -> alice).
#   --ex NN           one exercise (NN or NN-slug); results then go to
#                     NAME-exNN.*, so a student's full results stay.
#   --stage DIR       a stage made by an earlier run (grade-class.sh shares
#                     one): the staged tree and the starters' results.
#   --exercises, --code, --suites: where exercise.conf files, the marked
#                     sources and check_*.c live (the self-tests use fixtures).
#   --build DIR       the build folder whose library objects are used.
#
# How a submission is graded (DESIGN.md, "Grading untrusted code"): for each
# exercise, stage.sh has staged headers, the harness and the suites as
# objects, and the library without the exercise's own files; driver.sh,
# run by sandbox.sh, compiles the student's files (twice: plain for the
# checks of policy.sh and objdump, with AddressSanitizer for the run),
# links each suite and runs it.  Points come only from the verdict stream
# (descriptor 3, a file out here) that runner.c and the driver write and
# the student's code cannot reach; what it prints is shown, not parsed.
#
# Scoring: points x (counted tests passed) / (counted tests).  A test counts
# when the untouched starter fails it (tests a starter passes need no code);
# an exercise where none counts on this machine (all skipped) is `skipped`
# and left out of both sides.  A file that is missing, does not compile or
# link, is not allowed (policy.sh), or a suite that times out, crashes
# before its end or prints past the cap scores 0 for that exercise.
#
# Exit status: 0 at full marks; 1 below full (GRADE_EXIT0=1 keeps 0);
# 2 usage or setup error; 3 no sandbox can be made here (UNSAFE=1 grades
# without one, for an instructor's own trusted files only).
#
# Environment: CC, GRADE_CFLAGS, GRADE_LDFLAGS, GRADE_LDLIBS,
# GRADE_CHECK_LIBS (mk/grade.mk passes the Makefile's), GRADE_TIMEOUT
# (seconds per suite run, default 120), GRADE_COMPILE_TIMEOUT (default 30),
# GRADE_MEM_MB (default 2048), GRADE_LOG_CAP (bytes of output kept, default
# 1000000), CK_DEFAULT_TIMEOUT (Check's per-test limit, default 20),
# GRADE_UID (the sandbox's uid when run as root), GRADE_WORKER_TIMEOUT
# (seconds a worker has to answer one call, default 10), UNSAFE.
set -u

here=$(cd "$(dirname "$0")" && pwd)
EX_FILTER="" sub="" out="build/grade" name="" EXDIR="exercises" CODE="code"
SUITES="tests" BUILD="build" stage="" quiet=""
usage() { sed -n '2,51p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || case $1 in --quiet) ;; *) usage ;; esac
    case $1 in
    --ex) EX_FILTER=$2; shift 2 ;;
    --submission) sub=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --exercises) EXDIR=$2; shift 2 ;;
    --code) CODE=$2; shift 2 ;;
    --suites) SUITES=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --stage) stage=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    *) usage ;;
    esac
done
. "$here/lib.sh"
export CC EXDIR CODE SUITES BUILD EX_FILTER GRADE_CFLAGS GRADE_LDLIBS GRADE_CHECK_LIBS
EX_FILTER=${EX_FILTER#exercises/}; EX_FILTER=${EX_FILTER%/}
[ -n "$sub" ] || sub=$EXDIR
[ -d "$sub" ] || { echo "grade: no submission folder '$sub'" >&2; exit 2; }
if [ -z "$name" ]; then
    # Students hand in folders all called exercises/: name the result after
    # the folder that holds it (alice/exercises -> alice).
    # A handout is graded as alice/normlab/exercises or alice/normlab: both
    # are alice's (otherwise each handout student would be "normlab",
    # each report overwriting the last).
    abs=$(cd "$sub" && pwd); name=$(basename "$abs")
    if [ "$abs" != "$(pwd)/exercises" ]; then
        n_abs=$abs
        while { [ "$name" = exercises ] || [ "$name" = normlab ]; } && [ "$(dirname "$n_abs")" != / ]; do
            n_abs=$(dirname "$n_abs"); name=$(basename "$n_abs")
        done
    fi
fi
# A whole handout (its exercises/ inside) is read from its exercises/.
[ -d "$sub/exercises" ] && ! ls -d "$sub"/[0-9][0-9]-*/ >/dev/null 2>&1 && sub=$sub/exercises
# The name becomes a file name: keep it to a safe alphabet (lib.sh).
safe_name=$(safe_file_name "$name")
[ -n "$EX_FILTER" ] && safe_name=$safe_name-ex${EX_FILTER%%-*}

unsafe=""
if ! why=$("$here/sandbox.sh" --probe 2>&1); then
    if [ "${UNSAFE:-}" = 1 ]; then
        echo "grade: WARNING: no sandbox ($why); UNSAFE=1: grading WITHOUT one. Do this only for files you trust." >&2
        unsafe=1
    else
        echo "grade: refusing to grade: $why" >&2
        echo "grade: a submission is code you did not write; it is built and run only in a sandbox." >&2
        echo "grade: install bubblewrap (scripts/setup/deps.sh base), or set UNSAFE=1 for your own trusted files." >&2
        exit 3
    fi
fi

# The random inputs of this run (tests/harness: nl_fill_gauss), known to
# the judge only; GRADE_SEED=N replays a run.
seed=${GRADE_SEED:-$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')}
compile_s=${GRADE_COMPILE_TIMEOUT:-30} run_s=${GRADE_TIMEOUT:-120} cap=${GRADE_LOG_CAP:-1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/normlab-grade.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
if [ -z "$stage" ]; then
    stage=$work/stage
    "$here/stage.sh" "$stage" || exit 2
fi
mkdir -p "$out" || exit 2

# run_ex ID ROOT TAG: grade ROOT/ID in a sandbox; the verdict stream goes to
# $work/TAG-ID.verdict, the log (capped) to $work/TAG-ID.log.
run_ex() {
    local id=$1 root=$2 v=$work/$3-$1 e=$stage/ex/$1 in=$work/in/$3/$1 src base f n_files n_suites limit
    mkdir -p "$in"
    # Only plain files of the exercise's own names: a symbolic link to
    # solutions/ or /etc is not followed, a huge file not copied.
    while read -r src; do
        base=${src##*/} f=$root/$id/${src##*/}
        if [ -f "$f" ] && [ ! -L "$f" ] && [ ! -L "$root/$id" ] && [ "$(wc -c <"$f")" -le 1048576 ]; then
            cp -- "$f" "$in/$base"
        fi
    done <"$e/files.txt"
    chmod -R a+rX "$in"
    n_files=$(grep -c . "$e/files.txt") n_suites=$(grep -c . "$e/suites.txt")
    limit=$(( 2 * n_files * (compile_s + 5) + n_suites * (run_s + compile_s + 10) + 30 ))
    local envs=(CC="$CC" CFLAGS="$cflags" LDFLAGS="$ldflags" LDLIBS="$GRADE_LDLIBS" CHECK_LIBS="$GRADE_CHECK_LIBS"
                COMPILE_TIMEOUT="$compile_s" RUN_TIMEOUT="$run_s" MEM_MB="${GRADE_MEM_MB:-2048}"
                CK_DEFAULT_TIMEOUT="${CK_DEFAULT_TIMEOUT:-20}" ${NORMLAB_REQUIRE_OPENCL:+NORMLAB_REQUIRE_OPENCL=$NORMLAB_REQUIRE_OPENCL}
                # the judge (judge/): seconds a worker has per call; the
                # self-tests' switch that skips policy.sh, to show that no
                # score depends on it
                NL_WORKER_TIMEOUT="${GRADE_WORKER_TIMEOUT:-10}" ${GRADE_NO_POLICY:+GRADE_NO_POLICY=1})
    if [ -n "$unsafe" ]; then
        mkdir -p "$work/scratch-$3-$1"
        env "${envs[@]}" COMMON="$stage/common" EXDIR="$e" SUB="$in" SCRATCH="$work/scratch-$3-$1" \
            timeout -k 2 "$limit" bash "$stage/common/driver.sh" 3>"$v.verdict" 4< <(printf '%s\n' "$seed") \
            2>&1 </dev/null | head -c "$cap" >"$v.log"
    else
        # The seed travels on descriptor 4, a pipe the driver drains: never
        # in an environment or on a command line, where any process of the
        # sandbox could read it in /proc (driver.sh).
        "$here/sandbox.sh" --time "$limit" --ro "$stage/common" /stage/common --ro "$e" /stage/ex --ro "$in" /sub -- \
            /usr/bin/env "${envs[@]}" COMMON=/stage/common EXDIR=/stage/ex SUB=/sub SCRATCH=/scratch \
            bash /stage/common/driver.sh 3>"$v.verdict" 4< <(printf '%s\n' "$seed") 2>&1 </dev/null | head -c "$cap" >"$v.log"
    fi
    echo "SANDBOX ${PIPESTATUS[0]}" >>"$v.verdict"
}

# parse VERDICT: the outcome, from the verdict stream alone.  Writes
# VERDICT.res, one test a line "KEY<TAB>P|F|E<TAB>message", and prints
# "STATUS<TAB>TEXT" (STATUS empty when the suites ran to their end).
parse() {
    LC_ALL=C awk -v res="$1.res" -v limit="$run_s" '
        function out(k, r, m) { if (!(k in seen)) order[++n] = k; seen[k] = 1; R[k] = r; M[k] = m }
        /^STATUS / { s = substr($0, 8); i = index(s, "|"); status = substr(s, 1, i - 1); text = substr(s, i + 1); next }
        /^SUITE / { suite = $2; started[suite] = 1; next }
        /^END / { ended[suite] = 1; next }
        /^RC / { if ($3 == 124 || $3 == 137) to = to ? to : $2; next }
        /^SANDBOX / { box = $2; next }
        /^DONE$/ { done = 1; next }
        /^T [PFE] [^ ]+ / {
            split($3, f, ":"); m = $0; sub(/^T [PFE] [^ ]+ /, "", m)
            out(suite ":" f[2] ":" f[3], $2, m); next }
        END {
            for (i = 1; i <= n; i++) printf "%s\t%s\t%s\n", order[i], R[order[i]], M[order[i]] > res
            if (n == 0) printf "" > res
            if (status != "") { print status "\t" text; exit }
            if (to != "") { print "timeout\tsuite " to " ran past " limit " s and was stopped: an endless loop?"; exit }
            if (box == 124 || box == 137) { print "timeout\tthe sandbox ran past its time limit and was stopped (compile or run)"; exit }
            for (s in started) if (!(s in ended)) { print "crash\tsuite " s " stopped before its end: the test runner itself died"; exit }
            if (!done) { print "crash\tthe build stopped before the suites ran (sandbox exit " box ")"; exit }
            print "\t"
        }' "$1.verdict"
}

# The starters' results, once per stage: which tests have teeth.
if [ ! -f "$stage/starters.done" ]; then
    "$here/exercises.sh" generate "$work/starter" "$CODE" >/dev/null || exit 2
    for cfile in $(exercise_confs); do
        id=$(basename "$(dirname "$cfile")")
        [ -f "$stage/ex/$id/starter.res" ] && continue
        run_ex "$id" "$work/starter" starter
        IFS=$'\t' read -r status text < <(parse "$work/starter-$id")
        if grep -q '^the build stopped' <<<"$text"; then
            echo "grade: the untouched starter of $id could not be built and run in the sandbox:" >&2
            head -n 20 "$work/starter-$id.log" >&2; exit 2
        fi
        # Renamed into place, so that a run sharing the stage (the
        # self-tests grade several at once) reads the whole file or none.
        cp "$work/starter-$id.res" "$stage/ex/$id/starter.res.$$" &&
            mv -f "$stage/ex/$id/starter.res.$$" "$stage/ex/$id/starter.res"
    done
    # Only a run over every exercise marks the stage done: one limited by
    # EX or by LAB (a shared stage, as the self-tests share one) did not
    # run the other starters.
    [ -n "$EX_FILTER" ] || [ -n "${LAB:-}" ] || touch "$stage/starters.done"
fi

rows=() details=() tests_json=() ex_json=() xml=() tsv=()
total=0 max=0 found=0
for cfile in $(exercise_confs); do
    found=1
    id=$(basename "$(dirname "$cfile")")
    pts=$(conf "$cfile" points); pts=${pts:-0}
    title=$(conf "$cfile" title)
    run_ex "$id" "$sub" student
    IFS=$'\t' read -r status text < <(parse "$work/student-$id")
    log=$work/student-$id.log
    if [ "$(wc -c <"$log")" -ge "$cap" ] && [ -z "$status" ]; then
        status="output limit" text="the tests printed more than $(( cap / 1000000 )) MB and were cut off: a print in an endless loop?"
    fi
    # Counted tests: those the starter does not pass. Each is worth pts/teeth.
    LC_ALL=C awk -F'\t' 'FNR == NR { if ($2 != "P") teeth[$1] = 1; next }
        { r[$1] = $2; m[$1] = $3 }
        END { for (k in teeth) print k "\t" ((k in r) ? r[k] : "F") "\t" ((k in r) ? m[k] : "did not run") }' \
        "$stage/ex/$id/starter.res" "$work/student-$id.res" >"$work/$id.counted.unsorted"
    # In the order the suites ran them, so the first failure shown is the first that ran.
    LC_ALL=C awk -F'\t' 'FNR == NR { c[$1] = $0; next } ($1 in c) { print c[$1]; delete c[$1] }
        END { for (k in c) print c[k] }' "$work/$id.counted.unsorted" "$stage/ex/$id/starter.res" >"$work/$id.counted"
    teeth=$(grep -c . "$work/$id.counted") bit=$(awk -F'\t' '$2 == "P"' "$work/$id.counted" | grep -c .)
    ran=$(grep -c . "$work/student-$id.res") passed=$(awk -F'\t' '$2 == "P"' "$work/student-$id.res" | grep -c .)
    counted=1
    if [ -n "$status" ]; then
        got=0 bit=0
    elif [ "$teeth" -eq 0 ]; then
        got=0 counted=0 status=skipped
        text="no test here fails the untouched starter on this machine (skipped tests: see the suites' reasons)"
    else
        got=$(awk -v p="$pts" -v a="$bit" -v n="$teeth" 'BEGIN { printf "%.2f", p * a / n }')
        [ "$bit" -eq "$teeth" ] && status=ok || status="failing tests"
        # Check reports a test whose process died or hung; say which.
        # ... or the judge reports its worker's death or silence (judge/proxy.c).
        if grep -qE $'\t(E|F)\t.*(Received signal|Early exit|your code crashed|process running your code (exited|was killed)|system call the sandbox forbids|your code aborted)' "$work/$id.counted"; then status="crash in a test"
        elif grep -qE $'\t(E|F)\t.*(Test timeout expired|did not answer within)' "$work/$id.counted"; then status="timeout in a test"; fi
        grep -q 'ERROR: AddressSanitizer' "$log" &&
            text="AddressSanitizer stopped a test: a read or write outside an array (its report is below)"
    fi
    if [ $counted -eq 1 ]; then
        total=$(awk -v a="$total" -v b="$got" 'BEGIN { printf "%.2f", a + b }'); max=$((max + pts))
    fi
    # Feedback: what stopped it, or the counted tests that failed, first
    # one first; then the log (compiler messages, the student's prints).
    fb=""
    [ -n "$text" ] && fb="$status: $text"$'\n'
    case $status in "failing tests"|"crash in a test"|"timeout in a test") fb+=$(awk -F'\t' '$2 != "P" { k = $1; sub(/:[0-9]+$/, "", k); print "  " k ": " $3 }' "$work/$id.counted" | head -n 12) ;; esac
    logtext=$(head -c 6000 "$log" | sed 's|/stage/common/inc/||g; s|/sub/||g; s|/scratch/||g')
    [ -n "$logtext" ] && [ "$status" != ok ] && fb+=$'\n'"--- output (compiler, tests, your prints):"$'\n'"$logtext"
    rows+=("$(printf '%-22s %7s %12s   %s' "$id" "$passed/$ran" "$(num "$got")/$pts" "$status")")
    [ "$status" != ok ] && [ "$status" != skipped ] && details+=("--- $id ($status)"$'\n'"$fb")
    # One Gradescope test per counted test; an exercise stopped before its
    # tests (compile error...) is one failed test worth all its points.
    if [ -n "$status" ] && [ "$status" != ok ] && [ "$status" != "failing tests" ] && [ "$status" != skipped ]; then
        tests_json+=("{\"name\": $(json_str "$id: $status"), \"score\": 0, \"max_score\": $pts, \"status\": \"failed\", \"output\": $(json_str "$fb"), \"visibility\": \"visible\"}")
        xml+=("  <testcase classname=$(printf '"%s"' "$(xml_str "$id")") name=\"$(xml_str "$status")\"><properties><property name=\"points\" value=\"0\"/><property name=\"max_points\" value=\"$pts\"/></properties><failure message=\"$(xml_str "$text")\">$(xml_str "$fb")</failure></testcase>")
    elif [ "$status" != skipped ]; then
        while IFS=$'\t' read -r key r msg; do
            each=$(awk -v p="$pts" -v n="$teeth" 'BEGIN { printf "%.4f", p / n }')
            sc=0; [ "$r" = P ] && sc=$each
            st=failed; [ "$r" = P ] && st=passed
            tests_json+=("{\"name\": $(json_str "$id: $key"), \"score\": $(num "$sc"), \"max_score\": $(num "$each"), \"status\": \"$st\", \"output\": $(json_str "$msg"), \"visibility\": \"visible\"}")
            t="  <testcase classname=\"$(xml_str "$id")\" name=\"$(xml_str "$key")\"><properties><property name=\"points\" value=\"$(num "$sc")\"/><property name=\"max_points\" value=\"$(num "$each")\"/></properties>"
            [ "$r" = P ] && xml+=("$t</testcase>") || xml+=("$t<failure message=\"$(xml_str "$msg")\"/></testcase>")
        done <"$work/$id.counted"
    fi
    # For scripts (the handout's status list): the first feedback line
    # is the one that names the likely mistake.
    tsv+=("$(printf '%s\t%s\t%s\t%s\t%s' "$id" "$(num "$got")" "$pts" "$status" \
        "$(printf '%s\n' "$fb" | sed -E 's/^[[:space:]]+//; s/\t/ /g' | grep -m1 . | cut -c1-300)")")
    ex_json+=("{\"id\": $(json_str "$id"), \"title\": $(json_str "$title"), \"points\": $(num "$got"), \"max\": $pts, \"graded\": $([ $counted -eq 1 ] && echo true || echo false), \"status\": $(json_str "$status"), \"counted_tests\": $teeth, \"counted_passed\": $bit, \"feedback\": $(json_str "$fb")}")
done
if [ $found -eq 0 ]; then
    # An exercise.conf with `sandbox = no` exists but is not graded here;
    # say so, and that its README names what checks it, not that it does
    # not exist.
    for f in "$EXDIR"/*/exercise.conf; do
        id=$(basename "$(dirname "$f")")
        [ -n "$EX_FILTER" ] && { [ "$id" = "$EX_FILTER" ] || [ "${id%%-*}" = "$EX_FILTER" ] ||
            [ "$EX_FILTER" -eq "$((10#${id%%-*}))" ] 2>/dev/null; } || continue
        echo "grade: exercise $id is not scored by this grader: its exercise.conf says sandbox = no;" \
             "its README names the target that checks it" >&2
        exit 2
    done
    echo "grade: no exercise${EX_FILTER:+ $EX_FILTER} in $EXDIR/" >&2; exit 2
fi

total_fmt=$(num "$total")
join() { local IFS=,; printf '%s' "$*"; }
{
    printf '{"score": %s, "output": %s, "visibility": "visible", "stdout_visibility": "visible",\n' "$total_fmt" \
        "$(json_str "normlab: $total_fmt/$max$([ -n "$unsafe" ] && echo ' (UNSAFE: graded without a sandbox)')")"
    printf ' "extra_data": {"submission": %s, "max": %d, "exercises": [%s]},\n' "$(json_str "$name")" "$max" "$(join "${ex_json[@]}")"
    printf ' "tests": [\n  %s\n ]}\n' "$(printf '%s\n' "${tests_json[@]}" | paste -sd, - | sed 's/},{/},\n  {/g')"
} >"$out/$safe_name.json"
{
    printf '<?xml version="1.0" encoding="UTF-8"?>\n'
    printf '<testsuite name="%s" tests="%d" failures="%d">\n' "$(xml_str "$name")" "${#xml[@]}" \
        "$(printf '%s\n' "${xml[@]}" | grep -c '<failure')"
    printf '%s\n' "${xml[@]}"
    printf '</testsuite>\n'
} >"$out/$safe_name.xml"
{
    for d in "${details[@]}"; do printf '%s\n\n' "$d"; done
    printf '%-22s %7s %12s   %s\n' exercise tests points status
    printf '%s\n' "${rows[@]}"
    echo "points count the tests an untouched starter fails; results: $out/$safe_name.json (Gradescope), $out/$safe_name.xml (JUnit)"
    [ -n "$unsafe" ] && echo "UNSAFE=1: graded WITHOUT a sandbox"
    echo "random inputs drawn with seed $seed (GRADE_SEED=$seed replays them)"
    echo "Score: $total_fmt/$max"
} >"$out/$safe_name.txt"
printf '%s\n' "${tsv[@]}" >"$out/$safe_name.tsv"
[ -n "$quiet" ] || cat "$out/$safe_name.txt"
[ "$total_fmt" = "$max" ] || [ "${GRADE_EXIT0:-}" = 1 ] || exit 1
exit 0
