#!/bin/sh
# book.sh pdf|html OUT [--solutions] — render the course book with pandoc.
#
# The book's documents, in order (scripts/book/common.sh, book_part): the
# preface and the chapters (chapters/NN-*.md, 00 the preface), the
# appendices (appendices/*.md), with --solutions the answer key
# (solutions/*.md), and the lab notebook (notebook/*.md); a missing part
# is left out. Before pandoc runs, every snippet a document names is
# checked (the message names the file, line and snippet); book/snippets.lua
# then pulls the listings out of the source. scripts/book/assemble.sh puts
# the documents together (numbers, exercise boxes); book/parts.lua makes
# the preface, appendices and notebook what they are.
set -eu
fmt=${1:?usage: book.sh pdf|html OUT [--solutions]}
out=${2:?usage: book.sh pdf|html OUT [--solutions]}
solutions=${3:-}
work=${BUILD:-build}/book
mkdir -p "$work" "$(dirname "$out")"

# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
chapters=$(book_part chapters)
[ -n "$chapters" ] || { echo "book: no chapters/NN-*.md" >&2; exit 1; }
appendices=$(book_part appendices)
notebook=$(book_part notebook)
sols=
if [ "$solutions" = --solutions ]; then
    sols=$(ls solutions/[0-9][0-9]-*.md 2>/dev/null | LC_ALL=C sort)
    [ -n "$sols" ] || { echo "book: SOLUTIONS=1 but there is no solutions/NN-*.md here (a student handout has none)" >&2; exit 1; }
fi
# shellcheck disable=SC2086
docs=$(echo $chapters $appendices $sols $notebook)
# shellcheck disable=SC2086
scripts/book/snippets.sh check $docs
# shellcheck disable=SC2086
scripts/book/figures.sh check $([ "$fmt" = pdf ] || echo --web) $docs

# {{key}} numbers: book-numbers runs once, assemble.sh substitutes them.
numbers=$work/numbers.txt
: >"$numbers"
# BOOK_NUMBERS: the programs that print `key value` lines, one word each
for program in ${BOOK_NUMBERS:-}; do "$program" >>"$numbers"; done
# shellcheck disable=SC2086
NUMBERS=$numbers scripts/book/assemble.sh $chapters $appendices ${sols:+--answer-key $sols} $notebook >"$work/book.md"

date=$(git log -1 --format=%cs 2>/dev/null || date +%F)
common="--from=markdown+tex_math_dollars --metadata-file=book/metadata.yaml
  --lua-filter=book/parts.lua --lua-filter=book/snippets.lua --lua-filter=book/boxes.lua --lua-filter=book/rtl.lua --lua-filter=book/layout.lua --toc --number-sections
  --top-level-division=chapter --highlight-style=pygments --resource-path=.:chapters:${BUILD:-build}"
case $fmt in
pdf)
    # shellcheck disable=SC2086
    pandoc $common -M "date=$date" -H book/header.tex --pdf-engine=xelatex "$work/book.md" -o "$out" ;;
html)
    # shellcheck disable=SC2086
    BOOK_SOURCE_ROOT=$(realpath --relative-to="$(dirname "$out")" .) \
    pandoc $common -M "date=$date" --standalone --self-contained --mathml -c book/book.css \
        --lua-filter=book/png-figures.lua "$work/book.md" -o "$out" ;;
*) echo "book: format $fmt? (pdf or html)" >&2; exit 2 ;;
esac
echo "book: $out"
