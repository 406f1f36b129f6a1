#!/bin/sh
# file-cycles.sh [BUILD] — fail when files under code/ call or include each
# other in a cycle.  Calls come from the built objects (nm: who defines a
# symbol, who uses it), includes from the sources; tsort finds any loop.
# A cycle means two files are one idea split in two, or a layer that
# reaches back up: merge them, or move what both need below both.
set -eu
build=${1:-build}
[ -d "$build/obj/code" ] || { echo "file-cycles: no objects in $build/obj/code (make build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Calls: "user.c definer.c" for every symbol one object uses and another defines.
find "$build/obj/code" -name '*.o' | LC_ALL=C sort | xargs nm -A 2>/dev/null |
awk -v pre="$build/obj/" '
    { file = $1; sub(/:.*/, "", file); sub("^" pre, "", file); sub(/\.o$/, ".c", file) }
    NF == 3 && $2 ~ /^[TDBR]$/ { def[$3] = file }
    NF == 2 && $1 ~ /: *U$|:U$/ { use[file, $2] = 1 }
    $2 == "U" { use[file, $3] = 1 }
    END { for (k in use) { split(k, p, SUBSEP)
              if ((p[2] in def) && def[p[2]] != p[1]) print p[1], def[p[2]] } }' > "$tmp/edges"

# Includes: "file.c header.h", resolved as the compiler does (-Icode/include -Icode).
find code -name '*.[ch]' -o -name '*.def' | LC_ALL=C sort | while read -r f; do
    sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r h; do
        for cand in "$(dirname "$f")/$h" "code/$h" "code/include/$h"; do
            if [ -f "$cand" ]; then echo "$f $cand"; break; fi
        done
    done
done >> "$tmp/edges"

if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loop"; then
    echo "file-cycles: files that depend on each other in a loop (calls or includes):" >&2
    grep -v 'input contains a loop' "$tmp/loop" | sed 's/^tsort: /  /' >&2
    exit 1
fi
echo "file-cycles: $(sort -u "$tmp/edges" | wc -l) dependencies between files under code/, no cycle"
