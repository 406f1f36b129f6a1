#!/usr/bin/env bash
# grade-class.sh --submissions DIR [--out DIR] [--jobs N] [--stage DIR] [grade.sh options]
#
# Grades a whole class: every folder in DIR is one student (its name is the
# student's), laid out as the course does, as the handout does, or flat
# (collect.sh finds the files).  One stage and one run of the starters
# serve every student; students are graded N at a time (default 2), each
# in its own sandbox under its own uid (so one student's fork bomb cannot
# use up another's processes).
#
# Writes OUT (default build/grade-class): gradebook.csv (student, points
# per exercise, total, max), and reports/NAME.{txt,json,xml} per student
# (the report, Gradescope's results.json format, JUnit).  Prints the
# gradebook and the time taken.  Exit 2 on a usage or setup error, 3 when
# no sandbox can be made (see grade.sh); a student's low score is not an
# error here.  --stage DIR grades against a stage an earlier run made of
# the same exercises (grade.sh --stage; the self-tests share one) instead
# of making one, and reuses the starters' results it holds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
subs="" out=build/grade-class jobs=2 stage="" pass=()
while [ $# -gt 0 ]; do
    case $1 in
    --submissions) subs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --stage) stage=$2; shift 2 ;;
    --exercises|--code|--suites|--build) pass+=("$1" "$2"); shift 2 ;;
    *) echo "grade-class: unknown option '$1'; its usage:" >&2
       awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2 ;;
    esac
done
[ -n "$subs" ] && [ -d "$subs" ] || { echo "grade-class: SUBMISSIONS must name a folder of student folders (got '$subs')" >&2; exit 2; }
case $jobs in ''|*[!0-9]*|0) echo "grade-class: --jobs must be a positive number" >&2; exit 2 ;; esac
start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/normlab-class.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$out/reports" || exit 2

# The stage and the starters' results, once, before any student.
EXDIR=exercises CODE=code SUITES=tests BUILD=build
for ((i = 0; i < ${#pass[@]}; i += 2)); do
    case ${pass[i]} in
    --exercises) EXDIR=${pass[i+1]} ;; --code) CODE=${pass[i+1]} ;;
    --suites) SUITES=${pass[i+1]} ;; --build) BUILD=${pass[i+1]} ;;
    esac
done
export EXDIR CODE SUITES BUILD EX_FILTER=""
"$here/sandbox.sh" --probe >/dev/null 2>&1 || [ "${UNSAFE:-}" = 1 ] ||
    { "$here/sandbox.sh" --probe; echo "grade-class: refusing to grade without a sandbox (UNSAFE=1 overrides)" >&2; exit 3; }
. "$here/lib.sh"
if [ -n "$stage" ]; then
    [ -d "$stage/common" ] && [ -d "$stage/ex" ] ||
        { echo "grade-class: --stage $stage is not a stage (it has no common/ and ex/; grade.sh makes them)" >&2; exit 2; }
else
    stage=$work/stage
    BUILD=$(reference_build "$BUILD" "$work/refbuild") || exit 2   # the handout's reference objects (lib.sh)
    "$here/stage.sh" "$stage" || exit 2
fi
if [ ! -f "$stage/starters.done" ]; then
    mkdir -p "$work/empty"
    "$here/grade.sh" "${pass[@]}" --stage "$stage" --submission "$work/empty" --out "$work/starter-out" --quiet
fi
[ -f "$stage/starters.done" ] || { echo "grade-class: the starters could not be graded" >&2; exit 2; }

# One line per student: index and folder (names with spaces, quotes and
# newlines-free are safe; a name with a newline is refused).
n=0
: >"$work/list"
while IFS= read -r -d '' d; do
    name=$(basename "$d")
    case $name in *$'\n'*) echo "grade-class: skipping a folder whose name holds a newline" >&2; continue ;; esac
    n=$((n + 1)); printf '%d\t%s\n' "$n" "$d" >>"$work/list"
done < <(find "$subs" -mindepth 1 -maxdepth 1 -type d -print0 | sort -z)
[ "$n" -gt 0 ] || { echo "grade-class: no student folders in $subs" >&2; exit 2; }

grade_student() {   # grade_student INDEX DIR
    local i=$1 d=$2 name
    name=$(basename "$d")
    CODE=$CODE "$here/collect.sh" "$d" "$work/in/$i" 
    GRADE_UID=$(( 60000 + i )) GRADE_EXIT0=1 "$here/grade.sh" "${pass[@]}" --stage "$stage" \
        --submission "$work/in/$i" --name "$name" --out "$out/reports" --quiet \
        >"$work/log-$i" 2>&1 || echo "grade-class: $name: grading failed (see $work/log-$i)" >&2
}
while IFS=$'\t' read -r i d; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    grade_student "$i" "$d" &
done <"$work/list"
wait

# The gradebook, from each student's table (ID TESTS GOT/MAX STATUS).
ids=$(for c in $(exercise_confs); do basename "$(dirname "$c")"; done)
csv_field() {   # a CSV field: quoted, quotes doubled, and a leading = + - @ defused for spreadsheets
    local v=$1
    case $v in [=+@-]*) v="'$v" ;; esac
    printf '"%s"' "${v//\"/\"\"}"
}
{
    printf 'student'; for id in $ids; do printf ',%s' "$id"; done; printf ',total,max\n'
    while IFS=$'\t' read -r i d; do
        name=$(basename "$d")
        safe=$(safe_file_name "$name")
        rep=$out/reports/$safe.txt
        csv_field "$name"
        for id in $ids; do
            v=$(awk -v id="$id" '$1 == id { split($3, p, "/"); print p[1]; exit }' "$rep" 2>/dev/null)
            printf ',%s' "${v:-0}"
        done
        s=$(sed -n 's/^Score: //p' "$rep" 2>/dev/null)
        printf ',%s,%s\n' "${s%/*}" "${s#*/}"
    done <"$work/list"
} >"$out/gradebook.csv"
cat "$out/gradebook.csv"
echo "grade-class: $n students in $(( $(date +%s) - start )) s ($jobs at a time); gradebook $out/gradebook.csv, reports in $out/reports/"
