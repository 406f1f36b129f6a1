#!/bin/sh
# exercises-handout.sh OUT.tar.gz — the course as students get it.
#
# Everything git knows about (tracked, or new and not ignored) except
# solutions/, with these changes: every code/ file holding an @exercise
# region has the region's body replaced by its TODO and stub, markers kept
# (so the answers are not in the tarball, yet `make book` still finds its
# snippets and `make exercises-check` finds the starters current); and
# handout-tree.sh makes it a student's tree: the build compiles the
# student's exercises/ files, `make` and `make test` list what is done and
# what is left, the README speaks to students, and a GitHub Classroom
# workflow grades each push; the grader's reference objects
# (handout-reference.sh: compiled, no source) let it grade each exercise
# against the reference code of the others. The check at the end fails if any solution
# slipped in.
set -eu
out=${1:-build/normlab-handout.tar.gz}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/normlab-handout.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
stage=$tmp/normlab
mkdir -p "$stage"

if git rev-parse --git-dir >/dev/null 2>&1; then
    files=$(git ls-files --cached --others --exclude-standard)
else
    files=$(find . -type f ! -path './build*' ! -path './.git/*' | sed 's|^\./||')
fi
printf '%s\n' "$files" | grep -v -e '^solutions/' -e '^build' | while read -r f; do
    [ -f "$f" ] || continue          # deleted but still in the index
    mkdir -p "$stage/$(dirname "$f")" && cp -p "$f" "$stage/$f"
done

# The reference objects, compiled from the real code before it is stubbed
# (a handout made from a handout keeps the ones it was given: its code/ is
# the stubs).
if [ ! -f "$here/reference/machine.txt" ]; then
    "$here/handout-reference.sh" "$stage/scripts/grading/reference" ||
        { echo "handout: could not compile the reference objects" >&2; exit 1; }
fi

"$here/exercises.sh" list code | while read -r id file; do
    awk -v mode=handout -f "$here/../book/snippets.awk" "$file" >"$stage/$file"
done

# A lab (LAB=09,10): its exercises in lab.txt, which the handout's grader
# reads (lib.sh's in_lab), and its assignment sheet.
if [ -n "${LAB:-}" ]; then
    printf '%s\n' "$LAB" >"$stage/lab.txt"
    "$here/lab-sheet.sh" "$stage/lab.md" >/dev/null || { echo "handout: could not write the lab's sheet" >&2; exit 1; }
fi

"$here/handout-tree.sh" "$stage" || { echo "handout: could not turn the tree into a handout" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
tar -czf "$out" -C "$tmp" normlab

# The promise, checked on the tarball itself.
if tar -tzf "$out" | grep -q '^normlab/solutions/'; then
    echo "handout: solutions/ is in $out" >&2; rm -f "$out"; exit 1
fi
mkdir -p "$tmp/check" && tar -xzf "$out" -C "$tmp/check"
(cd "$tmp/check/normlab" && "$here/exercises.sh" list code) | while read -r id file; do
    lines=$(awk -v mode=list -f "$here/../book/snippets.awk" "$tmp/check/normlab/$file" |
        awk -v id="$id" '$1 == "exercise" && $2 == id { n += $5 - $4 + 1 } END { print n + 0 }')
    regions=$(awk -v mode=list -f "$here/../book/snippets.awk" "$tmp/check/normlab/$file" |
        awk -v id="$id" '$1 == "exercise" && $2 == id' | wc -l)
    # Each region may hold only its TODO line, and its @stub lines each
    # followed by their code.
    stubs=$(grep -c '@stub' "$tmp/check/normlab/$file" || true)
    if [ "$lines" -ne $((regions + 2 * stubs)) ]; then
        echo "handout: $file still holds code of exercise $id" >&2; rm -f "$out"; exit 1
    fi
done
echo "handout: $out ($(tar -tzf "$out" | grep -vc '/$') files, no solutions/, exercise regions stubbed)"
