#!/bin/sh
# snippet-removed.sh — in a scratch copy of the tree, delete the marker of
# one snippet a chapter uses; the book's snippet check must then fail and
# name that snippet and the chapter. Run from the repository root.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/normlab-snip.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
cp -R code chapters scripts "$tmp"/
mkdir -p "$tmp/tests" "$tmp/mk"; cp tests/check_*.c "$tmp/tests/" 2>/dev/null; cp Makefile "$tmp/"
cd "$tmp" || exit 2
# The first snippet named by the first chapter that names one.
for ch in chapters/[0-9][0-9]-*.md; do
    name=$(sed -n 's/^[ \t]*```.*snippet=\([A-Za-z0-9_.-]*\).*/\1/p' "$ch" | head -n1)
    [ -n "$name" ] && break
done
[ -n "${name:-}" ] || { echo "no chapter names a snippet"; exit 0; }
file=$(scripts/book/snippets.sh list | awk -v n="$name" '$1 == "snippet" && $2 == n { print $3 }')
[ -n "$file" ] || { echo "snippet $name is missing before the test removed it"; exit 1; }
sed -i "/@snippet $name\$/d" "$file"
out=$(scripts/book/snippets.sh check chapters/*.md 2>&1) && { echo "check passed without '@snippet $name'"; exit 1; }
echo "$out" | grep -q "snippet $name not found" || { echo "message does not name $name: $out"; exit 1; }
echo "$out" | grep -q "chapter ${ch#chapters/}" ||
    echo "$out" | grep -q "chapter $(basename "$ch" | cut -c1-2)" || { echo "message does not name the chapter: $out"; exit 1; }
echo "ok: removing '@snippet $name' from $file fails with: $(echo "$out" | grep "$name" | head -n1)"
