#!/bin/sh
# figures.sh names|check|missing — the figures the course's documents show
# (`![caption](fig-bench.pdf)`), for the book and the web edition.
#
#   names         every figure drawn at build time (fig-NAME.EXT) that a
#                 document shows, one a line: mk/book.mk makes each before
#                 pandoc runs, by the rule that draws it
#   check [--web] DOC...
#                 every figure DOC shows is there (fig-NAME.EXT in $BUILD,
#                 any other beside DOC or from the root; --web: the PNG a
#                 web page shows for fig-NAME.pdf); fails naming the
#                 document and line of each that is not
#   missing FILE  mk/book.mk's last resort for FILE ($BUILD/fig-NAME.EXT)
#                 when no rule draws it: fine if FILE is there (another
#                 rule drew it beside its twin), else fails naming each
#                 document and line that shows it
#
# The documents: the preface, chapters, appendices and notebook, the
# exercises' READMEs and the solutions. Run from the repository root.
set -eu
build=${BUILD:-build}
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

docs() {
    { book_part chapters; book_part appendices; book_part notebook
      ls exercises/*/README.md solutions/*.md 2>/dev/null; } | awk 'NF'
}

# "DOC LINE TARGET" for each figure DOC shows.
refs() {
    [ $# -gt 0 ] || return 0
    awk '{ s = $0
           while (match(s, /\]\([^) ]+\.(pdf|png|svg|jpe?g|gif)\)/)) {
               print FILENAME, FNR, substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) } }' "$@"
}

drawn() { case $(basename "$1") in fig-*) return 0 ;; esac; return 1; }

cmd=${1:-}; [ $# -gt 0 ] && shift
case $cmd in
names)
    # shellcheck disable=SC2046  # file names in this tree have no spaces
    refs $(docs) | while read -r doc line target; do
        drawn "$target" && basename "$target"; done | LC_ALL=C sort -u
    ;;
check)
    web=0
    [ "${1:-}" != --web ] || { web=1; shift; }
    status=0
    refs "$@" >"${TMPDIR:-/tmp}/figures.$$" || status=1
    while read -r doc line target; do
        if drawn "$target"; then
            file=$(basename "$target")
            case $web$file in 1*.pdf) file=${file%.pdf}.png ;; esac
            [ -f "$build/$file" ] && continue
            target=$file
            echo "$doc:$line: figure $target is not in $build/ (its make rule draws it: make book or make web makes it first)" >&2
        else
            [ -f "$(dirname "$doc")/$target" ] || [ -f "$target" ] && continue
            echo "$doc:$line: figure $target not found (beside $doc or from the repository root)" >&2
        fi
        status=1
    done <"${TMPDIR:-/tmp}/figures.$$"
    rm -f "${TMPDIR:-/tmp}/figures.$$"
    exit $status
    ;;
missing)
    [ $# -eq 1 ] || { echo "usage: figures.sh missing BUILD/fig-NAME.EXT" >&2; exit 2; }
    [ -f "$1" ] && exit 0
    # the PDF's rule waits for its PNG: a document may show either
    stem=$(basename "$1"); stem=${stem%.*}
    # shellcheck disable=SC2046
    refs $(docs) | awk -v n="$stem" -v f="$1" '{ t = $3; sub(/.*\//, "", t); sub(/\.[^.]*$/, "", t) }
        t == n { printf "%s:%s: figure %s: no make rule draws %s (a figure drawn at build time has its rule in mk/*.mk)\n", $1, $2, $3, f; found = 1 }
        END { if (!found) printf "%s: no make rule draws it\n", f }' >&2
    exit 1
    ;;
*)
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
