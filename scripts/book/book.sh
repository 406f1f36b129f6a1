#!/bin/sh
# book.sh pdf|html OUT [--solutions] — render the course book with pandoc.
#
# Chapters are chapters/NN-*.md in order. Before pandoc runs, every snippet
# a chapter names is checked (the message names the file, line, chapter and
# snippet); book/snippets.lua then pulls the listings out of the source.
# scripts/book/assemble.sh puts the chapters together (numbers, exercise
# boxes); --solutions appends solutions/*.md as an "Answer key" appendix.
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

# {{key}} numbers: book-numbers runs once, assemble.sh substitutes them.
numbers=$work/numbers.txt
: >"$numbers"
# BOOK_NUMBERS: the programs that print `key value` lines, one word each
for program in ${BOOK_NUMBERS:-}; do "$program" >>"$numbers"; done
if [ "$solutions" = --solutions ]; then
    # shellcheck disable=SC2086
    NUMBERS=$numbers scripts/book/assemble.sh $chapters --answer-key $sols >"$work/book.md"
else
    # shellcheck disable=SC2086
    NUMBERS=$numbers scripts/book/assemble.sh $chapters >"$work/book.md"
fi

date=$(git log -1 --format=%cs 2>/dev/null || date +%F)
common="--from=markdown+tex_math_dollars --metadata-file=book/metadata.yaml
  --lua-filter=book/snippets.lua --lua-filter=book/boxes.lua --lua-filter=book/layout.lua --toc --number-sections
  --top-level-division=chapter --highlight-style=pygments --resource-path=.:chapters:${BUILD:-build}"
case $fmt in
pdf)
    # shellcheck disable=SC2086
    pandoc $common -M "date=$date" -H book/header.tex --pdf-engine=xelatex "$work/book.md" -o "$out" ;;
html)
    # shellcheck disable=SC2086
    BOOK_SOURCE_ROOT=$(realpath --relative-to="$(dirname "$out")" .) \
    pandoc $common -M "date=$date" --standalone --self-contained --mathml -c book/book.css "$work/book.md" -o "$out" ;;
*) echo "book: format $fmt? (pdf or html)" >&2; exit 2 ;;
esac
echo "book: $out"
