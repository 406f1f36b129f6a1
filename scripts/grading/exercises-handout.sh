#!/bin/sh
# exercises-handout.sh OUT.tar.gz — the course as students get it.
#
# Everything git knows about (tracked, or new and not ignored) except
# solutions/ and tests/grader/ (the grader's self-tests: they write
# answers, some with one thing broken, to grade), with these changes:
# every code/ file holding an @exercise region has the region's body
# replaced by its TODO and stub, markers kept (so `make book` still finds
# its snippets and `make exercises-check` finds the starters current); and
# handout-tree.sh makes it a student's tree: the build compiles the
# student's exercises/ files, `make` and `make test` list what is done and
# what is left, the README speaks to students, and a GitHub Classroom
# workflow grades each push.  The grader grades each exercise with every
# other one as its untouched starter (stage.sh), so it needs no answer.
#
# Two checks on the tarball itself: every region is a stub, and
# handout-audit.sh finds no answer in any form (no object, archive,
# answer line or answer machine code).  Beside OUT it writes
# OUT-without-.tar.gz.protected.sha256: the checksums of the files a
# student has no reason to edit (protected-paths.txt), the same list as
# the handout's own copy, kept on the instructor's side for
# `make grade-class` (grade-class.sh --protected).
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
printf '%s\n' "$files" | grep -v -e '^solutions/' -e '^build' -e '^tests/grader/' | while read -r f; do
    [ -f "$f" ] || continue          # deleted but still in the index
    mkdir -p "$stage/$(dirname "$f")" && cp -p "$f" "$stage/$f"
done

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
"$here/protected.sh" write "$stage" || { echo "handout: could not write the protected files' checksums" >&2; exit 1; }

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
if ! "$here/handout-audit.sh" "$tmp/check/normlab" >"$tmp/audit.txt"; then
    echo "handout: $out holds an answer (handout-audit.sh):" >&2; sed 's/^/  /' "$tmp/audit.txt" >&2
    rm -f "$out"; exit 1
fi
cp "$stage/scripts/grading/protected.sha256" "${out%.tar.gz}.protected.sha256"
echo "handout: $out ($(tar -tzf "$out" | grep -vc '/$') files, no solutions/, no answer in any form (handout-audit.sh);" \
     "checksums of its protected files: ${out%.tar.gz}.protected.sha256)"
