#!/usr/bin/env bash
# handout-status.sh [BUILD] — in the students' handout: which exercises are
# done, which are in progress, which are not started.
#
# An exercise is "not started" while its file still holds the starter's
# TODO(NN-slug) line.  Every other one is graded as `make grade EX=NN`
# grades it (grade.sh: in the sandbox, on its own code alone, every other
# exercise its untouched starter), so the list
# and the grade never disagree: "done" is full marks, "in progress" shows
# the grader's first feedback line.  (The list once linked the
# student's own earlier exercises, and showed a correct 11 "in progress"
# beside a starter 02 while the grade gave it 10/10.)
#
# A verdict is kept in BUILD/status/ with a checksum of what it was graded
# from (the exercise's files, its exercise.conf and suites, the grader and
# the code the starters are made from), so `make` regrades only what
# changed.  Where no
# sandbox can be made the grader refuses to run, and the list falls back
# to running the suites on your own build, as you, and says so.
#
# Always exits 0: this is a list, not a verdict (make test and make grade
# give those).  HANDOUT_EXERCISES=DIR reads another exercises/ (the
# self-tests).
set -u
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
EXDIR=${HANDOUT_EXERCISES:-exercises}
cache=$build/status
mkdir -p "$cache/cache" || exit 0

# Every exercise's files, listed once (exercises.sh reads every marked source).
graded=$("$here/exercises.sh" list code)
files_of() { awk -v id="$1" '$1 == id { print $2 }' <<<"$graded"; }

# What a verdict depends on besides the student's files: a change to any
# of them (a new handout) regrades everything.
grader_sum=$(cat "$here"/*.sh "$here/runner.c" "$here"/judge/*.[ch] \
    $(printf '%s\n' "$graded" | awk '{ print $2 }') 2>/dev/null | sha256sum | cut -c1-64)
verdict_key() {    # verdict_key ID CONF: the checksum a cached verdict must carry
    local f s
    {
        printf '%s\n' "$grader_sum"
        cat "$2"
        for f in $(files_of "$1"); do cat "$EXDIR/$1/${f##*/}" 2>/dev/null; done
        for s in $(conf "$2" suite | tr ',' ' '); do cat "tests/check_$s.c" 2>/dev/null; done
    } | sha256sum | cut -c1-64
}

# 1. What the files say: not started, or edited (to be graded).
ids=() state=() next=() to_grade=()
for cfile in $(exercise_confs); do
    id=$(basename "$(dirname "$cfile")") s="" n=""
    for f in $(files_of "$id"); do
        p=$EXDIR/$id/${f##*/}
        if [ ! -f "$p" ]; then s="not started" n="$p is missing (make exercises writes it)"
        elif grep -q "TODO($id)" "$p"; then s="not started" n="edit $p (see exercises/$id/README.md)"; fi
    done
    if [ -z "$s" ]; then
        key=$(verdict_key "$id" "$cfile")
        if [ -f "$cache/cache/$id" ] && [ "$(head -n 1 "$cache/cache/$id")" = "$key" ]; then
            s=$(sed -n 2p "$cache/cache/$id") n=$(sed -n 3p "$cache/cache/$id")
        else
            s=grade n=$key to_grade+=("$id")
        fi
    fi
    ids+=("$id") state+=("$s") next+=("$n")
done

# 2. The edited exercises the cache does not hold: one grading run.
fallback=""
if [ ${#to_grade[@]} -gt 0 ]; then
    echo "(grading ${to_grade[*]} as make grade does, on your code alone; unchanged files are not graded again)" >&2
    rm -f "$cache/status.tsv"
    LAB=$(IFS=,; printf '%s' "${to_grade[*]}") GRADE_EXIT0=1 \
        "$here/grade.sh" --exercises "$EXDIR" --submission "$EXDIR" --build "$build" \
        --out "$cache" --name status --quiet >"$cache/grade.log" 2>&1
    case $? in
    0) ;;
    3) fallback="no sandbox can be made here: the grader refuses to run your code, so your suites ran as you, unconfined, on your own build (your other exercises' code included)" ;;
    *) fallback="the grader could not run (its output: $cache/grade.log): your suites ran on your own build instead" ;;
    esac
fi

# The fallback: the suites, as you, on your own build (which links your
# other exercises: their mistakes show here too).
suite_verdict() {   # suite_verdict ID CONF: prints "state<TAB>next"
    local suite bin out
    for suite in $(conf "$2" suite | tr ',' ' '); do
        bin=$build/tests/check_$suite
        [ -x "$bin" ] || { printf 'not built\trun make first\n'; return; }
        out=$(NL_SUITE_NAME=$suite NL_IMPLS=$(conf "$2" impls) CK_VERBOSITY=normal "$bin" 2>&1) && continue
        out=$(grep -m1 -E ':[EF]:' <<<"$out" | sed -E 's/^[^:]*:[0-9]+:[EF]:[^:]*:([^:]*):[0-9]+: /\1: /' | cut -c1-150)
        printf 'in progress\t%s\n' "${out:-suite $suite fails (run $bin)}"; return
    done
    printf 'done\t\n'
}

[ -z "$fallback" ] || echo "($fallback)"
printf '%-22s %-12s %s\n' exercise state "what next"
done_n=0 left=()
for i in "${!ids[@]}"; do
    id=${ids[$i]} s=${state[$i]} n=${next[$i]}
    if [ "$s" = grade ]; then
        key=$n
        if [ -n "$fallback" ]; then
            IFS=$'\t' read -r s n < <(suite_verdict "$id" "$EXDIR/$id/exercise.conf")
        elif IFS=$'\t' read -r _ got max st fb < <(awk -F'\t' -v id="$id" '$1 == id' "$cache/status.tsv" 2>/dev/null); then
            case $st in
            ok) s=done n="" ;;
            skipped) s="not graded" n="no test of it counts on this machine (make grade EX=${id%%-*} says why)" ;;
            *) s="in progress" n="$got/$max: ${fb:-$st}" ;;
            esac
            printf '%s\n%s\n%s\n' "$key" "$s" "$n" >"$cache/cache/$id"
        else
            s="not graded" n="the grader gave no verdict (see $cache/grade.log)"
        fi
    fi
    [ "$s" = done ] && done_n=$((done_n + 1)) || left+=("$id")
    printf '%-22s %-12s %s\n' "$id" "$s" "$(printf '%s' "$n" | cut -c1-160)"
done
echo
if [ ${#left[@]} -eq 0 ]; then
    echo "all ${#ids[@]} exercises done: make test runs every suite on your code; make grade scores it"
else
    echo "$done_n of ${#ids[@]} exercises done; not done yet: ${left[*]}"
    echo "(make grade EX=NN scores one exercise, with the grader's feedback)"
fi
exit 0
