#!/bin/sh
# assemble.sh DOC... [--answer-key SOLUTION...] — the Markdown pandoc reads
# for the book (scripts/book/book.sh: every chapter at once) and for the
# web edition (scripts/web/web.sh: one page at a time), on stdout.
#
# Each document is preceded by `<!-- source: FILE -->`, so that
# book/snippets.lua can name it in its messages and book/parts.lua can
# tell the preface, chapters, appendices and notebook apart. The line
# under a chapter's title for readers on GitHub (github-line in
# book/prose-rules.txt) is dropped. {{key}} becomes the value
# that book-numbers printed for key (read from the file $NUMBERS; an
# unknown key stops, naming the document and line). Each chapter is
# followed by a box listing its exercises, read from
# exercises/*/exercise.conf (chapter = N) and the Goal of each README.
# --answer-key puts the solutions after it under one "Answer key" heading.
set -eu
numbers=${NUMBERS:-/dev/null}

# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

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

substitute() {
    awk -v doc="$1" -v github="$github" 'FILENAME == ARGV[1] { val[$1] = $2; next }
        github != "" && $0 == github { next }
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

github=$(github_line)
key=0
for doc in "$@"; do
    if [ "$doc" = --answer-key ]; then
        key=1
        printf '\n<!-- answer-key -->\n\n# Answer key {#answer-key}\n\n'
        printf 'Worked answers to the exercises, for instructors. Their code is pulled from `code/` like every other listing: it is the code the tests pass.\n'
        continue
    fi
    printf '\n<!-- source: %s -->\n\n' "$doc"
    substitute "$doc" || { echo "book: $doc uses a number nobody computes" >&2; exit 1; }
    case $doc in
        chapters/*) [ $key = 1 ] || exercise_box "$(basename "$doc" | sed 's/-.*//; s/^0*//')" ;;
    esac
done
