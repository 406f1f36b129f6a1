#!/bin/sh
# book.sh pdf|html OUT [--solutions] — render the course book with pandoc.
#
# Chapters are chapters/NN-*.md in order. Before pandoc runs, every snippet
# a chapter names is checked (the message names the file, line, chapter and
# snippet); book/snippets.lua then pulls the listings out of the source.
# Each chapter is followed by a box listing its exercises, read from
# exercises/*/exercise.conf (chapter = N) and the Goal of each README.
# --solutions appends solutions/*.md as an "Answer key" appendix.
set -eu
fmt=${1:?usage: book.sh pdf|html OUT [--solutions]}
out=${2:?usage: book.sh pdf|html OUT [--solutions]}
solutions=${3:-}
work=${BUILD:-build}/book
mkdir -p "$work" "$(dirname "$out")"

chapters=$(ls chapters/[0-9][0-9]-*.md 2>/dev/null | LC_ALL=C sort)
[ -n "$chapters" ] || { echo "book: no chapters/NN-*.md" >&2; exit 1; }
docs=$chapters
if [ "$solutions" = --solutions ]; then
    sols=$(ls solutions/[0-9][0-9]-*.md 2>/dev/null | LC_ALL=C sort)
    [ -n "$sols" ] || { echo "book: SOLUTIONS=1 but there is no solutions/NN-*.md here (a student handout has none)" >&2; exit 1; }
    docs="$docs $sols"
fi
# shellcheck disable=SC2086
scripts/book/snippets.sh check $docs

conf() { awk -v k="$2" -F= '{ sub(/#.*/, "") } { key = $1; gsub(/[ \t]/, "", key) }
    key == k { v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", v); print v; exit }' "$1"; }

# The first paragraph under "## Goal" of an exercise README (or, lacking
# that heading, the first paragraph after the title), on one line.
goal() {
    if grep -q '^## *Goal' "$1"; then start='^## *Goal'; else start='^# '; fi
    awk -v start="$start" '$0 ~ start { on = 1; next }
        on && /^#/ { exit }
        on && NF { buf = buf (buf ? " " : "") $0; next }
        on && buf && !NF { exit }
        END { sub(/^\*\*Goal[.:]?\*\*[.:]? */, "", buf); print buf }' "$1"
}

# {{key}} in a chapter becomes the value book-numbers printed for key; an
# unknown key stops the build, naming the chapter.
numbers=$work/numbers.txt
if [ -n "${BOOK_NUMBERS:-}" ]; then "$BOOK_NUMBERS" >"$numbers"; else : >"$numbers"; fi
substitute() {
    awk -v doc="$1" 'FNR == NR { val[$1] = $2; next }
        { line = $0; out = ""
          while (match(line, /\{\{[a-z0-9_.]+\}\}/)) {
              key = substr(line, RSTART + 2, RLENGTH - 4)
              if (!(key in val)) { printf "%s:%d: number {{%s}} is not printed by book-numbers (scripts/book/book-numbers.c)\n", doc, FNR, key > "/dev/stderr"; bad = 1 }
              out = out substr(line, 1, RSTART - 1) val[key]; line = substr(line, RSTART + RLENGTH) }
          print out line }
        END { exit bad }' "$numbers" "$1"
}

exercise_box() {   # exercise_box N: the markdown of chapter N's box, if any
    n=$1 first=1
    for c in $(ls exercises/*/exercise.conf 2>/dev/null | LC_ALL=C sort); do
        [ "$(conf "$c" chapter)" = "$n" ] || continue
        d=$(dirname "$c"); id=$(basename "$d")
        if [ $first = 1 ]; then
            printf '\n::: exercises\n**Exercises for this chapter**\n\n'; first=0
        fi
        files=$(scripts/grading/exercises.sh list code | awk -v id="$id" '$1 == id { n = split($2, p, "/"); printf "%s`exercises/%s/%s`", (k++ ? ", " : ""), id, p[n] }')
        printf '**%s. %s** (%s points). ' "${id%%-*}" "$(conf "$c" title)" "$(conf "$c" points)"
        [ -f "$d/README.md" ] && printf '%s ' "$(goal "$d/README.md")"
        printf 'Edit %s; check with `make grade EX=%s`. Details: `%s/README.md`.\n\n' \
            "${files:-the files in \`$d\`}" "${id%%-*}" "$d"
    done
    [ $first = 1 ] || printf ':::\n'
}

{
    for ch in $chapters; do
        printf '\n<!-- source: %s -->\n\n' "$ch"
        substitute "$ch" || { echo "book: $ch uses a number nobody computes" >&2; exit 1; }
        n=$(basename "$ch" | sed 's/-.*//; s/^0*//')
        exercise_box "$n"
    done
    if [ "$solutions" = --solutions ]; then
        printf '\n<!-- answer-key -->\n\n# Answer key {#answer-key}\n\n'
        printf 'Worked answers to the exercises, for instructors. Their code is pulled from `code/` like every other listing: it is the code the tests pass.\n'
        for s in $sols; do printf "\n<!-- source: %s -->\n\n" "$s"; substitute "$s" || exit 1; done
    fi
} >"$work/book.md"

date=$(git log -1 --format=%cs 2>/dev/null || date +%F)
common="--from=markdown+tex_math_dollars --metadata-file=book/metadata.yaml
  --lua-filter=book/snippets.lua --lua-filter=book/boxes.lua --toc --number-sections
  --top-level-division=chapter --highlight-style=pygments --resource-path=.:chapters:${BUILD:-build}"
case $fmt in
pdf)
    # shellcheck disable=SC2086
    pandoc $common -M "date=$date" -H book/header.tex --pdf-engine=xelatex "$work/book.md" -o "$out" ;;
html)
    # shellcheck disable=SC2086
    pandoc $common -M "date=$date" --standalone --self-contained --mathml -c book/book.css "$work/book.md" -o "$out" ;;
*) echo "book: format $fmt? (pdf or html)" >&2; exit 2 ;;
esac
echo "book: $out"
