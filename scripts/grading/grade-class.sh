#!/usr/bin/env bash
# grade-class.sh --submissions DIR [--out DIR] [--jobs N] [--stage DIR]
#                [--protected SUMS] [--roster CSV] [grade.sh options]
#
# Grades a whole class: every folder in DIR is one student (its name is the
# student's), laid out as the course does, as the handout does (a clone of
# a GitHub Classroom repository, say), or flat (collect.sh finds the
# files).  One stage and one run of the starters serve every student;
# students are graded N at a time (default 2), each in its own sandbox
# under its own uid (so one student's fork bomb cannot use up another's
# processes).  Only the student's exercise files are read: the grader,
# library and suites are this tree's, whatever a repository holds.
#
# A repository in the handout's layout is also compared with the handout
# it was made from: --protected SUMS (default: the
# build/normlab-handout.protected.sha256 that make handout leaves) lists
# the checksums of the files a student has no reason to edit (the
# Classroom workflow, the grader, the library, the suites:
# protected-paths.txt).  A repository whose protected files differ is
# flagged (its Classroom score was not computed by the handout's grader;
# the grade here is), in the gradebook's `protected` column and in
# protected.txt, file by file.
#
# --roster CSV, a GitHub Classroom roster (columns identifier and
# github_username): a folder named ASSIGNMENT-USERNAME (as Classroom names
# the students' repositories) is graded under the student's identifier, and
# a student of the roster with no folder gets a gradebook row of zeros.
#
# Writes OUT (default build/grade-class): gradebook.csv (student, points
# per exercise, total, max, protected), protected.txt, and
# reports/NAME.{txt,json,xml} per student (the report, Gradescope's
# results.json format, JUnit).  Prints the gradebook and the time taken.
# Exit 2 on a usage or setup error, 3 when no sandbox can be made (see
# grade.sh); a student's low score is not an error here.  --stage DIR
# grades against a stage an earlier run made of the same exercises
# (grade.sh --stage; the self-tests share one) instead of making one, and
# reuses the starters' results it holds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
subs="" out=build/grade-class jobs=2 stage="" pass=() sums="" roster=""
[ -f build/normlab-handout.protected.sha256 ] && sums=build/normlab-handout.protected.sha256
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "grade-class: $1 needs a value" >&2; exit 2; }
    case $1 in
    --submissions) subs=$2; shift 2 ;;
    --protected) sums=$2; shift 2 ;;
    --roster) roster=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --stage) stage=$2; shift 2 ;;
    --exercises|--code|--suites|--build) pass+=("$1" "$2"); shift 2 ;;
    *) echo "grade-class: unknown option '$1'; its usage:" >&2
       awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2 ;;
    esac
done
[ -n "$subs" ] && [ -d "$subs" ] || { echo "grade-class: SUBMISSIONS must name a folder of student folders (got '$subs')" >&2; exit 2; }
[ -z "$sums" ] || [ -f "$sums" ] || { echo "grade-class: --protected names no file of checksums ('$sums'; make handout writes one beside the tarball)" >&2; exit 2; }
[ -z "$roster" ] || [ -f "$roster" ] || { echo "grade-class: --roster names no file ('$roster')" >&2; exit 2; }
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
    "$here/stage.sh" "$stage" || exit 2
fi
# The starters' results of the exercises graded here (every one, or the
# lab's: a run limited by LAB grades only those).
starters_ready() {
    local c
    [ -f "$stage/starters.done" ] && return 0
    for c in $(exercise_confs); do [ -f "$stage/ex/$(basename "$(dirname "$c")")/starter.res" ] || return 1; done
}
if ! starters_ready; then
    mkdir -p "$work/empty"
    "$here/grade.sh" "${pass[@]}" --stage "$stage" --submission "$work/empty" --out "$work/starter-out" --quiet
fi
starters_ready || { echo "grade-class: the starters could not be graded" >&2; exit 2; }

# The roster's students, "identifier<TAB>github_username" (python3's csv:
# Classroom quotes every field).
: >"$work/roster"
if [ -n "$roster" ]; then
    python3 - "$roster" >"$work/roster" <<'PY' || { echo "grade-class: $roster is not a Classroom roster (columns identifier and github_username)" >&2; exit 2; }
import csv, sys
rows = csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8-sig"))
if not rows.fieldnames or "identifier" not in rows.fieldnames or "github_username" not in rows.fieldnames:
    sys.exit(1)
for r in rows:
    who, user = (r["identifier"] or "").strip(), (r["github_username"] or "").strip()
    if who and "\t" not in who + user and "\n" not in who + user:
        print(who + "\t" + user)
PY
fi
# shown_name FOLDER: the student's name in the gradebook: the roster's
# identifier of a folder named ...-USERNAME, else the folder's name.
shown_name() {
    local f=$1 who user
    while IFS=$'\t' read -r who user; do
        [ -n "$user" ] && [[ ${f,,} == *-"${user,,}" ]] && { printf '%s' "$who"; return; }
    done <"$work/roster"
    printf '%s' "$f"
}

# One line per student: index, folder and name, split by US (0x1f), which
# no name holds and which, unlike a tab, keeps an empty field (a roster's
# student with no folder); a name with a newline is refused.
us=$'\x1f'
n=0
: >"$work/list"
while IFS= read -r -d '' d; do
    name=$(basename "$d")
    case $name in *$'\n'*|*"$us"*) echo "grade-class: skipping a folder whose name holds a newline or a control character" >&2; continue ;; esac
    n=$((n + 1)); printf '%d%s%s%s%s\n' "$n" "$us" "$d" "$us" "$(shown_name "$name")" >>"$work/list"
done < <(find "$subs" -mindepth 1 -maxdepth 1 -type d -print0 | sort -z)
[ "$n" -gt 0 ] || [ -s "$work/roster" ] || { echo "grade-class: no student folders in $subs" >&2; exit 2; }

# protected_state DIR: "ok", "changed N" (details in $work/protected-NAME),
# "not a handout" (course layout or loose files: nothing to compare), or
# "not checked" (no checksums).
protected_state() {
    local d=$1 name=$2 root="" k
    for root in "$d" "$d/normlab" ""; do [ -n "$root" ] && [ -d "$root/scripts/grading" ] && break; done
    [ -n "$root" ] || { echo "not a handout"; return; }
    [ -n "$sums" ] || { echo "not checked"; return; }
    if "$here/protected.sh" check "$root" "$sums" >"$work/protected-$name" 2>&1; then echo ok; return; fi
    k=$(grep -c . "$work/protected-$name")
    echo "changed $k"
}

grade_student() {   # grade_student INDEX DIR NAME
    local i=$1 d=$2 name=$3
    CODE=$CODE "$here/collect.sh" "$d" "$work/in/$i"
    protected_state "$d" "$i" >"$work/state-$i"
    GRADE_UID=$(( 60000 + i )) GRADE_EXIT0=1 "$here/grade.sh" "${pass[@]}" --stage "$stage" \
        --submission "$work/in/$i" --name "$name" --out "$out/reports" --quiet \
        >"$work/log-$i" 2>&1 || echo "grade-class: $name: grading failed (see $work/log-$i)" >&2
}
while IFS=$us read -r i d name; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    grade_student "$i" "$d" "$name" &
done <"$work/list"
wait
# The roster's students with no folder.
while IFS=$'\t' read -r who user; do
    awk -F"$us" -v w="$who" '$3 == w { found = 1 } END { exit !found }' "$work/list" && continue
    n=$((n + 1)); printf '%d%s%s%s\n' "$n" "$us" "$us" "$who" >>"$work/list"; echo "no repository" >"$work/state-$n"
done <"$work/roster"

# The gradebook, from each student's table (ID TESTS GOT/MAX STATUS).
ids=$(for c in $(exercise_confs); do basename "$(dirname "$c")"; done)
csv_field() {   # a CSV field: quoted, quotes doubled, and a leading = + - @ defused for spreadsheets
    local v=$1
    case $v in [=+@-]*) v="'$v" ;; esac
    printf '"%s"' "${v//\"/\"\"}"
}
max=0
for c in $(exercise_confs); do max=$((max + $(conf "$c" points))); done
: >"$out/protected.txt"
{
    printf 'student'; for id in $ids; do printf ',%s' "$id"; done; printf ',total,max,protected\n'
    while IFS=$us read -r i d name; do
        safe=$(safe_file_name "$name")
        rep=$out/reports/$safe.txt
        [ -n "$d" ] || rep=/dev/null
        csv_field "$name"
        for id in $ids; do
            v=$(awk -v id="$id" '$1 == id { split($3, p, "/"); print p[1]; exit }' "$rep" 2>/dev/null)
            printf ',%s' "${v:-0}"
        done
        s=$(sed -n 's/^Score: //p' "$rep" 2>/dev/null)
        [ -n "$d" ] || s=0/$max
        state=$(cat "$work/state-$i" 2>/dev/null)
        printf ',%s,%s,' "${s%/*}" "${s#*/}"; csv_field "${state:-not checked}"; echo
        if [ -f "$work/protected-$i" ] && [ -s "$work/protected-$i" ]; then
            { printf '%s: protected files differ from the handout'"'"'s:\n' "$name"; sed 's/^/  /' "$work/protected-$i"; } >>"$out/protected.txt"
        fi
    done <"$work/list"
} >"$out/gradebook.csv"
cat "$out/gradebook.csv"
if [ -s "$out/protected.txt" ]; then
    echo "grade-class: the repositories below edited files the handout protects: their Classroom scores" \
         "were not made by the handout's grader (the grades here were, from their exercise files alone)"
    cat "$out/protected.txt"
fi
echo "grade-class: $n students in $(( $(date +%s) - start )) s ($jobs at a time); gradebook $out/gradebook.csv, reports in $out/reports/"
