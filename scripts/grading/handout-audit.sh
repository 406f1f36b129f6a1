#!/usr/bin/env bash
# handout-audit.sh TREE — fail if the student tree TREE (an unpacked
# handout) holds any exercise's answer, in any form the grader could use
# or a student could read: an object, archive or packed file of any name;
# a region's answer lines (in code, a string literal, any text); or the
# machine code of an answer, compiled here from the real code/ exactly as
# the grader compiles a submission and compared byte for byte with every
# file's bytes and the bytes its text spells (C byte lists, hex, base64),
# relocated bytes masked.  handout-audit.py says how; exercises-handout.sh
# runs this on every handout it makes, and the self-tests show it catching
# each form.  Run from the course's root (its code/ holds the answers).
# Exit 0: nothing found; 1: findings, one a line; 2: usage or setup error.
set -u
tree=${1:-}
[ -d "$tree" ] || { echo "handout-audit: say which unpacked handout to search (got '$tree')" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/normlab-audit.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

"$here/exercises.sh" generate "$work/starters" code >/dev/null || exit 2
: >"$work/regions"
objs=()
while read -r id file; do
    awk -v mode=list -f "$here/../book/snippets.awk" "$file" |
        awk -v id="$id" '$1 == "exercise" && $2 == id { print id, $3, $4, $5 }' >>"$work/regions"
    case $file in *.c) ;; *) continue ;; esac
    # shellcheck disable=SC2206,SC2207  # flags, split as the grader splits them
    flags=($cflags $(isa_flags "$file") -I"$(dirname "$file")")
    case $file in code/mpi/*) flags+=($(pkg-config --cflags ompi-c 2>/dev/null)) ;; esac
    # Where the grader itself could not build it (14 without Open MPI's
    # headers), there is no machine code to look for; its source still is.
    "$CC" "${flags[@]}" -c "$file" -o "$work/$id.real.o" 2>/dev/null &&
        "$CC" "${flags[@]}" -c "$work/starters/$id/${file##*/}" -o "$work/$id.starter.o" 2>/dev/null &&
        objs+=("$id" "$work/$id.real.o" "$work/$id.starter.o")
done < <("$here/exercises.sh" list code)
python3 "$here/handout-audit.py" "$tree" "$work/regions" "${objs[@]}"
