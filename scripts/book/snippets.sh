#!/bin/sh
# snippets.sh — named regions of the real source, for the book and checks.
#
#   snippets.sh list            every region: KIND NAME FILE FIRST LAST
#   snippets.sh show NAME       FILE FIRST LAST on line 1, then the body
#   snippets.sh check DOC...    every ```{.c snippet=NAME} in DOC exists;
#                               fails naming the document, line and snippet
#   snippets.sh unused DOC...   snippets that no DOC names (exit 1 if any)
#
# Sources: code/ (C, headers, .cl, registry .def), tests/check_*.c, mk/*.mk
# and the Makefile. Run from the repository root.
set -eu
here=$(dirname "$0")

sources() {
    { find code -type f \( -name '*.c' -o -name '*.h' -o -name '*.cl' -o -name '*.def' \) 2>/dev/null
      ls tests/check_*.c mk/*.mk Makefile 2>/dev/null; } | LC_ALL=C sort
}

list() {
    # shellcheck disable=SC2046  # file names in this tree have no spaces
    awk -v mode=list -f "$here/snippets.awk" $(sources)
}

# Snippet names a document asks for, as "LINE NAME".
wanted() {
    awk '/^[ \t]*(```|~~~)/ && /snippet=/ {
        s = $0; sub(/.*snippet=/, "", s); sub(/[ \t}].*/, "", s); gsub(/"/, "", s)
        print FNR, s }' "$1"
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case $cmd in
list)
    list
    ;;
show)
    [ $# -eq 1 ] || { echo "usage: snippets.sh show NAME" >&2; exit 2; }
    hit=$(list | awk -v n="$1" '$1 == "snippet" && $2 == n')
    [ -n "$hit" ] || { echo "snippet $1 not found (no '@snippet $1' marker under code/, tests/, mk/)" >&2; exit 3; }
    [ "$(printf '%s\n' "$hit" | wc -l)" -eq 1 ] || { echo "snippet $1 is defined twice:" >&2; printf '%s\n' "$hit" >&2; exit 3; }
    file=$(echo "$hit" | cut -d' ' -f3)
    echo "$hit" | cut -d' ' -f3-
    awk -v mode=show -v name="$1" -f "$here/snippets.awk" "$file"
    ;;
check)
    # A broken marker is reported, and the check goes on, so that the
    # message also names every snippet a chapter then misses.
    status=0
    all=$(list) || status=1
    dups=$(echo "$all" | awk '$1 == "snippet" { n[$2]++; f[$2] = f[$2] " " $3 } END { for (k in n) if (n[k] > 1) print k ":" f[k] }')
    [ -z "$dups" ] || { echo "snippets defined more than once: $dups" >&2; exit 1; }
    for doc in "$@"; do
        for miss in $(wanted "$doc" | while read -r line name; do
                echo "$all" | awk -v n="$name" '$1 == "snippet" && $2 == n { f = 1 } END { exit !f }' ||
                    echo "$line:$name"
            done); do
            base=$(basename "$doc" .md) kind=chapter
            case $doc in solutions/*) kind=solution ;; esac
            echo "$doc:${miss%%:*}: $kind ${base%%-*}: snippet ${miss#*:} not found (no '@snippet ${miss#*:}' marker in the source)" >&2
            status=1
        done
    done
    [ $status -eq 0 ] && echo "snippets: every snippet named in $# documents exists"
    exit $status
    ;;
unused)
    used=$(for doc in "$@"; do wanted "$doc"; done | awk '{ print $2 }' | sort -u)
    unused=$(list | awk '$1 == "snippet" { print $2, $3 }' | while read -r name file; do
        printf '%s\n' "$used" | grep -qx "$name" || echo "  $name ($file)"
    done)
    [ -z "$unused" ] && { echo "every snippet is used by a document"; exit 0; }
    echo "snippets no chapter or solution uses:"; echo "$unused"
    exit 1
    ;;
*)
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
