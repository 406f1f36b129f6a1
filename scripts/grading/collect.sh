#!/usr/bin/env bash
# collect.sh SRC DEST — a student's upload, however laid out, as the
# grader's exercises folder: DEST/NN-slug/<file> for every exercise file
# found in SRC.  Accepted: SRC/NN-slug/<file> (the course's layout),
# SRC/exercises/NN-slug/<file> (the whole handout), or the files anywhere
# below SRC (a flat upload, as Gradescope and LMSs give them), as long as
# one file has the name.  Only plain files are taken (no links, no FIFOs,
# at most 1 MB); SRC is only read.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$1 dest=$2 code=${CODE:-code}
mkdir -p "$dest" || exit 2
"$here/exercises.sh" list "$code" | while read -r id file; do
    base=${file##*/} found=""
    for c in "$src/$id/$base" "$src/exercises/$id/$base" "$src/$base"; do
        [ -f "$c" ] && [ ! -L "$c" ] && { found=$c; break; }
    done
    # Then, one level deeper each time: the file under an exercises/ID/
    # folder (a handout uploaded in its normlab/ folder, whose code/ holds
    # a stub of the same name), under an ID/ folder, or by its name alone;
    # each only where exactly one file fits.
    for pat in "*/exercises/$id/$base" "*/$id/$base" "*/$base"; do
        [ -z "$found" ] || break
        n=$(find "$src" -maxdepth 5 -type f -path "$pat" 2>/dev/null | grep -c .)
        [ "$n" -eq 1 ] && found=$(find "$src" -maxdepth 5 -type f -path "$pat" 2>/dev/null)
    done
    [ -n "$found" ] && [ "$(wc -c <"$found")" -le 1048576 ] || continue
    mkdir -p "$dest/$id" && cp -- "$found" "$dest/$id/$base"
done
