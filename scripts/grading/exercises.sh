#!/bin/sh
# exercises.sh — exercise starters, generated from the marked regions of
# the real source (CONTRIBUTING.md: `@exercise NN-slug` ... `@end`).
#
#   exercises.sh list [CODE]          "ID FILE" for every source file with a region
#   exercises.sh generate [OUT [CODE]] write OUT/ID/<basename> for each (default
#                                     OUT=exercises, CODE=code); README.md and
#                                     exercise.conf are written by hand, not here
#   exercises.sh check [OUT [CODE]]   exit 1, naming the files, when OUT is stale:
#                                     a starter differs from what generate writes,
#                                     is missing, or has no region left in CODE
#   exercises.sh handout FILE         FILE with each region's body replaced by
#                                     the TODO and stub, markers kept
set -eu
here=$(dirname "$0")

list() {
    l_code=${1:-code}
    # shellcheck disable=SC2046
    files=$(find "$l_code" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cl' \) | LC_ALL=C sort)
    [ -n "$files" ] || return 0
    # shellcheck disable=SC2086
    awk -v mode=list -f "$here/../book/snippets.awk" $files |
        awk '$1 == "exercise" { print $2, $3 }' | sort -u |
        awk '{ n[$2]++; if (n[$2] == 2) { printf "%s belongs to more than one exercise\n", $2 > "/dev/stderr"; bad = 1 } print }
             END { exit bad }'
}

generate() {
    g_out=$1 g_code=$2
    pairs=$(list "$g_code") || exit 1
    printf '%s\n' "$pairs" | awk 'NF { split($2, p, "/"); b = p[length(p)]; k = $1 "/" b
        if (k in seen) { printf "exercise %s: %s and %s share the name %s\n", $1, seen[k], $2, b > "/dev/stderr"; bad = 1 }
        seen[k] = $2 } END { exit bad }' || exit 1
    printf '%s\n' "$pairs" | while read -r id file; do
        [ -n "$id" ] || continue
        mkdir -p "$g_out/$id"
        new=$g_out/$id/$(basename "$file")
        awk -v mode=starter -f "$here/../book/snippets.awk" "$file" > "$new.tmp"
        # `make exercises` must not eat a student's work: a starter that
        # differs from both the new one and the committed one was edited.
        if [ -n "${PROTECT_EDITS:-}" ] && [ -f "$new" ] && ! cmp -s "$new" "$new.tmp" &&
           ! { git cat-file -e "HEAD:$new" 2>/dev/null && git show "HEAD:$new" | cmp -s "$new" -; }; then
            echo "exercises: $new has edits of yours; kept it (FORCE=1 overwrites)" >&2
            rm -f "$new.tmp"; continue
        fi
        mv "$new.tmp" "$new"
    done
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case $cmd in
list) list "${1:-code}" ;;
generate) generate "${1:-exercises}" "${2:-code}" ;;
handout)
    [ $# -eq 1 ] || { echo "usage: exercises.sh handout FILE" >&2; exit 2; }
    awk -v mode=handout -f "$here/../book/snippets.awk" "$1" ;;
check)
    out=${1:-exercises} code=${2:-code}
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    generate "$tmp" "$code"
    status=0
    for f in $(cd "$tmp" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); do
        if [ ! -f "$out/$f" ]; then
            echo "stale: $out/$f is missing (run: make exercises)"; status=1
        elif ! cmp -s "$tmp/$f" "$out/$f"; then
            # A student's edits are not staleness: what must match the
            # source is the starter git has, when there is one.
            if git cat-file -e "HEAD:$out/$f" 2>/dev/null &&
               git show "HEAD:$out/$f" | cmp -s "$tmp/$f" -; then
                echo "note: $out/$f is edited here; the committed starter is current"
                continue
            fi
            if ! git rev-parse --git-dir >/dev/null 2>&1; then
                echo "note: $out/$f differs from the source region; without git history an edit cannot be told from staleness"
                continue
            fi
            echo "stale: $out/$f differs from its source region (run: make exercises)"
            diff -u "$out/$f" "$tmp/$f" | sed -n '1,20p' | sed 's/^/    /'
            status=1
        fi
        d=$(dirname "$f")
        [ -f "$out/$d/exercise.conf" ] || { echo "missing: $out/$d/exercise.conf (title, chapter, suite, impls, points)"; status=1; }
        [ -f "$out/$d/README.md" ] || { echo "missing: $out/$d/README.md"; status=1; }
    done
    # A starter whose region was removed from the source is stale too.
    for f in $(find "$out" -mindepth 2 -maxdepth 2 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cl' \) 2>/dev/null | LC_ALL=C sort); do
        rel=${f#"$out"/}
        [ -f "$tmp/$rel" ] || { echo "stale: $f has no @exercise region in $code/ any more"; status=1; }
    done
    [ $status -eq 0 ] && echo "exercises: starters match the source"
    exit $status ;;
*) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
